#!/usr/bin/env python3
"""How far a 1% capacity error moves each MLPerf Server latency the model reads at its knee.

    serving-conditioning.py rows  PRED_CSV MEAS_CSV... > RATE_ROWS_CSV
    serving-conditioning.py table PRED_CSV RATE_PRED_CSV MEAS_CSV...   (Markdown on stdout)

PRED_CSV is `infercap validate -i MEAS_CSV... -f csv` (the model's reading of every row).
A Server latency row (TTFT, TPOT, end to end; the row states its P99 limits) is read at the
model's highest rate within those limits. That rate is lambda_k = lambda_s x predicted / measured
of the same run's `max_rate_output_tokens_per_s` row (lambda_s: the row's scheduled rate; output
tokens/s at a stable rate is the rate times the mean output). `rows` writes each latency row
twice as fixed-rate rows without limits, at lambda_k and at 0.99 lambda_k (ids suffixed `@k`
and `@k-1%`); `table` reads the model's values there (RATE_PRED_CSV: validate on those rows) and
prints, per row, kappa = d ln(latency) / d ln(rate) = ln(L(lambda_k) / L(0.99 lambda_k)) /
ln(1 / 0.99): a capacity error of e moves the latency by about kappa x e. The last column,
ln(predicted / measured) / kappa, is the capacity error that alone would explain the row's miss.
Rows are matched to their run within one measurement file by hardware, device count, precision,
tp and pp. Exits 1 on a latency row without its run's max-rate row.
"""
import csv
import math
import statistics
import sys

LATENCY = {"ttft_mean", "ttft_p99", "tpot_mean", "tpot_p99", "e2e_latency_mean"}
STEP = 0.99


def run_key(r):
    return (r["hardware"], r["hw_count"], r["precision"], r.get("tp", ""), r.get("pp", ""))


def read_measurements(paths):
    """(latency rows with their file's max-rate row id, all rows by id, the union of columns)."""
    latency, by_id, columns = [], {}, []
    for path in paths:
        rows = list(csv.DictReader(open(path, encoding="utf-8")))
        for k in rows[0].keys() if rows else []:
            if k not in columns:
                columns.append(k)
        max_rate = {}
        for r in rows:
            by_id[r["id"]] = r
            if r["metric"] == "max_rate_output_tokens_per_s":
                max_rate.setdefault(run_key(r), r["id"])
        for r in rows:
            if r["metric"] in LATENCY and r.get("ttft_p99_limit_s") and r.get("request_rate"):
                sibling = max_rate.get(run_key(r))
                if sibling is None:
                    sys.exit(f"{path}: {r['id']}: no max_rate_output_tokens_per_s row for its run")
                latency.append((r, sibling))
    return latency, by_id, columns


def read_predictions(path):
    out = {}
    for r in csv.DictReader(open(path, encoding="utf-8")):
        if r.get("predicted") and r.get("measured"):
            try:
                out[r["id"]] = (float(r["measured"]), float(r["predicted"]))
            except ValueError:
                pass
    return out


def knee_rate(row, sibling, pred):
    measured, predicted = pred[sibling]
    return float(row["request_rate"]) * predicted / measured


def cmd_rows(pred_csv, meas):
    latency, _, columns = read_measurements(meas)
    pred = read_predictions(pred_csv)
    w = csv.DictWriter(sys.stdout, fieldnames=columns, extrasaction="ignore")
    w.writeheader()
    for r, sibling in latency:
        if sibling not in pred or r["id"] not in pred:
            continue
        lam = knee_rate(r, sibling, pred)
        for tag, scale in (("@k", 1.0), ("@k-1%", STEP)):
            q = {k: r.get(k, "") for k in columns}
            q["id"] = r["id"] + tag
            q["request_rate"] = f"{lam * scale:.6g}"
            q["ttft_p99_limit_s"] = q["tpot_p99_limit_s"] = ""
            w.writerow(q)
    return 0


def cmd_table(pred_csv, rate_csv, meas):
    latency, _, _ = read_measurements(meas)
    pred = read_predictions(pred_csv)
    at = read_predictions(rate_csv)
    print("| id | hardware | devices | metric | measured | predicted (at the knee) | error "
          "| knee rate / stated rate | at that rate, fixed | 1% below it | kappa "
          "| capacity error that explains the miss |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    kappas, explains = [], []
    for r, sibling in latency:
        k_id, b_id = r["id"] + "@k", r["id"] + "@k-1%"
        if r["id"] not in pred or k_id not in at or b_id not in at or sibling not in pred:
            continue
        measured, predicted = pred[r["id"]]
        a, b = at[k_id][1], at[b_id][1]
        ratio = pred[sibling][1] / pred[sibling][0]
        kappa = math.log(a / b) / math.log(1 / STEP) if a > 0 and b > 0 else float("nan")
        miss = math.log(predicted / measured)
        explain = miss / kappa if kappa > 0.5 else float("nan")
        if r["id"].startswith("MLP5-"):
            kappas.append(kappa)
            if not math.isnan(explain):
                explains.append(abs(explain))
        print(f"| {r['id']} | {r['hardware']} | {r['hw_count']} | {r['metric']} | {measured:.4g} "
              f"| {predicted:.4g} | {predicted / measured - 1:+.0%} | {ratio:.3f} | {a:.4g} "
              f"| {b:.4g} | {kappa:.1f} "
              f"| {'-' if math.isnan(explain) else f'{explain:+.1%}'} |")
    if kappas:
        print()
        print(f"MLPerf v5.0 latency rows: median kappa {statistics.median(kappas):.1f} "
              f"(from {min(kappas):.1f} to {max(kappas):.1f}); the capacity error that alone "
              f"explains each miss has a median of {statistics.median(explains):.1%}.")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "rows":
        return cmd_rows(argv[1], argv[2:])
    if len(argv) >= 4 and argv[0] == "table":
        return cmd_table(argv[1], argv[2], argv[3:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
