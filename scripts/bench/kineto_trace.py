"""Writes a large Kineto-layout PyTorch profiler trace for the import
benchmark: STEPS training steps of a model of LAYERS linear layers, each step
a ProfilerStep#N holding, per layer, aten::linear > aten::t + aten::addmm on
the CPU, the cudaLaunchKernel of each addmm with its flow arrows, and the
kernel on stream 7; plus the backward's autograd nodes and an optimizer step.
The layout follows real Kineto traces (HTA's test traces among them): an
object with schemaVersion, distributedInfo and traceEvents, times in
microseconds with three decimals on the Unix epoch, and each event with the
arguments PyTorch 2.x writes under record_shapes=True: CPU ops with
"External id", "Record function id", "Ev Idx", "Input Dims", "Input type",
"Input Strides" and "Concrete Inputs" (autograd nodes with "Sequence number"
and "Fwd thread id"), kernels with Kineto's thirteen launch arguments and
cuBLAS's long kernel names. That is about 330 bytes an event, as in real
traces; the events per second the benchmark prints do not depend on it.

  kineto_trace.py OUT.json --megabytes 1000   (or --steps N)
"""
import argparse
import json

BASE_US = 1_712_195_495_000_000


def step_events(step, layers, pid, at):
    """The events of one step starting at `at` (us); returns (text, end)."""
    out = []
    start = at
    corr = step * layers * 2

    def x(cat, name, ts, dur, tid, args):
        out.append('{"ph": "X", "cat": "%s", "name": %s, "pid": %d, "tid": %d, "ts": %.3f, '
                   '"dur": %.3f, "args": %s}' % (cat, json.dumps(name), pid, tid,
                                                 BASE_US + ts, dur, args))

    index = [step * layers * 8]

    def op_args(corr, dims, types, strides, concrete):
        index[0] += 1
        return ('{"External id": %d, "Record function id": 0, "Ev Idx": %d, "Input Dims": %s, '
                '"Input type": %s, "Input Strides": %s, "Concrete Inputs": %s}'
                % (corr, index[0], dims, types, strides, concrete))

    def backward_args(corr):
        index[0] += 1
        return ('{"External id": %d, "Record function id": 0, "Ev Idx": %d, '
                '"Sequence number": %d, "Fwd thread id": 1}' % (corr, index[0], corr))

    t = at + 2.0
    for phase in ("forward", "backward"):
        for layer in range(layers):
            corr += 1
            if phase == "forward":
                x("cpu_op", "aten::linear", t, 40.0, pid,
                  op_args(corr, "[[64, 512], [512, 512], [512]]", '["float", "float", "float"]',
                          "[[512, 1], [512, 1], [1]]", '["", "", ""]'))
                x("cpu_op", "aten::t", t + 1.0, 4.0, pid,
                  op_args(corr, "[[512, 512]]", '["float"]', "[[512, 1]]", '[""]'))
                x("cpu_op", "aten::addmm", t + 6.0, 30.0, pid,
                  op_args(corr, "[[512], [64, 512], [512, 512], [], []]",
                          '["float", "float", "float", "Scalar", "Scalar"]',
                          "[[1], [512, 1], [1, 512], [], []]", '["", "", "", "1", "1"]'))
                launch = t + 10.0
            else:
                x("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", t, 40.0, pid,
                  backward_args(corr))
                x("cpu_op", "AddmmBackward0", t + 1.0, 36.0, pid, backward_args(corr))
                x("cpu_op", "aten::mm", t + 3.0, 30.0, pid,
                  op_args(corr, "[[64, 512], [512, 512]]", '["float", "float"]',
                          "[[512, 1], [512, 1]]", '["", ""]'))
                launch = t + 6.0
            x("cuda_runtime", "cudaLaunchKernel", launch, 8.0, pid,
              '{"External id": %d, "cbid": 211, "correlation": %d}' % (corr, corr))
            out.append('{"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %.3f, "cat": "ac2g", '
                       '"name": "ac2g"}' % (corr, pid, pid, BASE_US + launch))
            kernel = launch + 12.0
            x("kernel", "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1"
              "_execute_segment_k_off_kernel__5x_cublas", kernel, 25.0, 7,
              '{"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, '
              '"correlation": %d, "registers per thread": 126, "shared memory": 16384, '
              '"blocks per SM": 0.24242425, "warps per SM": 1.939394, "grid": [8, 4, 1], '
              '"block": [256, 1, 1], "est. achieved occupancy %%": 3}' % (corr, corr))
            out.append('{"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %.3f, "cat": "ac2g", '
                       '"name": "ac2g", "bp": "e"}' % (corr, BASE_US + kernel))
            t += 45.0
    x("user_annotation", "Optimizer.step#SGD.step", t, 20.0, pid, '{"External id": 0}')
    t += 22.0
    out.insert(0, '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d, '
                  '"tid": %d, "ts": %.3f, "dur": %.3f, "args": {"External id": 0}}'
               % (step, pid, pid, BASE_US + start, t - start))
    return ",\n".join(out), t + 5.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--megabytes", type=float, default=100)
    parser.add_argument("--layers", type=int, default=50)
    args = parser.parse_args()
    pid = 4242
    with open(args.out, "w") as out:
        out.write('{"schemaVersion": 1, "deviceProperties": [], '
                  '"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n'
                  '"traceEvents": [\n')
        at, step, written = 0.0, 0, 0
        limit = args.megabytes * 1e6
        while written < limit:
            text, at = step_events(step, args.layers, pid, at)
            if step:
                out.write(",\n")
            out.write(text)
            written += len(text) + 2
            step += 1
        out.write('\n], "traceName": "kineto_trace.py"}\n')


if __name__ == "__main__":
    main()
