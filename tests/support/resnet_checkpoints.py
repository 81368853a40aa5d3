"""Writes torchvision ResNet checkpoints under PyTorch's and MindSpore's names,
for the weight-diff, weight-loading and viewer tests: the PyTorch state_dict
as it is, and the same network as MindSpore saves it, in both MindSpore naming
styles, in MindSpore's parameter order (a BatchNorm's moving_mean,
moving_variance, gamma, beta).

  resnet_checkpoints.py OUT_DIR [--arch resnet50] [--seed 0] [--num-classes 1000]
      [--style torch|mindspore|modelzoo] [--order network|alphabetical]
      [--name FILE] [--perturb NAME=DELTA]... [--dtype NAME=float16]...
      [--training-state]

The files are safetensors (tests/support/torch_safetensors.py), or what
torch.save writes when the name ends in .pth. --training-state adds what a
training checkpoint holds beside the model: under MindSpore's names, what its
ModelCheckpoint writes with a Momentum optimizer (moments.<parameter> for
every trainable parameter, learning_rate, momentum, global_step, epoch_num,
step_num); under PyTorch's (.pth only), the usual training checkpoint
{"epoch", "state_dict", "optimizer", "best_acc1"} after one SGD step."""
import argparse
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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
    parser.add_argument("--num-classes", type=int, default=1000)
    parser.add_argument("--training-state", action="store_true")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    model = getattr(torchvision.models, args.arch)(num_classes=args.num_classes)
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
    if args.training_state and args.style != "torch":
        state.update(mindspore_training_state(state))
    if args.order == "alphabetical":
        state = dict(sorted(state.items()))
    os.makedirs(args.out_dir, exist_ok=True)
    name = args.name or f"{args.arch}_{args.style}_{args.order}_seed{args.seed}.safetensors"
    path = os.path.join(args.out_dir, name)
    if name.endswith(".pth"):
        obj = torch_training_checkpoint(model, state) if args.training_state else state
        torch.save(obj, path)
    else:
        torch_safetensors.write(path, state)
    print(len(state))


def mindspore_training_state(state):
    """What MindSpore's ModelCheckpoint saves beside the network with a
    Momentum optimizer (names as mindspore/nn/optim/momentum.py and
    optimizer.py give them; epoch_num and step_num from append_info)."""
    trainable = [n for n in state if not n.endswith(("moving_mean", "moving_variance"))]
    out = {"moments." + n: torch.randn_like(state[n]) for n in trainable}
    out["learning_rate"] = torch.tensor(0.1)
    out["momentum"] = torch.tensor(0.9)
    out["global_step"] = torch.tensor([500], dtype=torch.int32)
    out["epoch_num"] = torch.tensor(5, dtype=torch.int32)
    out["step_num"] = torch.tensor(500, dtype=torch.int32)
    return out


def torch_training_checkpoint(model, state):
    """The checkpoint PyTorch's ImageNet example saves, after one SGD step."""
    model.load_state_dict(state)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for p in model.parameters():
        p.grad = torch.ones_like(p)
    optimizer.step()
    model.load_state_dict(state)  # the weights stay those of the other files
    return {"epoch": 3, "arch": "resnet", "state_dict": model.state_dict(),
            "best_acc1": torch.tensor(0.5), "optimizer": optimizer.state_dict()}


if __name__ == "__main__":
    main()
