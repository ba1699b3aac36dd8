#!/usr/bin/env python3
"""Markdown tables of one GPU call: vksort's Auto beside CUB 3.5, CUB 3.0.1, vrdx and Fuchsia.

Usage: scripts/anchor_tables.py DIR, where DIR holds what `.device`'s anchor call writes (BENCHMARKS.md, "Against
CUB 3.5"): cub350.csv and cub301.csv (cub_bench.cu), anchors.csv (anchor_bench), and the `vksort bench` folders
dists/ (u32 and u64 keys, no and u32 values, every distribution, host and GPU-side counts), f32/ (f32 + u32),
scan/ (scan and compaction) and large/ (2^24-2^28), each with its bench.csv. Ratios are the anchor's time over
vksort's: above 1, vksort is faster.
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path


def rows(path):
    p = Path(path)
    if not p.exists():
        return []
    with p.open() as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def anchor(path, impl=None):
    """{(op, n): ms} of an anchor CSV (of its rows of `impl` only, where given)."""
    return {(r["op"], int(r["n"])): float(r["ms_median"]) for r in rows(path) if impl is None or r["impl"] == impl}


def log2(n):
    return n.bit_length() - 1


def us(ms):
    return "-" if ms is None else (f"{ms * 1e3:.1f}" if ms < 0.1 else f"{ms * 1e3:.0f}")


def ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.2f}x"


def main(d):
    d = Path(d)
    cub35, cub30 = anchor(d / "cub350.csv"), anchor(d / "cub301.csv")
    vrdx, fuchsia = anchor(d / "anchors.csv", "vrdx"), anchor(d / "anchors.csv", "fuchsia")
    sorts = [r for sub in ("dists", "f32", "large") for r in rows(d / sub / "bench.csv") if r["family"] == "sort"]
    t = defaultdict(dict)  # (base op, count) -> {(dist, n): ms}
    ran = {}
    for r in sorts:
        # (the op names non-uniform distributions too: the base op from the key and value types)
        op = f"sort_keys_{r['key']}" if r["value"] == "none" else f"sort_pairs_{r['key']}_{r['value']}"
        t[(op, r["count"])][(r["dist"], int(r["n"]))] = float(r["ms_median"])
        ran[(op, r["count"], r["dist"], int(r["n"]))] = r["ran"]
    kinds = [("sort_keys_u32", "u32"), ("sort_pairs_u32_u32", "u32 + u32"), ("sort_pairs_f32_u32", "f32 + u32"),
             ("sort_keys_u64", "u64"), ("sort_pairs_u64_u32", "u64 + u32")]
    ns = sorted({n for (op, c), m in t.items() for (_, n) in m})

    print("#### Uniform keys, host count: us, and CUB 3.5's time / vksort's\n")
    head = "| N |" + "".join(f" {k}: Auto | CUB 3.5 | ratio |" for _, k in kinds) + " Auto runs (u32) |"
    print(head)
    print("|---|" + "---:|---:|---:|" * len(kinds) + "---|")
    for n in ns:
        cells = []
        for op, _ in kinds:
            v = t[(op, "host")].get(("uniform", n))
            c = cub35.get((op, n))
            cells += [us(v), us(c), ratio(c, v)]
        print(f"| 2^{log2(n)} | " + " | ".join(cells) + f" | {ran.get(('sort_keys_u32', 'host', 'uniform', n), '-')} |")

    print("\n#### The other anchors at the same sizes (uniform, host count): their time / vksort's\n")
    print("| N | u32: CUB 3.0.1 | vrdx | Fuchsia | u32 + u32: CUB 3.0.1 | vrdx | Fuchsia | u64: CUB 3.0.1 | u64 + u32: CUB 3.0.1 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in ns:
        k, p = t[("sort_keys_u32", "host")].get(("uniform", n)), t[("sort_pairs_u32_u32", "host")].get(("uniform", n))
        k64, p64 = t[("sort_keys_u64", "host")].get(("uniform", n)), t[("sort_pairs_u64_u32", "host")].get(("uniform", n))
        print(f"| 2^{log2(n)} | {ratio(cub30.get(('sort_keys_u32', n)), k)} | {ratio(vrdx.get(('sort_keys_u32', n)), k)} | "
              f"{ratio(fuchsia.get(('sort_keys_u32', n)), k)} | {ratio(cub30.get(('sort_pairs_u32_u32', n)), p)} | "
              f"{ratio(vrdx.get(('sort_pairs_u32_u32', n)), p)} | {ratio(fuchsia.get(('sort_pairs_u32_u32', n)), p)} | "
              f"{ratio(cub30.get(('sort_keys_u64', n)), k64)} | {ratio(cub30.get(('sort_pairs_u64_u32', n)), p64)} |")

    dists = sorted({dist for (op, c), m in t.items() for (dist, _) in m}, key=lambda s: (s != "uniform", s))
    for op, name in kinds:
        m = t[(op, "host")]
        if not any(dist != "uniform" for dist, _ in m):
            continue
        print(f"\n#### {name}, every distribution, host count: CUB 3.5's uniform time / vksort's\n")
        print("| N | " + " | ".join(dists) + " | slowest |")
        print("|---|" + "---:|" * (len(dists) + 1))
        for n in ns:
            vals = {dist: m.get((dist, n)) for dist in dists}
            c = cub35.get((op, n))
            got = [(v, dist) for dist, v in vals.items() if v is not None]
            worst = max(got)[1] if got else "-"
            print(f"| 2^{log2(n)} | " + " | ".join(ratio(c, vals[x]) for x in dists) + f" | {worst} {ratio(c, vals.get(worst))} |")

    print("\n#### GPU-side count (capacity 2N) / host count, uniform keys (worst distribution in brackets)\n")
    print("| N | " + " | ".join(name for _, name in kinds) + " |")
    print("|---|" + "---:|" * len(kinds))
    for n in ns:
        cells = []
        for op, _ in kinds:
            h, g = t[(op, "host")], t[(op, "gpu")]
            pairs = [(g[k] / h[k], k[0]) for k in h if k[1] == n and k in g]
            u = next((x for x, dist in pairs if dist == "uniform"), None)
            w = max(pairs) if pairs else None
            cells.append("-" if u is None else f"{u:.2f}" + (f" ({w[0]:.2f} {w[1]})" if w and w[1] != "uniform" else ""))
        print(f"| 2^{log2(n)} | " + " | ".join(cells) + " |")

    scans = [r for r in rows(d / "scan" / "bench.csv") if r["algo"] in ("lookback", "compact")]
    if scans:
        print("\n#### Scan and compaction (u32, host count): us, and the anchors' time / vksort's\n")
        print("| N | exclusive sum | CUB 3.5 | ratio | CUB 3.0.1 ratio | select odd | CUB 3.5 | ratio | CUB 3.0.1 ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        s = {(r["op"], int(r["n"])): float(r["ms_median"]) for r in scans}
        for n in sorted({n for _, n in s}):
            cells = []
            for op in ("exclusive_sum_u32", "select_if_odd_u32"):
                v = s.get((op, n))
                cells += [us(v), us(cub35.get((op, n))), ratio(cub35.get((op, n)), v), ratio(cub30.get((op, n)), v)]
            print(f"| 2^{log2(n)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
