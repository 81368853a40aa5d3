// MindSpore model_zoo's ResNet configs (official/cv/ResNet/config/*.yaml in
// mindspore-ai/models), read as they are. Their keys that are also ours
// (batch_size, lr_max, ...) are ours; this is the declared table of the
// others, each with what parity-train does with it and why, and the step that
// applies them once the file and the --set overrides are in. A key in neither
// table stays an error, so a typo is never ignored.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "parity/trainer/config/train_config.hpp"

namespace parity::trainer::model_zoo {

enum class Treatment {
  kIgnored,            // changes nothing in a Parity run
  kIgnoredWhileUnset,  // ignored while empty, false or 0; another value would change the
                       // run, so it is refused and the reason says how Parity does it
  kLarsSetting,        // ignored unless optimizer is LARS
  kReadAsOurs,         // sets one of our keys, unless that key is given too
};

struct Key {
  std::string_view name;
  Treatment treatment;
  std::string_view reason;
};

// The declared key of this name, or nullptr.
const Key* find_key(std::string_view name);

// A model_zoo key met in a config file or a --set, kept until the whole
// config is known (the optimizer decides whether LARS's keys are ignored).
struct FoundKey {
  const Key* key = nullptr;
  YAML::Node value;
  std::string where;  // FILE:LINE, or the --set
};

// Our closed-set keys as a config spells them (key name -> text), before they
// are read into TrainConfig's enums.
using ChoiceTexts = std::map<std::string, std::string, std::less<>>;

// Values of our keys that model_zoo spells its own way: device_target Ascend
// (no such backend here: the CPU, said in `notes`), dataset imagenet2012 (an
// image folder). (The optimizer's name in any case is the table's.)
void translate_values(ChoiceTexts& texts, ConfigNotes& notes);

// Applies `found` to `config`: the keys read as ours set them unless one of
// `given` (our keys the file or a --set set) says otherwise; the ignored keys
// go to notes.ignored_keys; a key that must stay unset and is not throws
// parity::Error naming it and where it is.
void apply(TrainConfig& config, const std::vector<FoundKey>& found,
           const std::set<std::string, std::less<>>& given, ConfigNotes& notes);

// One line per declared key and what parity-train does with it (for `keys`).
std::string describe_keys();

}  // namespace parity::trainer::model_zoo
