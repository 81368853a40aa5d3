#!/usr/bin/python3
"""The accuracy part of scripts/bench/thor.sh: reads OUT/{sgd,thor}_lr*.log
and prints, as Markdown, each run's test top-1 after every quarter pass, and
for each target the fewest steps any run of each optimizer needed, with THOR's
ratio to SGD's."""
import pathlib
import re
import sys

STEPS_PER_QUARTER = 117
TARGETS = (88.0, 89.0, 90.0, 91.0, 92.0)


def curve(path):
    return [float(m.group(1)) for m in re.finditer(r"eval top-1: ([0-9.]+)%", path.read_text())]


def main():
    out = pathlib.Path(sys.argv[1])
    runs = {p.stem: curve(p) for p in sorted(out.glob("*_lr*.log"))}
    width = max(len(c) for c in runs.values())
    print("| run | " + " | ".join("%.2f" % ((q + 1) / 4) for q in range(width)) + " |")
    print("|---|" + "---|" * width)
    for name, points in runs.items():
        print("| %s | %s |" % (name, " | ".join("%.2f" % p for p in points)))
    print()
    print("| target top-1 | SGD: passes (run) | THOR: passes (run) | THOR / SGD |")
    print("|---|---|---|---|")
    for target in TARGETS:
        best = {}
        for optimizer in ("sgd", "thor"):
            reached = [(next(q for q, p in enumerate(c) if p >= target) + 1, name)
                       for name, c in runs.items() if name.startswith(optimizer) and max(c, default=0) >= target]
            best[optimizer] = min(reached) if reached else None
        cells = ["%.2f (%s)" % (b[0] / 4, b[1]) if b else "not reached" for b in (best["sgd"], best["thor"])]
        ratio = "%.2fx" % (best["thor"][0] / best["sgd"][0]) if best["sgd"] and best["thor"] else "-"
        print("| %.1f%% | %s | %s | %s |" % (target, cells[0], cells[1], ratio))


if __name__ == "__main__":
    main()
