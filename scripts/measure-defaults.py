#!/usr/bin/env python3
"""measure-defaults.py OUT [HBGBENCH]: analyse the journals of
scripts/measure-defaults.sh in OUT, and print the table of
docs/ab-measurements.md "How the defaults were chosen" (markdown).

Every journal is analysed with each block statistic (median, min) and at
two lengths: all its rounds, and the rounds that fit in the wall time of
today's default campaign (10 rounds of 5-pass blocks and a warm-up, as
measured here). Verdicts come from `hbgbench report --format json` on a
copy of the journal whose header names the statistic and the rounds (so
they are exactly hbgbench's); the spreads are computed here from the
passes: σ_d the SD of the per-round log-ratios, σ_t = s_w/0.6 the spread
the trimmed-t interval uses (s_w the 20%-winsorized SD). q25 (the block's
lower quartile) is a third statistic, spreads only.
"""
import json, math, os, statistics, subprocess, sys, tempfile, collections

out = sys.argv[1]
hbg = sys.argv[2] if len(sys.argv) > 2 else os.path.join(out, "hbgbench")
COLD = 2


def read(path):
    lines = [json.loads(l) for l in open(path) if l.strip()]
    return lines


def block_stat(v, kind):
    s = sorted(v)
    n = len(s)
    if kind == "min":
        return s[0]
    if kind == "q25":
        k = (n - 1) * 0.25
        lo = math.floor(k)
        return s[lo] + (s[min(lo + 1, n - 1)] - s[lo]) * (k - lo)
    return (s[(n - 1) // 2] + s[n // 2]) / 2


def rounds_of(lines, rounds):
    ok = {l["round"] for l in lines if l["type"] == "round" and l["status"] == "ok"}
    blocks = {}
    for l in lines:
        if l["type"] == "block" and l.get("round", 0) in ok and l.get("exit", 1) == 0 and not l.get("warmup"):
            blocks[(l["round"], l["arm"])] = l
    res = []
    for r in sorted(ok):
        if r > rounds or (r, "base") not in blocks or (r, "head") not in blocks:
            continue
        v = []
        for arm in ("base", "head"):
            v.append([p["ns"]["ControlPlane"] for p in blocks[(r, arm)]["passes"] if p["index"] >= COLD and "ControlPlane" in p["ns"]])
        res.append(v)
    return res


def winsorized_sd(d):
    s = sorted(d)
    n = len(s)
    g = int(n * 0.2)
    w = [min(max(x, s[g]), s[n - 1 - g]) for x in s]
    return statistics.stdev(w)


def spreads(rs, kind):
    d = [math.log(block_stat(h, kind)) - math.log(block_stat(b, kind)) for b, h in rs]
    return statistics.stdev(d), winsorized_sd(d) / 0.6


def report(path, lines, kind, rounds):
    hdr = dict(lines[0])
    hdr["config"] = dict(hdr["config"], block_stat=kind, rounds=rounds)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.write(json.dumps(hdr) + "\n")
        for l in lines[1:]:
            if l.get("round", 0) <= rounds:
                f.write(json.dumps(l) + "\n")
    try:
        a = json.loads(subprocess.run([hbg, "report", f.name, "--format", "json"], capture_output=True, text=True, check=True).stdout)
    finally:
        os.unlink(f.name)
    p = [m for m in a["metrics"] if m["primary"]][0]
    return p["verdict"], p["delta"]


camp = {}
for row in open(os.path.join(out, "campaigns.tsv")).read().splitlines()[1:]:
    it, b, d, rep, seed, s, e, load, rc = row.split("\t")
    if rc == "0":
        camp[f"b{b}-d{d}-r{rep}-i{it}.jsonl"] = (int(b), int(d), float(e) - float(s), float(load))

# seconds per round (a warm-up counts as one) per block size
spr = collections.defaultdict(list)
meta = {}
for name, (b, d, wall, load) in camp.items():
    lines = read(os.path.join(out, name))
    R = lines[0]["config"]["rounds"]
    spr[b].append(wall / (R + 1))
    meta[name] = (b, d, R, lines)
sec = {b: statistics.median(v) for b, v in spr.items()}
budget = 11 * sec[5]  # today's default: 10 rounds + a warm-up of 5-pass blocks
fit = {b: min(max(int(budget / sec[b]) - 1, 0), min(m[2] for m in meta.values())) for b in sec}

cells = collections.defaultdict(list)
for name, (b, d, R, lines) in sorted(meta.items()):
    rs = rounds_of(lines, R)
    for kind in ("median", "min", "q25"):
        sd, st = spreads(rs, kind)
        rec = {"sd": sd, "st": st}
        if kind != "q25":
            rec["v"], rec["delta"] = report(os.path.join(out, name), lines, kind, R)
            if fit[b] >= 3:
                rec["vfit"], _ = report(os.path.join(out, name), lines, kind, fit[b])
            if R > 10:
                rec["v10"], _ = report(os.path.join(out, name), lines, kind, 10)
        cells[(b, kind, d)].append(rec)

loads = [float(l.split()[1]) for l in open(os.path.join(out, "load.log")) if l.strip()]
print(open(os.path.join(out, "machine.txt")).read().strip().replace("\n", "; "))
print(f"load average (1 min, every 10 s): median {statistics.median(loads):.1f}, range {min(loads):.1f}-{max(loads):.1f}")
print(f"rounds per campaign: {min(m[2] for m in meta.values())}; budget of today's default (10 rounds of 5 + warm-up): {budget:.1f} s\n")

Z = 1.959964 + 0.841621


def need(st, eff):
    if not (eff > 0):
        return float("nan")
    return (Z * st / math.log1p(eff)) ** 2


def rate(xs, key, words):
    xs = [x for x in xs if key in x]
    if not xs:
        return "-"
    return f"{sum(x[key] in words for x in xs)}/{len(xs)}"


R = min(m[2] for m in meta.values())
print(f"| block | stat | s/round | σ_d A/A | σ_t A/A | Δ of +400 µs | Δ of +800 µs | SLOWER at +400 µs, {R} rounds | at +800 µs, {R} rounds | A/A faster or slower, {R} rounds | +400 µs, 10 rounds | +800 µs, 10 rounds | A/A, 10 rounds | rounds in the old default's time | +400 µs in that time | +800 µs in that time | A/A in that time | minutes to 80% power at Δ = +10% |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for b in sorted(sec):
    for kind in ("median", "min", "q25"):
        aa, d4, d8 = cells[(b, kind, 0)], cells[(b, kind, 400)], cells[(b, kind, 800)]
        sd = statistics.median(x["sd"] for x in aa)
        st = statistics.median(x["st"] for x in aa)
        if kind == "q25":
            print(f"| {b} | {kind} | {sec[b]:.2f} | {100*sd:.1f}% | {100*st:.1f}% |" + " - |" * 13)
            continue
        # the Δ the injected delays gave, median over campaigns, as the
        # statistic sees them
        e4 = statistics.median(x["delta"] for x in d4)
        e8 = statistics.median(x["delta"] for x in d8)
        mins = (need(st, 0.10) + 1) * sec[b] / 60  # rounds and a warm-up
        print(f"| {b} | {kind} | {sec[b]:.2f} | {100*sd:.1f}% | {100*st:.1f}% | {100*e4:+.1f}% | {100*e8:+.1f}% | "
              f"{rate(d4, 'v', ('slower',))} | {rate(d8, 'v', ('slower',))} | {rate(aa, 'v', ('slower', 'faster'))} | "
              f"{rate(d4, 'v10', ('slower',))} | {rate(d8, 'v10', ('slower',))} | {rate(aa, 'v10', ('slower', 'faster'))} | {fit[b]} | "
              f"{rate(d4, 'vfit', ('slower',))} | {rate(d8, 'vfit', ('slower',))} | {rate(aa, 'vfit', ('slower', 'faster'))} | {mins:.1f} |")
