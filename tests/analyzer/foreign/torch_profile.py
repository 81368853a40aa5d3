"""Profiles a few training steps of a small model with the PyTorch profiler
and writes what the tests compare Parity against:

  OUT                 the profiler's own export_chrome_trace (Debian's torch,
                      built without Kineto, writes the legacy autograd
                      profiler's bare event array)
  OUT.kineto.json     with --kineto: the same events in Kineto's layout (an
                      object with schemaVersion, distributedInfo and
                      traceEvents; cat cpu_op / user_annotation; microsecond
                      times with three decimals on the Unix epoch), written by
                      this script from the profile, as pip's torch would
  OUT.ops.json        torch's own key_averages(): per op name, calls and self
                      CPU time in microseconds, and the part of them outside
                      every ProfilerStep range; and the self time inside the
                      steps under the call-stack rule (call_stack_self_us)

--model mlp|attention|resnet18|resnet50 picks the model (torchvision's
ResNets with weights=None, on --batch images of --image-size pixels, 10
classes; cross-entropy and SGD with momentum); --slow NAME plants a
slowdown: the model runs the named part three times per step (NAME: proj,
the attention's input projection, fc, the MLP's first layer, or conv, every
convolution of a ResNet, forward and backward); --rank R --world-size N fills distributedInfo. --ranks N trains
data-parallel instead: N processes, DistributedDataParallel over gloo on
this host, each writing OUT.rank<R>.json (and its Kineto layout, where
"gloo:all_reduce" carries the bucket's shape and type, as Kineto writes it).
"""
import argparse
import gzip
import json
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule


class Attention(nn.Module):
    def __init__(self, width, slow):
        super().__init__()
        self.proj = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)
        self.repeats = 3 if slow == "proj" else 1

    def forward(self, x):
        for _ in range(self.repeats):
            q, k, v = self.proj(x).chunk(3, dim=-1)
        weights = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, dim=-1)
        return self.norm(x + self.out(weights @ v)).mean(dim=1)


class Mlp(nn.Module):
    def __init__(self, width, slow):
        super().__init__()
        self.fc = nn.Linear(width, 4 * width)
        self.act = nn.GELU()
        self.head = nn.Linear(4 * width, 10)
        self.repeats = 3 if slow == "fc" else 1

    def forward(self, x):
        for _ in range(self.repeats):
            hidden = self.fc(x.mean(dim=1))
        return self.head(self.act(hidden))


def resnet(args):
    """torchvision's ResNet; with --slow conv each convolution runs three times,
    forward and backward."""
    import torchvision
    model = getattr(torchvision.models, args.model)(weights=None, num_classes=10)
    if args.slow == "conv":
        for conv in (m for m in model.modules() if isinstance(m, nn.Conv2d)):
            # The mean of three: backward convolves three times too.
            conv.forward = lambda x, conv=conv: sum(
                conv._conv_forward(x, conv.weight, conv.bias) for _ in range(3)) / 3
    return model


def model_and_data(args):
    """The model, the head after it, and one batch (inputs, labels)."""
    if args.model.startswith("resnet"):
        x = torch.randn(args.batch, 3, args.image_size, args.image_size)
        return resnet(args), nn.Identity(), x, torch.randint(0, 10, (args.batch,))
    width = 64
    model = (Attention if args.model == "attention" else Mlp)(width, args.slow)
    head = nn.Linear(width, 10) if args.model == "attention" else nn.Identity()
    return model, head, torch.randn(args.batch, 12, width), torch.randint(0, 10, (args.batch,))


def profile_steps(args):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model, head, x, y = model_and_data(args)
    if args.ranks:
        model = nn.parallel.DistributedDataParallel(nn.Sequential(model, head),
                                                    bucket_cap_mb=0.05)
        head = nn.Identity()
    params = list(model.parameters()) + list(head.parameters())
    momentum = 0.9 if args.model.startswith("resnet") else 0
    optimizer = torch.optim.SGD(params, lr=0.01, momentum=momentum)
    # The same batch again each step, through a DataLoader, whose batches the
    # profiler marks (enumerate(DataLoader)#...).
    repeats = args.steps + 2
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(x.repeat(repeats, *[1] * (x.dim() - 1)), y.repeat(repeats)),
        batch_size=args.batch)
    traces = []
    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=1, warmup=1, active=args.steps),
                 on_trace_ready=lambda prof: traces.append(prof),
                 record_shapes=True) as prof:
        for xb, yb in loader:
            with record_function("forward_and_loss"):
                loss = nn.functional.cross_entropy(head(model(xb)), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            prof.step()
    return traces[0]


def kineto_document(prof, args):
    """The profile's events in Kineto's layout (see docs/import.md)."""
    base_us = 1_700_000_000_000_000  # an epoch time, as Kineto writes
    pid = os.getpid()
    events, steps = [], 0
    for event in sorted(prof.events(), key=lambda e: (e.time_range.start, -e.time_range.end)):
        name = event.name
        user = event.scope == 7  # torch's RecordScope.USER_SCOPE: record_function
        if name.startswith("ProfilerStep"):
            name = "ProfilerStep#%d" % (steps + 2)
            steps += 1
        args_ = {"External id": event.id, "Input Dims": event.input_shapes,
                 "Sequence number": event.sequence_nr}
        if name.startswith("gloo:"):  # the bucket's flat float32 tensor
            args_["Input type"] = ["float"]
        events.append({
            "ph": "X", "cat": "user_annotation" if user else "cpu_op", "name": name,
            "pid": pid, "tid": event.thread,
            "ts": round(base_us + event.time_range.start, 3),
            "dur": round(event.time_range.end - event.time_range.start, 3),
            "args": args_})
    threads = sorted({event.thread for event in prof.events()})
    events.append({"name": "process_name", "ph": "M", "ts": base_us, "pid": pid, "tid": 0,
                   "args": {"name": "python3"}})
    for thread in threads:
        events.append({"name": "thread_name", "ph": "M", "ts": base_us, "pid": pid,
                       "tid": thread, "args": {"name": "thread %d (python3)" % thread}})
    document = {"schemaVersion": 1, "deviceProperties": [], "traceEvents": events,
                "traceName": "torch_profile.py"}
    if args.rank is not None:
        document["distributedInfo"] = {"backend": "gloo", "rank": args.rank,
                                       "world_size": args.world_size}
    return document


def outside_steps(prof):
    """Per op name, the calls and self time torch counts that lie outside every
    ProfilerStep range (prof.step()'s own allocations between steps): Parity's
    operators table covers the steps only."""
    steps = [e.time_range for e in prof.events() if e.name.startswith("ProfilerStep")]
    outside = {}
    for event in prof.events():
        start = event.time_range.start
        if not any(step.start <= start < step.end for step in steps):
            row = outside.setdefault(event.name, {"calls": 0, "self_cpu_us": 0.0})
            row["calls"] += 1
            row["self_cpu_us"] += event.self_cpu_time_total
    return outside


def call_stack_self(prof):
    """Per op name, the self time (us) inside the ProfilerStep ranges when an
    event that starts inside another on its thread is its callee even where
    whole-microsecond rounding lets it end after its caller: the rule of
    Parity's importer, which follows the call stack. torch's own nesting
    leaves such a callee out, keeping its time in the caller's self time, so
    the two part under load. Ties in start go to the longer event, then to
    the export's order, as in the importer."""
    steps = [e.time_range for e in prof.events() if e.name.startswith("ProfilerStep")]
    events = list(prof.events())
    order = sorted(range(len(events)), key=lambda i: (events[i].time_range.start,
                                                       -events[i].time_range.elapsed_us(), i))
    nested = [0.0] * len(events)
    open_until = {}
    stacks = {}
    for i in order:
        event = events[i]
        stack = stacks.setdefault(event.thread, [])
        start = event.time_range.start
        while stack and open_until[stack[-1]] <= start:
            stack.pop()
        open_until[i] = start + event.time_range.elapsed_us()
        if stack:
            open_until[i] = min(open_until[i], open_until[stack[-1]])
            # Ops nest in ops only (the report's self time), the nearest one.
            for parent in reversed(stack):
                if "::" in events[parent].name and "::" in event.name:
                    nested[parent] += event.time_range.elapsed_us()
                    break
        stack.append(i)
    totals = {}
    for i, event in enumerate(events):
        if any(step.start <= event.time_range.start < step.end for step in steps):
            totals[event.name] = (totals.get(event.name, 0.0)
                                  + event.time_range.elapsed_us() - nested[i])
    return totals


def write_outputs(prof, args, out):
    prof.export_chrome_trace(out)
    outside = outside_steps(prof)
    call_stack = call_stack_self(prof)
    averages = {row.key: {"calls": row.count, "self_cpu_us": row.self_cpu_time_total,
                          "outside_steps": outside.get(row.key, {"calls": 0, "self_cpu_us": 0}),
                          "call_stack_self_us": call_stack.get(row.key, 0.0)}
                for row in prof.key_averages()}
    with open(out + ".ops.json", "w") as stream:
        json.dump(averages, stream)
    if args.kineto:
        text = json.dumps(kineto_document(prof, args))
        if args.gzip:
            with gzip.open(out + ".kineto.json.gz", "wt") as stream:
                stream.write(text)
        else:
            with open(out + ".kineto.json", "w") as stream:
                stream.write(text)


def rank_main(rank, args):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(args.port)
    dist.init_process_group("gloo", rank=rank, world_size=args.ranks)
    args.rank, args.world_size = rank, args.ranks
    write_outputs(profile_steps(args), args, "%s.rank%d.json" % (args.out, rank))
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--model", choices=["mlp", "attention", "resnet18", "resnet50"],
                        default="attention")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--image-size", type=int, default=64, help="ResNets' input side")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--slow", choices=["proj", "fc", "conv"])
    parser.add_argument("--kineto", action="store_true")
    parser.add_argument("--gzip", action="store_true", help="write the Kineto layout gzipped")
    parser.add_argument("--rank", type=int)
    parser.add_argument("--world-size", type=int, default=1)
    parser.add_argument("--ranks", type=int, default=0)
    parser.add_argument("--port", type=int, default=29500)
    args = parser.parse_args()
    if args.ranks:
        mp.spawn(rank_main, args=(args,), nprocs=args.ranks)
    else:
        write_outputs(profile_steps(args), args, args.out)


if __name__ == "__main__":
    main()
