"""How far 16-bit training steps stray from float32 in PyTorch itself.

Run on the lent GPU (the machine's torch and torchvision):

    python3 scripts/gpu/amp_gradient_spread.py

A ResNet-18 with the small-image stem (3x3, stride 1, no max pooling, as our
ResNet builds for images this small) takes two SGD steps (momentum 0.9,
weight decay 1e-4, label smoothing 0.1) from the same weights on the same
batches in float32 (TF32 off) and under autocast in float16 and bfloat16, with
and without a loss scale. Printed per configuration: the relative error of
the logits and of the loss, and the spread of the gradients' Euclidean
relative errors over the parameters (median and largest), at each step.
This calibrates the tolerances of our own 16-bit tests against float32: the
same kind of rounding, measured on the peer.
"""
import contextlib
import copy
import statistics
import sys

import torch
import torchvision


def model(classes, seed):
    torch.manual_seed(seed)
    net = torchvision.models.resnet18(num_classes=classes)
    net.conv1 = torch.nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    net.maxpool = torch.nn.Identity()
    return net.cuda().to(memory_format=torch.channels_last)


def steps(net, batches, labels, precision, loss_scale, lr):
    sgd = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    results = []
    for images in batches:
        sgd.zero_grad(set_to_none=True)
        with (contextlib.nullcontext() if precision == torch.float32
              else torch.autocast(images.device.type, dtype=precision)):
            logits = net(images)
        loss = loss_fn(logits.float(), labels)
        (loss * loss_scale).backward()
        grads = [p.grad.detach().double() / loss_scale for p in net.parameters()]
        results.append((logits.detach().double(), loss.item(), grads))
        for p in net.parameters():
            p.grad /= loss_scale
        sgd.step()
    return results


def l2(got, want):
    return ((got - want).norm() / want.norm().clamp_min(1e-300)).item()


def main():
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    configs = [(8, 16, 0.1), (8, 16, 0.01), (32, 32, 0.1), (32, 32, 0.01)]
    print("| batch x px | lr | precision | loss scale | step | logits err | loss err | "
          "grad l2 err median | grad l2 err max |")
    print("|---|---|---|---|---|---|---|---|---|")
    for batch, size, lr in configs:
        torch.manual_seed(7)
        batches = [torch.randn(batch, 3, size, size, device="cuda")
                   .to(memory_format=torch.channels_last) for _ in range(2)]
        labels = torch.arange(batch, device="cuda") % 10
        base = model(10, 5)
        want = steps(copy.deepcopy(base), batches, labels, torch.float32, 1.0, lr)
        # float32 on the CPU against float32 on the GPU: what summation order alone moves.
        cpu = steps(copy.deepcopy(base).cpu(), [b.cpu() for b in batches], labels.cpu(),
                    torch.float32, 1.0, lr)
        want_cpu = [(l.cuda(), loss, [g.cuda() for g in grads]) for l, loss, grads in cpu]
        for precision, scale in [("cpu float32", 1.0), (torch.float16, 1.0),
                                 (torch.float16, 1024.0), (torch.bfloat16, 1.0)]:
            if precision == "cpu float32":
                got = want_cpu
            else:
                got = steps(copy.deepcopy(base), batches, labels, precision, scale, lr)
            name = str(precision).replace("torch.", "")
            for step, ((gl, gloss, gg), (wl, wloss, wg)) in enumerate(zip(got, want)):
                errors = [l2(g, w) for g, w in zip(gg, wg)]
                print(f"| {batch}x{size} | {lr} | {name} | {scale:g} | {step} | "
                      f"{l2(gl, wl):.2e} | {abs(gloss - wloss) / abs(wloss):.1e} | "
                      f"{statistics.median(errors):.3f} | {max(errors):.3f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
