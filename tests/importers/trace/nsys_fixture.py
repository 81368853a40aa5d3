#!/usr/bin/env python3
"""Writes a small Nsight Systems SQLite export, and beside it what an importer
must find in it (OUT.expected.json).

No nsys runs here (there is no GPU), so the export is built FROM THE DOCUMENTED
SCHEMA (docs/formats/nsight-systems-sqlite.md: NVIDIA's SQLite Schema
Reference, schema 3.28.1, and its notes on older releases), not captured:

  --variant modern  the 2025-2026 layout: eventClass on CUPTI_ACTIVITY_KIND_RUNTIME
                    (with a backtrace row, class 67), mangledName, greenContextId,
                    NVTX textId, TARGET_INFO_GPU, PROCESSES, META_DATA_EXPORT,
                    SYNCHRONIZATION and OSRT_API rows, an extra table no reader knows
  --variant old     the 2020-2021 layout: every column NOT NULL, no eventClass
                    (runtime vs driver from the names), no mangledName, NVTX text
                    only, TARGET_INFO_CUDA_GPU keyed by deviceId, the session start
                    with three columns, no PROCESSES

Both hold two processes (PIDs 1000 and 2000, the ranks 0 and 1), two steps
each marked by NVTX ranges ("ProfilerStep#N" and "step N"), kernels joined
to their cudaLaunchKernel calls by correlation id, a memcpy, a memset, an
NCCL AllReduce kernel per step (ncclDevKernel_ naming in modern, ncclKernel_
in old) and an NVTX range that starts before the capture (negative time).

For the importer's error tests, --drop-table, --drop-column TABLE.COLUMN and
--corrupt-table (its first page overwritten) damage the export on purpose.
"""
import argparse
import json
import sqlite3

MODERN_SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER,
  memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT,
  luid INTEGER, chipName TEXT, cuDevice INTEGER, computeMajor INTEGER, computeMinor INTEGER,
  smMajor INTEGER, smMinor INTEGER);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT,
  systemClockNs INTEGER, sessionStartCntVctNs INTEGER);
CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL,
  name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
  gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
  sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER, copyCount INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,
  bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL,
  eventId INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT,
  eventId INTEGER NOT NULL PRIMARY KEY);
CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  nestingLevel INTEGER, callchainId INTEGER, argumentsId INTEGER);
CREATE TABLE SCHED_EVENTS (start INTEGER NOT NULL, cpu INTEGER NOT NULL,
  isSchedIn INTEGER NOT NULL, globalTid INTEGER);
"""

OLD_SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER NOT NULL,
  globalTid INTEGER NOT NULL);
CREATE TABLE TARGET_INFO_CUDA_GPU (deviceId INTEGER NOT NULL, name TEXT NOT NULL,
  numMultiprocessors INTEGER NOT NULL, computeCapabilityMajor INTEGER NOT NULL,
  computeCapabilityMinor INTEGER NOT NULL, totalGlobalMem INTEGER NOT NULL);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER NOT NULL,
  utcTime TEXT NOT NULL, localTime TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER NOT NULL, globalPid INTEGER NOT NULL,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
  localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER NOT NULL, globalPid INTEGER NOT NULL, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, srcKind INTEGER NOT NULL, dstKind INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER NOT NULL, globalPid INTEGER NOT NULL, value INTEGER NOT NULL,
  bytes INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  globalTid INTEGER NOT NULL, correlationId INTEGER NOT NULL, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventType INTEGER NOT NULL, rangeId INTEGER NOT NULL, category INTEGER NOT NULL,
  color INTEGER NOT NULL, text TEXT NOT NULL, globalTid INTEGER NOT NULL);
"""

PIDS = [1000, 2000]
SESSION_START_UNIX_NS = 1_700_000_000_000_000_000
STEP_NS = 1_000_000
# (name, short name, duration ns, stream); the NCCL kernel's names by variant.
KERNELS = [("void gemm_kernel<float>(float*, float const*)", "gemm_kernel", 100_000, 7),
           ("relu_kernel(float*)", "relu_kernel", 20_000, 7)]
NCCL = {"modern": ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                   "ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
        "old": ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
                "ncclKernel_AllReduce_RING_LL_Sum_float")}
NCCL_NS, NCCL_STREAM = 50_000, 13


def global_tid(pid, tid):
    return (pid << 24) | tid


class Export:
    def __init__(self, db, variant):
        self.db, self.variant, self.modern = db, variant, variant == "modern"
        self.strings = {}
        self.expected = {"kernels": {}, "steps": [], "launches": 0, "memcpy": [], "memset": [],
                         "collectives": [], "nvtx_ranges": 0, "earliest": None}

    def string(self, text):
        if text not in self.strings:
            self.strings[text] = len(self.strings) + 1
            self.db.execute("INSERT INTO StringIds VALUES (?, ?)", (self.strings[text], text))
        return self.strings[text]

    def saw(self, t):
        e = self.expected["earliest"]
        self.expected["earliest"] = t if e is None else min(e, t)

    def insert(self, table, **values):
        names = ", ".join(f'"{k}"' for k in values)
        marks = ", ".join("?" for _ in values)
        self.db.execute(f'INSERT INTO {table} ({names}) VALUES ({marks})', tuple(values.values()))

    def nvtx(self, start, end, event_type, text, tid, **more):
        self.saw(start)
        row = dict(start=start, end=end, eventType=event_type, globalTid=tid)
        if self.modern:
            row.update(textId=self.string(text), **more)
        else:
            row.update(end=end if end is not None else 0, text=text, rangeId=0, category=0,
                       color=0)
        self.insert("NVTX_EVENTS", **row)

    def runtime(self, start, dur, name, tid, correlation, event_class):
        self.saw(start)
        row = dict(start=start, end=start + dur, globalTid=tid, correlationId=correlation,
                   nameId=self.string(name), returnValue=0)
        if self.modern:
            row["eventClass"] = event_class
        self.insert("CUPTI_ACTIVITY_KIND_RUNTIME", **row)

    def kernel(self, start, dur, names, stream, pid, correlation):
        row = dict(start=start, end=start + dur, deviceId=0, contextId=1, streamId=stream,
                   correlationId=correlation, globalPid=pid << 24,
                   demangledName=self.string(names[0]), shortName=self.string(names[1]),
                   registersPerThread=32, gridX=64, gridY=2, gridZ=1, blockX=256, blockY=1,
                   blockZ=1, staticSharedMemory=1024, dynamicSharedMemory=2048,
                   localMemoryPerThread=0, localMemoryTotal=0, gridId=correlation)
        self.insert("CUPTI_ACTIVITY_KIND_KERNEL", **row)
        key = f"{pid} {stream}"
        count, total = self.expected["kernels"].get(key, (0, 0))
        self.expected["kernels"][key] = (count + 1, total + dur)
        totals = self.expected.setdefault("kernel_totals", {})
        totals[names[0]] = totals.get(names[0], 0) + dur

    def process(self, rank, pid):
        main = global_tid(pid, pid)
        self.insert("ThreadNames", nameId=self.string("python3"), priority=0, globalTid=main)
        loader = global_tid(pid, pid + 7)
        self.insert("ThreadNames", nameId=self.string("pt_data_worker"), priority=0,
                    globalTid=loader)
        if self.modern:
            self.insert("PROCESSES", globalPid=pid << 24, pid=pid, name="python3")
        # NCCL's initialisation, begun before the capture: negative session time.
        self.nvtx(-500_000 - rank, -100_000, 59, "ncclCommInitRank", main)
        correlation = 1
        for step in (1, 2):
            t0 = step * STEP_NS + rank * 10_000
            name = f"ProfilerStep#{step}" if rank == 0 else f"step {step}"
            self.nvtx(t0, t0 + STEP_NS, 59, name, main)
            self.expected["steps"].append([rank, step, t0, t0 + STEP_NS])
            self.nvtx(t0 + 10_000, t0 + 400_000, 59, "forward", main)
            self.expected["nvtx_ranges"] += 1
            t = t0 + 20_000
            for names, dur, stream in [(k[:2], k[2] + rank * 10_000, k[3]) for k in KERNELS]:
                self.runtime(t, 5_000, "cudaLaunchKernel_v7000", main, correlation, 0)
                self.kernel(t + 50_000, dur, names, stream, pid, correlation)
                self.expected["launches"] += 1
                correlation += 1
                t += 200_000
            self.runtime(t, 5_000, "cudaLaunchKernel_v7000", main, correlation, 0)
            self.kernel(t + 50_000, NCCL_NS, NCCL[self.variant], NCCL_STREAM, pid, correlation)
            self.expected["collectives"].append([rank, t + 50_000, NCCL_NS])
            self.expected["launches"] += 1
            correlation += 1
            t += 100_000
            self.runtime(t, 8_000, "cudaMemcpyAsync_v3020", main, correlation, 0)
            self.insert("CUPTI_ACTIVITY_KIND_MEMCPY", start=t + 9_000, end=t + 13_000, deviceId=0,
                        contextId=1, streamId=7, correlationId=correlation, globalPid=pid << 24,
                        bytes=4096 * step, copyKind=1, srcKind=0, dstKind=2)
            self.expected["memcpy"].append([rank, 4096 * step, 4_000])
            correlation += 1
            self.runtime(t + 20_000, 3_000, "cuMemsetD8Async", main, correlation, 1)
            self.insert("CUPTI_ACTIVITY_KIND_MEMSET", start=t + 24_000, end=t + 25_000,
                        deviceId=0, contextId=1, streamId=7, correlationId=correlation,
                        globalPid=pid << 24, value=0, bytes=1024)
            self.expected["memset"].append([rank, 1024, 1_000])
            correlation += 1
            if self.modern:
                self.insert("CUPTI_ACTIVITY_KIND_RUNTIME", start=t + 20_000, end=t + 20_000,
                            eventClass=67, globalTid=main, correlationId=0,
                            nameId=self.string("backtrace"), returnValue=0)
                self.insert("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", start=t + 30_000,
                            end=t + 40_000, deviceId=0, contextId=1, streamId=7,
                            correlationId=correlation, globalPid=pid << 24, syncType=3,
                            eventId=0)
                self.insert("OSRT_API", start=t0, end=t0 + 300_000, eventClass=27,
                            globalTid=loader, nameId=self.string("pthread_cond_wait"),
                            returnValue=0, nestingLevel=0)
        self.expected["correlations"] = correlation
        # A start/end range over both steps, and a mark.
        self.nvtx(STEP_NS, 3 * STEP_NS, 60, f"epoch 0 rank {rank}", main, endGlobalTid=main)
        self.nvtx(STEP_NS + 5, None, 34, "checkpoint", main)

    def meta(self):
        if self.modern:
            self.insert("TARGET_INFO_GPU", vmId=0, id=0, name="NVIDIA H200", smCount=132,
                        totalMemory=150_000_000_000, computeMajor=9, computeMinor=0)
            self.insert("TARGET_INFO_SESSION_START_TIME", utcEpochNs=SESSION_START_UNIX_NS,
                        utcTime="2023-11-14T22:13:20Z", localTime="2023-11-14T23:13:20+01:00")
            self.insert("TARGET_INFO_SYSTEM_ENV", globalVid=0, devStateName="", name="Hostname",
                        nameEnum=1, value="gpu-node-7")
            self.insert("META_DATA_EXPORT", name="EXPORT_SCHEMA_VERSION", value="3.28.1")
            for i, label in [(0, "CUDA runtime"), (1, "CUDA driver"), (67, "CUDA backtrace")]:
                self.insert("ENUM_NSYS_EVENT_CLASS", id=i, name=label, label=label)
            self.insert("ENUM_CUPTI_SYNC_TYPE", id=3, name="STREAM_SYNCHRONIZE",
                        label="Stream synchronize")
            for i in range(3):
                self.insert("SCHED_EVENTS", start=i, cpu=0, isSchedIn=1, globalTid=0)
        else:
            self.insert("TARGET_INFO_CUDA_GPU", deviceId=0, name="Tesla V100-SXM2-16GB",
                        numMultiprocessors=80, computeCapabilityMajor=7,
                        computeCapabilityMinor=0, totalGlobalMem=16_000_000_000)
            self.insert("TARGET_INFO_SESSION_START_TIME", utcEpochNs=SESSION_START_UNIX_NS,
                        utcTime="2023-11-14T22:13:20Z", localTime="2023-11-14T23:13:20+01:00")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--variant", choices=["modern", "old"], default="modern")
    parser.add_argument("--processes", type=int, choices=[1, 2], default=2)
    parser.add_argument("--drop-table")
    parser.add_argument("--drop-column", help="TABLE.COLUMN")
    parser.add_argument("--corrupt-table")
    args = parser.parse_args()
    db = sqlite3.connect(args.out)
    db.executescript(MODERN_SCHEMA if args.variant == "modern" else OLD_SCHEMA)
    export = Export(db, args.variant)
    for rank, pid in enumerate(PIDS[:args.processes]):
        export.process(rank, pid)
    export.meta()
    if args.drop_table:
        db.execute(f"DROP TABLE {args.drop_table}")
    if args.drop_column:
        table, column = args.drop_column.split(".")
        db.execute(f'ALTER TABLE {table} DROP COLUMN "{column}"')
    db.commit()
    if args.corrupt_table:
        page = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                          (args.corrupt_table,)).fetchone()[0]
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    if args.corrupt_table:
        with open(args.out, "r+b") as f:
            f.seek((page - 1) * page_size)
            f.write(b"\xff" * page_size)
    export.expected["session_start_unix_ns"] = SESSION_START_UNIX_NS
    with open(args.out + ".expected.json", "w") as f:
        json.dump(export.expected, f, indent=1)


if __name__ == "__main__":
    main()
