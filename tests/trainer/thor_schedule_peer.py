#!/usr/bin/python3
"""THOR's learning rate and damping at chosen steps, computed the way
MindSpore model_zoo's official/cv/ResNet/src/lr_generator.py (get_thor_lr,
get_thor_damping) computes them: Python float64 arithmetic per step, then
NumPy's float32 cast. Written for Parity's thor_schedule_test from those
functions' formulas (docs/thor.md); run with Debian's /usr/bin/python3.

usage: thor_schedule_peer.py LR_INIT LR_DECAY LR_END_EPOCH DECAY_EPOCHS
                             DAMPING_INIT DAMPING_DECAY STEPS_PER_EPOCH STEP...
prints one line per STEP: the step, its learning rate and its damping, each
the float32 value as float.hex() of the double holding it.
"""
import sys

import numpy as np


def learning_rate(step, lr_init, lr_decay, lr_end_epoch, decay_epochs, steps_per_epoch):
    epoch = (step + 1) / steps_per_epoch
    rate = lr_init * (1.0 - epoch / lr_end_epoch) ** lr_decay
    halvings = (epoch >= decay_epochs) + (epoch >= decay_epochs + 1)
    for _ in range(halvings):
        rate = rate * 0.5
    return rate


def damping(step, damping_init, damping_decay, steps_per_epoch):
    epoch = (step + 1) / steps_per_epoch
    return damping_init * damping_decay ** (epoch / 10)


def main(argv):
    lr_init, lr_decay = float(argv[1]), float(argv[2])
    lr_end_epoch, decay_epochs = int(argv[3]), int(argv[4])
    damping_init, damping_decay = float(argv[5]), float(argv[6])
    steps_per_epoch = int(argv[7])
    for step in map(int, argv[8:]):
        rate = learning_rate(step, lr_init, lr_decay, lr_end_epoch, decay_epochs, steps_per_epoch)
        damp = damping(step, damping_init, damping_decay, steps_per_epoch)
        as_float32 = np.array([rate, damp], dtype=np.float64).astype(np.float32)
        print(step, float(as_float32[0]).hex(), float(as_float32[1]).hex())


if __name__ == "__main__":
    main(sys.argv)
