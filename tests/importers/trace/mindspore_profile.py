#!/usr/bin/env python3
"""Writes a MindSpore profiler folder for tests, in the documented formats.

MindSpore is not installed here, so this writes the files Profiler.analyse()
would, as docs/formats/mindspore-profiler.md describes them (MindSpore 1.x-2.2
parsers): ascend_timeline_display_<rank>.json, step_trace_raw_<rank>_detail_time.csv,
device_queue_profiling_<rank>.txt, op_statistic_<rank>.csv and
minddata_pipeline_raw_<rank>.csv, for a ResNet-50-like step with known times.
They are written from the format documentation, not recorded from MindSpore.

Every step (all times in microseconds, exact):
  data wait   200 (EMPTY_WAIT_US = 3000 where the data queue ran empty)
  forward     FORWARD ops back to back on stream 0 (sum 460)
  backward    BACKWARD ops back to back (first: BiasAddGrad; sum 670)
  tail        AllReduce on stream 1 (300, rank 1: 320), then ApplyMomentum (40)
Step 1 starts at its fp_point (MindSpore's rule), so it has no data wait.

usage: mindspore_profile.py OUT_DIR [--ranks 2] [--steps 6] [--empty-from K]
                                    [--rank-folders]
"""
import argparse
import json
import os

FORWARD = [("Conv2D", 120), ("BatchNorm", 40), ("ReLU", 20), ("MaxPool", 30),
           ("Conv2D", 110), ("BatchNorm", 40), ("ReLU", 20), ("ReduceMean", 10),
           ("MatMul", 50), ("BiasAdd", 5), ("SoftmaxCrossEntropyWithLogits", 15)]
BACKWARD = [("BiasAddGrad", 5), ("MatMul", 50), ("ReluGrad", 20), ("BatchNormGrad", 60),
            ("Conv2DBackpropInput", 130), ("Conv2DBackpropFilter", 140), ("ReluGrad", 20),
            ("BatchNormGrad", 60), ("MaxPoolGrad", 35), ("Conv2DBackpropFilter", 150)]
DATA_WAIT_US = 200
EMPTY_WAIT_US = 3000
OPTIMIZER_US = 40
QUEUE_CAPACITY = 64
QUEUE_DEPTH = 8
BASE_US = 1650000000000  # the device clock at the first step, us
ALLREDUCE_OP = "AllReduce-op30"


def allreduce_us(rank):
    return 300 + 20 * rank


def step_plan(rank, steps, empty_from):
    """Per step: its points and its ops (name, stream, start, dur), in us."""
    plan, t = [], BASE_US + 7 * rank
    for step in range(1, steps + 1):
        empty = empty_from is not None and step >= empty_from
        start = t
        fp = start if step == 1 else start + (EMPTY_WAIT_US if empty else DATA_WAIT_US)
        ops, now = [], fp
        for index, (name, dur) in enumerate(FORWARD + BACKWARD):
            ops.append(("%s-op%d" % (name, index + 1), 0, now, dur))
            now += dur
        bp = now
        ops.append((ALLREDUCE_OP, 1, bp, allreduce_us(rank)))
        now = bp + allreduce_us(rank)
        ops.append(("ApplyMomentum-op31", 0, now, OPTIMIZER_US))
        end = now + OPTIMIZER_US
        plan.append({"step": step, "start": start, "fp": fp, "bp": bp, "end": end,
                     "backward": fp + sum(d for _, d in FORWARD), "ops": ops, "empty": empty})
        t = end
    return plan


def write_timeline(path, rank, plan):
    events = []
    for s in plan:
        events.append({"name": str(s["step"]), "ph": "X", "tid": 100000, "ts": s["start"],
                       "dur": s["end"] - s["start"], "pid": rank})
        events.append({"name": "Default", "ph": "X", "tid": 100001, "ts": s["fp"],
                       "dur": s["backward"] - s["fp"], "pid": rank, "scope_level": 0})
        events.append({"name": "Gradients", "ph": "X", "tid": 100001, "ts": s["backward"],
                       "dur": s["bp"] - s["backward"], "pid": rank, "scope_level": 0})
        for name, stream, start, dur in s["ops"]:
            events.append({"name": name, "ph": "X", "tid": stream, "ts": start, "dur": dur,
                           "pid": rank})
        events.append({"name": "Merged Communication Op", "ph": "X", "tid": 8001,
                       "ts": s["bp"], "dur": allreduce_us(rank), "pid": 12000})
    meta = [{"name": "process_labels", "ph": "M", "pid": rank, "args": {"labels": "AI Core Op"}},
            {"name": "process_name", "ph": "M", "pid": rank, "args": {"name": "Ascend Op"}},
            {"name": "thread_name", "ph": "M", "pid": rank, "tid": 0, "args": {"name": "Stream #0"}},
            {"name": "thread_name", "ph": "M", "pid": rank, "tid": 1, "args": {"name": "Stream #1"}},
            {"name": "thread_name", "ph": "M", "pid": rank, "tid": 100000, "args": {"name": "Steps"}},
            {"name": "thread_sort_index", "ph": "M", "pid": rank, "tid": 100000,
             "args": {"sort_index": -4}}]
    # As base_timeline_generator.py writes it: '[', each item json.dump-ed, ',' between, ']'.
    with open(path, "w") as out:
        out.write("[" + ",".join(json.dumps(e) for e in events + meta) + "]")


def write_step_trace(path, plan):
    ticks = lambda us: us * 100  # 10 ns ticks
    header = ["step_num", "start_point", "end_point", "total", "fp_point", "bp_point",
              "iteration_interval", "fp_and_bp", "tail", "stream_1_0_" + ALLREDUCE_OP,
              "stream_1_0_%s_start_point" % ALLREDUCE_OP, "stream_1_0_%s_end_point" % ALLREDUCE_OP]
    rows = []
    for s in plan:
        reduce = next(op for op in s["ops"] if op[0] == ALLREDUCE_OP)
        rows.append([s["step"], ticks(s["start"]), ticks(s["end"]), ticks(s["end"] - s["start"]),
                     ticks(s["fp"]), ticks(s["bp"]), ticks(s["fp"] - s["start"]),
                     ticks(s["bp"] - s["fp"]), ticks(s["end"] - s["bp"]), ticks(reduce[3]),
                     ticks(reduce[2]), ticks(reduce[2] + reduce[3])])
    average = ["-"] + [sum(r[i] for r in rows) // len(rows) for i in range(1, len(header))]
    with open(path, "w") as out:
        for row in [header] + rows + [average]:
            out.write(",".join(str(c) for c in row) + "\n")


def write_queue_trace(path, plan):
    """Per batch, as data_queue_op.cc records it: push, batch and pipeline times
    (ms), then the connector's depth; one batch more than the steps (prefetched)."""
    lines, clock_ms = [], 500000
    for s in plan + [{"step": len(plan) + 1, "empty": False}]:
        n, empty = s["step"], s["empty"]
        pipeline = EMPTY_WAIT_US // 1000 if empty else 1
        for kind, value in ((1, 1), (2, pipeline + 1), (0, pipeline)):
            lines.append("0 %d %d %d %d" % (kind, n, value, clock_ms))
        lines.append("1 %d %d %d %d" % (QUEUE_CAPACITY, n, 0 if empty else QUEUE_DEPTH, clock_ms))
        clock_ms += 2
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


def write_op_statistic(path, plan):
    counts, totals = {}, {}
    for s in plan:
        for name, _, _, dur in s["ops"]:
            kind = name.rsplit("-op", 1)[0]
            counts[kind] = counts.get(kind, 0) + 1
            totals[kind] = totals.get(kind, 0) + dur
    grand = sum(totals.values())
    with open(path, "w") as out:
        out.write("Model Name,OP Type,Core Type,Count,Total Time(us),Min Time(us),"
                  "Avg Time(us),Max Time(us),Ratio(%)\n")
        for kind in sorted(counts):
            avg = totals[kind] / counts[kind]
            out.write("resnet50,%s,AI_CORE,%d,%d,%.3f,%.3f,%.3f,%.3f\n" % (
                kind, counts[kind], totals[kind], avg, avg, avg, 100.0 * totals[kind] / grand))


def write_pipeline(path, plan):
    sizes = [0 if s["empty"] else QUEUE_DEPTH for s in plan]
    with open(path, "w") as out:
        out.write("op_id,op_type,num_workers,output_queue_size,output_queue_average_size,"
                  "output_queue_length,output_queue_usage_rate,sample_interval,parent_id,"
                  "children_id\n")
        out.write('0,DeviceQueue,1,"%s",%.3f,%d,%.3f,10,-1,[1]\n' % (
            str(sizes), sum(sizes) / len(sizes), QUEUE_CAPACITY,
            sum(sizes) / len(sizes) / QUEUE_CAPACITY))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--empty-from", type=int, default=None,
                        help="the data queue is empty from this step on")
    parser.add_argument("--rank-folders", action="store_true",
                        help="one subfolder per rank (rank_0/...) instead of one folder")
    args = parser.parse_args()
    for rank in range(args.ranks):
        folder = os.path.join(args.out, "rank_%d" % rank) if args.rank_folders else args.out
        os.makedirs(folder, exist_ok=True)
        plan = step_plan(rank, args.steps, args.empty_from)
        write_timeline(os.path.join(folder, "ascend_timeline_display_%d.json" % rank), rank, plan)
        write_step_trace(os.path.join(folder, "step_trace_raw_%d_detail_time.csv" % rank), plan)
        write_queue_trace(os.path.join(folder, "device_queue_profiling_%d.txt" % rank), plan)
        write_op_statistic(os.path.join(folder, "op_statistic_%d.csv" % rank), plan)
        write_pipeline(os.path.join(folder, "minddata_pipeline_raw_%d.csv" % rank), plan)


if __name__ == "__main__":
    main()
