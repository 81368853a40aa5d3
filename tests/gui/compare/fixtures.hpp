// Real inputs for the comparison views' tests, written at test time by
// Debian's PyTorch and NumPy (/usr/bin/python3) with the scripts the
// analyzer's tests and users run: resnet_checkpoints.py for checkpoints,
// samples/torch/dump_reference.py for dumps. Each writer returns what went
// wrong (the command and its stderr), empty on success.
#pragma once

#include <QString>

namespace fixture {

// DIR/a.safetensors: ResNet-18 under MindSpore's model zoo names, the first
// element of kPerturbedParameter moved by kPerturbation; DIR/b.safetensors:
// the same network under PyTorch's names. The diff pairs 102 parameters (one
// mismatch) and leaves B's 20 num_batches_tracked without counterpart.
inline constexpr char kPerturbedParameter[] = "layer2.1.conv2.weight";
inline constexpr double kPerturbation = 0.5;
QString write_checkpoints(const QString& dir);

// DIR/a and DIR/b: the forward records of one SGD step of ResNet-18 on the
// same batch, A's kPerturbedWeight moved by kPerturbation, so that the output
// of kDivergentRecord is the first to differ.
inline constexpr char kPerturbedWeight[] = "layer2.0.conv1.weight";
inline constexpr char kDivergentRecord[] = "layer2.0.conv1";
QString write_dumps(const QString& dir);

// DIR/a and DIR/b: the forward and update records of two SGD steps of
// ResNet-18 from the same weights and batch, A at learning rate 0.2, B at
// 0.1: step 0's forward matches, its update is the first record to differ,
// before step 1's forward.
QString write_lr_dumps(const QString& dir);

// DIR/a and DIR/b: plain directories of float32 [4, 5] .npy files t0 ... t5,
// equal but for: t2, one element 1 + 2^-7 in A against 1 in B (max abs
// kNpyError); t3, NaN at the same element on both sides (a match); t4, one
// element +Inf in A only. A also has u_extra.npy, which B lacks.
inline constexpr double kNpyError = 0.0078125;
QString write_npy_dirs(const QString& dir);

}  // namespace fixture
