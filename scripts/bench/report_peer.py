#!/usr/bin/python3
"""The peer of `parity report` in scripts/bench/report.sh: the same core
statistics computed the way Nsight Systems' `nsys stats` scripts and most
hand-written analyses do it, with SQL over the trace database and Python for
what SQLite lacks (percentiles). It computes per-op and per-kernel count,
total, mean, median and p95, kernel launch latency through the api_call
join, and each step's phase durations, and prints a one-line summary.

Usage: report_peer.py TRACE.db
"""
import sqlite3
import statistics
import sys


def summary(durations):
    durations.sort()
    n = len(durations)
    return (n, sum(durations), sum(durations) / n, statistics.median(durations),
            durations[min(n - 1, int(0.95 * (n - 1) + 0.5))])


def grouped(rows):
    groups = {}
    for name, dur in rows:
        groups.setdefault(name, []).append(dur)
    return {name: summary(durs) for name, durs in groups.items()}


def main():
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    ops = grouped(db.execute(
        "SELECT s.text, r.dur_ns FROM range r JOIN string s ON s.id = r.name_id WHERE r.category = 4"))
    kernels = grouped(db.execute(
        "SELECT s.text, g.dur_ns FROM gpu_activity g JOIN string s ON s.id = g.name_id WHERE g.kind = 1"))
    launches = grouped(db.execute(
        "SELECT s.text, g.start_ns - (a.start_ns + a.dur_ns) FROM gpu_activity g "
        "JOIN api_call a ON a.correlation_id = g.correlation_id "
        "JOIN string s ON s.id = g.name_id WHERE g.kind = 1"))
    phases = {}
    for step, name, dur in db.execute(
            # Steps by time: range has no index on id, so a parent_id join is quadratic.
            "SELECT st.step, s.text, p.dur_ns FROM range p JOIN step st ON p.track_id = st.track_id "
            "AND p.start_ns >= st.start_ns AND p.start_ns < st.end_ns "
            "JOIN string s ON s.id = p.name_id WHERE p.category = 2"):
        phases.setdefault(name, []).append(dur)
    phase_stats = {name: summary(durs) for name, durs in phases.items()}
    print(f"{len(ops)} ops, {len(kernels)} kernels ({len(launches)} with launches), "
          f"{len(phase_stats)} phases")


if __name__ == "__main__":
    main()
