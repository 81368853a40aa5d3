#!/usr/bin/python3
"""The timing part of scripts/bench/thor.sh: reads the traces OUT/sgd<r>.db
and OUT/thor<r>.db and prints, as Markdown, the median step of each (step 0
and THOR's refresh steps left out of the median), THOR's refresh steps, and
its ranges' milliseconds per step."""
import sqlite3
import statistics
import sys

FREQUENCY = 78
RANGES = ("thor_collect", "thor_factors", "thor_inverse", "thor_allreduce", "thor_precondition")


def steps(db):
    rows = db.execute("SELECT step, (end_ns - start_ns) / 1e6 FROM step ORDER BY step").fetchall()
    return {step: ms for step, ms in rows}


def range_ms(db, name, refresh):
    """Milliseconds of the ranges named `name` in the refresh steps, or in the others, per step."""
    rows = db.execute(
        "SELECT s.step, SUM(r.dur_ns) / 1e6 FROM range r JOIN string n ON n.id = r.name_id "
        "JOIN step s ON r.start_ns >= s.start_ns AND r.start_ns < s.end_ns "
        "WHERE n.text = ? GROUP BY s.step", (name,)).fetchall()
    chosen = [ms for step, ms in rows if (step % FREQUENCY == 0) == refresh]
    total_steps = len([s for s in range(157) if (s % FREQUENCY == 0) == refresh])
    return sum(chosen) / total_steps


def main():
    out, rounds = sys.argv[1], int(sys.argv[2])
    plain, refresh = {"sgd": [], "thor": []}, []
    parts = {(name, r): [] for name in RANGES for r in (True, False)}
    for r in range(rounds):
        for name in ("sgd", "thor"):
            db = sqlite3.connect("%s/%s%d.db" % (out, name, r))
            times = steps(db)
            plain[name] += [ms for s, ms in times.items() if s > 0 and s % FREQUENCY != 0]
            if name == "thor":
                refresh += [ms for s, ms in times.items() if s > 0 and s % FREQUENCY == 0]
                for key in parts:
                    parts[key].append(range_ms(db, key[0], key[1]))
    sgd = statistics.median(plain["sgd"])
    thor = statistics.median(plain["thor"])
    inversion = statistics.median(refresh)
    amortised = (thor * (FREQUENCY - 1) + inversion) / FREQUENCY
    print("| step | median ms | ratio to SGD |")
    print("|---|---|---|")
    print("| SGD with momentum | %.1f | 1.00x |" % sgd)
    print("| THOR, reusing the inverses | %.1f | %.2fx |" % (thor, thor / sgd))
    print("| THOR, refreshing them (steps 78, 156) | %.1f | %.2fx |" % (inversion, inversion / sgd))
    print("| THOR, amortised over %d steps | %.1f | %.2fx |" % (FREQUENCY, amortised, amortised / sgd))
    print()
    print("| THOR range | ms a refresh step | ms another step |")
    print("|---|---|---|")
    for name in RANGES:
        print("| %s | %.1f | %.1f |" % (name, statistics.median(parts[(name, True)]),
                                      statistics.median(parts[(name, False)])))


if __name__ == "__main__":
    main()
