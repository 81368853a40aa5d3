#!/usr/bin/python3
"""The PyTorch side of trainer_checkpoint_tests: loads a Parity training
checkpoint the way a PyTorch user would - the safetensors format read with
struct and json - into a torch module with load_state_dict(strict=True), and
checks the values and metadata.

  checkpoint_peer.py check PATH EPOCH STEP STEP_IN_EPOCH

The module and pattern() mirror tests/trainer/checkpoint/checkpoint_fixture.hpp.
"""
import json
import struct
import sys

import torch

DTYPES = {"F32": torch.float32, "I64": torch.int64}


class SmallNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 4, 3, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4, 2)


def pattern(shape):
    count = 1
    for dim in shape:
        count *= dim
    i = torch.arange(count, dtype=torch.int64)
    return ((i % 17).double() * 0.25 - 2.0).float().reshape(shape)


def load_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + length])
    data = blob[8 + length:]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        raw = bytearray(data[begin:end])
        tensors[name] = torch.frombuffer(raw, dtype=DTYPES[entry["dtype"]]).reshape(entry["shape"])
    return tensors, metadata


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(path, epoch, step, step_in_epoch):
    tensors, metadata = load_safetensors(path)
    expected_metadata = {
        "format": "pt", "parity.format": "training_checkpoint", "parity.format_version": "1",
        "parity.epoch": epoch, "parity.step": step, "parity.step_in_epoch": step_in_epoch,
        "parity.extra.best_top1": "0.9132",
    }
    for key, value in expected_metadata.items():
        if metadata.get(key) != value:
            fail("metadata %s is %r, expected %r" % (key, metadata.get(key), value))
    if not metadata.get("parity.config_yaml", "").startswith("net_name: resnet50"):
        fail("config_yaml %r" % metadata.get("parity.config_yaml"))

    model = {k: v for k, v in tensors.items() if not k.startswith("optimizer.")}
    net = SmallNet()
    net.load_state_dict(model, strict=True)
    state = net.state_dict()
    special = {"bn1.num_batches_tracked": torch.tensor(1875),
               "bn1.running_var": torch.tensor([0.5, 1.0, 1.5, 2.0])}
    for name, value in state.items():
        expected = special[name] if name in special else pattern(value.shape)
        if not torch.equal(value, expected):
            fail("%s holds %r" % (name, value))
    for name, param in net.named_parameters():
        buffer = tensors.get("optimizer.momentum_buffer." + name)
        if buffer is None or buffer.shape != param.shape:
            fail("momentum buffer of %s missing or misshapen" % name)
    net.eval()
    features = net.bn1(net.conv1(torch.ones(1, 3, 5, 5)))
    out = net.fc(torch.nn.functional.adaptive_avg_pool2d(features, 1).flatten(1))
    if out.shape != (1, 2) or not torch.isfinite(out).all():
        fail("forward pass gave %r" % out)
    print("OK %d model tensors, %d optimizer tensors" % (len(model), len(tensors) - len(model)))


if __name__ == "__main__":
    if len(sys.argv) != 6 or sys.argv[1] != "check":
        sys.exit(__doc__)
    check(*sys.argv[2:])
