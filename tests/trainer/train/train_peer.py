#!/usr/bin/python3
"""The PyTorch side of trainer_train_tests: what PyTorch computes for the
inputs our tests hand it, through safetensors files.

  train_peer.py loss IN OUT
    IN holds cases "case<i>.logits" (float32 [N, K]), "case<i>.labels"
    (int64 [N]) and "case<i>.options" (float64 [eps, convention, scale];
    convention 0 = pytorch, 1 = mindspore). OUT gets, computed in float64
    from the float32 logits, "case<i>.loss" (the batch mean, shape [1]) and
    "case<i>.grad" (d(scale * loss) / d logits); pytorch's convention through
    torch.nn.functional.cross_entropy(label_smoothing=eps), mindspore's
    through the formula below; and "case<i>.top<k>" (int64 [1]) for k in
    1, 5: how many rows have their label among torch.topk's k indices.

  train_peer.py sgd IN OUT
    IN holds the initial parameters "init.<p>" (float32), the unscaled
    gradients "grad<s>.<p>" of each step s, the learning rates "lr" (float64
    [S]), the configurations "configs" (float64 [C, 4]: momentum, dampening,
    nesterov, weight_decay) and "x", "dy" (a convolution's input and output
    gradient). Parameter "conv" is in the weight-decay group, the others are
    not. For every configuration c and step s OUT gets the parameters
    "c<c>.s<s>.<p>.value" and momentum buffers "c<c>.s<s>.<p>.buf" after
    torch.optim.SGD's step, and "c<c>.dx": the input gradient (float64) of a
    3x3, padding-1 convolution with the final "conv" weight.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import torch_safetensors as safetensors_io  # noqa: E402

def mindspore_smoothed_loss(x, labels, eps):
    """MindSpore's CrossEntropySmooth: one-hot with on-value 1 - eps and
    off-value eps / (K - 1), then the mean of -sum(target * log_softmax)."""
    classes = x.shape[1]
    target = torch.full_like(x, eps / (classes - 1))
    target[torch.arange(x.shape[0]), labels] = 1.0 - eps
    return -(target * torch.log_softmax(x, dim=1)).sum(dim=1).mean()


def loss_cases(inputs):
    out = {}
    cases = sorted({name.split(".")[0] for name in inputs})
    for case in cases:
        logits = inputs[case + ".logits"]
        labels = inputs[case + ".labels"]
        eps, convention, scale = inputs[case + ".options"].tolist()
        x = logits.double().requires_grad_()
        if convention == 0:
            loss = F.cross_entropy(x, labels, label_smoothing=eps)
        else:
            loss = mindspore_smoothed_loss(x, labels, eps)
        (loss * scale).backward()
        out[case + ".loss"] = loss.detach().reshape(1)
        out[case + ".grad"] = x.grad
        for k in (1, 5):
            top = torch.topk(logits, k, dim=1).indices
            hits = (top == labels[:, None]).any(dim=1).sum()
            out[f"{case}.top{k}"] = hits.reshape(1).to(torch.int64)
    return out


def sgd_runs(inputs):
    out = {}
    names = [name[len("init."):] for name in inputs if name.startswith("init.")]
    rates = inputs["lr"].tolist()
    for c, (momentum, dampening, nesterov, decay) in enumerate(inputs["configs"].tolist()):
        params = {n: inputs["init." + n].clone().requires_grad_() for n in names}
        optimizer = torch.optim.SGD(
            [{"params": [params["conv"]], "weight_decay": decay},
             {"params": [params[n] for n in names if n != "conv"], "weight_decay": 0.0}],
            lr=rates[0], momentum=momentum, dampening=dampening, nesterov=bool(nesterov))
        for s, lr in enumerate(rates):
            for group in optimizer.param_groups:
                group["lr"] = lr
            for n in names:
                params[n].grad = inputs[f"grad{s}.{n}"].clone()
            optimizer.step()
            for n in names:
                out[f"c{c}.s{s}.{n}.value"] = params[n].detach().clone()
                out[f"c{c}.s{s}.{n}.buf"] = optimizer.state[params[n]]["momentum_buffer"].clone()
        x, dy = inputs["x"].double(), inputs["dy"].double()
        out[f"c{c}.dx"] = torch.nn.grad.conv2d_input(
            list(x.shape), params["conv"].detach().double(), dy, padding=1)
    return out


def main(mode, in_path, out_path):
    torch.set_num_threads(1)
    inputs = safetensors_io.read(in_path)
    safetensors_io.write(out_path, loss_cases(inputs) if mode == "loss" else sgd_runs(inputs))


if __name__ == "__main__":
    main(*sys.argv[1:])
