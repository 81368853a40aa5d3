// The built-in torchvision <-> MindSpore name maps (the seed documents' table:
// gamma/beta/moving_mean/moving_variance are weight/bias/running_mean/
// running_var; MindSpore has no num_batches_tracked) and the model_zoo ResNet
// module names (down_sample_layer for downsample, end_point for fc).
#include <array>
#include <set>

#include "parity/importers/naming/name_map.hpp"

namespace parity::importers {
namespace {

struct LeafPair {
  std::string_view torch, mindspore;
};
constexpr std::array<LeafPair, 4> kBatchNormLeaves{{{"weight", "gamma"},
                                                    {"bias", "beta"},
                                                    {"running_mean", "moving_mean"},
                                                    {"running_var", "moving_variance"}}};

constexpr std::string_view kNoBatchCounter =
    "MindSpore's BatchNorm keeps no batch counter (its optimizer's global_step plays that part)";

struct Split {
  std::string module, leaf;  // "layer1.0.bn1", "weight"; module is "" for a top-level name
};

Split split_name(const std::string& name) {
  const auto dot = name.rfind('.');
  if (dot == std::string::npos) return {"", name};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

std::string join(const std::string& module, std::string_view leaf) {
  return module.empty() ? std::string(leaf) : module + "." + std::string(leaf);
}

// Replaces every whole dotted component `from` of `path` with `to`.
std::string replace_component(const std::string& path, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto dot = path.find('.', start);
    const auto end = dot == std::string::npos ? path.size() : dot;
    const std::string_view part(path.data() + start, end - start);
    if (!out.empty() || start > 0) out += '.';
    out += part == from ? to : part;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

// model_zoo's module names: the first component `fc` is `end_point`, every
// `downsample` component is `down_sample_layer`.
std::string module_to_modelzoo(std::string module) {
  module = replace_component(module, "downsample", "down_sample_layer");
  if (module == "fc" || module.starts_with("fc.")) module = "end_point" + module.substr(2);
  return module;
}

std::string module_from_modelzoo(std::string module) {
  module = replace_component(module, "down_sample_layer", "downsample");
  if (module == "end_point" || module.starts_with("end_point.")) module = "fc" + module.substr(9);
  return module;
}

class TorchToMindspore final : public NameMap {
 public:
  explicit TorchToMindspore(bool modelzoo) : modelzoo_(modelzoo) {}
  std::vector<std::optional<std::string>> lonely_in_b(
      const std::vector<std::string>& names) const override {
    return std::vector<std::optional<std::string>>(names.size());
  }
  std::string description() const override {
    return modelzoo_ ? "torch-to-modelzoo" : "torch-to-mindspore";
  }

  std::vector<MappedName> apply(const std::vector<std::string>& names) const override {
    // A module with running statistics is a batch norm: only there are
    // weight and bias MindSpore's gamma and beta.
    std::set<std::string> batch_norms;
    for (const std::string& name : names) {
      const Split split = split_name(name);
      if (split.leaf == "running_mean" || split.leaf == "running_var")
        batch_norms.insert(split.module);
    }
    std::vector<MappedName> out;
    out.reserve(names.size());
    for (const std::string& name : names) {
      const Split split = split_name(name);
      const bool is_batch_norm = batch_norms.contains(split.module);
      if (is_batch_norm && split.leaf == "num_batches_tracked") {
        out.push_back({MappedName::Kind::kNoCounterpart, std::string(kNoBatchCounter)});
        continue;
      }
      std::string_view leaf = split.leaf;
      if (is_batch_norm)
        for (const LeafPair& pair : kBatchNormLeaves)
          if (leaf == pair.torch) leaf = pair.mindspore;
      out.push_back({MappedName::Kind::kMapped,
                     join(modelzoo_ ? module_to_modelzoo(split.module) : split.module, leaf)});
    }
    return out;
  }

 private:
  bool modelzoo_;
};

class MindsporeToTorch final : public NameMap {
 public:
  explicit MindsporeToTorch(bool modelzoo) : modelzoo_(modelzoo) {}
  std::vector<std::optional<std::string>> lonely_in_b(
      const std::vector<std::string>& names) const override {
    std::vector<std::optional<std::string>> out(names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
      if (split_name(names[i]).leaf == "num_batches_tracked") out[i] = std::string(kNoBatchCounter);
    return out;
  }
  std::string description() const override {
    return modelzoo_ ? "modelzoo-to-torch" : "mindspore-to-torch";
  }

  std::vector<MappedName> apply(const std::vector<std::string>& names) const override {
    std::vector<MappedName> out;
    out.reserve(names.size());
    for (const std::string& name : names) {
      const Split split = split_name(name);
      std::string_view leaf = split.leaf;
      for (const LeafPair& pair : kBatchNormLeaves)
        if (leaf == pair.mindspore) leaf = pair.torch;
      out.push_back({MappedName::Kind::kMapped,
                     join(modelzoo_ ? module_from_modelzoo(split.module) : split.module, leaf)});
    }
    return out;
  }

 private:
  bool modelzoo_;
};

class IdentityMap final : public NameMap {
 public:
  std::string description() const override { return "identity"; }
  std::vector<std::optional<std::string>> lonely_in_b(
      const std::vector<std::string>& names) const override {
    return std::vector<std::optional<std::string>>(names.size());
  }
  std::vector<MappedName> apply(const std::vector<std::string>& names) const override {
    std::vector<MappedName> out;
    out.reserve(names.size());
    for (const std::string& name : names) out.push_back({MappedName::Kind::kMapped, name});
    return out;
  }
};

}  // namespace

std::vector<std::string> builtin_map_names() {
  return {"identity", "mindspore-to-torch", "torch-to-mindspore", "modelzoo-to-torch",
          "torch-to-modelzoo"};
}

std::unique_ptr<NameMap> make_builtin_map(std::string_view name) {
  if (name == "identity") return std::make_unique<IdentityMap>();
  if (name == "mindspore-to-torch") return std::make_unique<MindsporeToTorch>(false);
  if (name == "modelzoo-to-torch") return std::make_unique<MindsporeToTorch>(true);
  if (name == "torch-to-mindspore") return std::make_unique<TorchToMindspore>(false);
  if (name == "torch-to-modelzoo") return std::make_unique<TorchToMindspore>(true);
  return nullptr;
}

std::string reverse_builtin_map_name(std::string_view name) {
  if (name == "identity") return "identity";
  const auto to = name.find("-to-");
  if (to == std::string_view::npos) return std::string(name);
  return std::string(name.substr(to + 4)) + "-to-" + std::string(name.substr(0, to));
}

}  // namespace parity::importers
