#!/usr/bin/python3
"""Merges pmt-bench and torch_decode_bench JSON results of one comparison run: prints a markdown
table (per-token latency, first token, encoder, peak memory) with the speed-up of each PocketMT
variant over the fastest PyTorch variant at the same thread count, and writes the merged records
as JSON and CSV.

  /usr/bin/python3 bench/compare_report.py DIR/*.json --json DIR/results.json --csv DIR/results.csv
"""
import argparse
import csv
import json
import sys

COLUMNS = ["engine", "precision", "qengine", "clock", "threads", "src_len", "gen_len", "generated", "load_ms", "encoder_ms",
           "first_token_ms", "per_token_ms_median", "per_token_ms_p90", "tokens_per_s", "peak_rss_mb"]


def load(paths):
    out = []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for r in data if isinstance(data, list) else [data]:
            if r.get("beam", 1) == 1:  # the comparison is greedy; pmt-bench may hold beam rows too
                r.setdefault("generated", r.get("gen_len"))
                out.append(r)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", help="JSON files from pmt-bench --json and torch_decode_bench.py --json")
    ap.add_argument("--json", help="write the merged records here")
    ap.add_argument("--csv", help="write the table's columns here")
    args = ap.parse_args()
    try:
        rows = load(args.results)
    except (OSError, ValueError) as e:
        print(f"compare_report: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("compare_report: no greedy result in the input", file=sys.stderr)
        return 2
    rows.sort(key=lambda r: (r["threads"], r["engine"] != "pocketmt", r["precision"] != "int8"))

    print("| engine | type | threads | ms/token (median) | p90 | tokens/s | first token ms | encoder ms "
          "| peak RSS MB | speed-up vs fastest PyTorch |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        torch_best = min((t["per_token_ms_median"] for t in rows
                          if t["engine"] == "pytorch" and t["threads"] == r["threads"]), default=None)
        speedup = f"{torch_best / r['per_token_ms_median']:.1f}x" if torch_best and r["engine"] == "pocketmt" else ""
        name = "PocketMT" if r["engine"] == "pocketmt" else "PyTorch " + r.get("torch", "")
        kind = r["precision"] + (f" ({r['qengine']})" if r.get("qengine") else "")
        print(f"| {name} | {kind} | {r['threads']} | {r['per_token_ms_median']:.4f} "
              f"| {r['per_token_ms_p90']:.4f} | {r['tokens_per_s']:.0f} | {r['first_token_ms']:.3f} "
              f"| {r['encoder_ms']:.3f} | {r['peak_rss_mb']:.1f} | {speedup} |")
        if r["generated"] is not None and r["gen_len"] and r["generated"] < r["gen_len"]:
            print(f"warning: {name} {r['precision']} stopped at EOS after {r['generated']:.1f} of "
                  f"{r['gen_len']} tokens on average; its per-token figure covers fewer positions",
                  file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
