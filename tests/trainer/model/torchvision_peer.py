#!/usr/bin/python3
"""The PyTorch side of trainer_model_tests: runs torchvision's ResNet with the
weights our trainer initialised and reports what PyTorch computes.

  torchvision_peer.py STATE INPUTS OUT DEPTH STEM CLASSES

STATE: our model's state_dict (safetensors). INPUTS: "x" (the images) and
"r" (the gradient of the logits). STEM: "small" replaces conv1 by a 3x3
stride-1 conv and drops the max pool. OUT gets: "logits.train" (training
mode forward), "grad.<param>" (gradients of sum(logits * r)), the state
after that forward ("state.<name>", running statistics included) and
"logits.eval" (evaluation mode forward); and "grad64.<param>", the same
gradients computed in float64, the reference that tells float32 rounding
(PyTorch's and ours) from a real difference.
"""
import copy
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import torch_safetensors as safetensors_io  # noqa: E402


def main(state_path, inputs_path, out_path, depth, stem, classes):
    torch.set_num_threads(1)
    model = getattr(torchvision.models, "resnet" + depth)(num_classes=int(classes))
    if stem == "small":
        model.conv1 = torch.nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        model.maxpool = torch.nn.Identity()
    model.load_state_dict(safetensors_io.read(state_path), strict=True)
    inputs = safetensors_io.read(inputs_path)
    reference = copy.deepcopy(model).double().train()
    (reference(inputs["x"].double()) * inputs["r"].double()).sum().backward()
    model.train()
    logits = model(inputs["x"])
    (logits * inputs["r"]).sum().backward()
    out = {"logits.train": logits}
    for name, parameter in model.named_parameters():
        out["grad." + name] = parameter.grad
    for name, parameter in reference.named_parameters():
        out["grad64." + name] = parameter.grad.float()
    for name, value in model.state_dict().items():
        out["state." + name] = value
    model.eval()
    with torch.no_grad():
        out["logits.eval"] = model(inputs["x"])
    safetensors_io.write(out_path, out)


if __name__ == "__main__":
    main(*sys.argv[1:])
