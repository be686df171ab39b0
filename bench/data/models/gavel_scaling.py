#!/usr/bin/env python3
"""Prints the per-GPU scaling efficiency of every job type in Gavel's V100
consolidated throughputs: steps/s at k GPUs / (k x steps/s at 1 GPU).

It shows why no model of one step plus one all-reduce reproduces those
figures (README.md, "Against Gavel's consolidated multi-GPU throughputs"): a
ring all-reduce moves 2(k-1)/k of the gradient per GPU, more as k grows, so
its efficiency can only fall with k and cannot exceed 1.

Run from anywhere: python3 bench/data/models/gavel_scaling.py
Standard library only.
"""

import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
THROUGHPUTS = os.path.join(HERE, "..", "gavel", "simulation_throughputs.json")


def main():
    with open(THROUGHPUTS, encoding="utf-8") as f:
        v100 = json.load(f)["v100"]
    types = {}
    for key, value in v100.items():
        m = re.fullmatch(r"\('(.*)', (\d+)\)", key)
        if m is None:
            continue  # the *_unconsolidated keys
        types.setdefault(m.group(1), {})[int(m.group(2))] = value["null"]
    multi = {t: s for t, s in types.items() if 1 in s and 8 in s and 4 in s and 2 in s}
    print(f"{'job type':40s}  eff@2  eff@4  eff@8")
    higher_at_8 = superlinear = 0
    for t in sorted(multi):
        s = multi[t]
        e = {k: s[k] / (k * s[1]) for k in (2, 4, 8)}
        higher_at_8 += e[8] > e[4]
        superlinear += any(x > 1.0 for x in e.values())
        print(f"{t:40s}  {e[2]:5.2f}  {e[4]:5.2f}  {e[8]:5.2f}")
    print(f"{len(multi)} job types with 1, 2, 4 and 8 GPUs; more efficient at 8 GPUs than at 4: "
          f"{higher_at_8}; above 1.0 at some scale: {superlinear}")


if __name__ == "__main__":
    main()
