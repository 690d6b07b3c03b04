#!/usr/bin/env python3
"""Merge validate's residual CSVs into the one data/validation/residuals.csv that predict reads.

    merge-residuals.py [--tmp DIR] IN_SAMPLE.csv HELD_OUT.csv... > residuals.csv

IN_SAMPLE is `infercap validate ... --residuals-out` (every predicted row under the committed
stacks); each HELD_OUT is `infercap validate ... --fit STACK --cross-validate --residuals-out`
(the rows of STACK, each predicted by STACK refitted without the row's device). A row found in a
held-out file (same id and stack) takes its held-out residual; every other row keeps its own. The
provenance comments of all inputs are kept, and a count of each kind is added. Rows keep the
in-sample file's order. `--tmp DIR`: the inputs' scratch folder, written as $TMP in the kept
provenance so that the file does not change with the folder's random name. Exits 1 with a
message when a file lacks the residual header.
"""
import csv
import sys

HEADER = "id,stack,class,quantity,hardware,log_time_ratio,basis"


def read(path):
    comments, rows, header_seen = [], [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#"):
                comments.append(line)
            elif not header_seen:
                if line != HEADER:
                    sys.exit(f"{path}: expected the header {HEADER}, found '{line}'")
                header_seen = True
            else:
                rows.append(next(csv.reader([line])))
    if not header_seen:
        sys.exit(f"{path}: expected the header {HEADER}")
    return comments, rows


def main(argv):
    tmp = None
    if len(argv) >= 2 and argv[0] == "--tmp":
        tmp, argv = argv[1].rstrip("/"), argv[2:]
    if len(argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    comments, rows = read(argv[0])
    held = {}
    for path in argv[1:]:
        c, r = read(path)
        comments += c
        for row in r:
            held[(row[0], row[1])] = row
    out, replaced = [], 0
    for row in rows:
        h = held.get((row[0], row[1]))
        if h is not None:
            replaced += 1
            row = h
        out.append(row)
    print(f"# {replaced} of {len(out)} rows: held-out residuals (the rows' stack refitted without "
          f"their device); the other {len(out) - replaced}: the committed stacks' residuals "
          "(rows never fitted)")
    for c in comments:
        print(c.replace(tmp, "$TMP") if tmp else c)
    print(HEADER)
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerows(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
