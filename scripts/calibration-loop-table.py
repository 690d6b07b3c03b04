#!/usr/bin/env python3
"""The calibration loop as a Markdown table: llama-bench ground truth on one machine against
`infercap predict --calibration` (through `infercap validate`), per weight format and thread
count, for two stacks: the committed one (fitted with these rows) and one fitted without them.

  scripts/calibration-loop-table.py FITTED.csv WITHOUT.csv ROWS.csv [ROWS.csv ...]
  scripts/calibration-loop-table.py --one-stack PREDICTED.csv ROWS.csv [ROWS.csv ...]

ROWS.csv are the machine's measurement files (the `threads` column says each row's thread count,
`amx` whether the build ran AMX tiles; repeated decode runs are averaged); FITTED.csv and
WITHOUT.csv are `infercap validate -f csv` outputs over them. With --one-stack the machine's rows
were never fitted (a kept-aside session), so the committed stack's one prediction is the honest
figure and the table has no "without" columns. Writes the table to stdout.
Targets (issue 10): 15% decode, 25% prefill, at both thread counts.
"""
import csv
import sys
from collections import defaultdict


def predictions(path):
    out = {}
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.reader(f):
            if len(r) > 9 and r[0] and r[0] != "id":
                try:
                    out[r[0]] = float(r[8])
                except ValueError:
                    pass
    return out


def main():
    args = sys.argv[1:]
    one = args[:1] == ["--one-stack"]
    if one:
        args = [args[1], args[1]] + args[2:]
    fitted_path, without_path = args[:2]
    fitted, without = predictions(fitted_path), predictions(without_path)
    groups = defaultdict(list)  # (model, precision, threads, kind) -> [(measured, fit, lodo)]
    for rows_path in args[2:]:
        with open(rows_path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                if r["id"] not in fitted or r["id"] not in without:
                    continue
                kind = "prefill" if r["metric"].startswith("prefill") else "decode"
                prec = r["precision"] + (" (AMX)" if r.get("amx") == "1" else "")
                key = (r["model"], prec, int(r["threads"] or 0), kind)
                groups[key].append((float(r["value"]), fitted[r["id"]], without[r["id"]]))
    if one:
        print("| model | weights | threads | pp512 measured | predicted | error |"
              " tg128 measured (mean of repeats) | predicted | error |")
        print("|---|---|---|---|---|---|---|---|---|")
    else:
        print("| model | weights | threads | pp512 measured | predicted | error |"
              " without this machine's rows | tg128 measured (mean of repeats) | predicted | error |"
              " without this machine's rows |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
    within = {"prefill": [0, 0], "decode": [0, 0]}
    for model, prec, threads in sorted({k[:3] for k in groups}):
        cells = [model, prec, str(threads)]
        for kind, limit in (("prefill", 0.25), ("decode", 0.15)):
            g = groups.get((model, prec, threads, kind))
            if not g:
                cells += ["-"] * (3 if one else 4)
                continue
            m = sum(x[0] for x in g) / len(g)
            p, w = g[0][1], g[0][2]
            e, ew = p / m - 1, w / m - 1
            within[kind][0] += abs(e) <= limit
            within[kind][1] += 1
            cells += [f"{m:.4g}", f"{p:.4g}", f"{e:+.0%}"] + ([] if one else [f"{ew:+.0%}"])
        print("| " + " | ".join(cells) + " |")
    print()
    print(f"Within target with the committed stack{' (never fitted on these rows)' if one else ''}: prefill (25%) {within['prefill'][0]} of "
          f"{within['prefill'][1]}, decode (15%) {within['decode'][0]} of {within['decode'][1]}.")


if __name__ == "__main__":
    main()
