#!/usr/bin/python3
"""Checks that pmt-bench (public API, token-event timing) and the Google Benchmark suite
bench_translator (internal network calls) measure the same thing: prints, per precision and
thread count, encoder latency, decoder step latency at several positions and whole-sentence
latency from both, and their ratio. Wall times are compared, or CPU times when pmt-bench ran
with --clock cpu.

  /usr/bin/python3 bench/agreement.py --gbench translator.json --pmt-bench pmt-bench.json
"""
import argparse
import json
import re
import sys

NAME = re.compile(r"BM_(\w+)/(fp32|int8)/(.*)/real_time(_median)?$")


def gbench_times(path, field):
    """{(kind, precision, sorted args): milliseconds of `field` (real_time or cpu_time)} from
    --benchmark_format=json output: the median aggregate where the run had repetitions (robust
    on a busy machine), else the mean."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data["benchmarks"]:
        m = NAME.match(b["name"])
        if not m or b.get("error_occurred") or b.get("aggregate_name", "median") != "median":
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
        args = dict(kv.split(":") for kv in m.group(3).split("/"))
        out[(m.group(1), m.group(2), tuple(sorted(args.items())))] = b[field] * scale
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gbench", required=True, help="bench_translator --benchmark_format=json output")
    ap.add_argument("--pmt-bench", required=True, help="pmt-bench --json output (-s 8,32,128 -n 32,128)")
    args = ap.parse_args()
    try:
        with open(args.pmt_bench) as f:
            rows = json.load(f)
        # pmt-bench --clock cpu is compared with the suite's CPU time (meaningful on 1 thread).
        cpu = any(r.get("clock") == "cpu" for r in rows)
        gb = gbench_times(args.gbench, "cpu_time" if cpu else "real_time")
    except (OSError, ValueError, KeyError) as e:
        print(f"agreement: {e}", file=sys.stderr)
        return 2

    def g(kind, precision, **kw):
        return gb.get((kind, precision, tuple(sorted((k, str(v)) for k, v in kw.items()))))

    print("| type | threads | measure | Google Benchmark ms | pmt-bench ms | pmt-bench / GB |")
    print("|---|--:|---|--:|--:|--:|")
    for r in rows:
        if r["beam"] != 1 or r["input"] != "random":
            continue
        p, t, src, gen = r["precision"], r["threads"], int(r["src_len"]), r["gen_len"]
        pairs = []
        if gen == max(x["gen_len"] for x in rows):
            pairs.append((f"encoder, {src} tokens", g("Encoder", p, src=src, threads=t), r["encoder_ms"]))
            steps = r["per_step_ms"]
            if src == 32:  # the suite's decoder steps attend to a 32-token source
                for pos in (16, 64, 128):
                    if pos <= len(steps) and steps[pos - 1] is not None:
                        pairs.append((f"decoder step, position {pos}",
                                      g("DecoderStep", p, pos=pos, rows=1, threads=t), steps[pos - 1]))
        if gen == src:
            pairs.append((f"sentence, {src} -> {gen} tokens, greedy",
                          g("Translate", p, src=src, beam=1, threads=t), r["sentence_ms"]))
        for what, ref, mine in pairs:
            if ref is not None:
                print(f"| {p} | {t} | {what} | {ref:.4f} | {mine:.4f} | {mine / ref:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
