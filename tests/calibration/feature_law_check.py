#!/usr/bin/env python3
"""Does a feature-based interference law that fits Gavel's 20 pairs generalise?

Issue 18's yardstick is the 20 directed V100 pairs of the five bundled profiles
that Gavel measured (gavel_pairs.cc). A law with three global parameters,

    kept(victim v, aggressor a) = 1 / (1 + beta * (T_v / T_ref)^delta * (odds_a / 9)^alpha)

(T: the job's solo iteration; odds = d / (1 - d) of its GPU duty d, 9 being
ResNet-50's), fits them well. This script fits it on those 20 values (and
leave-one-model-out), then asks it to predict what Gavel measured for the same
five families at their *other* batch sizes, which the fit never saw, beside a
constant and beside a free victim/aggressor weight per family fitted on the
same 20 values. Standard library only:

    python3 tests/calibration/feature_law_check.py

Features come from the bundled files only: T from Gavel's solo throughput; d
from the profile (bench/data/models): its kernels' first-order cost at one
efficiency, the highest of the five (the factor its `Durations` line
states), over its solo iteration. At another batch size b (profile batch b0)
the GPU work is taken to scale with the batch: d_b = d_b0 * (b / b0) * (T_b0
/ T_b), capped at 0.97 ("per job" below); "per family" keeps the profile's
value for every batch size.
"""
import itertools
import json
import os
import re
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "bench", "data", "models")
GAVEL = os.path.join(ROOT, "bench", "data", "gavel", "simulation_throughputs.json")
KEY = re.compile(r"\('(.+) \(batch size (\d+)\)', (\d+)\)")


def gavel_profiles():
    """profile name -> (Gavel family, batch size) for the mapped profiles."""
    out = {}
    for line in open(os.path.join(MODELS, "gavel_map.txt")):
        m = re.match(r"(\w+) \('(.+) \(batch size (\d+)\)', 1\)", line.strip())
        if m:
            out[m.group(1)] = (m.group(2), int(m.group(3)))
    return out


def profile_gpu_ms(name):
    """(kernel time per iteration in ms, the Durations factor) of a profile."""
    stack, factor = [[1, 0.0]], None
    for raw in open(os.path.join(MODELS, name + ".model")):
        m = re.search(r"first-order cost .* x ([0-9]+\.[0-9]+)", raw)
        if m:
            factor = float(m.group(1))
        words = raw.split("#")[0].split()
        if not words:
            continue
        if words[0] == "repeat":
            stack.append([int(words[1]), 0.0])
        elif words[0] == "end":
            count, total = stack.pop()
            stack[-1][1] += count * total
        elif len(words) >= 5 and re.fullmatch(r"\d+", words[1]):
            stack[-1][1] += int(words[1]) * float(words[2])
    return stack[0][1] / 1000.0, factor


def jobs_and_pairs():
    table = json.load(open(GAVEL))["v100"]
    profiles = gavel_profiles()
    efficiency = min(profile_gpu_ms(p)[1] for p in profiles)
    family_of = {fam: p for p, (fam, _) in profiles.items()}
    base = {}
    for p, (fam, batch) in profiles.items():
        gpu_ms, factor = profile_gpu_ms(p)
        t = 1000.0 / table["('%s (batch size %d)', 1)" % (fam, batch)]["null"]
        base[p] = dict(batch=batch, t=t, duty=gpu_ms * efficiency / factor / t)
    jobs = {}
    for key, row in table.items():
        m = KEY.fullmatch(key)
        if not m or m.group(3) != "1" or m.group(1) not in family_of:
            continue
        p, batch = family_of[m.group(1)], int(m.group(2))
        t = 1000.0 / row["null"]
        duty = min(0.97, base[p]["duty"] * batch / base[p]["batch"] * base[p]["t"] / t)
        jobs[key] = dict(profile=p, batch=batch, t=t, duty=duty, solo=row["null"],
                         bundled=batch == base[p]["batch"])
    pairs = []  # (victim key, aggressor key, kept fraction), pairs that fit
    for v in jobs:
        for a, both in table[v].items():
            if a in jobs and a != v and both[0] > 0 and both[1] > 0:
                pairs.append((v, a, min(1.0, both[0] / jobs[v]["solo"])))
    return jobs, base, pairs


def law(jobs, base, q, per_job):
    beta, delta, alpha = q
    t_ref = statistics.mean(b["t"] for b in base.values())

    def kept(v, a):
        jv, ja = jobs[v], jobs[a]
        t = jv["t"] if per_job else base[jv["profile"]]["t"]
        d = ja["duty"] if per_job else base[ja["profile"]]["duty"]
        return 1.0 / (1.0 + beta * (t / t_ref) ** delta * (d / (1 - d) / 9) ** alpha)
    return kept


def mae(kept, pairs):
    return statistics.mean(abs(kept(v, a) - y) for v, a, y in pairs)


def free_weights(jobs, pairs):
    """kept = 1 / (1 + s_victim * p_aggressor), one s and p per family, L1 fit."""
    fams = sorted({j["profile"] for j in jobs.values()})
    s, p = {f: 1.0 for f in fams}, {f: 0.3 for f in fams}

    def kept(v, a):
        return 1.0 / (1.0 + s[jobs[v]["profile"]] * p[jobs[a]["profile"]])
    err, step = mae(kept, pairs), 0.5
    while step > 1e-4:
        moved = False
        for w, f, sign in itertools.product((s, p), fams, (1, -1)):
            old = w[f]
            w[f] = max(0.0, old + sign * step)
            new = mae(kept, pairs)
            if new < err - 1e-12:
                err, moved = new, True
            else:
                w[f] = old
        if not moved:
            step /= 2
    return kept


def main():
    jobs, base, pairs = jobs_and_pairs()
    train = [x for x in pairs if jobs[x[0]]["bundled"] and jobs[x[1]]["bundled"]]
    held = [x for x in pairs if x not in train]
    grid = list(itertools.product(
        [0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 8],
        [-1, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, 1.5],
        [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3]))
    fit = min(grid, key=lambda q: mae(law(jobs, base, q, False), train))
    print("GPU duty d (first-order cost at the highest efficiency / solo iteration):",
          ", ".join("%s %.2f" % (p, b["duty"]) for p, b in sorted(base.items())))
    print("fitted on the %d bundled pairs: beta %g, delta %g, alpha %g; error %.3f"
          % ((len(train),) + fit + (mae(law(jobs, base, fit, False), train),)))
    held_out = []
    for p in sorted(base):
        fit_without = [x for x in train if p not in (jobs[x[0]]["profile"], jobs[x[1]]["profile"])]
        its_own = [x for x in train if x not in fit_without]
        q = min(grid, key=lambda q: mae(law(jobs, base, q, False), fit_without))
        held_out.append(mae(law(jobs, base, q, False), its_own))
    print("leave-one-model-out: %.3f" % statistics.mean(held_out))
    median = statistics.median(y for _, _, y in train)
    print("\n%d other pairs of the five families (other batch sizes), error:" % len(held))
    print("  the law, features per job      %.3f" % mae(law(jobs, base, fit, True), held))
    print("  the law, features per family   %.3f" % mae(law(jobs, base, fit, False), held))
    per_family = free_weights(jobs, train)
    print("  a free weight pair per family  %.3f (fitted on the bundled pairs: %.3f)"
          % (mae(per_family, held), mae(per_family, train)))
    print("  the bundled pairs' median, %.2f %.3f" % (median, mae(lambda v, a: median, held)))


if __name__ == "__main__":
    main()
