#!/usr/bin/env python3
"""How a prediction's error moves with context on one configuration.

Reads `infercap validate -f csv` rows (stdin or a file) of llama-bench metrics at two lengths of
the same kind (prefill_throughput_ppN, decode_throughput_tgN) and, for every configuration that
has both (hardware, devices, model, precision, stack), takes d = ln(1 + error at the longer) -
ln(1 + error at the shorter): 0 when the model scales with context as the engine does, whatever
its error at either length; > 0 when it is too fast at the longer one relative to the shorter.
Prints a Markdown table: per kind and stack, the configurations, the mean and median of d and
the median of |d|.

  scripts/context-slope.py [ROWS.csv] --short 1024 --long 4096
"""
import argparse
import csv
import math
import re
import statistics
import sys
from collections import defaultdict

METRIC = re.compile(r"^(prefill_throughput_pp|decode_throughput_tg)(\d+)$")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="?", help="validate -f csv output (default: stdin)")
    ap.add_argument("--short", type=int, required=True, help="the shorter length, e.g. 1024")
    ap.add_argument("--long", type=int, required=True, help="the longer length, e.g. 4096")
    a = ap.parse_args()
    if a.short >= a.long:
        print(f"--short ({a.short}) must be below --long ({a.long})", file=sys.stderr)
        return 2
    src = open(a.rows, encoding="utf-8") if a.rows else sys.stdin
    # validate prints a 'wrote ...' line before its table when it writes residuals.
    lines = (ln for ln in src if not ln.startswith("wrote "))
    cfg = defaultdict(dict)
    for r in csv.DictReader(lines):
        m = METRIC.match(r.get("metric") or "")
        if not m or r.get("error", "") in ("", "-"):
            continue
        n = int(m.group(2))
        if n not in (a.short, a.long):
            continue
        key = (m.group(1), r["stack"], r["hardware"], r["devices"], r["model"], r["precision"])
        cfg[key][n] = math.log1p(float(r["error"]))
    groups = defaultdict(list)
    for (kind, stack, *_), v in cfg.items():
        if a.short in v and a.long in v:
            groups[(kind, stack)].append(v[a.long] - v[a.short])
    if not groups:
        print(f"no configuration has both {a.short} and {a.long}", file=sys.stderr)
        return 1
    name = {"prefill_throughput_pp": "prefill (pp)", "decode_throughput_tg": "decode (tg)"}
    print(f"| kind | stack | configurations | mean d | median d | median \\|d\\| |")
    print("|---|---|---|---|---|---|")
    for (kind, stack), d in sorted(groups.items()):
        med_abs = statistics.median(abs(x) for x in d)
        print(f"| {name[kind]} {a.short} -> {a.long} | {stack} | {len(d)} | "
              f"{statistics.mean(d):+.3f} | {statistics.median(d):+.3f} | {med_abs:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
