// A PyTorch-made starting point for runs of our trainer and of
// samples/torch/dump_reference.py: a torchvision model (10 classes)
// initialised in PyTorch and saved as init.pth, a batch (4x3x64x64 unless
// asked otherwise) and its labels as .npy, and the config that trains as dump_reference.py does:
// constant lr 0.001, momentum 0.9, weight decay 1e-4 on weights only, label
// smoothing 0.1 spread over all classes, one thread.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "process.hpp"
#include "temp_dir.hpp"

inline void run_ok(const std::vector<std::string>& argv) {
  const ProcessResult result = run_process(argv);
  INFO(argv[0] << " " << (argv.size() > 1 ? argv[1] : "") << "\n" << result.out << result.err);
  REQUIRE(result.exit_code == 0);
}

struct TorchRunSetup {
  TempDir dir;
  std::string model;

  explicit TorchRunSetup(std::string model_name = "resnet50",
                         const std::string& batch = "4,3,64,64")
      : model(std::move(model_name)) {
    run_ok({PARITY_PYTHON, PARITY_DUMP_REFERENCE, "--model", model, "--num-classes", "10",
            "--seed", "0", "--save-init", (dir / "init.pth").string(), "--make-batch", batch,
            "--save-images", (dir / "x.npy").string(), "--save-labels", (dir / "y.npy").string()});
    std::ofstream(dir / "config.yaml") << "net_name: " << model
                                       << "\nclass_num: 10\nstem: imagenet\n"
                                          "lr_decay_mode: constant\nlr_max: 0.001\nmomentum: 0.9\n"
                                          "weight_decay: 0.0001\nlabel_smooth_factor: 0.1\n"
                                          "label_smooth_convention: pytorch\nepoch_size: 3\n"
                                          "save_checkpoint: false\nthreads: 1\n";
  }
  // dump_reference.py's dump of the same training into dir/name.
  void torch_dump(const std::string& name, const std::vector<std::string>& extra) {
    std::vector<std::string> argv{PARITY_PYTHON, PARITY_DUMP_REFERENCE,
                                  "--model",     model,
                                  "--num-classes", "10",
                                  "--weights",   (dir / "init.pth").string(),
                                  "--images",    (dir / "x.npy").string(),
                                  "--labels",    (dir / "y.npy").string(),
                                  "--lr",        "0.001",
                                  "--momentum",  "0.9",
                                  "--weight-decay", "1e-4",
                                  "--label-smoothing", "0.1",
                                  "--threads",   "1",
                                  "--dump",      (dir / name).string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    run_ok(argv);
  }
  // parity-train's run, dumped into dir/name.
  ProcessResult ours(const std::string& name, const std::vector<std::string>& extra) {
    std::vector<std::string> argv{PARITY_TRAIN,     "train",
                                  "--config",       (dir / "config.yaml").string(),
                                  "--init-weights", (dir / "init.pth").string(),
                                  "--input-batch",  (dir / "x.npy").string(),
                                  "--input-labels", (dir / "y.npy").string(),
                                  "--dump",         (dir / name).string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_process(argv);
  }
};
