#!/usr/bin/python3
"""Developer check of dump_reference.py: does its dump say what docs/formats/dump.md says?

    /usr/bin/python3 samples/torch/check_dump_reference.py [--models resnet18,resnet50]
                                                           [--keep DIR]

Runs dump_reference.py (as a separate process, the way users run it) on
torchvision ResNets at a [2, 3, 32, 32] batch with 10 classes, then checks its
dumps against values computed here independently, without hooks, by an
out-of-place re-implementation of the ResNet forward pass that keeps every
recorded tensor:

  format    header; index consecutive from 0; unique (step, phase, role, name);
            file name pattern; every .npy's dtype, shape and stats match the
            manifest (stats recomputed here in float64 with torch)
  forward   the records and ops in the documented order (input, conv1, bn1,
            maxpool, per block conv1, bn1, conv2, bn2, (conv3, bn3,)
            (downsample.0, downsample.1,) the block, ..., avgpool, fc, loss);
            each output equals the re-implementation's tensor; each folded
            batch_norm_relu record equals relu(batch_norm(dumped conv output))
            computed from the dump alone (same for plain batch_norm)
  backward  fc's grad_output first; every grad_output equals
            torch.autograd.grad(loss, that tensor) in the re-implementation;
            each block's last batch norm (bn3 / bn2) and downsample.1 get the
            block's grad_output masked by relu' of the block output; every
            parameter's grad equals autograd's, after its module's grad_output
  update    param_after == param_before - lr * (SGD momentum-buffer rule)
            replayed from the dumped grads, and param_before of step s+1 ==
            param_after of step s; the records in the documented order
            (param_before, buffer_before, param_after, buffer_after,
            optimizer_state_after); every optimizer_state_after equals the
            replayed momentum buffer
  buffers   buffer_before of step 0 is the starting state_dict's, of step
            s+1 step s's buffer_after (bit for bit); num_batches_tracked is
            int64 and counts one up; running_mean and running_var follow
            PyTorch's rule (momentum 0.1, unbiased variance) from the dumped
            input of each batch norm
  options   --dump-stats-only, --dump-steps/--dump-what filtering,
            --model-factory on a custom model (an unfolded ReLU, a residual
            block not called BasicBlock, a module called twice: #2 names and a
            parameter used twice), error messages and exit status 2

Exit status 0 when every check passes, 1 otherwise. Needs /usr/bin/python3
(torch 1.13, torchvision, numpy); about two minutes on one core.
"""

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import torch
import torch.nn.functional as F
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "dump_reference.py")
PYTHON = "/usr/bin/python3"
FILE_PATTERN = re.compile(r"^tensors/(\d{6})-s(\d+)-(forward|backward|update)-(.+)-([a-z_]+)\.npy$")
ROLE_PHASE = {"input": "forward", "output": "forward", "loss": "forward",
              "grad_output": "backward", "grad": "backward",
              "param_before": "update", "param_after": "update",
              "buffer_before": "update", "buffer_after": "update",
              "optimizer_state_after": "update"}
UPDATE_ROLES = ("param_before", "buffer_before", "param_after", "buffer_after",
                "optimizer_state_after")
# worst |a - b| / max|b| allowed where the same float32 ops could round differently
TOLERANCE = 1e-5


class Checker:
    def __init__(self):
        self.failures = 0
        self.checks = 0

    def ok(self, condition, what):
        self.checks += 1
        if not condition:
            self.failures += 1
            print(f"FAIL: {what}")
        return condition

    def close(self, actual, expected, what, tolerance=TOLERANCE):
        actual = torch.as_tensor(np.asarray(actual), dtype=torch.float64)
        expected = torch.as_tensor(np.asarray(expected), dtype=torch.float64)
        if not self.ok(actual.shape == expected.shape,
                       f"{what}: shape {list(actual.shape)} != {list(expected.shape)}"):
            return float("inf")
        scale = float(expected.abs().max()) if expected.numel() else 0.0
        diff = float((actual - expected).abs().max()) if expected.numel() else 0.0
        self.ok(diff <= tolerance * max(scale, 1e-30),
                f"{what}: max |diff| {diff:.3g} against max |value| {scale:.3g}")
        return diff / scale if scale else diff


def run_script(args, expect=0, check=None):
    done = subprocess.run([PYTHON, SCRIPT] + args, capture_output=True, text=True)
    if check is not None:
        check.ok(done.returncode == expect,
                 f"dump_reference.py {' '.join(args)}: exit {done.returncode}, expected {expect}\n"
                 + textwrap.indent(done.stderr.strip(), "    "))
    elif done.returncode != expect:
        sys.exit(f"dump_reference.py {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done


def read_dump(directory):
    with open(os.path.join(directory, "manifest.jsonl"), encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    return lines[0], lines[1:]


def load(directory, record):
    return np.load(os.path.join(directory, record["file"]))


def reference_stats(array):
    values = torch.from_numpy(np.array(array, dtype=np.float64)).flatten()
    finite = values[torch.isfinite(values)]
    stats = {"nan": int(torch.isnan(values).sum()), "inf": int(torch.isinf(values).sum()),
             "l2": float(torch.linalg.vector_norm(finite)) if finite.numel() else 0.0}
    if finite.numel():
        stats.update(min=float(finite.min()), max=float(finite.max()),
                     mean=float(finite.mean()), std=float(finite.std(unbiased=False)))
    else:
        stats.update(min=None, max=None, mean=None, std=None)
    return stats


def check_format(c, directory, header, records, label):
    c.ok(header.get("format") == "parity-dump" and header.get("version") == 1,
         f"{label}: header {header}")
    c.ok(header.get("producer", "").startswith("dump_reference.py (torch "),
         f"{label}: producer {header.get('producer')}")
    c.ok([r["index"] for r in records] == list(range(len(records))),
         f"{label}: indexes are not 0, 1, 2, ...")
    keys = [(r["step"], r["phase"], r["role"], r["name"]) for r in records]
    c.ok(len(set(keys)) == len(keys), f"{label}: (step, phase, role, name) not unique")
    stats_only = header["stats_only"]
    for r in records:
        where = f"{label} #{r['index']} {r['name']} {r['role']}"
        c.ok(ROLE_PHASE.get(r["role"]) == r["phase"], f"{where}: role in phase {r['phase']}")
        c.ok(set(r) == {"index", "step", "phase", "name", "module", "op", "role", "dtype", "shape",
                        "file", "stats"}, f"{where}: fields {sorted(r)}")
        if stats_only:
            c.ok(r["file"] is None, f"{where}: file {r['file']} in a stats-only dump")
            continue
        expected_file = (f"tensors/{r['index']:06d}-s{r['step']}-{r['phase']}-{r['name']}-"
                         f"{r['role']}.npy")
        if not c.ok(r["file"] == expected_file and FILE_PATTERN.match(r["file"]),
                    f"{where}: file {r['file']}"):
            continue
        with open(os.path.join(directory, r["file"]), "rb") as f:
            c.ok(f.read(8) == b"\x93NUMPY\x01\x00", f"{where}: not .npy version 1.0")
        array = load(directory, r)
        counter = r["name"].endswith(".num_batches_tracked")
        c.ok(array.flags.c_contiguous and array.dtype.str == ("<i8" if counter else "<f4")
             and r["dtype"] == ("int64" if counter else "float32"),
             f"{where}: dtype {array.dtype.str} / {r['dtype']}")
        c.ok(list(array.shape) == r["shape"], f"{where}: file shape {list(array.shape)}, "
             f"manifest {r['shape']}")
        expected = reference_stats(array)
        for key, value in expected.items():
            got = r["stats"][key]
            if value is None or isinstance(value, int):
                c.ok(got == value, f"{where}: stats.{key} {got} != {value}")
            else:
                c.ok(got is not None and abs(got - value) <= 1e-9 * max(1.0, abs(value)),
                     f"{where}: stats.{key} {got} != {value}")
    if stats_only:
        c.ok(not os.path.exists(os.path.join(directory, "tensors")),
             f"{label}: tensors/ in a stats-only dump")


# --------------------------------------------------------------------------
# The independent re-implementation: torchvision's ResNet forward, every op
# out of place, every recorded tensor kept under its record name.


def resnet_forward(model, images, tape):
    def keep(name, op, tensor):
        tape[name] = (op, tensor)
        return tensor

    y = keep("conv1", "conv2d", model.conv1(images))
    y = keep("bn1", "batch_norm_relu", F.relu(model.bn1(y)))
    y = keep("maxpool", "max_pool", model.maxpool(y))
    for stage in ("layer1", "layer2", "layer3", "layer4"):
        for i, block in enumerate(getattr(model, stage)):
            p = f"{stage}.{i}"
            x = y
            bottleneck = isinstance(block, torchvision.models.resnet.Bottleneck)
            y = keep(f"{p}.conv1", "conv2d", block.conv1(x))
            y = keep(f"{p}.bn1", "batch_norm_relu", F.relu(block.bn1(y)))
            y = keep(f"{p}.conv2", "conv2d", block.conv2(y))
            if bottleneck:
                y = keep(f"{p}.bn2", "batch_norm_relu", F.relu(block.bn2(y)))
                y = keep(f"{p}.conv3", "conv2d", block.conv3(y))
                y = keep(f"{p}.bn3", "batch_norm", block.bn3(y))
            else:
                y = keep(f"{p}.bn2", "batch_norm", block.bn2(y))
            shortcut = x
            if block.downsample is not None:
                s = keep(f"{p}.downsample.0", "conv2d", block.downsample[0](x))
                shortcut = keep(f"{p}.downsample.1", "batch_norm", block.downsample[1](s))
            y = keep(p, "add_relu", F.relu(y + shortcut))
    y = keep("avgpool", "avg_pool", model.avgpool(y))
    return keep("fc", "linear", model.fc(torch.flatten(y, 1)))


def records_of(records, step, phase, role=None):
    return [r for r in records if r["step"] == step and r["phase"] == phase
            and (role is None or r["role"] == role)]


def check_against_reference(c, directory, records, model, forward, images, labels,
                            label_smoothing, steps, label):
    """Replays every dumped step from its param_before records."""
    params = dict(model.named_parameters())
    for step in steps:
        where = f"{label} step {step}"
        fwd = records_of(records, step, "forward")
        bwd = records_of(records, step, "backward")
        update = records_of(records, step, "update")
        with torch.no_grad():
            for r in update:
                if r["role"] == "param_before":
                    params[r["name"]].copy_(torch.from_numpy(load(directory, r)))
        model.train()
        tape = {}
        logits = forward(model, images, tape)
        loss = F.cross_entropy(logits, labels, label_smoothing=label_smoothing)
        names = list(tape)
        tensors = [tape[n][1] for n in names]
        grads = torch.autograd.grad(loss, tensors + list(params.values()))
        grad_of = dict(zip(names, grads[:len(names)]))
        param_grad = dict(zip(params, grads[len(names):]))

        # forward: order, ops, values
        expected = ([("input", "input", "input", "input")]
                    + [(n, n.split("#")[0], tape[n][0], "output") for n in names]
                    + [("loss", "loss", "cross_entropy", "loss")])
        got = [(r["name"], r["module"], r["op"], r["role"]) for r in fwd]
        if not c.ok(got == expected, f"{where}: forward records differ from the documented order"):
            for a, b in zip(got, expected):
                if a != b:
                    print(f"    first difference: dumped {a}, expected {b}")
                    break
        worst = 0.0
        for r in fwd:
            value = load(directory, r)
            if r["role"] == "input":
                worst = max(worst, c.close(value, images, f"{where} input"))
            elif r["role"] == "loss":
                c.ok(r["shape"] == [], f"{where}: loss shape {r['shape']}")
                worst = max(worst, c.close(value, loss.detach(), f"{where} loss"))
            elif r["name"] in tape:
                worst = max(worst, c.close(value, tape[r["name"]][1].detach(),
                                           f"{where} forward {r['name']}"))
        print(f"  {where}: {len(fwd)} forward records, worst relative difference {worst:.2g}")

        # folded batch norms from the dump alone
        by_name = {r["name"]: r for r in fwd}
        before = {r["name"]: load(directory, r) for r in update if r["role"] == "param_before"}
        bn_checked = 0
        for r in fwd:
            if r["op"] not in ("batch_norm", "batch_norm_relu"):
                continue
            source = re.sub(r"bn(\d)$", r"conv\1", r["name"])
            source = re.sub(r"downsample\.1$", "downsample.0", source)
            bn = model.get_submodule(r["name"].split("#")[0])
            x = torch.from_numpy(load(directory, by_name[source]))
            y = F.batch_norm(x, None, None, torch.from_numpy(before[r["name"] + ".weight"]),
                             torch.from_numpy(before[r["name"] + ".bias"]), training=True,
                             eps=bn.eps)
            if r["op"] == "batch_norm_relu":
                y = F.relu(y)
            c.close(load(directory, r), y, f"{where} {r['name']} = {r['op']}(dumped {source})",
                    tolerance=1e-4)
            bn_checked += 1

        # backward: grad_output against autograd, order, parameter grads
        c.ok(bwd and bwd[0]["role"] == "grad_output" and bwd[0]["op"] == "linear",
             f"{where}: the first backward record is {bwd[0]['name'] if bwd else None}, "
             "not the logits' grad_output")
        got_out = {r["name"]: r for r in bwd if r["role"] == "grad_output"}
        c.ok(set(got_out) == set(names),
             f"{where}: grad_output records {sorted(set(got_out) ^ set(names))} missing or extra")
        worst = 0.0
        for name, r in got_out.items():
            if name in grad_of:
                c.ok(r["op"] == tape[name][0], f"{where}: grad_output {name} op {r['op']}")
                worst = max(worst, c.close(load(directory, r), grad_of[name],
                                           f"{where} grad_output {name}"))
        got_grad = {r["name"]: r for r in bwd if r["role"] == "grad"}
        c.ok(set(got_grad) == set(params), f"{where}: grad records "
             f"{sorted(set(got_grad) ^ set(params))} missing or extra")
        for name, r in got_grad.items():
            worst = max(worst, c.close(load(directory, r), param_grad[name], f"{where} grad {name}"))
        position = {(r["role"], r["name"]): i for i, r in enumerate(bwd)}
        for name in got_grad:
            owner = name.rpartition(".")[0]
            if ("grad_output", owner) in position:
                c.ok(position[("grad_output", owner)] < position[("grad", name)],
                     f"{where}: grad {name} comes before its module's grad_output")
        print(f"  {where}: {len(got_out)} grad_output and {len(got_grad)} grad records equal "
              f"autograd's (worst relative difference {worst:.2g}); {bn_checked} batch norm "
              "records recomputed from the dump")

        # the block's last batch norm: d loss / d(its output), taken before `out += identity`
        masked = 0
        for name, (op, tensor) in tape.items():
            if op != "add_relu":
                continue
            block = model.get_submodule(name)
            last = "bn3" if hasattr(block, "bn3") else "bn2"
            g = torch.from_numpy(load(directory, got_out[name]))
            expected_grad = g * (torch.from_numpy(load(directory, by_name[name])) > 0)
            for branch in [f"{name}.{last}"] + ([f"{name}.downsample.1"]
                                                 if block.downsample is not None else []):
                c.ok(np.array_equal(load(directory, got_out[branch]), expected_grad.numpy()),
                     f"{where}: grad_output {branch} != block grad_output * relu'(block output)")
                masked += 1
        print(f"  {where}: {masked} grad_outputs of bn3/bn2/downsample.1 equal the block's "
              "grad_output masked by relu' (bit for bit)")


def check_update(c, directory, records, steps, lrs, momentum, weight_decay, nesterov,
                 decay_all, label):
    """Replays torch.optim.SGD (dampening 0) from the dumped grads."""
    buffers = {}
    previous_after = {}
    worst = 0.0
    states = 0
    for step in steps:
        update = records_of(records, step, "update")
        grads = {r["name"]: r for r in records_of(records, step, "backward", "grad")}
        before = [r for r in update if r["role"] == "param_before"]
        after = {r["name"]: r for r in update if r["role"] == "param_after"}
        state = {r["name"]: r for r in update if r["role"] == "optimizer_state_after"}
        roles = [r["role"] for r in update]
        c.ok(roles == sorted(roles, key=UPDATE_ROLES.index),
             f"{label} step {step}: update records are not param_before, buffer_before, "
             "param_after, buffer_after, optimizer_state_after")
        c.ok([r["name"] for r in update if r["role"] == "param_after"]
             == [r["name"] for r in before],
             f"{label} step {step}: param_after not in param_before's order")
        for r in before:
            name = r["name"]
            p = torch.from_numpy(load(directory, r))
            if name in previous_after:
                c.ok(np.array_equal(p.numpy(), previous_after[name]),
                     f"{label} step {step}: param_before {name} != param_after of step {step - 1}")
            d = torch.from_numpy(load(directory, grads[name]))
            wd = weight_decay if decay_all or p.ndim > 1 else 0.0
            if wd:
                d = d.add(p, alpha=wd)
            if name in buffers:
                buffers[name].mul_(momentum).add_(d)
            else:
                buffers[name] = d.clone()
            if state:
                r = state[f"{name}.momentum_buffer"]
                c.ok(r["module"] == name.rpartition(".")[0],
                     f"{label} step {step}: {r['name']} module {r['module']}")
                c.close(load(directory, r), buffers[name],
                        f"{label} step {step} optimizer_state_after {name}", tolerance=1e-6)
                states += 1
            d = d.add(buffers[name], alpha=momentum) if nesterov else buffers[name]
            expected = p.add(d, alpha=-lrs[step])
            got = load(directory, after[name])
            worst = max(worst, c.close(got, expected, f"{label} step {step} param_after {name}",
                                       tolerance=1e-6))
            previous_after[name] = got
    print(f"  {label}: param_after follows the SGD rule for steps {list(steps)} "
          f"(worst relative difference {worst:.2g})"
          + (f"; {states} momentum buffers equal the replay's" if states else ""))


def check_buffers(c, directory, records, steps, initial, label):
    """Running statistics and batch counts against PyTorch's rule, from the dump alone."""
    previous = {name: value.numpy() for name, value in initial.items()}
    checked = 0
    for step in steps:
        update = records_of(records, step, "update")
        forward = {r["name"]: r for r in records_of(records, step, "forward")}
        before = {r["name"]: r for r in update if r["role"] == "buffer_before"}
        after = {r["name"]: r for r in update if r["role"] == "buffer_after"}
        c.ok(list(before) == list(initial) and list(after) == list(initial),
             f"{label} step {step}: buffer records are not the model's buffers in state_dict order")
        for name in initial:
            if name not in before or name not in after:
                continue
            c.ok(before[name]["module"] == name.rpartition(".")[0],
                 f"{label} step {step}: {name} module {before[name]['module']}")
            c.ok(np.array_equal(load(directory, before[name]), previous[name]),
                 f"{label} step {step}: buffer_before {name} is not what the step began with")
            previous[name] = load(directory, after[name])
        for name in (n for n in initial if n.endswith(".num_batches_tracked")):
            bn = name.rpartition(".")[0]
            c.ok(int(load(directory, after[name])) == int(load(directory, before[name])) + 1,
                 f"{label} step {step}: {name} did not count one up")
            source = re.sub(r"bn(\d)$", r"conv\1", bn)
            source = re.sub(r"downsample\.1$", "downsample.0", source)
            x = torch.from_numpy(load(directory, forward[source])).double()
            mean = x.mean(dim=(0, 2, 3))
            var = x.var(dim=(0, 2, 3), unbiased=True)
            for stat, batch in (("running_mean", mean), ("running_var", var)):
                old = torch.from_numpy(load(directory, before[f"{bn}.{stat}"])).double()
                c.close(load(directory, after[f"{bn}.{stat}"]), 0.9 * old + 0.1 * batch,
                        f"{label} step {step} buffer_after {bn}.{stat}", tolerance=1e-5)
            checked += 1
    print(f"  {label}: {checked // len(steps)} batch norms' running statistics and counts follow "
          f"PyTorch's rule in steps {list(steps)}")


# --------------------------------------------------------------------------


def check_resnet(c, work, model_name, extra, lrs, nesterov, decay_all, label_smoothing):
    label = f"{model_name}{' ' + ' '.join(extra) if extra else ''}"
    print(f"{label}:")
    base = os.path.join(work, model_name)
    os.makedirs(base, exist_ok=True)
    init, xs, ys = (os.path.join(base, f) for f in ("init.pth", "x.npy", "y.npy"))
    run_script(["--model", model_name, "--num-classes", "10", "--seed", "1", "--save-init", init,
                "--make-batch", "2,3,32,32", "--save-images", xs, "--save-labels", ys])
    dump = os.path.join(base, "dump" + str(len(os.listdir(base))))
    run_script(["--model", model_name, "--weights", init, "--images", xs, "--labels", ys,
                "--steps", "3", "--dump", dump] + extra)
    header, records = read_dump(dump)
    check_format(c, dump, header, records, label)
    model = getattr(torchvision.models, model_name)(num_classes=10)
    model.load_state_dict(torch.load(init))
    images = torch.from_numpy(np.load(xs))
    labels = torch.from_numpy(np.load(ys))
    check_against_reference(c, dump, records, model, resnet_forward, images, labels,
                            label_smoothing, range(3), label)
    check_update(c, dump, records, range(3), lrs, 0.9, 1e-4, nesterov, decay_all, label)
    initial = {name: value for name, value in torch.load(init).items() if "running" in name
               or name.endswith("num_batches_tracked")}
    check_buffers(c, dump, records, range(3), initial, label)
    return dump, (init, xs, ys), records


def check_options(c, work, files, full_records):
    print("options:")
    init, xs, ys = files
    common = ["--model", "resnet18", "--weights", init, "--images", xs, "--labels", ys]
    stats = os.path.join(work, "stats-only")
    run_script(common + ["--dump", stats, "--dump-stats-only"])
    header, records = read_dump(stats)
    check_format(c, stats, header, records, "stats-only")
    c.ok(header["stats_only"] is True, "stats-only: header stats_only")
    c.ok([{k: v for k, v in r.items() if k != "file"} for r in records]
         == [{k: v for k, v in r.items() if k != "file"} for r in full_records],
         "stats-only: records or stats differ from the full dump's")

    part = os.path.join(work, "filtered")
    run_script(common + ["--dump", part, "--dump-steps", "1", "--dump-what", "bwd,params"])
    header, records = read_dump(part)
    check_format(c, part, header, records, "filtered")
    expected = [r for r in full_records if r["step"] == 1 and r["role"] in
                ("grad_output", "param_before", "param_after")]
    c.ok([(r["name"], r["role"]) for r in records] == [(r["name"], r["role"]) for r in expected],
         "filtered: --dump-steps 1 --dump-what bwd,params picked other records")
    c.ok(all(r["stats"] == e["stats"] for r, e in zip(records, expected)),
         "filtered: values differ from the full dump's")
    print(f"  stats-only dump and a --dump-steps 1 --dump-what bwd,params dump "
          f"({len(records)} records) agree with the full dump")


FACTORY = '''
import torch.nn as nn


class Residual(nn.Module):
    """A residual block that is not called BasicBlock: relu(bn(conv(x)) + x)."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(channels)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.bn(self.conv(x))
        out += x
        return self.act(out)


class Net(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)      # with a bias, then a ReLU: relu record
        self.act = nn.ReLU()
        self.block = Residual(8)                       # called twice
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(8, num_classes))

    def forward(self, x):
        x = self.act(self.stem(x))
        x = self.block(self.block(x))
        return self.head(self.pool(x))


def build(num_classes):
    return Net(num_classes)
'''


def factory_forward(model, images, tape):
    def keep(name, op, tensor):
        tape[name] = (op, tensor)
        return tensor

    y = keep("stem", "conv2d", model.stem(images))
    y = keep("act", "relu", F.relu(y))
    for suffix in ("", "#2"):
        x = y
        y = keep("block.conv" + suffix, "conv2d", model.block.conv(x))
        y = keep("block.bn" + suffix, "batch_norm", model.block.bn(y))
        y = keep("block" + suffix, "add_relu", F.relu(y + x))
    y = keep("pool", "avg_pool", model.pool(y))
    return keep("head.1", "linear", model.head[1](torch.flatten(y, 1)))


def check_factory(c, work):
    print("--model-factory:")
    path = os.path.join(work, "factory_net.py")
    with open(path, "w") as f:
        f.write(FACTORY)
    init, xs, ys = (os.path.join(work, f) for f in ("net.pth", "net-x.npy", "net-y.npy"))
    dump = os.path.join(work, "factory")
    run_script(["--model-factory", f"{path}:build", "--num-classes", "5", "--save-init", init,
                "--make-batch", "4,3,8,8", "--save-images", xs, "--save-labels", ys,
                "--steps", "2", "--lr", "0.2,0.1", "--nesterov", "--dump", dump])
    header, records = read_dump(dump)
    check_format(c, dump, header, records, "factory")
    spec = importlib.util.spec_from_file_location("factory_net", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.build(num_classes=5)
    model.load_state_dict(torch.load(init))
    images = torch.from_numpy(np.load(xs))
    labels = torch.from_numpy(np.load(ys))
    check_against_reference_generic(c, dump, records, model, images, labels)
    check_update(c, dump, records, range(2), [0.2, 0.1], 0.9, 1e-4, True, False, "factory")


def check_against_reference_generic(c, dump, records, model, images, labels):
    """check_against_reference without the ResNet-only parts, for the factory model."""
    params = dict(model.named_parameters())
    for step in (0, 1):
        where = f"factory step {step}"
        with torch.no_grad():
            for r in records_of(records, step, "update", "param_before"):
                params[r["name"]].copy_(torch.from_numpy(load(dump, r)))
        tape = {}
        loss = F.cross_entropy(factory_forward(model, images, tape), labels, label_smoothing=0.1)
        names = list(tape)
        grads = torch.autograd.grad(loss, [tape[n][1] for n in names] + list(params.values()))
        fwd = records_of(records, step, "forward")
        got = [(r["name"], r["module"], r["op"]) for r in fwd]
        expected = ([("input", "input", "input")]
                    + [(n, n.split("#")[0], tape[n][0]) for n in names]
                    + [("loss", "loss", "cross_entropy")])
        c.ok(got == expected, f"{where}: forward records {got}")
        for r in fwd:
            if r["name"] in tape:
                c.close(load(dump, r), tape[r["name"]][1].detach(), f"{where} {r['name']}")
        bwd = records_of(records, step, "backward")
        c.ok(bwd[0]["name"] == "head.1" and bwd[0]["role"] == "grad_output",
             f"{where}: first backward record {bwd[0]['name']}")
        out = {r["name"]: r for r in bwd if r["role"] == "grad_output"}
        c.ok(set(out) == set(names), f"{where}: grad_output names {sorted(out)}")
        for name, g in zip(names, grads):
            c.close(load(dump, out[name]), g, f"{where} grad_output {name}")
        got_grad = {r["name"]: r for r in bwd if r["role"] == "grad"}
        c.ok(set(got_grad) == set(params), f"{where}: grad names {sorted(got_grad)}")
        for name, g in zip(params, grads[len(names):]):
            c.close(load(dump, got_grad[name]), g, f"{where} grad {name} (shared: summed)")
        print(f"  {where}: {[n for n, _, _ in got]}")


def check_errors(c, work, files):
    print("errors:")
    init, xs, ys = files
    bad_shape = os.path.join(work, "bad-shape.npy")
    np.save(bad_shape, np.zeros((2, 3, 32), np.float32))
    bad_labels = os.path.join(work, "bad-labels.npy")
    np.save(bad_labels, np.array([0, 10]))
    full = os.path.join(work, "not-empty")
    os.makedirs(full, exist_ok=True)
    open(os.path.join(full, "x"), "w").close()
    nowhere = os.path.join(work, "nowhere", "dump")
    batch = ["--images", xs, "--labels", ys]
    cases = [
        (["--model", "resnet18", "--images", "missing.npy", "--labels", ys, "--dump", nowhere],
         "--images: no such file: missing.npy"),
        (["--model", "resnet18", "--images", bad_shape, "--labels", ys, "--dump", nowhere],
         "not a float32 [N,C,H,W] batch"),
        (["--model", "resnet18", "--images", xs, "--labels", bad_labels, "--dump", nowhere],
         "label 10 at position 1 is outside [0, 10)"),
        (["--model", "vgg16"] + batch + ["--dump", nowhere], "--model: unknown model 'vgg16'"),
        (["--model", "resnet18"] + batch + ["--dump", nowhere, "--dump-steps", "1-5"],
         "--dump-steps: step 5"),
        (["--model", "resnet18"] + batch + ["--dump", nowhere, "--dump-steps", "x"],
         "--dump-steps: 'x'"),
        (["--model", "resnet18"] + batch + ["--dump", nowhere, "--dump-what", "fwd,foo"],
         "--dump-what: unknown 'foo'"),
        (["--model", "resnet18"] + batch + ["--dump", nowhere, "--lr", "0.1,0.2"],
         "--lr: 2 values for --steps 3"),
        (["--model", "resnet18"] + batch + ["--dump", nowhere, "--dump-what", "optimizer",
                                            "--momentum", "0"],
         "--dump-what optimizer dumps SGD's momentum buffers, and --momentum is 0"),
        (["--model", "resnet18"] + batch + ["--dump", full],
         "exists and is not an empty directory"),
        (["--model", "resnet50", "--weights", init] + batch + ["--dump", nowhere],
         "does not fit the model"),
        (["--model", "resnet18", "--make-batch", "2,1,32,32", "--dump", nowhere],
         "has 1 channels; the model's first convolution takes 3"),
        (["--model", "resnet18", "--make-batch", "2,3,32", "--dump", nowhere],
         "--make-batch: '2,3,32'"),
        (["--model-factory", "nothere.py:build", "--make-batch", "2,3,8,8", "--dump", nowhere],
         "--model-factory: no such file: nothere.py"),
        ([], "nothing to do"),
    ]
    for args, message in cases:
        done = run_script(args, expect=2, check=c)
        c.ok(done.stderr.startswith("dump_reference.py: error: ") and message in done.stderr,
             f"dump_reference.py {' '.join(args)}: stderr {done.stderr.strip()!r} lacks {message!r}")
    c.ok(not os.path.exists(nowhere), "a refused run left a dump directory behind")
    print(f"  {len(cases)} refusals exit 2 with 'dump_reference.py: error: ...'")


def print_block_backward(records, block):
    print(f"backward order of {block} (step 0):")
    for r in records_of(records, 0, "backward"):
        if r["name"] == block or r["name"].startswith(block + "."):
            print(f"  {r['name']:32} {r['op']:16} {r['role']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="resnet18,resnet50")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep the dumps")
    args = parser.parse_args()
    torch.set_num_threads(1)
    c = Checker()
    with tempfile.TemporaryDirectory() as temporary:
        work = args.keep or temporary
        os.makedirs(work, exist_ok=True)
        first = None
        for name in args.models.split(","):
            result = check_resnet(c, work, name, [], [0.1] * 3, False, False, 0.1)
            first = first or result
            if name == "resnet50":
                print_block_backward(result[2], "layer2.0")
        check_resnet(c, work, args.models.split(",")[0],
                     ["--lr", "0.1,0.05,0.2", "--nesterov", "--decay-all", "--label-smoothing", "0",
                      "--dump-what", "all"],
                     [0.1, 0.05, 0.2], True, True, 0.0)
        check_options(c, work, first[1], first[2])
        check_factory(c, work)
        check_errors(c, work, first[1])
    print(f"{c.checks} checks, {c.failures} failed")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
