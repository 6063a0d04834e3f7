#!/usr/bin/python3
"""Plots per-token decoder latency against position from pmt-bench / torch_decode_bench JSON.

Every record (a JSON object, or each object of a JSON array) with a "per_step_ms" list becomes
one line, labelled "<engine> <precision>"; the y axis is logarithmic because the engines differ
by an order of magnitude.

  /usr/bin/python3 bench/plot_latency.py results.json -o latency.png --title "AMD EPYC, 1 thread"
"""
import argparse
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

STYLE = {  # variant -> matplotlib line style; other variants get matplotlib's next colour
    "PocketMT int8": dict(color="tab:blue", linestyle="-"),
    "PocketMT fp32": dict(color="tab:blue", linestyle="--"),
    "PyTorch fp32": dict(color="tab:red", linestyle="--"),
    "PyTorch int8 (onednn)": dict(color="tab:red", linestyle="-"),
    "PyTorch int8 (fbgemm)": dict(color="tab:red", linestyle="-"),
    "PyTorch int8 (x86)": dict(color="tab:red", linestyle="-"),
    "PyTorch int8 (qnnpack)": dict(color="tab:orange", linestyle="-"),
}


def variant(r):
    """'PocketMT int8', 'PyTorch int8 (qnnpack)', ..."""
    name = "PocketMT" if r["engine"] == "pocketmt" else "PyTorch"
    engine = f" ({r['qengine']})" if r.get("qengine") else ""
    return f"{name} {r['precision']}{engine}"


def records(paths):
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for r in data if isinstance(data, list) else [data]:
            if r.get("per_step_ms"):
                yield r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="result files")
    ap.add_argument("-o", "--output", required=True, help="PNG to write")
    ap.add_argument("--title", default="Per-token decoder latency (batch 1, greedy)")
    args = ap.parse_args()
    try:
        rows = list(records(args.json))
    except (OSError, ValueError) as e:
        print(f"plot_latency: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("plot_latency: no record with per_step_ms in the input", file=sys.stderr)
        return 2

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    for r in rows:
        steps = [math.nan if t is None else t for t in r["per_step_ms"]]  # null: not measured
        label = f"{variant(r)}, {r['threads']} thread{'s' if r['threads'] > 1 else ''}"
        ax.plot(range(1, len(steps) + 1), steps, label=label, linewidth=1.5, **STYLE.get(variant(r), {}))
    ax.set_yscale("log")
    # Labels at 1, 2, 5 x 10^k written plainly (0.2, 5, 10), no labels on the other minor ticks.
    ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("position (generated token)")
    ax.set_ylabel("latency per token (ms, median)")
    ax.set_title(args.title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
