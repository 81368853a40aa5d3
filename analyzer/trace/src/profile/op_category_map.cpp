#include "parity/analyzer/profile/op_category_map.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "parity/core/error.hpp"

namespace parity::analyzer {

std::string_view builtin_op_category_text();  // default_op_categories.cpp (generated)

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// `*` any run of characters, `?` one; `glob` is lower-cased. Backtracks to
// the last star only, which is enough for a glob (no alternation).
bool glob_matches(std::string_view glob, std::string_view name) {
  std::size_t g = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (g < glob.size() && (glob[g] == '?' || glob[g] == lower(name[n]))) {
      ++g;
      ++n;
    } else if (g < glob.size() && glob[g] == '*') {
      star = g++;
      resume = n;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

std::string where_of(const std::string& source, const YAML::Node& node) {
  return source + ":" + std::to_string(node.Mark().line + 1);
}

const char* const kMapHint = "see docs/op-categories.md for the format and an example";

void check_keys(const YAML::Node& node, const std::vector<std::string>& keys,
                const std::string& source, const std::string& what) {
  if (!node.IsMap()) throw Error(what + " must be a mapping", where_of(source, node), kMapHint);
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      std::string known;
      for (const std::string& k : keys) known += (known.empty() ? "" : ", ") + k;
      throw Error("unknown key '" + key + "' in " + what, where_of(source, entry.first),
                  "the keys are: " + known);
    }
  }
}

std::vector<NamePattern> patterns_of(const YAML::Node& list, const std::string& source,
                                     const std::string& what) {
  if (!list.IsSequence() || list.size() == 0)
    throw Error(what + " must be a non-empty list of patterns", where_of(source, list), kMapHint);
  std::vector<NamePattern> patterns;
  for (const YAML::Node& item : list) {
    if (!item.IsScalar() || item.Scalar().empty())
      throw Error("a pattern must be a non-empty string", where_of(source, item),
                  "quote patterns that start with * or hold ': '");
    patterns.emplace_back(item.Scalar(), where_of(source, item));
  }
  return patterns;
}

bool flag_of(const YAML::Node& node, const std::string& source, const std::string& key) {
  try {
    return node.as<bool>();
  } catch (const YAML::Exception&) {
    throw Error(key + " must be true or false", where_of(source, node), kMapHint);
  }
}

OpCategory category_of_node(const YAML::Node& node, const std::string& source) {
  check_keys(node, {"name", "claims_nested", "patterns"}, source, "a category");
  if (!node["name"] || !node["name"].IsScalar() || node["name"].Scalar().empty())
    throw Error("a category needs a name", where_of(source, node), kMapHint);
  if (!node["patterns"])
    throw Error("category '" + node["name"].Scalar() + "' has no patterns", where_of(source, node),
                kMapHint);
  OpCategory category;
  category.name = node["name"].Scalar();
  if (const YAML::Node claims = node["claims_nested"]) {
    category.claims_nested = flag_of(claims, source, "claims_nested");
    category.claims_nested_given = true;
  }
  category.patterns = patterns_of(node["patterns"], source, "patterns of '" + category.name + "'");
  return category;
}

template <typename T>
void prepend(std::vector<T>& to, const std::vector<T>& items) {
  to.insert(to.begin(), items.begin(), items.end());
}

}  // namespace

NamePattern::NamePattern(std::string text, const std::string& where) : text_(std::move(text)) {
  if (text_.starts_with("re:")) {
    try {
      regex_.emplace(text_.substr(3), std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& error) {
      throw Error("bad regular expression '" + text_.substr(3) + "': " + error.what(), where,
                  "patterns after re: use ECMAScript regex syntax");
    }
    return;
  }
  glob_ = text_;
  std::transform(glob_.begin(), glob_.end(), glob_.begin(), lower);
}

bool NamePattern::matches(std::string_view name) const {
  if (regex_) return std::regex_search(name.begin(), name.end(), *regex_);
  return glob_matches(glob_, name);
}

OpCategoryMap OpCategoryMap::parse(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw Error("the op-category map is not valid YAML: " + error.msg,
                source + ":" + std::to_string(error.mark.line + 1), kMapHint);
  }
  if (!root.IsMap())
    throw Error("an op-category map is a mapping with 'categories' and 'phases'", source, kMapHint);
  check_keys(root, {"builtin", "categories", "phases"}, source, "the map");
  OpCategoryMap map;
  map.description_ = source;
  if (const YAML::Node builtin = root["builtin"])
    map.uses_builtin_ = flag_of(builtin, source, "builtin");
  if (const YAML::Node list = root["categories"]) {
    if (!list.IsSequence())
      throw Error("'categories' must be a list", where_of(source, list), kMapHint);
    for (const YAML::Node& node : list) map.categories_.push_back(category_of_node(node, source));
  }
  if (const YAML::Node phases = root["phases"]) {
    check_keys(phases, {"forward", "backward"}, source, "'phases'");
    if (phases["backward"]) map.backward_ = patterns_of(phases["backward"], source, "backward");
    if (phases["forward"]) map.forward_ = patterns_of(phases["forward"], source, "forward");
  }
  return map;
}

std::string_view OpCategoryMap::builtin_text() { return builtin_op_category_text(); }

OpCategoryMap OpCategoryMap::builtin() {
  static const OpCategoryMap map = [] {
    OpCategoryMap parsed = parse(std::string(builtin_text()), "built-in op-category map");
    parsed.description_ = "built-in";
    return parsed;
  }();
  return map;
}

OpCategoryMap OpCategoryMap::with_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open the op-category map", path.string(),
                "check the path given to --op-map");
  std::stringstream text;
  text << in.rdbuf();
  const OpCategoryMap user = parse(text.str(), path.string());
  if (!user.uses_builtin_) return user;
  OpCategoryMap map = builtin();
  map.extend_with(user);
  return map;
}

void OpCategoryMap::extend_with(const OpCategoryMap& user) {
  std::vector<OpCategory> added;
  for (const OpCategory& category : user.categories_) {
    const auto same = std::find_if(categories_.begin(), categories_.end(),
                                   [&](const OpCategory& c) { return c.name == category.name; });
    if (same == categories_.end()) {
      added.push_back(category);
      continue;
    }
    prepend(same->patterns, category.patterns);
    if (category.claims_nested_given) same->claims_nested = category.claims_nested;
  }
  prepend(categories_, added);
  prepend(backward_, user.backward_);
  prepend(forward_, user.forward_);
  description_ += " + " + user.description_;
}

std::optional<std::size_t> OpCategoryMap::category_of(std::string_view name) const {
  for (std::size_t i = 0; i < categories_.size(); ++i)
    for (const NamePattern& pattern : categories_[i].patterns)
      if (pattern.matches(name)) return i;
  return std::nullopt;
}

OpPhase OpCategoryMap::phase_of(std::string_view name) const {
  const auto any = [&](const std::vector<NamePattern>& patterns) {
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const NamePattern& p) { return p.matches(name); });
  };
  if (any(backward_)) return OpPhase::kBackward;
  if (any(forward_)) return OpPhase::kForward;
  return OpPhase::kUnknown;
}

}  // namespace parity::analyzer
