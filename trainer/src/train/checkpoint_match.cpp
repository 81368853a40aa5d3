// Whether a checkpoint belongs to this run (checkpoint_match.hpp).
#include "checkpoint_match.hpp"

#include <string_view>

#include "parity/core/error.hpp"
#include "parity/trainer/nn/resnet.hpp"

namespace parity::trainer {
namespace {

std::string_view stem_kind(const TrainConfig& config) {
  return uses_small_image_stem({1, 3, config.train_image_size, config.train_image_size},
                               config.stem)
             ? "small"
             : "imagenet";
}

}  // namespace

std::string rng_state(const TrainConfig& config) { return "seed=" + std::to_string(config.seed); }

void check_same_network(const TrainConfig& config, const TrainingCheckpoint& saved,
                        const std::string& where) {
  if (saved.config_yaml.empty()) return;
  const TrainConfig trained = parse_train_config(saved.config_yaml, where + " (its config)");
  const auto differ = [&](const std::string& key, std::string_view theirs_text,
                          std::string_view ours_text) {
    const std::string theirs(theirs_text), ours(ours_text);
    if (theirs != ours)
      throw Error("the checkpoint is of " + key + " " + theirs + ", the config asks for " + ours,
                  where,
                  "use the config the checkpoint was trained with, or --set " + key + "=" + theirs);
  };
  differ("net_name", name_of(trained.net_name), name_of(config.net_name));
  differ("class_num", std::to_string(trained.class_num), std::to_string(config.class_num));
  differ("stem", stem_kind(trained), stem_kind(config));
}

void check_resumable(const TrainConfig& config, const TrainingCheckpoint& saved,
                     const std::string& where) {
  if (saved.rng_state != rng_state(config))
    throw Error("the checkpoint was trained with " + saved.rng_state + ", this run has " +
                    rng_state(config),
                where, "resume with the same seed (--set seed=...)");
  check_same_network(config, saved, where);
}

}  // namespace parity::trainer
