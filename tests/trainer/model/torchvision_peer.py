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
import json
import struct
import sys

import torch
import torchvision

CODES = {"F32": torch.float32, "I64": torch.int64}
NAMES = {torch.float32: "F32", torch.int64: "I64"}


def read(path):
    with open(path, "rb") as f:
        blob = f.read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + length])
    header.pop("__metadata__", None)
    data = blob[8 + length:]
    out = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        out[name] = torch.frombuffer(bytearray(data[begin:end]),
                                     dtype=CODES[entry["dtype"]]).reshape(entry["shape"])
    return out


def write(path, tensors):
    header, chunks, offset = {}, [], 0
    for name, tensor in tensors.items():
        raw = tensor.detach().contiguous().numpy().tobytes()
        header[name] = {"dtype": NAMES[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def main(state_path, inputs_path, out_path, depth, stem, classes):
    torch.set_num_threads(1)
    model = getattr(torchvision.models, "resnet" + depth)(num_classes=int(classes))
    if stem == "small":
        model.conv1 = torch.nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        model.maxpool = torch.nn.Identity()
    model.load_state_dict(read(state_path), strict=True)
    inputs = read(inputs_path)
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
    write(out_path, out)


if __name__ == "__main__":
    main(*sys.argv[1:])
