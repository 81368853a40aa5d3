#include "parity/trainer/optim/optimizer_choice.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

constexpr std::array<std::pair<OptimizerKind, std::string_view>, 3> kNames{{
    {OptimizerKind::kMomentum, "Momentum"},
    {OptimizerKind::kThor, "Thor"},
    {OptimizerKind::kLars, "LARS"},
}};

bool same_letters(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

std::optional<OptimizerKind> parse_optimizer(std::string_view name) {
  for (const auto& [kind, text] : kNames)
    if (same_letters(text, name)) return kind;
  return std::nullopt;
}

std::string_view optimizer_name(OptimizerKind kind) {
  for (const auto& [value, text] : kNames)
    if (value == kind) return text;
  return "unknown";
}

std::vector<std::string_view> optimizer_names() {
  std::vector<std::string_view> names;
  for (const auto& entry : kNames) names.push_back(entry.second);
  return names;
}

void require_trainable_optimizer(const std::string& name) {
  const auto kind = parse_optimizer(name);
  if (kind == OptimizerKind::kMomentum) return;
  throw Error("optimizer " + name +
                  " is not implemented yet: parity-train trains with Momentum (SGD with "
                  "momentum, MindSpore's nn.Momentum)",
              "config key 'optimizer'",
              "train with Momentum: --set optimizer=Momentum (the config's lr_* keys then set "
              "the schedule; docs/trainer.md)");
}

}  // namespace parity::trainer
