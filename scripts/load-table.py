#!/usr/bin/env python3
"""load-table.py DIR: the table of scripts/load-table.sh from DIR/campaigns.tsv.

One row per (load, design): A/A campaigns called faster or slower (with a
95% Clopper-Pearson interval), A/A stops for "no change", the median rounds
of A/A, the +5% and +10% campaigns called slower, the median measured Δ of
each effect (what the delay really did to the primary metric's block
statistic), the median wall seconds and the load average range.
"""
import csv
import math
import statistics
import sys


def beta_ppf(p, a, b):
    """Quantile of Beta(a, b) by bisection on the regularised incomplete beta."""
    def cdf(x):
        # Continued fraction (Numerical Recipes betacf), enough for small n.
        if x <= 0:
            return 0.0
        if x >= 1:
            return 1.0
        lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
        front = math.exp(lbt)
        if x < (a + 1) / (a + b + 2):
            return front * cf(x, a, b) / a
        return 1 - front * cf(1 - x, b, a) / b

    def cf(x, a, b):
        tiny = 1e-300
        c, d = 1.0, 1 - (a + b) * x / (a + 1)
        d = 1 / (d if abs(d) > tiny else tiny)
        h = d
        for m in range(1, 300):
            m2 = 2 * m
            for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                        -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
                d = 1 + num * d
                d = 1 / (d if abs(d) > tiny else tiny)
                c = 1 + num / c
                c = c if abs(c) > tiny else tiny
                h *= d * c
        return h

    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def cp_interval(k, n):
    lo = 0.0 if k == 0 else beta_ppf(0.025, k, n - k + 1)
    hi = 1.0 if k == n else beta_ppf(0.975, k + 1, n - k)
    return lo, hi


def rate(k, n):
    if n == 0:
        return "–"
    lo, hi = cp_interval(k, n)
    return f"{k}/{n} ({100 * lo:.0f}–{100 * hi:.0f}%)"


def main():
    d = sys.argv[1]
    rows = list(csv.DictReader(open(f"{d}/campaigns.tsv"), delimiter="\t"))
    for line in open(f"{d}/header"):
        print(line.rstrip())
    loads = sorted({int(r["load"]) for r in rows})
    designs = ["fixed", "seq", "tuned"]
    print()
    print("| added load | design | A/A faster or slower | A/A no change | A/A median rounds "
          "| +5% slower | +10% slower | measured Δ at +5% / +10% | median wall s | load average |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for load in loads:
        for design in designs:
            cell = [r for r in rows if int(r["load"]) == load and r["design"] == design]
            if not cell:
                continue
            aa = [r for r in cell if r["effect"] == "aa"]
            called = sum(r["verdict"] in ("faster", "slower") for r in aa)
            nochange = sum(r["verdict"] in ("no change", "bounded") for r in aa)
            rounds = statistics.median(int(r["rounds"]) for r in aa) if aa else float("nan")
            det, deltas = {}, {}
            for e in ("5", "10"):
                c = [r for r in cell if r["effect"] == e]
                det[e] = rate(sum(r["verdict"] == "slower" for r in c), len(c))
                ds = [float(r["delta"]) for r in c if r["delta"] not in ("nan", "")]
                deltas[e] = f"{100 * statistics.median(ds):+.1f}%" if ds else "–"
            wall = statistics.median(float(r["wall_s"]) for r in cell)
            la = [float(r["loadavg"]) for r in cell]
            per_core = "none" if load == 0 else f"--load {load}"
            print(f"| {per_core} | {design} | {rate(called, len(aa))} | {nochange}/{len(aa)} | {rounds:.0f} "
                  f"| {det['5']} | {det['10']} | {deltas['5']} / {deltas['10']} | {wall:.1f} "
                  f"| {min(la):.1f}–{max(la):.1f} |")


if __name__ == "__main__":
    main()
