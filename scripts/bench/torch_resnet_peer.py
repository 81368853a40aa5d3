#!/usr/bin/python3
"""The PyTorch side of scripts/bench/trainer.sh: training steps of
torchvision's ResNet (forward, cross-entropy with label smoothing 0.1,
backward, SGD with momentum) on a fixed random batch, on the CPU.

  torch_resnet_peer.py DEPTH IMAGE_SIZE BATCH STEPS WARMUP THREADS

Prints "images_per_second X".
"""
import sys
import time

import torch
import torchvision


def main(depth, size, batch, steps, warmup, threads):
    torch.set_num_threads(int(threads))
    torch.manual_seed(1)
    model = getattr(torchvision.models, "resnet" + depth)(num_classes=1000).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    images = torch.randn(int(batch), 3, int(size), int(size))
    labels = torch.arange(int(batch)) % 1000

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(images), labels, label_smoothing=0.1)
        loss.backward()
        optimizer.step()

    for _ in range(int(warmup)):
        step()
    start = time.perf_counter()
    for _ in range(int(steps)):
        step()
    seconds = time.perf_counter() - start
    print("images_per_second %.2f" % (int(batch) * int(steps) / seconds))


if __name__ == "__main__":
    main(*sys.argv[1:])
