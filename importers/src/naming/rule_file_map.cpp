// Name maps read from a user's rule file (YAML, or JSON, which yaml-cpp reads too).
#include <yaml-cpp/yaml.h>

#include <regex>

#include "parity/core/error.hpp"
#include "parity/importers/naming/name_map.hpp"

namespace parity::importers {
namespace {

struct Rule {
  std::string from_text;
  std::regex from;
  std::string to;
};

std::regex compile(const std::string& pattern, const std::string& where) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& error) {
    throw Error("bad regular expression '" + pattern + "': " + error.what(), where,
                "rules use ECMAScript regex syntax; escape dots as \\\\.");
  }
}

std::string scalar(const YAML::Node& node, const std::string& where) {
  if (!node || !node.IsScalar())
    throw Error("expected a string", where, "write the pattern in quotes");
  return node.as<std::string>();
}

class RuleFileMap final : public NameMap {
 public:
  RuleFileMap(std::string path, std::vector<Rule> rules, std::vector<std::regex> no_counterpart)
      : path_(std::move(path)),
        rules_(std::move(rules)),
        no_counterpart_(std::move(no_counterpart)) {}

  std::string description() const override { return path_; }

  std::vector<MappedName> apply(const std::vector<std::string>& names) const override {
    std::vector<MappedName> out;
    out.reserve(names.size());
    for (std::string name : names) {
      for (const Rule& rule : rules_) name = std::regex_replace(name, rule.from, rule.to);
      if (is_lonely(name))
        out.push_back(
            {MappedName::Kind::kNoCounterpart, "listed under no_counterpart in " + path_});
      else
        out.push_back({MappedName::Kind::kMapped, std::move(name)});
    }
    return out;
  }

  std::vector<std::optional<std::string>> lonely_in_b(
      const std::vector<std::string>& names) const override {
    std::vector<std::optional<std::string>> out(names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
      if (is_lonely(names[i])) out[i] = "listed under no_counterpart in " + path_;
    return out;
  }

 private:
  bool is_lonely(const std::string& name) const {
    for (const std::regex& pattern : no_counterpart_)
      if (std::regex_search(name, pattern)) return true;
    return false;
  }

  std::string path_;
  std::vector<Rule> rules_;
  std::vector<std::regex> no_counterpart_;
};

}  // namespace

std::unique_ptr<NameMap> load_rule_file(const std::filesystem::path& path) {
  const std::string file = path.string();
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw Error("cannot open the rule file", file, "check the path given to --map");
  } catch (const YAML::Exception& error) {
    throw Error("the rule file is not valid YAML or JSON: " + error.msg,
                file + ":" + std::to_string(error.mark.line + 1));
  }
  if (!root.IsMap())
    throw Error("a rule file is a mapping with 'rules' and 'no_counterpart'", file,
                "see docs/diff.md for an example");
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (key != "rules" && key != "no_counterpart")
      throw Error("unknown key '" + key + "'", file, "the keys are: rules, no_counterpart");
  }
  std::vector<Rule> rules;
  if (const YAML::Node list = root["rules"]) {
    if (!list.IsSequence()) throw Error("'rules' must be a list", file);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string where = file + ": rules[" + std::to_string(i) + "]";
      const YAML::Node rule = list[i];
      if (!rule.IsMap() || !rule["from"] || !rule["to"] || rule.size() != 2)
        throw Error("a rule is {from: REGEX, to: REPLACEMENT}", where);
      const std::string from = scalar(rule["from"], where + ".from");
      rules.push_back({from, compile(from, where), scalar(rule["to"], where + ".to")});
    }
  }
  std::vector<std::regex> no_counterpart;
  if (const YAML::Node list = root["no_counterpart"]) {
    if (!list.IsSequence()) throw Error("'no_counterpart' must be a list of regexes", file);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string where = file + ": no_counterpart[" + std::to_string(i) + "]";
      no_counterpart.push_back(compile(scalar(list[i], where), where));
    }
  }
  return std::make_unique<RuleFileMap>(file, std::move(rules), std::move(no_counterpart));
}

std::unique_ptr<NameMap> make_name_map(const std::string& spec) {
  if (auto builtin = make_builtin_map(spec)) return builtin;
  if (std::filesystem::exists(spec)) return load_rule_file(spec);
  std::string names;
  for (const std::string& name : builtin_map_names()) names += (names.empty() ? "" : ", ") + name;
  throw Error("'" + spec + "' is neither a built-in name map nor a rule file", "--map",
              "built-in maps: auto, " + names + "; or the path of a YAML/JSON rule file");
}

}  // namespace parity::importers
