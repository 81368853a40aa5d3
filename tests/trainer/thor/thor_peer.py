#!/usr/bin/python3
"""The float64 reference of trainer_thor_tests: two THOR steps of a small
network, written from MindSpore's formulas (nn.thor's GPU path and
thor_layer's Conv2dThor/DenseThor; docs/thor.md) in PyTorch, independently
of Parity's C++.

  thor_peer.py IN OUT
    IN holds "x0", "x1" (float32 [N, 3, 6, 6]: the two steps' batches),
    "labels0", "labels1" (int64 [N]), the initial parameters
    "conv1.weight" [16, 3, 3, 3], "conv2.weight" [8, 16, 3, 3],
    "fc.weight" [130, 8], "fc.bias" [130], and "options" (float64
    [lr, momentum, weight_decay, damping, loss_scale]).
    The network: conv1 (3x3, stride 1, padding 1) -> relu -> conv2 (3x3,
    stride 2, MindSpore's pad_mode "same": 0 before, 1 after) -> relu ->
    global average pool -> fc; the loss is the batch mean of the cross
    entropy, times loss_scale before backward.
    Step 0 collects the factors and inverts them; step 1 reuses the inverses.
    OUT gets, in float64, "<layer>.a_inverse" and "<layer>.g_inverse" (the
    block-diagonal inverses as dense matrices) and "s<step>.<parameter>"
    (every parameter after each step).
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import torch_safetensors as safetensors_io  # noqa: E402

SPLIT = 128  # MindSpore's split_dim
CONVS = {"conv1": (1, (1, 1, 1, 1)), "conv2": (2, (0, 1, 0, 1))}  # stride, F.pad's (l, r, t, b)


def forward(params, x, taps):
    """The network, recording each weighted layer's input and output."""
    h = x
    for name, (stride, pad) in CONVS.items():
        taps[name + ".in"] = h
        h = F.conv2d(F.pad(h, pad), params[name + ".weight"], stride=stride)
        h.retain_grad()
        taps[name + ".out"] = h
        h = F.relu(h)
    h = h.mean(dim=(2, 3))
    taps["fc.in"] = h
    logits = F.linear(h, params["fc.weight"], params["fc.bias"])
    logits.retain_grad()
    taps["fc.out"] = logits
    return logits


def block_inverse(factor, damping, scale):
    """MindSpore's inverse: split into 128-blocks, pad the last with the
    identity, Cholesky-invert each block, keep the diagonal blocks only."""
    dim = factor.shape[0]
    padded = (dim + SPLIT - 1) // SPLIT * SPLIT
    big = torch.eye(padded, dtype=torch.float64)
    big[:dim, :dim] = factor + damping * torch.eye(dim, dtype=torch.float64)
    out = torch.zeros(padded, padded, dtype=torch.float64)
    for b in range(0, padded, SPLIT):
        block = big[b:b + SPLIT, b:b + SPLIT]
        low = torch.linalg.cholesky(block)
        low_inv = torch.linalg.solve_triangular(low, torch.eye(SPLIT, dtype=torch.float64), upper=False)
        out[b:b + SPLIT, b:b + SPLIT] = low_inv.T @ low_inv
    return out[:dim, :dim] * scale


def factors(name, taps, n, loss_scale):
    """A, G and the normaliser of one layer (Conv2dThor / DenseThor, GPU)."""
    x, dout = taps[name + ".in"].detach(), taps[name + ".out"].grad
    g_rescale = n * n / (loss_scale * loss_scale)  # thor.py: G * batch^2 / loss_scale^2
    if name == "fc":
        return x.T @ x / n, dout.T @ dout / n * g_rescale, 1.0
    stride, pad = CONVS[name]
    columns = F.unfold(F.pad(x, pad), kernel_size=3, stride=stride)  # [N, C*9, L]
    pixels = columns.shape[2]
    m = columns.mean(dim=0)
    d = dout.reshape(n, dout.shape[1], -1).mean(dim=0)
    return m @ m.T / pixels, d @ d.T / pixels * g_rescale, float(pixels)


def main():
    inputs = safetensors_io.read(sys.argv[1])
    lr, momentum, weight_decay, damping, loss_scale = inputs["options"].tolist()
    names = ["conv1.weight", "conv2.weight", "fc.weight", "fc.bias"]
    params = {p: inputs[p].double().clone() for p in names}
    buffers = {p: torch.zeros_like(params[p]) for p in names}
    inverses = {}
    out = {}
    for step in range(2):
        for p in names:
            params[p].requires_grad_(True)
        x = inputs["x%d" % step].double()
        n = x.shape[0]
        taps = {}
        logits = forward(params, x, taps)
        loss = F.cross_entropy(logits, inputs["labels%d" % step])
        (loss * loss_scale).backward()
        if step == 0:
            for layer in ("conv1", "conv2", "fc"):
                a, g, normaliser = factors(layer, taps, n, loss_scale)
                damp = (damping / normaliser) ** 0.5
                scale = (1.0 / normaliser) ** 0.5
                inverses[layer] = (block_inverse(a, damp, scale), block_inverse(g, damp, scale))
                out[layer + ".a_inverse"], out[layer + ".g_inverse"] = inverses[layer]
        with torch.no_grad():
            for p in names:
                grad = params[p].grad / loss_scale
                layer = p.split(".")[0]
                if p.endswith("weight"):
                    a_inv, g_inv = inverses[layer]
                    grad = (g_inv @ grad.reshape(grad.shape[0], -1) @ a_inv).reshape(grad.shape)
                grad = grad + weight_decay * params[p]
                buffers[p] = momentum * buffers[p] + grad
                params[p] = params[p] - lr * buffers[p]
                out["s%d.%s" % (step, p)] = params[p].clone()
    safetensors_io.write(sys.argv[2], out)


if __name__ == "__main__":
    main()
