#!/usr/bin/env python3
"""Run llama.cpp's llama-bench on random-weight models of catalog shapes and write the results as
rows in the shared/benchmarks schema (plus the optional `threads` column), with provenance.

  scripts/llama-bench-rows.py --llama-bench PATH --llama-quantize PATH --gguf-py LLAMA_CPP/gguf-py \
      --model data/models/qwen2.5-0.5b.yaml [--model ...] --hardware CATALOG_NAME \
      --out data/measurements/NAME.csv [--threads 1,2] [--types f16,bf16,q8_0,q4_0]
      [--amx 0|1] [--build-note TEXT] [--resume] [--prompt 512] [--gen 128] [--reps 5] [--tg-repeats 3] [--work DIR] [--max-others 0.05]
      [--layers N --vocab N]   (smoke tests only: rows are marked as such)

Per model, type and thread count it runs prefill (ppN) and decode (tgN) separately; decode is
repeated --tg-repeats times (2-thread decode on a small VM is noisy) and every repeat is a row.
Before each llama-bench call it refuses to start while a compiler or linker runs, and during each
call it counts the CPU time every other process used (/proc/stat less the call's own rusage): above
--max-others of one core, no row is recorded. Rows measured on a busy machine are not ground truth. Each row's notes carry the machine (CPU model
string, logical CPUs), the llama.cpp build commit llama-bench reports, the UTC time, the load
average and the exact command. Models are written under --work (default /tmp/infercap-llama-bench)
and never into the repository.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ("id,source,hardware,hw_count,mem_bw_gbs,model,params_b,precision,input_len,output_len,"
           "batch,metric,value,unit,stack,notes,threads,amx").split(",")
TYPE_NAMES = {"f16": "F16", "bf16": "BF16", "f32": "F32", "q8_0": "Q8_0", "q4_0": "Q4_0",
              "q4_k_m": "Q4_K_M"}


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def busy_reason():
    """Why the machine is not quiet now, or '' when it is."""
    out = subprocess.run(["ps", "-eo", "comm="], capture_output=True, text=True).stdout.split()
    busy = sorted({c for c in out if c in ("cc1", "cc1plus", "ld", "ninja", "make", "nvcc")})
    if busy:
        return "other work running: " + ", ".join(busy)
    return ""


def busy_jiffies():
    """Busy clock ticks of the whole machine so far (user+nice+system+irq+softirq+steal)."""
    with open("/proc/stat", encoding="utf-8") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7]


def children_cpu_s():
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_measured(cmd):
    """Runs cmd and returns (stdout, share): `share` is the CPU time every other process on the
    machine used while it ran, as a fraction of the call's wall time on one core. The 1-minute
    load average cannot tell that: it still counts the previous llama-bench call."""
    tick = os.sysconf("SC_CLK_TCK")
    j0, c0, t0 = busy_jiffies(), children_cpu_s(), datetime.datetime.now().timestamp()
    out = run(cmd)
    j1, c1, t1 = busy_jiffies(), children_cpu_s(), datetime.datetime.now().timestamp()
    others_s = max(0.0, (j1 - j0) / tick - (c1 - c0))
    return out, others_s / max(t1 - t0, 1e-9)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {shlex.join(cmd)}\n{r.stderr[-2000:]}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llama-bench", required=True)
    ap.add_argument("--llama-quantize", required=True)
    ap.add_argument("--gguf-py", required=True)
    ap.add_argument("--model", action="append", required=True)
    ap.add_argument("--hardware", required=True, help="catalog name of this machine")
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--types", default="f16,bf16,q8_0,q4_0")
    ap.add_argument("--prompt", type=int, default=512)
    ap.add_argument("--gen", type=int, default=128)
    ap.add_argument("--reps", type=int, default=5, help="llama-bench -r")
    ap.add_argument("--tg-repeats", type=int, default=3)
    ap.add_argument("--work", default="/tmp/infercap-llama-bench")
    ap.add_argument("--max-others", type=float, default=0.05,
                    help="most CPU other processes may use during a call, as a fraction of one core")
    ap.add_argument("--amx", choices=["", "0", "1"], default="",
                    help="0: the llama.cpp build has GGML_AMX_*=OFF (the rows' amx column); empty: as the CPU has them")
    ap.add_argument("--build-note", default="",
                    help="how the llama.cpp build differs from a default one (compiler, flags); "
                         "written into every row's notes")
    ap.add_argument("--resume", action="store_true", help="keep the rows already in --out and skip them")
    ap.add_argument("--retries", type=int, default=4, help="retries of a call disturbed by other work")
    ap.add_argument("--retry-wait-s", type=int, default=30)
    ap.add_argument("--id-prefix", default="LB")
    ap.add_argument("--layers", type=int, default=0)
    ap.add_argument("--vocab", type=int, default=0)
    ap.add_argument("--allow-busy", action="store_true",
                    help="record rows on a busy machine anyway (smoke tests; notes say so)")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    smoke = a.layers > 0 or a.vocab > 0
    rows = []
    if a.resume and os.path.exists(a.out):
        # Rows of an earlier, interrupted run are kept; their (model, type, threads, test,
        # repeat) is not measured again.
        with open(a.out, newline="", encoding="utf-8") as f:
            rows = [dict(r) for r in csv.DictReader(f)]
    done = {(r["model"], r["precision"], r["threads"], r["metric"][:7], r["notes"].split("; repeat ")[1][:3])
            for r in rows if "; repeat " in r["notes"]}
    machine = f"{cpu_model()}, {os.cpu_count()} logical CPUs, {platform.node()}"
    for model_yaml in a.model:
        name = os.path.splitext(os.path.basename(model_yaml))[0]
        # The cached file's name carries its shape, so a reduced smoke model is never taken for
        # the full catalog shape on a later run (the first full run here reused one).
        stem = name + (f"-smoke-L{a.layers}-V{a.vocab}" if smoke else "")
        base = {}
        for t in a.types.split(","):
            src = "bf16" if t == "bf16" else "f32" if t == "f32" else "f16"
            if src not in base:
                path = os.path.join(a.work, f"{stem}-{src}.gguf")
                cmd = [sys.executable, os.path.join(HERE, "gguf-random-model.py"), "--gguf-py", a.gguf_py,
                       "--model", model_yaml, "--out", path + ".part", "--type", src]
                if a.layers:
                    cmd += ["--layers", str(a.layers)]
                if a.vocab:
                    cmd += ["--vocab", str(a.vocab)]
                if not os.path.exists(path):  # a model of this name and shape from an earlier run
                    run(cmd)
                    os.replace(path + ".part", path)
                base[src] = path
            path = base[src]
            if t not in ("f16", "bf16", "f32"):
                path = os.path.join(a.work, f"{stem}-{t}.gguf")
                if not os.path.exists(path):
                    # Quantised beside and renamed, so an interrupted run leaves no truncated model.
                    run([a.llama_quantize, base["f16"], path + ".part", t.upper()])
                    os.replace(path + ".part", path)
            for threads in a.threads.split(","):
                tests = [("pp", ["-p", str(a.prompt), "-n", "0"], 1)]
                tests.append(("tg", ["-p", "0", "-n", str(a.gen)], a.tg_repeats))
                for kind, args, repeats in tests:
                    for rep in range(repeats):
                        key = (name, TYPE_NAMES[t], threads, "prefill" if kind == "pp" else "decode_",
                               f"{rep + 1}/{repeats}"[:3])
                        if key in done:
                            continue
                        # A call disturbed by other work is discarded and retried after a pause
                        # (--retries); a row is recorded only from an undisturbed call.
                        for attempt in range(a.retries + 1):
                            why = busy_reason()
                            others = 0.0
                            if not why or a.allow_busy:
                                load1 = os.getloadavg()[0]
                                cmd = [a.llama_bench, "-m", path, "-t", threads, "-r", str(a.reps), "-o", "json"] + args
                                when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                                text, others = run_measured(cmd)
                                if others <= a.max_others or a.allow_busy:
                                    break
                                why = f"other processes used {others:.0%} of a core during {shlex.join(cmd)}"
                            if attempt == a.retries:
                                write_rows(a, rows)
                                sys.exit(f"not quiet ({why}); no row recorded for this call after {a.retries + 1}"
                                         f" tries ({len(rows)} earlier rows written). Rerun when nothing else runs.")
                            print(f"not quiet ({why}); retrying in {a.retry_wait_s} s", file=sys.stderr)
                            time.sleep(a.retry_wait_s)
                        why = "" if others <= a.max_others else why
                        if others > a.max_others:
                            why = why or f"other processes used {others:.0%} of a core"
                        res = json.loads(text)
                        for r in res:
                            n = r["n_prompt"] if kind == "pp" else r["n_gen"]
                            metric = f"prefill_throughput_pp{n}" if kind == "pp" else f"decode_throughput_tg{n}"
                            notes = (f"measured on {machine} at {when}; load1 {load1:.2f} before the call, other processes "
                                     f"{others:.1%} of a core during it"
                                     f"{' (BUSY: ' + why + ')' if why else ''}; llama.cpp build {r.get('build_commit')} "
                                     f"({r.get('build_number')}){', ' + a.build_note if a.build_note else ''}; llama-bench mean of {a.reps} reps, sd {r['stddev_ts']:.3g} t/s;"
                                     f" repeat {rep + 1}/{repeats}; random weights of the catalog shape written by "
                                     f"scripts/gguf-random-model.py{' (SMOKE TEST: shape reduced)' if smoke else ''}; "
                                     f"command: {shown_command(cmd, a.work)}")
                            rows.append({
                                "source": f"measurement: scripts/llama-bench-rows.py on {platform.node()} ({when})",
                                "hardware": a.hardware, "hw_count": 1, "mem_bw_gbs": "", "model": name,
                                "params_b": f"{r['model_n_params'] / 1e9:.4g}", "precision": TYPE_NAMES[t],
                                "input_len": n if kind == "pp" else 0, "output_len": 0 if kind == "pp" else n,
                                "batch": 1, "metric": metric, "value": f"{r['avg_ts']:.4g}", "unit": "tokens/s",
                                "stack": "llama.cpp CPU (llama-bench)", "notes": notes, "threads": threads,
                                "amx": a.amx})
                        write_rows(a, rows)  # after every call: an interruption loses nothing
    write_rows(a, rows)
    print(f"wrote {a.out}: {len(rows)} rows")


def shown_command(cmd, work):
    """The command as the rows record it: llama-bench by name and the model relative to the work
    folder (WORK), so no machine's absolute paths land in committed data."""
    shown = ["llama-bench"] + [("WORK/" + os.path.relpath(x, work)) if os.path.isabs(x) and
                               x.startswith(os.path.abspath(work)) else x for x in cmd[1:]]
    return shlex.join(shown)


def write_rows(a, rows):
    with open(a.out, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        for i, row in enumerate(rows, 1):
            row["id"] = f"{a.id_prefix}-{i:03d}"
            w.writerow(row)


if __name__ == "__main__":
    main()
