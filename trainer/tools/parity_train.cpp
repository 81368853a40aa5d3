// `parity-train`: trains and evaluates the reference ResNet trainer.
//   parity-train train --config FILE [--set k=v]... [--trace RUN.db] [--max-steps N]
//                      [--time-limit MINUTES] [--resume CKPT] [--threads N] [--log-every N]
//                      [--eval]
//   parity-train eval  --config FILE --checkpoint CKPT [--set k=v]... [--threads N]
//   parity-train keys  (every config key with its type, default and meaning)
// Exit codes: 0 done, 2 could not run (bad config, bad data, bad checkpoint).
#include <CLI/CLI.hpp>

#include <iostream>

#include "parity/core/error.hpp"
#include "parity/core/version.hpp"
#include "parity/trainer/train/training_run.hpp"

namespace {

constexpr int kCouldNotRun = 2;

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
    command.add_option("--config", file, "YAML config with the model_zoo keys (see `parity-train keys`)")
        ->required()
        ->check(CLI::ExistingFile);
    command.add_option("--set", overrides, "override one key: --set lr_max=0.2 (repeatable)");
    command.add_option("--threads", threads, "compute threads (default: the config's, 0 = all cores)")
        ->check(CLI::NonNegativeNumber);
  }
  parity::trainer::TrainConfig load() const {
    std::vector<std::string> all = overrides;
    if (threads >= 0) all.push_back("threads=" + std::to_string(threads));
    return parity::trainer::load_train_config(file, all);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"parity-train: the reference ResNet trainer (CPU through oneDNN), traced by Parity's profiler"};
  app.set_version_flag("--version", std::string("parity-train ") + parity::kVersion);
  app.require_subcommand(1);

  ConfigArguments train_config, eval_config;
  parity::trainer::TrainOptions options;
  options.command_line = joined_command_line(argc, argv);
  std::string trace, resume, checkpoint;

  CLI::App* train = app.add_subcommand("train", "train a network; prints the seeds' loss lines");
  train_config.add_to(*train);
  train->add_option("--trace", trace, "record a trace database (must not exist yet)");
  train->add_option("--max-steps", options.max_steps, "stop after N steps (a checkpoint is written)")
      ->check(CLI::NonNegativeNumber);
  train->add_option("--time-limit", options.time_limit_minutes,
                    "stop after the step that passes this many minutes (a checkpoint is written)")
      ->check(CLI::NonNegativeNumber);
  train->add_option("--resume", resume, "continue exactly from this checkpoint")->check(CLI::ExistingFile);
  train->add_option("--log-every", options.log_every, "a loss line every N steps (default: each epoch)")
      ->check(CLI::NonNegativeNumber);
  train->add_flag("--eval", options.eval_each_epoch, "top-1/top-5 on the test split after every epoch");

  CLI::App* eval = app.add_subcommand("eval", "top-1 and top-5 accuracy of a checkpoint");
  eval_config.add_to(*eval);
  eval->add_option("--checkpoint", checkpoint, "a checkpoint written by parity-train train")
      ->required()
      ->check(CLI::ExistingFile);

  CLI::App* keys = app.add_subcommand("keys", "list every config key with its type, default and meaning");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kCouldNotRun;
  }
  try {
    if (keys->parsed()) {
      std::cout << parity::trainer::describe_config_keys();
      return 0;
    }
    if (eval->parsed()) {
      parity::trainer::evaluate_checkpoint(eval_config.load(), checkpoint, std::cout);
      return 0;
    }
    if (!trace.empty()) options.trace = trace;
    if (!resume.empty()) options.resume = resume;
    parity::trainer::train(train_config.load(), options, std::cout);
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "parity-train: error: " << error.what() << '\n';
    return kCouldNotRun;
  }
}
