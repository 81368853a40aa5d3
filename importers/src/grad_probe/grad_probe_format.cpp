#include "parity/importers/grad_probe/grad_probe_format.hpp"

#include <nlohmann/json.hpp>

#include "parity/core/error.hpp"
#include "parity/importers/grad_probe/sign_bits.hpp"

namespace parity::importers {
namespace {

using json = nlohmann::ordered_json;

Error header_error(std::string what, const std::string& where) {
  return Error(std::move(what), where,
               "a gradient-sign probe is described in docs/formats/grad-probe.md");
}

const json& field(const json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end())
    throw header_error(std::string("the field '") + key + "' is missing", where);
  return *it;
}

std::string string_field(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_string())
    throw header_error(std::string("the field '") + key + "' is not a string", where);
  return value.get<std::string>();
}

std::int64_t integer_field(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_number_integer())
    throw header_error(std::string("the field '") + key + "' is not an integer", where);
  return value.get<std::int64_t>();
}

std::vector<std::int64_t> shape_field(const json& object, const std::string& where) {
  const json& value = field(object, "shape", where);
  if (!value.is_array()) throw header_error("the field 'shape' is not a list", where);
  std::vector<std::int64_t> shape;
  for (const json& dim : value) {
    if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0)
      throw header_error("the field 'shape' holds something other than a size", where);
    shape.push_back(dim.get<std::int64_t>());
  }
  return shape;
}

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (const std::int64_t dim : shape) count *= dim;
  return count;
}

}  // namespace

GradProbeHeader lay_out_grad_probe(
    std::string producer, std::string model,
    const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& parameters) {
  GradProbeHeader header{std::move(producer), std::move(model), {}, kGradProbeRecordHeaderBytes};
  for (const auto& [name, shape] : parameters) {
    ProbedParameter parameter{name, shape, element_count(shape), header.record_bytes, 0};
    parameter.bytes = 8 * sign_words(parameter.elements);
    header.record_bytes += parameter.bytes;
    header.parameters.push_back(std::move(parameter));
  }
  return header;
}

// One line per parameter, so that the file reads as a table.
std::string grad_probe_header_json(const GradProbeHeader& header) {
  const json top{{"format", kGradProbeFormat},
                 {"version", kGradProbeVersion},
                 {"producer", header.producer},
                 {"model", header.model},
                 {"sign", "bit 1 where the gradient element is > 0, 0 where it is <= 0 or NaN"},
                 {"bit_order", "little"},
                 {"record_bytes", header.record_bytes}};
  std::string text = top.dump();
  text.pop_back();  // the closing brace
  text += ",\n\"parameters\": [";
  for (std::size_t i = 0; i < header.parameters.size(); ++i) {
    const ProbedParameter& p = header.parameters[i];
    text += (i ? ",\n " : "\n ") + json{{"name", p.name},
                                         {"shape", p.shape},
                                         {"elements", p.elements},
                                         {"offset", p.offset},
                                         {"bytes", p.bytes}}
                                       .dump();
  }
  return text + "\n]}\n";
}

GradProbeHeader parse_grad_probe_header(std::string_view text, const std::string& where) {
  const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object())
    throw header_error("not a JSON object", where);
  if (string_field(document, "format", where) != kGradProbeFormat)
    throw header_error("the format is not " + std::string(kGradProbeFormat), where);
  if (const std::int64_t version = integer_field(document, "version", where);
      version != kGradProbeVersion)
    throw header_error("version " + std::to_string(version) + " is not supported (this build reads " +
                           std::to_string(kGradProbeVersion) + ")",
                       where);
  if (const auto order = string_field(document, "bit_order", where); order != "little")
    throw header_error("bit_order '" + order + "' is not supported (this build reads little)", where);
  const json& list = field(document, "parameters", where);
  if (!list.is_array() || list.empty())
    throw header_error("the field 'parameters' is not a list of at least one parameter", where);
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> named;
  std::vector<const json*> given;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + ", parameters[" + std::to_string(i) + "]";
    if (!list[i].is_object()) throw header_error("not a JSON object", at);
    std::string name = string_field(list[i], "name", at);
    for (const auto& earlier : named)
      if (earlier.first == name) throw header_error("the parameter " + name + " is listed twice", at);
    named.emplace_back(std::move(name), shape_field(list[i], at));
    given.push_back(&list[i]);
  }
  // The layout is implied by the names and shapes; a header that says
  // otherwise was written by something that packs differently.
  GradProbeHeader header = lay_out_grad_probe(string_field(document, "producer", where),
                                              string_field(document, "model", where), named);
  for (std::size_t i = 0; i < given.size(); ++i) {
    const ProbedParameter& p = header.parameters[i];
    const std::string at = where + ", parameter " + p.name;
    if (integer_field(*given[i], "elements", at) != p.elements ||
        integer_field(*given[i], "offset", at) != p.offset ||
        integer_field(*given[i], "bytes", at) != p.bytes)
      throw header_error("elements, offset or bytes differ from the layout its shape implies (" +
                             std::to_string(p.elements) + " elements at offset " +
                             std::to_string(p.offset) + ", " + std::to_string(p.bytes) + " bytes)",
                         at);
  }
  if (integer_field(document, "record_bytes", where) != header.record_bytes)
    throw header_error("record_bytes is not " + std::to_string(header.record_bytes) +
                           ", the size its parameters imply",
                       where);
  return header;
}

}  // namespace parity::importers
