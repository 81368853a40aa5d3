#include "parity/trainer/config/train_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <set>
#include <sstream>
#include <variant>

#include "model_zoo_keys.hpp"
#include "parity/core/error.hpp"
#include "parity/profiler/allreduce_split.hpp"

namespace parity::trainer {
namespace {

// How a refused choice is said: "is 'X'" with "choose one of: a, b" as the
// hint, or (stem, as it always was) "must be a, b or c, got X".
enum class Refusal { kChooseOneOf, kMustBe };

// A closed-set key: read from its text once the whole config is in (model_zoo
// may spell it its own way), then held as the config's enum.
struct ChoiceMember {
  bool (*read)(TrainConfig& config, std::string_view text);  // false: not a choice
  std::string_view (*name)(const TrainConfig& config);
  std::string (*list)(std::string_view last_separator, bool described);
  Refusal refusal;
};

template <auto kMember, Refusal kRefusal = Refusal::kChooseOneOf>
ChoiceMember choice() {
  using E = std::remove_cvref_t<decltype(std::declval<TrainConfig&>().*kMember)>;
  return {[](TrainConfig& config, std::string_view text) {
            const std::optional<E> value = choices_of<E>().parse(text);
            if (value) config.*kMember = *value;
            return value.has_value();
          },
          [](const TrainConfig& config) { return name_of(config.*kMember); },
          [](std::string_view last_separator, bool described) {
            return choices_of<E>().list(last_separator, described);
          },
          kRefusal};
}

using IntList = std::vector<std::int64_t>;
using Member =
    std::variant<std::string TrainConfig::*, std::int64_t TrainConfig::*, double TrainConfig::*,
                 bool TrainConfig::*, IntList TrainConfig::*, ChoiceMember>;

struct Key {
  std::string_view name;
  Member member;
  std::string_view meaning;  // a choice key's values follow it in `parity-train keys`
};

// The schema, in the order to_yaml writes it.
const std::array<Key, 55> kKeys{{
    {"net_name", choice<&TrainConfig::net_name>(), "the network"},
    {"class_num", &TrainConfig::class_num, "number of classes"},
    {"zero_init_residual", &TrainConfig::zero_init_residual,
     "zero-init each block's last BN weight"},
    {"stem", choice<&TrainConfig::stem, Refusal::kMustBe>(), "the network's first layers"},
    {"dataset", choice<&TrainConfig::dataset>(), "the training and evaluation images"},
    {"data_path", &TrainConfig::data_path, "dataset folder"},
    {"eval_data_path", &TrainConfig::eval_data_path, "evaluation folder (empty: the test split)"},
    {"train_image_size", &TrainConfig::train_image_size, "training crop size in pixels"},
    {"eval_image_size", &TrainConfig::eval_image_size, "evaluation crop size in pixels"},
    {"resize_image_size", &TrainConfig::resize_image_size,
     "fashion_mnist and cifar10: resize the source images to this side before cropping (0: keep)"},
    {"augment", &TrainConfig::augment,
     "training images at random: crops (padding 4, scaled with resize_image_size) and flips; "
     "imagefolder: RandomResizedCrop and flips (false: as evaluation sees them)"},
    {"num_workers", &TrainConfig::num_workers, "data loader worker threads"},
    {"prefetch", &TrainConfig::prefetch, "batches the loader may hold ready"},
    {"skip_corrupt", &TrainConfig::skip_corrupt,
     "skip and count unreadable images instead of stopping with an error"},
    {"synthetic_size", &TrainConfig::synthetic_size, "images in the synthetic dataset"},
    {"batch_size", &TrainConfig::batch_size, "images per step (per rank)"},
    {"epoch_size", &TrainConfig::epoch_size, "epochs to train"},
    {"steps_per_epoch", &TrainConfig::steps_per_epoch,
     "steps in an epoch (0: one pass over the training set; fewer: each epoch a fresh random "
     "subset, as MindSpore's sink_size)"},
    {"optimizer", choice<&TrainConfig::optimizer>(), "the optimizer, in any case"},
    {"lr_decay_mode", choice<&TrainConfig::lr_decay_mode>(), "the learning-rate schedule"},
    {"lr_init", &TrainConfig::lr_init, "learning rate at the start of warmup"},
    {"lr_max", &TrainConfig::lr_max, "peak learning rate"},
    {"lr_end", &TrainConfig::lr_end, "final learning rate (warmup_cosine)"},
    {"warmup_epochs", &TrainConfig::warmup_epochs, "epochs of linear warmup"},
    {"momentum", &TrainConfig::momentum, "SGD momentum"},
    {"nesterov", &TrainConfig::nesterov, "Nesterov momentum"},
    {"weight_decay", &TrainConfig::weight_decay, "L2 weight decay, not on BN weights or biases"},
    {"use_label_smooth", &TrainConfig::use_label_smooth, "apply label smoothing"},
    {"label_smooth_factor", &TrainConfig::label_smooth_factor, "label smoothing epsilon"},
    {"label_smooth_convention", choice<&TrainConfig::label_smooth_convention>(),
     "how label smoothing spreads eps"},
    {"loss_scale", &TrainConfig::loss_scale,
     "loss scale: the fixed scale, or where the dynamic scale starts"},
    {"loss_scale_manager", choice<&TrainConfig::loss_scale_manager>(),
     "how the loss scale changes"},
    {"drop_overflow_update", &TrainConfig::drop_overflow_update,
     "fixed scale: skip the update of a step whose gradients hold Inf or NaN (dynamic always "
     "does)"},
    {"loss_scale_factor", &TrainConfig::loss_scale_factor,
     "dynamic scale: divided by this on overflow, multiplied after a clean window"},
    {"loss_scale_window", &TrainConfig::loss_scale_window,
     "dynamic scale: clean steps in a row before the scale grows"},
    {"lr_decay", &TrainConfig::lr_decay,
     "Thor: the learning rate's exponent, lr_init * (1 - epoch/lr_end_epoch)^lr_decay"},
    {"lr_end_epoch", &TrainConfig::lr_end_epoch,
     "Thor: the epoch where the learning rate reaches 0 (at least epoch_size)"},
    {"thor_lr_decay_epochs", &TrainConfig::thor_lr_decay_epochs,
     "Thor: the learning rate halves from this epoch on, and again one epoch later"},
    {"damping_init", &TrainConfig::damping_init, "Thor: the damping at the start"},
    {"damping_decay", &TrainConfig::damping_decay,
     "Thor: the damping's factor every 10 epochs, damping_init * damping_decay^(epoch/10)"},
    {"frequency", &TrainConfig::frequency,
     "Thor: steps between updates of the second-order factors and their inverses"},
    {"split_indices", &TrainConfig::split_indices,
     "Thor under mpirun: THOR layer indices ending each AllReduce segment of the factors "
     "(inclusive; []: one segment)"},
    {"thor_allreduce", choice<&TrainConfig::thor_allreduce>(),
     "Thor under mpirun: what the ranks average"},
    {"save_checkpoint", &TrainConfig::save_checkpoint, "write checkpoints"},
    {"save_checkpoint_epochs", &TrainConfig::save_checkpoint_epochs, "epochs between checkpoints"},
    {"keep_checkpoint_max", &TrainConfig::keep_checkpoint_max, "checkpoints kept (oldest removed)"},
    {"checkpoint_path", &TrainConfig::checkpoint_path, "checkpoint folder"},
    {"checkpoint_prefix", &TrainConfig::checkpoint_prefix,
     "checkpoint file names: PREFIX-EPOCH_STEP.safetensors"},
    {"device_target", choice<&TrainConfig::device_target>(), "where the run computes"},
    {"precision", choice<&TrainConfig::precision>(), "the precision the network computes in"},
    {"tf32", &TrainConfig::tf32,
     "GPU, float32: convolutions and the classifier on TF32 tensor cores (10-bit mantissa "
     "products, several times faster; off: full float32)"},
    {"threads", &TrainConfig::threads, "compute threads (0: all cores)"},
    {"seed", &TrainConfig::seed, "random seed"},
    {"deterministic", &TrainConfig::deterministic,
     "pin OpenMP's thread count (no dynamic adjustment): bit-reproducible runs and resumes"},
    {"allreduce_split", &TrainConfig::allreduce_split,
     "gradient buckets under mpirun: mb:25 (DDP-style MiB cap), index:[85,160] (inclusive segment "
     "ends), "
     "split:[85,160] (split points), none or one"},
}};

std::string valid_keys() {
  std::string list;
  for (const auto& key : kKeys) list += (list.empty() ? "" : ", ") + std::string(key.name);
  return "valid keys: " + list;
}

const Key* find_key(std::string_view name) {
  const auto it =
      std::find_if(kKeys.begin(), kKeys.end(), [&](const Key& k) { return k.name == name; });
  return it == kKeys.end() ? nullptr : &*it;
}

std::string_view type_name(const Member& member) {
  struct {
    std::string_view operator()(std::string TrainConfig::*) const { return "a string"; }
    std::string_view operator()(std::int64_t TrainConfig::*) const { return "an integer"; }
    std::string_view operator()(double TrainConfig::*) const { return "a number"; }
    std::string_view operator()(bool TrainConfig::*) const { return "true or false"; }
    std::string_view operator()(IntList TrainConfig::*) const { return "a list of integers"; }
    std::string_view operator()(const ChoiceMember&) const { return "a string"; }
  } visitor;
  return std::visit(visitor, member);
}

// Our closed-set keys as a config spells them, before they are read.
using model_zoo::ChoiceTexts;

// A YAML sequence of integers, [26, 53], or an error naming the key and the
// item that is not one.
IntList read_int_list(const Key& key, const YAML::Node& value, const std::string& where) {
  const auto refuse = [&](const std::string& got) {
    return Error(
        "config key '" + std::string(key.name) + "' expects a list of integers, got " + got, where,
        "write it as [26, 53], or [] for none");
  };
  if (value.IsScalar()) throw refuse("'" + value.Scalar() + "'");
  if (!value.IsSequence()) throw refuse(value.IsMap() ? "a map" : "nothing");
  IntList list;
  for (const YAML::Node& item : value) {
    std::int64_t number = 0;
    if (!item.IsScalar() || !YAML::convert<std::int64_t>::decode(item, number))
      throw refuse(item.IsScalar() ? "'" + item.Scalar() + "' in it" : "a nested list or map");
    list.push_back(number);
  }
  return list;
}

// Stores a YAML value in the key's member (a choice key's in `choice_texts`),
// or says what was expected.
void assign(TrainConfig& config, ChoiceTexts& choice_texts, const Key& key, const YAML::Node& value,
            const std::string& where) {
  std::visit(
      [&](auto member) {
        using M = decltype(member);
        if constexpr (std::is_same_v<M, IntList TrainConfig::*>) {
          config.*member = read_int_list(key, value, where);
        } else {
          const auto refuse = [&](const std::string& got) {
            return Error("config key '" + std::string(key.name) + "' expects " +
                             std::string(type_name(key.member)) + ", got " + got,
                         where);
          };
          if (!value.IsScalar()) throw refuse("a list or map");
          try {
            if constexpr (std::is_same_v<M, ChoiceMember>)
              choice_texts[std::string(key.name)] = value.as<std::string>();
            else
              config.*member = value.as<std::remove_reference_t<decltype(config.*member)>>();
          } catch (const YAML::Exception&) {
            throw refuse("'" + value.Scalar() + "'");
          }
        }
      },
      key.member);
}

std::string location(const std::string& source, const YAML::Mark& mark) {
  return source + ":" + std::to_string(mark.line + 1);
}

template <class T>
void require(bool ok, std::string_view key, const std::string& what, const T& value,
             const std::string& hint = "fix the value in the config file or with --set") {
  std::ostringstream text;
  text << "config key '" << key << "' " << what << ", got " << value;
  if (!ok) throw Error(text.str(), "config", hint);
}

// The keys of TrainConfig's THOR block: what optimizer: Thor alone uses.
constexpr std::array<std::string_view, 8> kThorKeys{
    "lr_decay",      "lr_end_epoch", "thor_lr_decay_epochs", "damping_init",
    "damping_decay", "frequency",    "split_indices",        "thor_allreduce"};

// THOR's keys given while another optimizer trains change nothing; a THOR
// config run with --set optimizer=Momentum says so, once.
void note_unused_thor_keys(const TrainConfig& config,
                           const std::set<std::string, std::less<>>& given, ConfigNotes& notes) {
  if (config.optimizer == OptimizerKind::kThor) return;
  std::string unused;
  for (const std::string_view key : kThorKeys)
    if (given.contains(key)) unused += (unused.empty() ? "" : ", ") + std::string(key);
  if (!unused.empty())
    notes.readings.push_back("optimizer " + std::string(name_of(config.optimizer)) +
                             ": THOR's keys " + unused + " are not used (optimizer: Thor's)");
}

void validate_thor(const TrainConfig& c) {
  require(c.lr_init > 0, "lr_init", "must be positive with optimizer Thor", c.lr_init);
  require(c.lr_decay >= 0, "lr_decay", "must not be negative", c.lr_decay);
  require(c.lr_end_epoch >= c.epoch_size, "lr_end_epoch",
          "must be at least epoch_size (" + std::to_string(c.epoch_size) + ")", c.lr_end_epoch,
          "THOR's learning rate lr_init * (1 - epoch/lr_end_epoch)^lr_decay has a negative base "
          "past lr_end_epoch: raise lr_end_epoch or lower epoch_size");
  require(c.thor_lr_decay_epochs >= 1, "thor_lr_decay_epochs", "must be at least 1",
          c.thor_lr_decay_epochs);
  require(c.damping_init > 0, "damping_init", "must be positive", c.damping_init);
  require(c.damping_decay > 0, "damping_decay", "must be positive", c.damping_decay);
  require(c.frequency >= 1, "frequency", "must be at least 1", c.frequency);
  std::string indices;
  for (const std::int64_t index : c.split_indices)
    indices += (indices.empty() ? "" : ", ") + std::to_string(index);
  const bool increasing = std::adjacent_find(c.split_indices.begin(), c.split_indices.end(),
                                             std::greater_equal<>()) == c.split_indices.end();
  require(increasing && (c.split_indices.empty() || c.split_indices.front() >= 0), "split_indices",
          "must be non-negative and strictly increasing ([] is one segment)", "[" + indices + "]");
}

// A config being read: our keys set so far, which of them were given (in the
// file or a --set), and the model_zoo keys met, applied once all is read.
struct Reading {
  TrainConfig config;
  ChoiceTexts choice_texts;
  std::set<std::string, std::less<>> given;
  std::vector<model_zoo::FoundKey> model_zoo_keys;

  void set(std::string_view name, const YAML::Node& value, const std::string& where) {
    if (const Key* key = find_key(name)) {
      assign(config, choice_texts, *key, value, where);
      given.emplace(name);
    } else if (const model_zoo::Key* theirs = model_zoo::find_key(name)) {
      model_zoo_keys.push_back({theirs, value, where});
    } else {
      throw Error("unknown config key '" + std::string(name) + "'", where, valid_keys());
    }
  }
};

// model_zoo's parse_yaml reads up to three documents: the config, help texts
// for its command line, and choices. Only the first is a config.
constexpr std::size_t kMaxDocuments = 3;

Reading read_text(const std::string& yaml, const std::string& source) {
  Reading reading;
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(yaml);
  } catch (const YAML::Exception& error) {
    throw Error("not valid YAML: " + error.msg, location(source, error.mark));
  }
  if (documents.size() > kMaxDocuments)
    throw Error("a config holds at most " + std::to_string(kMaxDocuments) +
                    " YAML documents (model_zoo's: the config, help texts, choices), this one " +
                    std::to_string(documents.size()),
                source, "keep the settings in the first document");
  if (documents.empty() || documents.front().IsNull()) return reading;
  const YAML::Node& root = documents.front();
  if (!root.IsMap()) throw Error("a config must be a map of key: value lines", source);
  for (const auto& entry : root)
    reading.set(entry.first.as<std::string>(), entry.second, location(source, entry.first.Mark()));
  return reading;
}

void read_override(Reading& reading, std::string_view assignment) {
  const auto equals = assignment.find('=');
  const std::string where = "--set " + std::string(assignment);
  if (equals == std::string_view::npos || equals == 0)
    throw Error("expected --set key=value", where);
  YAML::Node value;
  try {
    value = YAML::Load(std::string(assignment.substr(equals + 1)));
  } catch (const YAML::Exception& error) {
    throw Error("cannot read the value: " + error.msg, where);
  }
  if (value.IsNull()) value = YAML::Node("");  // "key=" sets an empty string
  reading.set(assignment.substr(0, equals), value, where);
}

[[noreturn]] void refuse(const Key& key, const ChoiceMember& choice, const std::string& text) {
  if (choice.refusal == Refusal::kMustBe)
    require(false, key.name, "must be " + choice.list(" or ", false), text);
  throw Error("config key '" + std::string(key.name) + "' is '" + text + "'", "config",
              "choose one of: " + choice.list(", ", false));
}

// The choice keys given, each read into its enum, in schema order.
void read_choices(TrainConfig& config, const ChoiceTexts& choice_texts) {
  for (const Key& key : kKeys) {
    const auto* choice = std::get_if<ChoiceMember>(&key.member);
    if (!choice) continue;
    const auto text = choice_texts.find(key.name);
    if (text != choice_texts.end() && !choice->read(config, text->second))
      refuse(key, *choice, text->second);
  }
}

TrainConfig finish(Reading reading, ConfigNotes* notes) {
  ConfigNotes unused;
  ConfigNotes& said = notes ? *notes : unused;
  model_zoo::translate_values(reading.choice_texts, said);
  read_choices(reading.config, reading.choice_texts);
  model_zoo::apply(reading.config, reading.model_zoo_keys, reading.given, said);
  note_unused_thor_keys(reading.config, reading.given, said);
  validate(reading.config);
  return reading.config;
}

void emit_value(YAML::Emitter& out, const TrainConfig& config, const Member& member) {
  std::visit(
      [&](auto field) {
        if constexpr (std::is_same_v<decltype(field), ChoiceMember>)
          out << std::string(field.name(config));
        else if constexpr (std::is_same_v<decltype(field), IntList TrainConfig::*>)
          out << YAML::Flow << config.*field;  // on one line: [26, 53]
        else
          out << config.*field;
      },
      member);
}

}  // namespace

std::vector<std::string> ConfigNotes::lines() const {
  std::vector<std::string> lines;
  if (!ignored_keys.empty()) {
    std::string line = "config: ignoring " + std::to_string(ignored_keys.size()) +
                       (ignored_keys.size() == 1 ? " model_zoo key" : " model_zoo keys") +
                       " Parity does not use (`parity-train keys` says why): ";
    for (std::size_t i = 0; i < ignored_keys.size(); ++i) line += (i ? ", " : "") + ignored_keys[i];
    lines.push_back(line);
  }
  for (const auto& reading : readings) lines.push_back("config: " + reading);
  return lines;
}

void validate(const TrainConfig& c) {
  const bool gpu = c.device_target == DeviceTarget::kGpu;
  require(c.precision == Precision::kFloat32 || c.precision == Precision::kFloat64 || gpu,
          "precision",
          "must be float32 or float64 with device_target CPU (16-bit precisions are the GPU's)",
          name_of(c.precision));
  require(c.precision != Precision::kFloat64 || !gpu, "precision",
          "float64 runs on the CPU's reference kernels only: set device_target: CPU",
          name_of(c.precision));
  require(!c.tf32 || gpu, "tf32",
          "must be false with device_target CPU (TF32 is a GPU tensor-core format)",
          std::string("true"));
  require(c.class_num >= 2, "class_num", "must be at least 2", c.class_num);
  require(c.batch_size >= 1, "batch_size", "must be at least 1", c.batch_size);
  require(c.epoch_size >= 1, "epoch_size", "must be at least 1", c.epoch_size);
  require(c.steps_per_epoch >= 0, "steps_per_epoch",
          "must be 0 (one pass over the training set) or positive", c.steps_per_epoch);
  require(c.train_image_size >= 8, "train_image_size", "must be at least 8", c.train_image_size);
  require(c.eval_image_size >= 8, "eval_image_size", "must be at least 8", c.eval_image_size);
  require(c.resize_image_size == 0 || c.resize_image_size >= 8, "resize_image_size",
          "must be 0 (keep the source size) or at least 8", c.resize_image_size);
  require(c.num_workers >= 0, "num_workers", "must not be negative", c.num_workers);
  require(c.prefetch >= 1, "prefetch", "must be at least 1", c.prefetch);
  require(c.synthetic_size >= 1, "synthetic_size", "must be at least 1", c.synthetic_size);
  require(c.lr_init >= 0 && c.lr_max >= 0 && c.lr_end >= 0, "lr_max", "rates must not be negative",
          c.lr_max);
  require(c.warmup_epochs >= 0 && c.warmup_epochs <= static_cast<double>(c.epoch_size),
          "warmup_epochs", "must lie between 0 and epoch_size", c.warmup_epochs);
  require(c.momentum >= 0 && c.momentum < 1, "momentum", "must lie in [0, 1)", c.momentum);
  require(c.weight_decay >= 0, "weight_decay", "must not be negative", c.weight_decay);
  require(c.label_smooth_factor >= 0 && c.label_smooth_factor < 1, "label_smooth_factor",
          "must lie in [0, 1)", c.label_smooth_factor);
  require(c.loss_scale > 0, "loss_scale", "must be positive", c.loss_scale);
  if (c.loss_scale_manager == LossScaleKind::kDynamic) {
    // Never scaled below 1, so it cannot start there.
    require(c.loss_scale >= 1, "loss_scale", "must be at least 1 with the dynamic manager",
            c.loss_scale);
    require(c.loss_scale_factor > 1, "loss_scale_factor", "must be greater than 1",
            c.loss_scale_factor);
    require(c.loss_scale_window >= 1, "loss_scale_window", "must be at least 1",
            c.loss_scale_window);
  }
  require(c.save_checkpoint_epochs >= 1, "save_checkpoint_epochs", "must be at least 1",
          c.save_checkpoint_epochs);
  require(c.keep_checkpoint_max >= 1, "keep_checkpoint_max", "must be at least 1",
          c.keep_checkpoint_max);
  // Its indices are checked against the model's parameters when training starts.
  profiler::AllreduceSplit::parse(c.allreduce_split, "config key 'allreduce_split'");
  require(c.threads >= 0, "threads", "must not be negative", c.threads);
  // THOR's keys are its alone: another optimizer ignores them, whatever they say.
  if (c.optimizer == OptimizerKind::kThor) validate_thor(c);
}

TrainConfig parse_train_config(const std::string& yaml, const std::string& source) {
  return finish(read_text(yaml, source), nullptr);
}

TrainConfig load_train_config(const std::filesystem::path& file,
                              const std::vector<std::string>& overrides, ConfigNotes* notes) {
  Reading reading;
  if (!file.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
      throw Error("config file not found", file.string(),
                  "pass --config with a YAML file, see samples/configs/");
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw Error("cannot read the config file", file.string());
    reading = read_text(text.str(), file.string());
  }
  for (const auto& assignment : overrides) read_override(reading, assignment);
  return finish(std::move(reading), notes);
}

std::string to_yaml(const TrainConfig& config) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& key : kKeys) {
    out << YAML::Key << std::string(key.name) << YAML::Value;
    emit_value(out, config, key.member);
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string describe_config_keys() {
  const TrainConfig defaults;
  std::ostringstream text;
  for (const auto& key : kKeys) {
    YAML::Emitter out;
    emit_value(out, defaults, key.member);
    const std::string value = out.c_str();
    text << "  " << key.name << " (" << type_name(key.member) << ", default "
         << (value.empty() ? "\"\"" : value) << "): " << key.meaning;
    if (const auto* choice = std::get_if<ChoiceMember>(&key.member))
      text << ": " << choice->list(" or ", true);
    text << '\n';
  }
  text << "\nmodel_zoo keys (MindSpore's ResNet configs) that are not Parity's, and what "
          "parity-train does with them:\n"
       << model_zoo::describe_keys();
  return text.str();
}

}  // namespace parity::trainer
