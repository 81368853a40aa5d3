#include "model_zoo_keys.hpp"

#include <algorithm>
#include <iterator>
#include <sstream>

#include "parity/core/error.hpp"
#include "parity/profiler/allreduce_split.hpp"

namespace parity::trainer::model_zoo {
namespace {

using enum Treatment;

// Every key of the train.py configs in official/cv/ResNet/config/ (resnet18 to
// resnet152, the THOR and Boost ones) that is not ours, as of mindspore-ai/models
// eab643f (tests/fixtures/model_zoo/ holds the files). THOR's keys (lr_decay,
// lr_end_epoch, damping_*, frequency) are ours (TrainConfig's THOR block).
constexpr Key kKeys[] = {
    {"enable_modelarts", kIgnored, "ModelArts (Huawei Cloud) jobs: Parity reads local files"},
    {"data_url", kIgnored, "ModelArts' dataset location: Parity reads data_path"},
    {"train_url", kIgnored, "ModelArts' output location: Parity writes checkpoint_path"},
    {"checkpoint_url", kIgnored, "ModelArts' checkpoint location"},
    {"load_path", kIgnored, "ModelArts' local checkpoint copy"},
    {"output_dir", kIgnored,
     "model_zoo's log and checkpoint root: Parity logs to the terminal, checkpoints to "
     "checkpoint_path"},
    {"run_distribute", kIgnored, "mpirun decides the ranks (docs/distributed.md)"},
    {"device_num", kIgnored,
     "mpirun decides the ranks; model_zoo's train.py also scales lr_max by device_num/8, Parity "
     "uses lr_max as written"},
    {"device_id", kIgnored, "export's device: parity-train takes GPU 0, a rank its local rank's"},
    {"parameter_server", kIgnored, "parameter-server training: Parity is data parallel (mpirun)"},
    {"enable_profiling", kIgnored, "use --trace RUN.db"},
    {"mode_name", kIgnored, "MindSpore's GRAPH or PYNATIVE mode: Parity runs eagerly"},
    {"boost_mode", kIgnored,
     "MindSpore Boost (O1/O2: gradient freezing, fewer batch norms) is not implemented: Parity "
     "trains as O0"},
    {"save_graphs", kIgnored, "MindSpore's graph dumps: see --dump for tensors"},
    {"save_graphs_path", kIgnored, "MindSpore's graph dumps"},
    {"enable_cache", kIgnored, "MindSpore's dataset cache server"},
    {"cache_session_id", kIgnored, "MindSpore's dataset cache server"},
    {"conv_init", kIgnored,
     "Parity initialises as torchvision does; other weights: --init-weights FILE"},
    {"dense_init", kIgnored,
     "Parity initialises as torchvision does; other weights: --init-weights FILE"},
    {"pre_trained", kIgnoredWhileUnset,
     "start from saved weights with --init-weights FILE (torchvision names; `parity convert` "
     "maps MindSpore's)"},
    {"filter_weight", kIgnored, "pre_trained's option (drop the classifier)"},
    {"resume_ckpt", kIgnoredWhileUnset, "continue a Parity run with --resume CHECKPOINT"},
    {"start_epoch", kIgnoredWhileUnset,
     "model_zoo's resume epoch: continue a Parity run with --resume CHECKPOINT"},
    {"has_trained_epoch", kIgnored, "golden_stick's retraining counter"},
    {"has_trained_step", kIgnored, "golden_stick's retraining counter"},
    {"run_eval", kIgnored, "evaluate after every epoch with --eval"},
    {"eval_dataset_path", kIgnoredWhileUnset, "Parity's evaluation folder is eval_data_path"},
    {"eval_start_epoch", kIgnored, "run_eval's schedule: --eval evaluates every epoch"},
    {"eval_interval", kIgnored, "run_eval's schedule: --eval evaluates every epoch"},
    {"save_best_ckpt", kIgnored, "run_eval's best checkpoint: Parity keeps the last ones"},
    {"checkpoint_file_path", kIgnored, "eval.py's checkpoint: parity-train eval --checkpoint"},
    {"save_checkpoint_path", kIgnored,
     "an older checkpoint-folder key no ResNet script reads: Parity's is checkpoint_path"},
    {"infer_label", kIgnored, "infer.py's label folder"},
    {"width", kIgnored, "export.py's input size"},
    {"height", kIgnored, "export.py's input size"},
    {"file_name", kIgnored, "export.py's output"},
    {"file_format", kIgnored, "export.py's output format"},
    {"ckpt_file", kIgnored, "export.py's checkpoint"},
    {"network_dataset", kIgnored, "export.py's network name"},
    {"result_path", kIgnored, "postprocess.py's input"},
    {"label_path", kIgnored, "postprocess.py's input"},
    {"img_path", kIgnored, "predict.py's image"},
    {"enable_predict_lite_backend", kIgnored, "MindSpore Lite prediction (predict.py)"},
    {"enable_predict_lite_mindir", kIgnored, "MindSpore Lite prediction (predict.py)"},
    {"mindir_path", kIgnored, "MindSpore Lite prediction (predict.py)"},
    {"lite_context_config", kIgnored, "MindSpore Lite prediction (predict.py), a map"},
    {"lars_epsilon", kLarsSetting, "LARS's setting (optimizer: LARS)"},
    {"lars_coefficient", kLarsSetting, "LARS's setting (optimizer: LARS)"},
    {"all_reduce_fusion_config", kReadAsOurs,
     "read as allreduce_split index:[...] (inclusive segment ends, the seeds' reading) unless "
     "allreduce_split is given"},
    {"lr", kReadAsOurs,
     "ResNet-101's peak rate (warmup_cosine_annealing_lr: our cosine with lr_init 0): read as "
     "lr_max unless lr_max is given"},
};

// "", false, 0 or nothing: what model_zoo's configs write for "not used".
bool is_unset(const YAML::Node& value) {
  if (!value.IsDefined() || value.IsNull()) return true;
  if (!value.IsScalar()) return false;
  if (value.Scalar().empty()) return true;
  bool flag = true;
  double number = 1;
  return (YAML::convert<bool>::decode(value, flag) && !flag) ||
         (YAML::convert<double>::decode(value, number) && number == 0);
}

std::string text_of(const YAML::Node& value) {
  if (value.IsScalar()) return value.Scalar();
  YAML::Node flow = YAML::Clone(value);  // on one line, as [85, 160]
  flow.SetStyle(YAML::EmitterStyle::Flow);
  YAML::Emitter out;
  out << flow;
  return out.c_str();
}

// model_zoo's list of segment ends, [85, 160], as allreduce_split text.
std::string fusion_split(const FoundKey& found) {
  const auto refuse = [&] {
    return Error("config key 'all_reduce_fusion_config' expects a list of parameter indices, got " +
                     text_of(found.value),
                 found.where, "write it as model_zoo does: [85, 160]");
  };
  if (!found.value.IsSequence() || found.value.size() == 0) throw refuse();
  std::string text = "index:[";
  for (const auto& item : found.value) {
    std::int64_t index = 0;
    if (!item.IsScalar() || !YAML::convert<std::int64_t>::decode(item, index)) throw refuse();
    text += (text.back() == '[' ? "" : ",") + std::to_string(index);
  }
  text += "]";
  profiler::AllreduceSplit::parse(text,
                                  "config key 'all_reduce_fusion_config' (" + found.where + ")");
  return text;
}

// model_zoo's ResNet-101 recipe rate: warmup_cosine_annealing_lr(lr) is our
// cosine from lr_init 0 to lr_max.
void read_lr(TrainConfig& config, const FoundKey& found,
             const std::set<std::string, std::less<>>& given, ConfigNotes& notes) {
  double rate = 0;
  if (!found.value.IsScalar() || !YAML::convert<double>::decode(found.value, rate))
    throw Error("config key 'lr' expects a number, got " + text_of(found.value), found.where);
  if (given.contains("lr_max")) {
    notes.readings.push_back("lr " + text_of(found.value) + " not used: lr_max is given");
    return;
  }
  config.lr_max = rate;
  notes.readings.push_back("lr " + text_of(found.value) +
                           " read as lr_max (model_zoo's ResNet-101 recipe)");
}

void read_fusion_config(TrainConfig& config, const FoundKey& found,
                        const std::set<std::string, std::less<>>& given, ConfigNotes& notes) {
  const std::string split = fusion_split(found);
  const std::string shown = "all_reduce_fusion_config " + text_of(found.value);
  if (given.contains("allreduce_split")) {
    notes.readings.push_back(shown + " not used: allreduce_split " + config.allreduce_split +
                             " is given");
    return;
  }
  config.allreduce_split = split;
  notes.readings.push_back(shown + " read as allreduce_split " + split +
                           " (inclusive segment ends, as the seeds' guide reads it; "
                           "docs/distributed.md)");
}

}  // namespace

const Key* find_key(std::string_view name) {
  const auto it = std::find_if(std::begin(kKeys), std::end(kKeys),
                               [&](const Key& k) { return k.name == name; });
  return it == std::end(kKeys) ? nullptr : &*it;
}

void translate_values(ChoiceTexts& texts, ConfigNotes& notes) {
  const auto spelled = [&](std::string_view key, std::string_view theirs) {
    const auto text = texts.find(key);
    return text != texts.end() && text->second == theirs;
  };
  if (spelled("device_target", "Ascend")) {
    texts["device_target"] = name_of(DeviceTarget::kCpu);
    notes.readings.push_back(
        "device_target Ascend: Parity has no Ascend backend, this run uses the CPU "
        "(device_target: GPU, or --set device_target=GPU, runs on the CUDA backend)");
  }
  if (spelled("dataset", "imagenet2012")) {
    texts["dataset"] = name_of(DatasetKind::kImageFolder);
    notes.readings.push_back(
        "dataset imagenet2012 read as imagefolder (class folders under data_path, as model_zoo "
        "reads ImageNet)");
  }
}

void apply(TrainConfig& config, const std::vector<FoundKey>& found,
           const std::set<std::string, std::less<>>& given, ConfigNotes& notes) {
  for (const FoundKey& entry : found) {
    const Key& key = *entry.key;
    switch (key.treatment) {
      case kIgnored:
        break;
      case kIgnoredWhileUnset:
        if (!is_unset(entry.value))
          throw Error("model_zoo key '" + std::string(key.name) + "' is '" + text_of(entry.value) +
                          "': Parity ignores it only while it is empty (or 0)",
                      entry.where, std::string(key.reason));
        break;
      case kLarsSetting:
        if (config.optimizer == OptimizerKind::kLars) continue;
        break;
      case kReadAsOurs:
        if (key.name == "lr")
          read_lr(config, entry, given, notes);
        else
          read_fusion_config(config, entry, given, notes);
        continue;
    }
    notes.ignored_keys.emplace_back(key.name);
  }
}

std::string describe_keys() {
  std::ostringstream text;
  for (const Key& key : kKeys) {
    const char* what = key.treatment == kReadAsOurs          ? ""
                       : key.treatment == kIgnoredWhileUnset ? "ignored while empty (or 0); "
                       : key.treatment == kLarsSetting       ? "ignored unless optimizer is LARS; "
                                                             : "ignored; ";
    text << "  " << key.name << ": " << what << key.reason << '\n';
  }
  return text.str();
}

}  // namespace parity::trainer::model_zoo
