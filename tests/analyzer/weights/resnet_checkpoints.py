"""Writes torchvision ResNet checkpoints under PyTorch's and MindSpore's names,
for the weight-diff tests: the PyTorch state_dict as it is, and the same
network as MindSpore saves it, in both MindSpore naming styles, in MindSpore's
parameter order (a BatchNorm's moving_mean, moving_variance, gamma, beta).

  resnet_checkpoints.py OUT_DIR [--arch resnet50] [--seed 0]
      [--style torch|mindspore|modelzoo] [--order network|alphabetical]
      [--name FILE] [--perturb NAME=DELTA]... [--dtype NAME=float16]...

The files are safetensors (tests/support/torch_safetensors.py)."""
import argparse
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "support"))
import torch_safetensors  # noqa: E402

BN_LEAVES = {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean",
             "running_var": "moving_variance"}
# MindSpore's BatchNorm creates its parameters in this order.
MINDSPORE_BN_ORDER = ["moving_mean", "moving_variance", "gamma", "beta"]


def mindspore_names(state, modelzoo):
    batch_norms = {name.rsplit(".", 1)[0] for name in state if name.endswith("running_mean")}
    out = {}
    for name, tensor in state.items():
        module, leaf = name.rsplit(".", 1)
        if module in batch_norms:
            if leaf == "num_batches_tracked":
                continue
            leaf = BN_LEAVES[leaf]
        if modelzoo:
            parts = ["down_sample_layer" if p == "downsample" else p for p in module.split(".")]
            if parts[0] == "fc":
                parts[0] = "end_point"
            module = ".".join(parts)
        out[module + "." + leaf] = tensor
    return out


def network_order(state):
    """Within each module, BatchNorm parameters in MindSpore's creation order."""
    def key(item):
        index, (name, _) = item
        module, leaf = name.rsplit(".", 1)
        rank = MINDSPORE_BN_ORDER.index(leaf) if leaf in MINDSPORE_BN_ORDER else -1
        return (first_index[module], rank, index)
    first_index = {}
    for name in state:
        first_index.setdefault(name.rsplit(".", 1)[0], len(first_index))
    return dict(item for _, item in sorted(enumerate(state.items()), key=key))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--arch", default="resnet50")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--style", default="torch", choices=["torch", "mindspore", "modelzoo"])
    parser.add_argument("--order", default="network", choices=["network", "alphabetical"])
    parser.add_argument("--name", default=None)
    parser.add_argument("--perturb", action="append", default=[])
    parser.add_argument("--dtype", action="append", default=[])
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    model = getattr(torchvision.models, args.arch)()
    # Trained-looking statistics, so no two BatchNorm tensors are all ones or zeros.
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0, 0.1)
                module.running_mean.normal_(0, 0.1)
                module.running_var.uniform_(0.5, 2.0)
                module.num_batches_tracked.fill_(1000)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    for item in args.perturb:
        name, delta = item.split("=")
        state[name].view(-1)[0] += float(delta)
    for item in args.dtype:
        name, dtype = item.split("=")
        state[name] = state[name].to(getattr(torch, dtype))
    if args.style != "torch":
        state = network_order(mindspore_names(state, args.style == "modelzoo"))
    if args.order == "alphabetical":
        state = dict(sorted(state.items()))
    os.makedirs(args.out_dir, exist_ok=True)
    name = args.name or f"{args.arch}_{args.style}_{args.order}_seed{args.seed}.safetensors"
    torch_safetensors.write(os.path.join(args.out_dir, name), state)
    print(len(state))


if __name__ == "__main__":
    main()
