#!/usr/bin/python3
"""PyTorch reference dump for `parity compare`.

Runs a torchvision-style model through a few SGD training steps on one fixed
input batch and writes the tensors of those steps as a Parity dump
(docs/formats/dump.md: DIR/manifest.jsonl plus DIR/tensors/*.npy). The C++
trainer writes the same format with the same record names, so the two dumps
pair record by record with `parity compare`. With --probe-grads GLOBS
--probe-dir DIR it also writes, for every step, the signs of the chosen
parameters' gradients after backward (docs/formats/grad-probe.md), as
`parity-train train --probe-grads` does, for `parity grad-probe`.

Run it with Debian's Python, which has torch 1.13, torchvision and numpy:

    /usr/bin/python3 samples/torch/dump_reference.py --help

A typical session (CPU, float32, one thread on both sides):

    # 1. the starting weights and the batch both sides use
    /usr/bin/python3 samples/torch/dump_reference.py --model resnet50 --num-classes 10 \\
        --seed 0 --save-init init.pth \\
        --make-batch 2,3,32,32 --save-images batch.npy --save-labels labels.npy
    # 2. the reference dump: 3 SGD steps, every record
    /usr/bin/python3 samples/torch/dump_reference.py --model resnet50 --num-classes 10 \\
        --weights init.pth --images batch.npy --labels labels.npy --steps 3 --dump ref/
    # 3. the trainer's dump from init.pth and the same batch, then
    parity compare ref/ ours/

What is recorded in each dumped step (records pair across runs by step,
phase, role and name):

  forward   `input` (the batch), then one `output` record per module as the
            module finishes: conv2d (Conv2d), batch_norm (BatchNorm2d),
            batch_norm_relu (a BatchNorm2d whose output goes straight into a
            ReLU: the ReLU's output under the batch norm's name), max_pool
            (MaxPool2d), avg_pool (AdaptiveAvgPool2d, [N, C, 1, 1]), linear
            (Linear), add_relu (a residual block, see below), relu (any other
            ReLU), then `loss` (cross_entropy, a scalar). A module called more
            than once in a step gets `#2`, `#3` after its path from its 2nd,
            3rd call on. Other module types (Dropout, Identity, ...) and
            functional calls are not recorded.
  backward  `grad_output` for every forward output record (d loss / d that
            output: for batch_norm_relu the ReLU output, for add_relu the
            block output, for fc the logits, which come first), and `grad` for
            every parameter, as autograd produces them; a parameter's grad is
            what backward accumulated into .grad (before weight decay and
            momentum).
  update    `param_before` for every parameter in named_parameters order just
            before optimizer.step(); `buffer_before` for every buffer in
            named_buffers order (state_dict order: a batch norm's
            running_mean, running_var and num_batches_tracked, the last int64)
            as they were when the step began, before forward moved them; then
            `param_after` for every parameter, `buffer_after` for every
            buffer, and with --dump-what optimizer `optimizer_state_after`:
            each parameter's SGD momentum buffer, named
            `<parameter>.momentum_buffer`. A buffer's or optimizer state's
            module is its owner's path (`layer1.0.bn1` for
            `layer1.0.bn1.running_mean`).

Residual blocks: a module is a block when it is not the model itself, not a
Sequential/ModuleList/ModuleDict, has an nn.ReLU child, and returns exactly the
tensor that ReLU child produced, on an input that was not folded into a batch
norm (torchvision's BasicBlock and Bottleneck: relu(out + identity)). Its
record is op add_relu under the block's path (`layer1.0`), written after its
children's records; the ReLU gets no record of its own.

Every nn.ReLU is switched to inplace=False before the run (same values), so
each recorded tensor is its own autograd node. ReLUs applied through
torch.nn.functional are invisible to the hooks.

Optimizer: torch.optim.SGD(momentum, dampening 0, nesterov as given) with two
parameter groups, weight decay on parameters with ndim > 1 and none on the
others (BN weights and biases, all biases), as the seeds and the trainer do;
--decay-all decays everything. The learning rate of each step comes from --lr.

Exit status: 0 done, 2 when it could not run (a message
`dump_reference.py: error: ...` says what and where).
"""

import argparse
import fnmatch
import importlib
import importlib.util
import json
import math
import os
import struct
import sys

PROG = "dump_reference.py"

RESNET_NAMES = (
    "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
    "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d",
    "wide_resnet50_2", "wide_resnet101_2",
)
WHAT_NAMES = ("fwd", "bwd", "params", "grads", "buffers", "optimizer")
DEFAULT_WHAT = "fwd,bwd,params,grads,buffers"


class UsageError(Exception):
    """A problem with what the user gave us; printed as `PROG: error: ...`, exit 2."""


def fail(message):
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(2)


def progress(message):
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Command line


def build_parser():
    parser = argparse.ArgumentParser(
        prog=PROG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Run a torchvision-style model through a few SGD steps on a fixed batch and write a\n"
            "Parity tensor dump (docs/formats/dump.md) that `parity compare` pairs with the C++\n"
            "trainer's dump. CPU, float32. Run with /usr/bin/python3 (torch 1.13)."),
        epilog=(
            "examples:\n"
            "  # starting weights and a batch for both sides, then nothing else\n"
            "  /usr/bin/python3 %(prog)s --model resnet18 --save-init init.pth \\\n"
            "      --make-batch 2,3,32,32 --save-images x.npy --save-labels y.npy\n"
            "  # the reference dump of 3 steps from them\n"
            "  /usr/bin/python3 %(prog)s --model resnet18 --weights init.pth \\\n"
            "      --images x.npy --labels y.npy --dump ref/\n"
            "\n"
            "The module docstring (head of this file) lists every record and how BN+ReLU and\n"
            "residual blocks are folded. Exit status 0 done, 2 could not run."))

    model = parser.add_argument_group("model")
    model.add_argument("--model", metavar="NAME",
                       help="torchvision ResNet: " + ", ".join(RESNET_NAMES[:5]) +
                       " (also the ResNeXt and wide ResNets); default resnet50")
    model.add_argument("--model-factory", metavar="MODULE:FUNC",
                       help="instead of --model: import MODULE (a .py file path or a module name) "
                       "and build the model with FUNC(num_classes=K)")
    model.add_argument("--num-classes", type=int, default=10, metavar="K",
                       help="classifier outputs (default 10)")
    model.add_argument("--seed", type=int, default=0,
                       help="torch.manual_seed before building the model; also seeds --make-batch "
                       "through its own generator, so the batch does not depend on the model "
                       "(default 0)")
    model.add_argument("--weights", metavar="FILE.pth",
                       help="start from this state_dict (torch.load on the CPU; a plain state_dict "
                       "or a dict holding it under 'state_dict' or 'model'; a 'module.' prefix on "
                       "every key is dropped); loaded strictly")
    model.add_argument("--save-init", metavar="FILE.pth",
                       help="torch.save the starting state_dict (after --weights or fresh "
                       "initialisation) for the trainer to start from; without --images or --dump "
                       "the script stops after saving")

    batch = parser.add_argument_group("batch")
    batch.add_argument("--make-batch", metavar="N,C,H,W",
                       help="make a batch: torch.randn images and labels uniform in [0, K) "
                       "(int64) from a generator seeded with --seed")
    batch.add_argument("--save-images", metavar="FILE.npy",
                       help="np.save the images of --make-batch (float32 [N,C,H,W])")
    batch.add_argument("--save-labels", metavar="FILE.npy",
                       help="np.save the labels of --make-batch (int64 [N])")
    batch.add_argument("--images", metavar="FILE.npy",
                       help="the input batch, float32 [N,C,H,W], used at every step")
    batch.add_argument("--labels", metavar="FILE.npy",
                       help="the labels, integer [N] in [0, K) (converted to int64)")

    train = parser.add_argument_group("training")
    train.add_argument("--steps", type=int, default=3, help="SGD steps to run (default 3)")
    train.add_argument("--lr", default="0.1", metavar="LR[,LR...]",
                       help="learning rate: one value, or one per step separated by commas "
                       "(default 0.1)")
    train.add_argument("--momentum", type=float, default=0.9, help="SGD momentum (default 0.9)")
    train.add_argument("--weight-decay", type=float, default=1e-4,
                       help="SGD weight decay (default 1e-4)")
    train.add_argument("--nesterov", action="store_true", help="Nesterov momentum")
    train.add_argument("--label-smoothing", type=float, default=0.1,
                       help="CrossEntropyLoss(label_smoothing=...) (default 0.1)")
    train.add_argument("--decay-all", action="store_true",
                       help="weight decay on every parameter; by default parameters with "
                       "ndim <= 1 (BN weights and biases, all biases) are not decayed")
    train.add_argument("--float64", action="store_true",
                       help="run in float64 after loading the float32 weights and batch: the "
                            "reference that tells float32 rounding (ours and PyTorch's) from "
                            "real differences; its arrays are float64")
    train.add_argument("--threads", type=int, default=1,
                       help="torch.set_num_threads (default 1)")
    train.add_argument("--deterministic", action="store_true",
                       help="torch.use_deterministic_algorithms(True)")

    dump = parser.add_argument_group("dump")
    dump.add_argument("--dump", metavar="DIR",
                      help="write the dump here (created; refused if it exists and is not empty)")
    dump.add_argument("--dump-steps", default="all", metavar="SPEC",
                      help="steps to dump: 'all', N, A-B, or a comma list of those "
                      "(default all, 0-2 with --steps 3); other steps run undumped")
    dump.add_argument("--dump-what", default=DEFAULT_WHAT, metavar="LIST",
                      help="comma list (or 'all'): fwd = input, output and loss records; "
                      "bwd = grad_output records; grads = parameter grad records; "
                      "params = param_before and param_after records; buffers = "
                      "buffer_before and buffer_after records (running statistics, batch "
                      "counts); optimizer = optimizer_state_after records (SGD momentum "
                      f"buffers) (default: {DEFAULT_WHAT})")
    dump.add_argument("--dump-stats-only", action="store_true",
                      help="write the manifest with statistics only: no .npy files, file null")

    probe = parser.add_argument_group("gradient-sign probe")
    probe.add_argument("--probe-grads", metavar="GLOBS",
                       help="after every step's backward, record one bit per gradient element "
                       "(1 where > 0) of these parameters: 'all', or a comma list of name globs "
                       "(layer4.*.weight,fc.weight); needs --probe-dir. The format is "
                       "docs/formats/grad-probe.md, as parity-train --probe-grads writes it")
    probe.add_argument("--probe-dir", metavar="DIR",
                       help="write the gradient-sign probe here (created; refused if it exists "
                       "and is not empty)")
    return parser


def parse_dump_steps(text, steps):
    chosen = set()
    for token in text.split(","):
        token = token.strip()
        if token == "all":
            chosen.update(range(steps))
            continue
        try:
            if "-" in token:
                first, last = (int(part) for part in token.split("-", 1))
            else:
                first = last = int(token)
        except ValueError:
            raise UsageError(f"--dump-steps: '{token}' in '{text}' is not 'all', N or A-B") from None
        if first < 0 or last < first:
            raise UsageError(f"--dump-steps: '{token}' in '{text}' is not a range A-B with 0 <= A <= B")
        if last >= steps:
            raise UsageError(f"--dump-steps: step {last} ('{token}' in '{text}') is beyond "
                             f"the run (--steps {steps}: steps 0-{steps - 1})")
        chosen.update(range(first, last + 1))
    return chosen


def parse_dump_what(text):
    chosen = set()
    for token in text.split(","):
        token = token.strip()
        if token == "all":
            chosen.update(WHAT_NAMES)
        elif token in WHAT_NAMES:
            chosen.add(token)
        else:
            raise UsageError(f"--dump-what: unknown '{token}' in '{text}' "
                             f"(choose from {', '.join(WHAT_NAMES)}, all)")
    return chosen


def parse_lrs(text, steps):
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"--lr: '{text}' is not a number or a comma list of numbers") from None
    if any(not math.isfinite(v) or v < 0 for v in values):
        raise UsageError(f"--lr: '{text}' holds a negative or non-finite value")
    if len(values) == 1:
        return values * steps
    if len(values) != steps:
        raise UsageError(f"--lr: {len(values)} values for --steps {steps} (give one, or one per step)")
    return values


def parse_batch_shape(text):
    try:
        dims = [int(part) for part in text.split(",")]
    except ValueError:
        dims = []
    if len(dims) != 4 or any(d <= 0 for d in dims):
        raise UsageError(f"--make-batch: '{text}' is not four positive integers N,C,H,W")
    return dims


# --------------------------------------------------------------------------
# The dump directory


class DumpWriter:
    """manifest.jsonl and tensors/*.npy. Indexes are handed out in execution
    order; a record may be reserved first and written later (a parameter's
    grad, complete only when backward ends), and manifest lines always go out
    in index order."""

    def __init__(self, directory, header, stats_only):
        if os.path.exists(directory):
            if not os.path.isdir(directory):
                raise UsageError(f"--dump: {directory} exists and is not a directory")
            if os.listdir(directory):
                raise UsageError(f"--dump: {directory} exists and is not empty "
                                 "(a dump is never mixed with another; choose a new directory)")
        try:
            os.makedirs(directory, exist_ok=True)
            if not stats_only:
                os.makedirs(os.path.join(directory, "tensors"), exist_ok=True)
            self._manifest = open(os.path.join(directory, "manifest.jsonl"), "w", encoding="utf-8")
        except OSError as error:
            raise UsageError(f"--dump: cannot create {directory}: {error.strerror or error}") from None
        self.directory = directory
        self.stats_only = stats_only
        self.records = 0
        self._next_index = 0      # the next index to hand out
        self._next_line = 0       # the next index whose manifest line may be written
        self._waiting = {}        # index -> manifest line written out of order
        self._line(header)
        self._manifest.flush()

    def _line(self, obj):
        self._manifest.write(json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n")

    def reserve(self):
        index = self._next_index
        self._next_index += 1
        return index

    def add(self, step, phase, name, module, op, role, tensor):
        self.write(self.reserve(), step, phase, name, module, op, role, tensor)

    def write(self, index, step, phase, name, module, op, role, tensor):
        # np.ascontiguousarray would turn the scalar loss into shape [1]; .contiguous()
        # already gives C order
        array = tensor.detach().cpu().contiguous().numpy()
        record = {
            "index": index, "step": step, "phase": phase, "name": name, "module": module,
            "op": op, "role": role, "dtype": str(array.dtype), "shape": list(array.shape),
            "file": None, "stats": tensor_stats(array),
        }
        if not self.stats_only:
            record["file"] = f"tensors/{index:06d}-s{step}-{phase}-{name}-{role}.npy"
            np.save(os.path.join(self.directory, record["file"]), array)
        self._waiting[index] = record
        while self._next_line in self._waiting:
            self._line(self._waiting.pop(self._next_line))
            self._next_line += 1
        self.records += 1

    def end_phase(self):
        if self._waiting or self._next_line != self._next_index:
            raise RuntimeError(f"dump records {sorted(self._waiting)} or reserved indexes were "
                               "never written")  # a bug of this script
        self._manifest.flush()

    def close(self):
        self.end_phase()
        self._manifest.close()


def tensor_stats(array):
    """Statistics over the finite elements, in float64 (docs/formats/dump.md)."""
    values = array.astype(np.float64).ravel()
    finite = np.isfinite(values)
    count = int(finite.sum())
    nan = int(np.isnan(values).sum())
    inf = int(values.size - count - nan)
    if count != values.size:
        values = values[finite]
    stats = {"min": None, "max": None, "mean": None, "std": None,
             "l2": float(math.sqrt(float(np.dot(values, values)))), "nan": nan, "inf": inf}
    if count:
        stats.update(min=float(values.min()), max=float(values.max()),
                     mean=float(values.mean()), std=float(values.std()))
    return stats


# --------------------------------------------------------------------------
# The gradient-sign probe


class GradProbeWriter:
    """DIR/probe.json and DIR/signs.bin (docs/formats/grad-probe.md): after each
    step's backward, one record of the chosen parameters' gradient signs, bit 1
    where an element is > 0 (0 for <= 0 and NaN), little bit order, each
    parameter's bits padded with zeros to whole 64-bit words."""

    MAGIC = b"PGSR"
    RECORD_HEADER_BYTES = 16

    def __init__(self, directory, globs_text, model, label, producer):
        globs = ["*"] if globs_text == "all" else globs_text.split(",")
        if any(not glob for glob in globs):
            raise UsageError(f"--probe-grads: '{globs_text}' holds an empty glob")
        named = list(model.named_parameters())
        self.params = [(name, param) for name, param in named
                       if any(fnmatch.fnmatchcase(name, glob) for glob in globs)]
        for glob in globs:
            if not any(fnmatch.fnmatchcase(name, glob) for name, _ in self.params):
                some = ", ".join(name for name, _ in named[:4])
                raise UsageError(f"--probe-grads: '{glob}' matches no parameter of the model "
                                 f"(names look like {some}, ...)")
        offset = self.RECORD_HEADER_BYTES
        self.layout = []
        for name, param in self.params:
            elements = param.numel()
            size = 8 * ((elements + 63) // 64)
            self.layout.append({"name": name, "shape": list(param.shape), "elements": elements,
                                "offset": offset, "bytes": size})
            offset += size
        self.record_bytes = offset
        header = {"format": "parity-grad-probe", "version": 1, "producer": producer,
                  "model": label, "bit_order": "little",
                  "sign": "bit 1 where the gradient element is > 0, 0 where it is <= 0 or NaN",
                  "record_bytes": self.record_bytes, "parameters": self.layout}
        try:
            os.makedirs(directory, exist_ok=True)
            with open(os.path.join(directory, "probe.json"), "w", encoding="utf-8") as out:
                json.dump(header, out, separators=(",", ":"))
                out.write("\n")
            self._signs = open(os.path.join(directory, "signs.bin"), "wb")
        except OSError as error:
            raise UsageError(f"--probe-dir: cannot write {directory}: "
                             f"{error.strerror or error}") from None
        self.steps = 0

    def write(self, step):
        record = np.zeros(self.record_bytes, dtype=np.uint8)
        record[:4] = np.frombuffer(self.MAGIC, dtype=np.uint8)
        record[4:16] = np.frombuffer(struct.pack("<Iq", len(self.params), step), dtype=np.uint8)
        for (_, param), place in zip(self.params, self.layout):
            if param.grad is None:
                continue    # no gradient: every bit stays 0, as for a zero gradient
            positive = (param.grad.detach() > 0).cpu().numpy().ravel()
            bits = np.packbits(positive, bitorder="little")
            record[place["offset"]:place["offset"] + bits.size] = bits
        self._signs.write(record.tobytes())
        self._signs.flush()
        self.steps += 1

    def close(self):
        self._signs.close()


# --------------------------------------------------------------------------
# Recording the model


class _Record:
    """One activation record in flight: an output and, once backward reaches
    it, its grad_output."""

    __slots__ = ("name", "module", "op", "kind", "out", "version", "value", "hook", "relu")

    def __init__(self, name, module, op, out):
        self.name, self.module, self.op = name, module, op
        self.kind = op            # "batch_norm" and "relu" records may still change
        self.out = out            # the tensor whose gradient is the record's grad_output
        self.version = out._version
        self.value = None         # the clone written as the forward record
        self.hook = None          # handle of the grad_output hook on `out`
        self.relu = None          # the nn.ReLU module of a "relu" record


class Recorder:
    """Hooks that turn one training step into dump records.

    Forward hooks on the leaf modules of LEAF_OPS and on block candidates
    build the forward records. At most one record is *pending* at a time:
    a batch norm's (it becomes batch_norm_relu if the next hooked call is a
    ReLU on its unmodified output) or a ReLU's (it becomes its parent block's
    add_relu record if the block's forward returns that ReLU's output). Every
    other hooked call first writes the pending record, so records keep the
    order in which the modules finished.

    grad_output comes from Tensor.register_hook on each record's output
    tensor, registered in the forward hook, i.e. before anything can modify
    that tensor in place. That matters for the last batch norm of a block,
    whose output torchvision modifies with `out += identity`: on torch 1.13
    a hook registered on a non-leaf tensor is a pre-hook of the autograd node
    that produced the tensor (NativeBatchNormBackward0 here) and stays there
    when an in-place op later gives the tensor a new grad_fn, so it receives
    exactly d loss / d (the batch norm's output), the gradient of the value
    the forward record holds. (A tensor's first hook registered after the
    `+=` would sit on AddBackward0 and get d loss / d (the sum): the same
    numbers for an addition, but not for in-place ops in general. torch 2.x
    documents the same rule: hooks registered before an in-place op see the
    gradient of the value before it.) Folding a batch norm into a ReLU
    removes its hook and hooks the ReLU's output instead.
    check_dump_reference.py verifies every grad_output against
    torch.autograd.grad of an out-of-place re-implementation.

    Parameter grads: Tensor.register_hook on each parameter reserves the
    record's index when backward first reaches it (its position in autograd
    order); the value written after backward is param.grad, which is the sum
    should a parameter be used more than once.
    """

    def __init__(self, model, writer, what):
        self.writer = writer
        self.what = what
        self.active = False
        self.step = 0
        self.calls = {}           # module -> calls this step, for #2, #3 names
        self.pending = None       # the record that may still change (see above)
        self.module_op = {}       # module path -> op it was recorded with this step
        self.grad_slots = {}      # parameter name -> reserved index
        self.model = model
        self.params = list(model.named_parameters())
        self.buffers_at_start = []    # (name, copy) of every buffer as the step began
        self.path = {module: path for path, module in model.named_modules()}
        self.by_path = dict(model.named_modules())
        self.leaf_op = {}
        self.handles = []
        for path, module in model.named_modules():
            op = leaf_op_of(module)
            if op is not None:
                self.leaf_op[module] = op
                self.handles.append(module.register_forward_hook(self._leaf_hook))
            elif path and is_block_candidate(module):
                self.handles.append(module.register_forward_hook(self._block_hook))
        if "grads" in what:
            for name, param in self.params:
                if param.requires_grad:
                    self.handles.append(param.register_hook(self._param_hook(name)))

    # -- step bracketing --------------------------------------------------

    def begin_step(self, step):
        self.active = True
        self.step = step
        self.calls = {}
        self.pending = None
        self.module_op = {}
        self.grad_slots = {}
        if "buffers" in self.what:    # forward moves the running statistics
            self.buffers_at_start = [(name, buffer.detach().clone())
                                     for name, buffer in self.model.named_buffers()]

    def input(self, images):
        if "fwd" in self.what:
            self.writer.add(self.step, "forward", "input", "input", "input", "input", images)

    def end_forward(self, loss):
        self._flush()
        if "fwd" in self.what:
            self.writer.add(self.step, "forward", "loss", "loss", "cross_entropy", "loss",
                            loss.detach().clone())
        self.writer.end_phase()

    def end_backward(self):
        params = dict(self.params)
        for name, index in self.grad_slots.items():
            module = name.rpartition(".")[0]
            self.writer.write(index, self.step, "backward", name, module, self._op_of(module),
                              "grad", params[name].grad)
        self.grad_slots = {}
        self.writer.end_phase()

    def parameters(self, role):
        if "params" in self.what:
            for name, param in self.params:
                self._owned(name, name.rpartition(".")[0], role, param.detach())

    def buffers_before(self):
        for name, value in self.buffers_at_start:
            self._owned(name, name.rpartition(".")[0], "buffer_before", value)

    def buffers_after(self):
        if "buffers" in self.what:
            for name, buffer in self.model.named_buffers():
                self._owned(name, name.rpartition(".")[0], "buffer_after", buffer.detach())

    def optimizer_state(self, optimizer):
        """SGD's momentum buffer of every parameter, after the step."""
        if "optimizer" in self.what:
            for name, param in self.params:
                buffer = optimizer.state.get(param, {}).get("momentum_buffer")
                if buffer is not None:
                    self._owned(f"{name}.momentum_buffer", name.rpartition(".")[0],
                                "optimizer_state_after", buffer.detach())

    def _owned(self, name, module, role, tensor):
        """An update record of something `module` owns (a parameter, a buffer)."""
        self.writer.add(self.step, "update", name, module, self._op_of(module), role, tensor)

    def end_step(self):
        self.writer.end_phase()
        self.active = False
        self.pending = None

    # -- forward ----------------------------------------------------------

    def _call_name(self, module):
        calls = self.calls[module] = self.calls.get(module, 0) + 1
        path = self.path[module]
        return path if calls == 1 else f"{path}#{calls}"

    def _new_record(self, module, op, out):
        record = _Record(self._call_name(module), self.path[module], op, out)
        if "fwd" in self.what:
            record.value = out.detach().clone()   # before any in-place op changes it
        self._watch(record, out)
        return record

    def _watch(self, record, out):
        if record.hook is not None:
            record.hook.remove()
            record.hook = None
        record.out = out
        if "bwd" in self.what and out.requires_grad:
            record.hook = out.register_hook(lambda grad: self._grad_output(record, grad))

    def _emit(self, record):
        self.module_op[record.module] = record.op
        if record.value is not None:
            self.writer.add(self.step, "forward", record.name, record.module, record.op,
                            "output", record.value)
            record.value = None

    def _flush(self):
        if self.pending is not None:
            record, self.pending = self.pending, None
            self._emit(record)

    def _leaf_hook(self, module, inputs, output):
        if not self.active or not isinstance(output, torch.Tensor):
            return
        op = self.leaf_op[module]
        if op == "relu":
            self._relu(module, inputs[0], output)
            return
        self._flush()
        record = self._new_record(module, op, output)
        if op == "batch_norm":
            self.pending = record       # may still fold into the next ReLU
        else:
            self._emit(record)

    def _relu(self, module, source, output):
        bn = self.pending
        if (bn is not None and bn.kind == "batch_norm" and source is bn.out
                and source._version == bn.version):
            # BN + ReLU: the ReLU's output under the batch norm's name.
            self._call_name(module)
            self.pending = None
            bn.op = "batch_norm_relu"
            if "fwd" in self.what:
                bn.value = output.detach().clone()
            self._watch(bn, output)
            self._emit(bn)
            return
        self._flush()
        record = self._new_record(module, "relu", output)
        record.relu = module
        self.pending = record           # may still become its block's add_relu

    def _block_hook(self, module, inputs, output):
        if not self.active:
            return
        name = self._call_name(module)
        relu = self.pending
        if (relu is not None and relu.kind == "relu" and output is relu.out
                and any(child is relu.relu for child in module.children())):
            self.pending = None
            relu.name, relu.module, relu.op = name, self.path[module], "add_relu"
            self._emit(relu)

    # -- backward ---------------------------------------------------------

    def _grad_output(self, record, grad):
        if self.active:
            self.writer.add(self.step, "backward", record.name, record.module, record.op,
                            "grad_output", grad)

    def _param_hook(self, name):
        def hook(grad):
            if self.active and name not in self.grad_slots:
                self.grad_slots[name] = self.writer.reserve()
        return hook

    def _op_of(self, module_path):
        """The op of a parameter's owner: what the owner was recorded as this step
        (batch_norm_relu for a folded batch norm), else what its type maps to."""
        if module_path in self.module_op:
            return self.module_op[module_path]
        module = self.by_path.get(module_path)
        if module is None:
            return "parameter"
        return leaf_op_of(module) or type(module).__name__.lower()


def leaf_op_of(module):
    for cls, op in LEAF_OPS:
        if isinstance(module, cls):
            return op
    return None


def is_block_candidate(module):
    if isinstance(module, (nn.Sequential, nn.ModuleList, nn.ModuleDict)):
        return False
    return any(isinstance(child, nn.ReLU) for child in module.children())


# --------------------------------------------------------------------------
# Model, weights, batch


def build_model(args):
    if args.model_factory:
        model = model_from_factory(args.model_factory, args.num_classes)
        label = args.model_factory
    else:
        name = args.model or "resnet50"
        if name not in RESNET_NAMES or not hasattr(torchvision.models, name):
            raise UsageError(f"--model: unknown model '{name}' (choose one of "
                             f"{', '.join(n for n in RESNET_NAMES if hasattr(torchvision.models, n))}; "
                             "for any other model use --model-factory MODULE:FUNC)")
        model = getattr(torchvision.models, name)(num_classes=args.num_classes)
        label = name
    return model, label


def model_from_factory(text, num_classes):
    module_name, sep, func_name = text.rpartition(":")
    if not sep or not module_name or not func_name:
        raise UsageError(f"--model-factory: '{text}' is not MODULE:FUNC")
    try:
        if module_name.endswith(".py") or os.sep in module_name:
            if not os.path.isfile(module_name):
                raise UsageError(f"--model-factory: no such file: {module_name}")
            directory = os.path.dirname(os.path.abspath(module_name))
            if directory not in sys.path:
                sys.path.insert(0, directory)    # so that the file's own imports work
            stem = os.path.splitext(os.path.basename(module_name))[0]
            spec = importlib.util.spec_from_file_location(stem, module_name)
            module = importlib.util.module_from_spec(spec)
            sys.modules[stem] = module
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except UsageError:
        raise
    except Exception as error:  # the user's code: report whatever it raised
        raise UsageError(f"--model-factory: importing {module_name} failed: "
                         f"{type(error).__name__}: {error}") from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise UsageError(f"--model-factory: {module_name} has no function '{func_name}'")
    try:
        model = func(num_classes=num_classes)
    except Exception as error:
        raise UsageError(f"--model-factory: {func_name}(num_classes={num_classes}) failed: "
                         f"{type(error).__name__}: {error}") from None
    if not isinstance(model, nn.Module):
        raise UsageError(f"--model-factory: {func_name} returned a {type(model).__name__}, "
                         "not a torch.nn.Module")
    return model


def load_weights(model, path):
    if not os.path.isfile(path):
        raise UsageError(f"--weights: no such file: {path}")
    try:
        state = torch.load(path, map_location="cpu")
    except Exception as error:
        raise UsageError(f"--weights: {path} is not a file torch.load reads: "
                         f"{type(error).__name__}: {error}") from None
    if isinstance(state, dict):
        for key in ("state_dict", "model"):
            if isinstance(state.get(key), dict):
                state = state[key]
                break
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise UsageError(f"--weights: {path} holds no state_dict (a dict of tensors, possibly "
                         "under 'state_dict' or 'model')")
    if state and all(key.startswith("module.") for key in state):
        state = {key[len("module."):]: value for key, value in state.items()}
    expected = model.state_dict()
    missing = [k for k in expected if k not in state]
    unexpected = [k for k in state if k not in expected]
    wrong = [f"{k} {list(state[k].shape)} (model {list(v.shape)})"
             for k, v in expected.items() if k in state and state[k].shape != v.shape]
    if missing or unexpected or wrong:
        parts = []
        for title, items in (("missing", missing), ("unexpected", unexpected),
                             ("wrong shape", wrong)):
            if items:
                more = f" and {len(items) - 5} more" if len(items) > 5 else ""
                parts.append(f"{title}: {', '.join(items[:5])}{more}")
        raise UsageError(f"--weights: {path} does not fit the model ({'; '.join(parts)})")
    model.load_state_dict(state, strict=True)


def load_npy(path, option):
    if not os.path.isfile(path):
        raise UsageError(f"{option}: no such file: {path}")
    try:
        return np.load(path, allow_pickle=False)
    except Exception as error:
        raise UsageError(f"{option}: {path} is not a readable .npy file: {error}") from None


def save_file(option, path, save):
    try:
        save(path)
    except OSError as error:
        raise UsageError(f"{option}: cannot write {path}: {error.strerror or error}") from None


def first_conv_channels(model):
    for module in model.modules():
        if isinstance(module, nn.Conv2d):
            return module.in_channels
    return None


def get_batch(args, model):
    """(images float32 [N,C,H,W], labels int64 [N]) as torch tensors, or None."""
    if args.make_batch:
        n, c, h, w = parse_batch_shape(args.make_batch)
        generator = torch.Generator().manual_seed(args.seed)
        images = torch.randn(n, c, h, w, generator=generator, dtype=torch.float32)
        labels = torch.randint(0, args.num_classes, (n,), generator=generator, dtype=torch.int64)
        if args.save_images:
            save_file("--save-images", args.save_images, lambda p: np.save(p, images.numpy()))
        if args.save_labels:
            save_file("--save-labels", args.save_labels, lambda p: np.save(p, labels.numpy()))
    elif args.images:
        images = load_npy(args.images, "--images")
        labels = load_npy(args.labels, "--labels")
        if images.ndim != 4 or not np.issubdtype(images.dtype, np.floating):
            raise UsageError(f"--images: {args.images} is {images.dtype} {list(images.shape)}, "
                             "not a float32 [N,C,H,W] batch")
        if labels.ndim != 1 or not np.issubdtype(labels.dtype, np.integer):
            raise UsageError(f"--labels: {args.labels} is {labels.dtype} {list(labels.shape)}, "
                             "not integer [N] labels")
        if labels.shape[0] != images.shape[0]:
            raise UsageError(f"--labels: {args.labels} holds {labels.shape[0]} labels for "
                             f"{images.shape[0]} images in {args.images}")
        images = torch.from_numpy(np.ascontiguousarray(images, dtype=np.float32))
        labels = torch.from_numpy(labels.astype(np.int64))
        bad = ((labels < 0) | (labels >= args.num_classes)).nonzero()
        if len(bad):
            i = int(bad[0, 0])
            raise UsageError(f"--labels: {args.labels}: label {int(labels[i])} at position {i} "
                             f"is outside [0, {args.num_classes}) (--num-classes)")
        if min(images.shape) == 0:
            raise UsageError(f"--images: {args.images} is empty {list(images.shape)}")
    else:
        return None
    channels = first_conv_channels(model)
    if channels is not None and images.shape[1] != channels:
        where = args.images or "--make-batch"
        raise UsageError(f"the batch ({where}) has {images.shape[1]} channels; the model's first "
                         f"convolution takes {channels}")
    return images, labels


# --------------------------------------------------------------------------
# Training


# The environment variables a dump records, as parity-train records them
# (importers/src/dump/run_settings.cpp, docs/formats/dump.md).
RECORDED_PREFIXES = ("OMP_", "KMP_", "GOMP_", "MKL_", "OPENBLAS_", "DNNL_", "ONEDNN_", "CUDA_",
                     "CUBLAS_", "CUDNN_", "NCCL_", "NVIDIA_", "TORCH_", "PYTORCH_", "MS_",
                     "MINDSPORE_", "GLOG_", "ASCEND_", "HCCL_")
RECORDED_NAMES = ("PYTHONHASHSEED", "LD_PRELOAD")
LEARNING_RATES_RECORDED = 8


def run_settings(args, lrs):
    """The header's config, versions and environment, under parity-train's names."""
    config = {
        "optimizer": "sgd",
        "lr": ",".join(f"{lr:g}" for lr in lrs[:LEARNING_RATES_RECORDED]),
        "momentum": f"{args.momentum:g}",
        "nesterov": "true" if args.nesterov else "false",
        "weight_decay": f"{args.weight_decay:g}",
        "weight_decay_on": "all parameters" if args.decay_all
                           else "weights with 2 or more dimensions",
        "label_smoothing": f"{args.label_smoothing:g}",
        "label_smoothing_convention": "pytorch",
        "dtype": "float64" if args.float64 else "float32",
        "loss_scale": "1",
        "num_classes": str(args.num_classes),
    }
    versions = {"torch": torch.__version__, "torchvision": torchvision.__version__,
                "numpy": np.__version__, "python": sys.version.split()[0]}
    environment = {name: value for name, value in sorted(os.environ.items())
                   if name.startswith(RECORDED_PREFIXES) or name in RECORDED_NAMES}
    return {"config": config, "versions": versions, "environment": environment}


def make_optimizer(model, args):
    decay, no_decay = [], []
    for _, param in model.named_parameters():
        if param.requires_grad:
            (decay if args.decay_all or param.ndim > 1 else no_decay).append(param)
    groups = [{"params": ps, "weight_decay": wd}
              for ps, wd in ((decay, args.weight_decay), (no_decay, 0.0)) if ps]
    return torch.optim.SGD(groups, lr=0.0, momentum=args.momentum, dampening=0.0,
                           nesterov=args.nesterov)


def train(args, model, label, images, labels):
    lrs = parse_lrs(args.lr, args.steps)
    dump_steps = parse_dump_steps(args.dump_steps, args.steps) if args.dump else set()
    what = parse_dump_what(args.dump_what)
    if args.nesterov and args.momentum <= 0:
        raise UsageError("--nesterov needs a positive --momentum")
    if "optimizer" in what and args.momentum == 0:
        raise UsageError("--dump-what optimizer dumps SGD's momentum buffers, and --momentum is "
                         "0: there are none (leave out optimizer, or give a momentum)")

    for module in model.modules():
        if isinstance(module, nn.ReLU):
            module.inplace = False      # same values; every recorded tensor its own node
    model.train()
    criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)
    optimizer = make_optimizer(model, args)

    writer = recorder = probe = None
    version = ".".join(torch.__version__.split(".")[:2])
    if args.probe_grads:
        probe = GradProbeWriter(args.probe_dir, args.probe_grads, model, label,
                                f"dump_reference.py (torch {version})")
    if args.dump:
        header = {"format": "parity-dump", "version": 1,
                  "producer": f"dump_reference.py (torch {version})", "model": label,
                  "stats_only": bool(args.dump_stats_only),
                  "batch": list(images.shape), "steps": args.steps, "seed": args.seed,
                  "threads": args.threads,
                  **run_settings(args, lrs)}
        writer = DumpWriter(args.dump, header, args.dump_stats_only)
        recorder = Recorder(model, writer, what)

    for step in range(args.steps):
        dumped = step in dump_steps
        if dumped:
            recorder.begin_step(step)
            recorder.input(images)
        optimizer.zero_grad(set_to_none=True)
        try:
            logits = model(images)
            loss = criterion(logits, labels)
        except RuntimeError as error:
            raise UsageError(f"the model fails on the batch {list(images.shape)}: "
                             f"{str(error).splitlines()[0]}") from None
        if dumped:
            recorder.end_forward(loss)
        loss.backward()
        if probe is not None:
            probe.write(step)
        if dumped:
            recorder.end_backward()
            recorder.parameters("param_before")
            recorder.buffers_before()
        for group in optimizer.param_groups:
            group["lr"] = lrs[step]
        optimizer.step()
        if dumped:
            recorder.parameters("param_after")
            recorder.buffers_after()
            recorder.optimizer_state(optimizer)
            recorder.end_step()
        progress(f"step {step}: loss {loss.item():.6f}, lr {lrs[step]:g}"
                 + (" (dumped)" if dumped else ""))
    if writer is not None:
        writer.close()
        progress(f"wrote {writer.records} records to {args.dump}")
    if probe is not None:
        probe.close()
        progress(f"probed the gradient signs of {len(probe.params)} parameters in {probe.steps} "
                 f"steps to {args.probe_dir}")


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        run(args)
    except UsageError as error:
        fail(str(error))


def run(args):
    if args.model and args.model_factory:
        raise UsageError("--model and --model-factory exclude each other")
    if args.num_classes < 1:
        raise UsageError(f"--num-classes: {args.num_classes} is not a positive number")
    if args.steps < 1:
        raise UsageError(f"--steps: {args.steps} is not a positive number")
    if args.threads < 1:
        raise UsageError(f"--threads: {args.threads} is not a positive number")
    if not 0 <= args.label_smoothing < 1:
        raise UsageError(f"--label-smoothing: {args.label_smoothing} is not in [0, 1)")
    if args.make_batch and (args.images or args.labels):
        raise UsageError("--make-batch and --images/--labels exclude each other")
    if bool(args.images) != bool(args.labels):
        raise UsageError("--images and --labels go together")
    if (args.save_images or args.save_labels) and not args.make_batch:
        raise UsageError("--save-images and --save-labels save the batch of --make-batch")
    if args.make_batch:
        parse_batch_shape(args.make_batch)
    if bool(args.probe_grads) != bool(args.probe_dir):
        raise UsageError("--probe-grads and --probe-dir go together")
    running = bool(args.images or args.dump or args.probe_dir)
    for option, given in (("--dump", args.dump), ("--probe-dir", args.probe_dir)):
        if given and not (args.images or args.make_batch):
            raise UsageError(f"{option} needs a batch: --images and --labels, or --make-batch")
    if not running and not (args.save_init or args.save_images or args.save_labels):
        raise UsageError("nothing to do: give --dump (with a batch), --images/--labels, "
                         "--save-init or --make-batch with --save-images/--save-labels")
    if running:   # refuse bad options before any file is written
        parse_lrs(args.lr, args.steps)
        parse_dump_what(args.dump_what)
        if args.dump:
            parse_dump_steps(args.dump_steps, args.steps)
            if os.path.exists(args.dump) and (not os.path.isdir(args.dump)
                                              or os.listdir(args.dump)):
                raise UsageError(f"--dump: {args.dump} exists and is not an empty directory "
                                 "(a dump is never mixed with another; choose a new directory)")
        if args.probe_dir and os.path.exists(args.probe_dir) and (
                not os.path.isdir(args.probe_dir) or os.listdir(args.probe_dir)):
            raise UsageError(f"--probe-dir: {args.probe_dir} exists and is not an empty directory "
                             "(a probe is never mixed with another; choose a new directory)")

    torch.set_num_threads(args.threads)
    if args.deterministic:
        torch.use_deterministic_algorithms(True)
    torch.manual_seed(args.seed)
    model, label = build_model(args)
    model = model.float().cpu()
    if args.weights:
        load_weights(model, args.weights)
    if args.save_init:
        save_file("--save-init", args.save_init, lambda p: torch.save(model.state_dict(), p))
    batch = get_batch(args, model)
    if not running:
        return
    images, labels = batch
    if args.float64:
        model, images = model.double(), images.double()
    train(args, model, label, images, labels)


try:
    import numpy as np
    import torch
    import torch.nn as nn
    import torchvision
except ImportError as _error:
    if __name__ == "__main__" and any(a in ("-h", "--help") for a in sys.argv[1:]):
        build_parser().print_help()
        sys.exit(0)
    fail(f"{_error.name} is not installed for {sys.executable}; run this script with "
         "/usr/bin/python3 (Debian's Python with torch 1.13, torchvision and numpy)")

LEAF_OPS = (
    (nn.Conv2d, "conv2d"),
    (nn.BatchNorm2d, "batch_norm"),
    (nn.MaxPool2d, "max_pool"),
    (nn.AdaptiveAvgPool2d, "avg_pool"),
    (nn.Linear, "linear"),
    (nn.ReLU, "relu"),
)

if __name__ == "__main__":
    main()
