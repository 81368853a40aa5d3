#!/usr/bin/python3
"""The peer of bench/profiler_bench: what PyTorch's profiler (Debian's torch)
costs per recorded op and per exported event, measured on this machine.

Prints two lines, "record_function_ns <median>" and "json_bytes_per_event <n>",
which scripts/bench/profiler.sh puts beside our numbers.
"""
import json
import os
import statistics
import sys
import tempfile
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function

BATCHES, PER_BATCH = 2000, 50


def record_function_cost_ns():
    """Median cost of entering and leaving one record_function under an active profiler."""
    costs = []
    with profile(activities=[ProfilerActivity.CPU]):
        for _ in range(BATCHES):
            start = time.perf_counter_ns()
            for _ in range(PER_BATCH):
                with record_function("layer1.0.conv1"):
                    pass
            costs.append((time.perf_counter_ns() - start) / PER_BATCH)
    # The loop itself, without the profiler, is subtracted.
    empty = []
    for _ in range(BATCHES):
        start = time.perf_counter_ns()
        for _ in range(PER_BATCH):
            pass
        empty.append((time.perf_counter_ns() - start) / PER_BATCH)
    return statistics.median(costs) - statistics.median(empty)


def json_bytes_per_event():
    """Bytes per event of the Chrome trace JSON the PyTorch profiler exports."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(20000):
            with record_function("layer1.0.conv1"):
                pass
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "trace.json")
        prof.export_chrome_trace(path)
        size = os.path.getsize(path)
        with open(path) as handle:
            loaded = json.load(handle)
            # torch 1.13 writes a bare list of events; later versions wrap it.
            loaded = loaded["traceEvents"] if isinstance(loaded, dict) else loaded
            events = [e for e in loaded if e.get("ph") == "X"]
    return size / max(1, len(events))


if __name__ == "__main__":
    torch.set_num_threads(1)
    print(f"record_function_ns {record_function_cost_ns():.1f}")
    print(f"json_bytes_per_event {json_bytes_per_event():.1f}")
    sys.exit(0)
