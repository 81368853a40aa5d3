#!/usr/bin/env python3
"""The PyTorch side of scripts/gpu/bench.sh, on the lent GPU: training steps
of torchvision's ResNet-50 in eager mode with channels_last and automatic
mixed precision (autocast to PRECISION; float16 with a GradScaler), SGD with
momentum and weight decay, cross-entropy with label smoothing 0.1, one
synthetic batch kept on the GPU, cuDNN's autotuner on, TF32 off. Each step
reads its loss back and ends synchronized, as gpu_trainer_bench's do, and is
an NVTX range "train_step" holding "forward", "backward" and "optimizer".

  torch_resnet_peer.py PRECISION BATCH STEPS WARMUP

PRECISION: float16, bfloat16 or float32 (no autocast). Prints
"median_step_ms X" and "images_per_second X" (from the median step).
"""
import statistics
import sys
import time

import torch
import torchvision


def main(precision, batch, steps, warmup):
    if precision not in ("float16", "bfloat16", "float32"):
        sys.exit(f"torch_resnet_peer.py: precision '{precision}': "
                 "choose float16, bfloat16 or float32")
    batch, steps, warmup = int(batch), int(steps), int(warmup)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(1)
    device = torch.device("cuda")
    model = torchvision.models.resnet50(num_classes=1000).to(device)
    model = model.to(memory_format=torch.channels_last).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    images = torch.randn(batch, 3, 224, 224, device=device).to(memory_format=torch.channels_last)
    labels = torch.arange(batch, device=device) % 1000
    autocast = precision != "float32"
    dtype = torch.float16 if precision == "float16" else torch.bfloat16
    scaler = torch.amp.GradScaler("cuda", enabled=precision == "float16")

    # NVTX ranges cost nothing unless a tool injects into NVTX: `parity
    # record` shows them as ranges, and can capture inside "train_step" only.
    nvtx = torch.cuda.nvtx

    def step():
        nvtx.range_push("train_step")
        optimizer.zero_grad(set_to_none=True)
        nvtx.range_push("forward")
        with torch.autocast("cuda", dtype=dtype, enabled=autocast):
            loss = torch.nn.functional.cross_entropy(model(images), labels, label_smoothing=0.1)
        nvtx.range_pop()
        nvtx.range_push("backward")
        scaler.scale(loss).backward()
        nvtx.range_pop()
        nvtx.range_push("optimizer")
        scaler.step(optimizer)
        scaler.update()
        nvtx.range_pop()
        loss.item()
        torch.cuda.synchronize()
        nvtx.range_pop()

    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1000.0)
    median = statistics.median(times)
    print(f"device {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, "
          f"cuDNN {torch.backends.cudnn.version()}")
    print(f"median_step_ms {median:.3f}")
    print(f"images_per_second {batch * 1000.0 / median:.1f}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: torch_resnet_peer.py PRECISION BATCH STEPS WARMUP")
    main(*sys.argv[1:])
