#include "parity/trainer/debug/grad_sign_probe.hpp"

#include <fnmatch.h>

#include "parity/core/error.hpp"
#include "parity/core/version.hpp"
#include "parity/importers/grad_probe/sign_bits.hpp"

namespace parity::trainer {
namespace {

bool matches(const std::string& glob, const std::string& name) {
  return ::fnmatch(glob.c_str(), name.c_str(), 0) == 0;
}

std::vector<std::size_t> choose(const std::vector<std::string>& globs, const ModelState& state) {
  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < state.parameters.size(); ++i)
    for (const std::string& glob : globs)
      if (matches(glob, state.parameters[i].name)) {
        chosen.push_back(i);
        break;
      }
  for (const std::string& glob : globs) {
    bool used = false;
    for (const std::size_t i : chosen) used = used || matches(glob, state.parameters[i].name);
    if (!used) {
      std::string some;
      for (std::size_t i = 0; i < std::min<std::size_t>(4, state.parameters.size()); ++i)
        some += state.parameters[i].name + ", ";
      throw Error("'" + glob + "' matches no parameter of the model", "--probe-grads",
                  "globs match parameter names (" + some + "...); or give all");
    }
  }
  return chosen;
}

std::vector<std::pair<std::string, std::vector<std::int64_t>>> layout(
    const std::vector<std::size_t>& chosen, const ModelState& state) {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> parameters;
  for (const std::size_t i : chosen)
    parameters.emplace_back(state.parameters[i].name, state.parameters[i].shape);
  return parameters;
}

}  // namespace

std::vector<std::string> GradProbeOptions::parse_globs(std::string_view text) {
  if (text == "all") return {"*"};
  std::vector<std::string> globs;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view glob = text.substr(start, comma - start);
    if (glob.empty())
      throw Error("'" + std::string(text) + "' holds an empty glob", "--probe-grads",
                  "give all, or a comma list of parameter-name globs: layer4.*.weight,fc.weight");
    globs.emplace_back(glob);
    start = comma + 1;
  }
  return globs;
}

GradSignProbe::GradSignProbe(Backend& backend, const GradProbeOptions& options,
                             const ModelState& state)
    : backend_(backend),
      chosen_(choose(options.globs, state)),
      writer_(options.dir, importers::lay_out_grad_probe(std::string("parity-train ") + kVersion,
                                                         options.model, layout(chosen_, state))) {}

void GradSignProbe::gradients_ready(const ModelState& state) {
  for (std::size_t k = 0; k < chosen_.size(); ++k) {
    const Tensor& grad = state.parameters[chosen_[k]].tensors->grad;
    const std::span<std::uint64_t> words = writer_.parameter_words(k);
    if (backend_.pack_signs(grad, words)) continue;
    const auto count = static_cast<std::size_t>(grad.element_count());
    if (host_.size() < count) host_.resize(count);
    const std::span<float> values(host_.data(), count);
    backend_.copy_to_host(grad, values);
    importers::pack_signs(values, words);
  }
  writer_.write_step(step_);
}

}  // namespace parity::trainer
