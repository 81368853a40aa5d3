// `parity-train`: trains and evaluates the reference ResNet trainer.
//   parity-train train --config FILE [--set k=v]... [--trace RUN.db [--trace-steps 10-20]]
//                      [--max-steps N]
//                      [--time-limit MINUTES] [--resume CKPT] [--threads N] [--log-every N]
//                      [--eval] [--data-delay-ms MS] [--init-weights FILE [--map MAP]]
//                      [--input-batch IMAGES.npy --input-labels LABELS.npy]
//                      [--dump DIR [--dump-steps 0-2] [--dump-what fwd,bwd,params,grads,buffers]
//                      [--dump-stats-only]] [--probe-grads GLOB[,GLOB...] --probe-dir DIR]
//                      [--detect-anomaly] [--plant-bug KIND[:LAYER]]...
//                      [--plant-nan LAYER@STEP] [--plant-overflow STEPS]
//   parity-train eval  --config FILE --checkpoint FILE [--map MAP] [--set k=v]... [--threads N]
//   parity-train keys  (every config key with its type, default and meaning)
// Under `mpirun -np N`, `train` is one rank of a data-parallel run (see
// docs/distributed.md); an error on any rank stops every rank.
// Exit codes: 0 done, 1 --detect-anomaly stopped training at a NaN/Inf,
// 2 could not run (bad config, bad data, bad checkpoint, bad option).
#include <CLI/CLI.hpp>
#include <iostream>

#include "parity/core/error.hpp"
#include "parity/core/log.hpp"
#include "parity/core/version.hpp"
#include "parity/trainer/debug/anomaly_detector.hpp"
#include "parity/trainer/dist/mpi_communicator.hpp"
#include "parity/trainer/train/training_run.hpp"

namespace {

constexpr int kAnomaly = 1;
constexpr int kCouldNotRun = 2;

// The debugging options of `train`, as typed; turned into DebugOptions
// (which validates them) after parsing.
// How a weights file's names line up with the network's (--map).
constexpr const char* kMapHelp =
    "how the weights file's names line up with the network's torchvision names: auto (default: "
    "the built-in map that fits most), identity, mindspore-to-torch, modelzoo-to-torch, or a "
    "YAML/JSON rule file (docs/diff.md)";

struct DebugArguments {
  std::string init_weights, weights_map = "auto", input_images, input_labels, dump,
                            dump_steps = "all", dump_what = "fwd,bwd,params,grads,buffers",
                            probe_grads, probe_dir, plant_nan, plant_overflow;
  bool dump_stats_only = false, detect_anomaly = false;
  std::vector<std::string> plant_bugs;

  void add_to(CLI::App& command) {
    command
        .add_option("--init-weights", init_weights,
                    "start from these weights: a state_dict in any format parity diff reads "
                    "(.pth, .pt, .safetensors, .ckpt, .npz), under torchvision or MindSpore names")
        ->check(CLI::ExistingFile);
    command.add_option("--map", weights_map, kMapHelp);
    command
        .add_option(
            "--input-batch", input_images,
            "feed this float32 [N, 3, H, H] .npy batch at every step instead of the dataset "
            "(sets batch_size and train_image_size)")
        ->check(CLI::ExistingFile);
    command
        .add_option("--input-labels", input_labels,
                    "the labels of --input-batch: an integer [N] .npy")
        ->check(CLI::ExistingFile);
    command.add_option(
        "--dump", dump,
        "write tensors and a manifest here (docs/formats/dump.md); must not exist or be empty");
    command.add_option("--dump-steps", dump_steps,
                       "steps to dump: all, 3, 0-2 or a comma list (default all)");
    command.add_option(
        "--dump-what", dump_what,
        "what to dump: a comma list of fwd (outputs, input, loss), bwd (gradients flowing "
        "back), params (before/after the update), grads (parameters' gradients), buffers (batch "
        "norms' running statistics and batch counts before/after the step), optimizer (SGD's "
        "momentum buffers after the update); default all but optimizer");
    command.add_flag("--dump-stats-only", dump_stats_only,
                     "write the manifest with statistics, no arrays");
    command.add_option("--probe-grads", probe_grads,
                       "after every step's backward, record one bit per gradient element (1 where "
                       "> 0) of these parameters: all, or a comma list of name globs "
                       "(layer4.*.weight,fc.weight); needs --probe-dir (docs/formats/grad-probe.md)");
    command.add_option("--probe-dir", probe_dir,
                       "write the gradient-sign probe here; must not exist or be empty");
    command.add_flag(
        "--detect-anomaly", detect_anomaly,
        "check every tensor of every step; stop at the first NaN/Inf, naming the op (exit 1)");
    command.add_option("--plant-bug", plant_bugs,
                       "reproduce a migration bug: same-pad[:CONV], bn-eps[:BN], label-smooth, "
                       "transpose-weight[:CONV], drop-relu[:BLOCK], bn-momentum[:BN], "
                       "frozen-bn-stats[:BN] (repeatable)");
    command.add_option("--plant-nan", plant_nan, "LAYER@STEP: put a NaN in LAYER's output at STEP");
    command.add_option("--plant-overflow", plant_overflow,
                       "put an Inf in the gradients at these steps (3, 0-2 or a comma list): "
                       "the loss scaler must skip them");
  }

  parity::trainer::DebugOptions options() const {
    parity::trainer::DebugOptions debug;
    if (!init_weights.empty()) debug.init_weights = init_weights;
    debug.weights_map = weights_map;
    if (!input_images.empty()) debug.input_images = input_images;
    if (!input_labels.empty()) debug.input_labels = input_labels;
    if (!dump.empty()) {
      parity::trainer::DumpOptions options;
      options.dir = dump;
      options.steps = parity::trainer::StepSelection::parse(dump_steps);
      options.what = parity::trainer::DumpContents::parse(dump_what);
      options.stats_only = dump_stats_only;
      debug.dump = options;
    }
    if (probe_grads.empty() != probe_dir.empty())
      throw parity::Error("--probe-grads and --probe-dir go together",
                          probe_grads.empty() ? "--probe-dir" : "--probe-grads",
                          "give both: --probe-grads all --probe-dir DIR");
    if (!probe_grads.empty())
      debug.probe = parity::trainer::GradProbeOptions{
          probe_dir, parity::trainer::GradProbeOptions::parse_globs(probe_grads), ""};
    debug.detect_anomaly = detect_anomaly;
    for (const std::string& bug : plant_bugs)
      debug.bugs.push_back(parity::trainer::PlantedBug::parse(bug));
    if (!plant_nan.empty()) debug.nan = parity::trainer::PlantedNan::parse(plant_nan);
    if (!plant_overflow.empty())
      debug.overflow_steps =
          parity::trainer::StepSelection::parse(plant_overflow, "--plant-overflow");
    return debug;
  }
};

std::string joined_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

struct ConfigArguments {
  std::string file;
  std::vector<std::string> overrides;
  int threads = -1;

  void add_to(CLI::App& command) {
    command
        .add_option("--config", file,
                    "YAML config with the model_zoo keys (see `parity-train keys`)")
        ->required()
        ->check(CLI::ExistingFile);
    command.add_option("--set", overrides, "override one key: --set lr_max=0.2 (repeatable)");
    command
        .add_option("--threads", threads, "compute threads (default: the config's, 0 = all cores)")
        ->check(CLI::NonNegativeNumber);
  }
  // Says once (on rank 0 of a data-parallel run) which model_zoo keys the
  // config ignored and which of their values it read in Parity's terms.
  parity::trainer::TrainConfig load(bool say_notes) const {
    std::vector<std::string> all = overrides;
    if (threads >= 0) all.push_back("threads=" + std::to_string(threads));
    parity::trainer::ConfigNotes notes;
    auto config = parity::trainer::load_train_config(file, all, &notes);
    if (say_notes)
      for (const std::string& line : notes.lines()) parity::log::info(line);
    return config;
  }
};

// "rank 1: " in a data-parallel run, where several ranks share one terminal.
std::string rank_prefix(const parity::trainer::Communicator* communicator) {
  if (!communicator || communicator->size() < 2) return "";
  return "rank " + std::to_string(communicator->rank()) + ": ";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "parity-train: the reference ResNet trainer (CPU through oneDNN), traced by Parity's "
      "profiler"};
  app.set_version_flag("--version", std::string("parity-train ") + parity::kVersion);
  app.require_subcommand(1);

  ConfigArguments train_config, eval_config;
  parity::trainer::TrainOptions options;
  options.command_line = joined_command_line(argc, argv);
  std::string trace, trace_steps, resume, checkpoint, eval_map = "auto";

  CLI::App* train = app.add_subcommand("train", "train a network; prints the seeds' loss lines");
  train_config.add_to(*train);
  train->add_option("--trace", trace, "record a trace database (must not exist yet)");
  train->add_option("--trace-steps", trace_steps,
                    "record only these steps (0-based, like the step ranges: 10-20, 3, 0-2,50); "
                    "outside them the profiler costs nothing");
  train
      ->add_option("--max-steps", options.max_steps, "stop after N steps (a checkpoint is written)")
      ->check(CLI::NonNegativeNumber);
  train
      ->add_option("--time-limit", options.time_limit_minutes,
                   "stop after the step that passes this many minutes (a checkpoint is written)")
      ->check(CLI::NonNegativeNumber);
  train->add_option("--resume", resume, "continue exactly from this checkpoint")
      ->check(CLI::ExistingFile);
  train
      ->add_option("--log-every", options.log_every,
                   "a loss line every N steps (default: each epoch)")
      ->check(CLI::NonNegativeNumber);
  train->add_flag("--eval", options.eval_each_epoch,
                  "top-1/top-5 on the test split after every epoch");
  train->add_option(
      "--data-delay-ms", options.data_delay_ms,
      "make the data loader sleep MS milliseconds per batch: a planted input-bound run");
  DebugArguments debug;
  debug.add_to(*train);

  CLI::App* eval = app.add_subcommand("eval", "top-1 and top-5 accuracy of a checkpoint");
  eval_config.add_to(*eval);
  eval->add_option("--checkpoint", checkpoint,
                   "a checkpoint written by parity-train train, or weights in any format parity "
                   "diff reads (.pth, .pt, .safetensors, .ckpt, .npz) under torchvision or "
                   "MindSpore names")
      ->required()
      ->check(CLI::ExistingFile);
  eval->add_option("--map", eval_map, kMapHelp);

  CLI::App* keys =
      app.add_subcommand("keys", "list every config key with its type, default and meaning");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kCouldNotRun;
  }
  // Under an MPI launcher, this process is one rank of a group; ranks that
  // fail must take the others down, or those would wait in a collective.
  std::unique_ptr<parity::trainer::Communicator> communicator;
  const auto stop = [&](int code) {
    if (communicator && communicator->size() > 1) communicator->abort(code);
    return code;
  };
  try {
    if (parity::trainer::launched_by_mpi() && train->parsed()) {
      communicator = parity::trainer::make_mpi_communicator();
      options.communicator = communicator.get();
    }
    if (keys->parsed()) {
      std::cout << parity::trainer::describe_config_keys();
      return 0;
    }
    if (eval->parsed()) {
      parity::trainer::evaluate_checkpoint(eval_config.load(true), checkpoint, std::cout, eval_map);
      return 0;
    }
    if (!trace.empty()) options.trace = trace;
    if (!trace_steps.empty())
      options.trace_steps = parity::trainer::StepSelection::parse(trace_steps, "--trace-steps");
    if (!resume.empty()) options.resume = resume;
    options.debug = debug.options();
    const bool first_rank = !communicator || communicator->rank() == 0;
    parity::trainer::train(train_config.load(first_rank), options, std::cout);
    return 0;
  } catch (const parity::trainer::AnomalyDetected& anomaly) {
    std::cout << std::flush;
    std::cerr << "parity-train: " << rank_prefix(communicator.get()) << anomaly.anomaly().report();
    return stop(kAnomaly);
  } catch (const std::exception& error) {
    std::cerr << "parity-train: " << rank_prefix(communicator.get()) << "error: " << error.what()
              << '\n';
    return stop(kCouldNotRun);
  }
}
