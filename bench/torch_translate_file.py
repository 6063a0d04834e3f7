#!/usr/bin/python3
"""File-translation throughput of a PocketMT checkpoint run by PyTorch: the peer of
`pmt-bench --file FILE --no-split`.

Translates FILE one line = one sentence the way CTranslate2's translate_file does: SentencePiece
encoding (the checkpoint's model), sentences sorted by source length, batches of --batch padded
with key padding masks, a batched incremental greedy decoder (bench/torch_decode_bench.py's
Model: per-layer self-attention cache, cross-attention K/V once per batch) in which a sentence
leaves the batch at its EOS. Decoding rules as the PocketMT runtime's with --no-repeat-ngram 0:
output bound 2 x source tokens (EOS included) + 10, within min(max_src + 50, model max_len)
tokens; a line over --max-src tokens (EOS included) or empty gives an empty output line.
--beam K > 1: the runtime's beam search (runtime/src/search.cc) step for step: every live
hypothesis proposes its best min(2K, V) extensions, the K best non-EOS ones go on, an EOS among
the first K candidates finishes a hypothesis, a sentence ends with K finished or at its length
bound, and the best finished one by log_prob / ((5 + length) / 6)^alpha is the output.
fp32, or torch's dynamic int8 (quantize_dynamic on every nn.Linear). Prints lines/s, target
tokens/s (EOS excluded, as pmt-bench counts) and peak RSS; writes the translations in input order.

  /usr/bin/python3 bench/torch_translate_file.py CKPT.safetensors SPM.model data/web-rv/test.en \\
      --precision int8 --batch 16 --threads 1 --output out.es --json row.json
"""
import argparse
import ctypes
import gc
import json
import os
import sys
import time

torch = nn = tdb = spm = None  # imported by import_torch() once --threads is known


def import_torch(threads):
    """Imports torch with `threads` threads. Debian's torch does its fp32 GEMMs in OpenBLAS
    (pthreads), which starts one thread per core whatever torch.set_num_threads says and reads
    its count from the environment when it loads: so the count is set before the import."""
    global torch, nn, tdb, spm
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_decode_bench as tdb  # sets the torch log level before importing torch
    import torch
    from torch import nn
    import sentencepiece as spm
    torch.set_num_threads(threads)


def greedy_batch(model, sources, max_tgt):
    """Greedy translation of `sources` (id lists, EOS included): the output ids, EOS excluded."""
    width = max(len(s) for s in sources)
    src = torch.full((len(sources), width), model.eos)  # the filler is masked out
    for i, s in enumerate(sources):
        src[i, :len(s)] = torch.tensor(s)
    mask = tdb.padding_mask([len(s) for s in sources], width)
    bounds = torch.tensor([min(2 * len(s) + 10, max_tgt) for s in sources])
    state = model.start(model.encode(src, mask), int(bounds.max()), mask)
    rows = torch.arange(len(sources))  # the sentence of every row still in the batch
    out = [[] for _ in sources]
    tok = torch.full((len(sources), 1), model.bos)
    for pos in range(int(bounds.max())):
        nxt = model.decode(tok, pos, state)[:, -1].argmax(dim=-1)
        for r, t in zip(rows.tolist(), nxt.tolist()):
            if t != model.eos:
                out[r].append(t)
        done = (nxt == model.eos) | (bounds[rows] == pos + 1)
        if bool(done.any()):
            keep = (~done).nonzero().squeeze(1)
            if keep.numel() == 0:
                break
            state, rows, nxt = model.keep_rows(state, keep), rows[keep], nxt[keep]
        tok = nxt[:, None]
    return out


def beam_batch(model, sources, max_tgt, k, alpha):
    """Beam search over `sources` (id lists, EOS included) with the runtime's rules: the output
    ids, EOS excluded. The rows of every sentence's live hypotheses decode together; a step's
    survivors select (and copy) their parents' cache rows."""
    width = max(len(s) for s in sources)
    src = torch.full((len(sources), width), model.eos)
    for i, s in enumerate(sources):
        src[i, :len(s)] = torch.tensor(s)
    mask = tdb.padding_mask([len(s) for s in sources], width)
    bounds = [min(2 * len(s) + 10, max_tgt) for s in sources]
    state = model.start(model.encode(src, mask), max(bounds), mask)
    # live[b]: (log_prob, tokens) of sentence b's hypotheses, in the order of their rows.
    live = {b: [(0.0, [])] for b in range(len(sources))}
    finished = {b: [] for b in range(len(sources))}  # (score, log_prob, tokens)
    out = [[] for _ in sources]
    per_hyp = min(2 * k, model.embed.shape[0])
    tok = torch.full((len(sources), 1), model.bos)
    for pos in range(max(bounds)):
        logp = torch.log_softmax(model.decode(tok, pos, state)[:, -1], dim=-1)
        top_val, top_idx = logp.topk(per_hyp, dim=-1)
        top_val, top_idx = top_val.tolist(), top_idx.tolist()
        parents, tokens, base, next_live = [], [], 0, {}
        for b, hyps in live.items():
            cands = []  # (log_prob, token, row of the parent)
            for j, (lp, _) in enumerate(hyps):
                cands += [(lp + v, t, base + j) for v, t in zip(top_val[base + j], top_idx[base + j])]
            cands.sort(key=lambda c: -c[0])
            norm = ((5 + pos + 1) / 6) ** alpha

            def finish(c, complete):
                hist = hyps[c[2] - base][1] + ([] if complete else [c[1]])
                entry = (c[0] / norm, c[0], hist)
                fin = finished[b]
                if len(fin) < k:
                    fin.append(entry)
                else:
                    worst = min(range(k), key=lambda i: fin[i][0])
                    if entry[0] > fin[worst][0]:
                        fin[worst] = entry
            keep = []
            for i, c in enumerate(cands):
                if len(keep) == k:
                    break
                if c[1] == model.eos:
                    if i < k:
                        finish(c, True)
                    continue
                keep.append(c)
            if len(finished[b]) < k and pos + 1 == bounds[b]:
                for c in keep:
                    finish(c, False)
                keep = []
            if len(finished[b]) >= k or not keep:
                out[b] = max(finished[b], key=lambda f: f[0])[2]
            else:
                next_live[b] = [(c[0], hyps[c[2] - base][1] + [c[1]]) for c in keep]
                parents += [c[2] for c in keep]
                tokens += [c[1] for c in keep]
            base += len(hyps)
        if not next_live:
            break
        state, live = model.keep_rows(state, torch.tensor(parents)), next_live
        tok = torch.tensor(tokens)[:, None]
    return out


def translate_lines(model, sp, lines, batch, max_src, max_tgt, beam=1, alpha=0.6):
    """Translations of `lines` in input order, their tokens (EOS excluded), the indices of the
    lines rejected as too long."""
    ids = [sp.encode(line) + [model.eos] if line.strip() else [] for line in lines]
    rejected = [i for i, s in enumerate(ids) if len(s) > max_src]
    order = sorted((i for i, s in enumerate(ids) if 0 < len(s) <= max_src), key=lambda i: len(ids[i]))
    out = [[] for _ in lines]
    for b in range(0, len(order), batch):
        chunk = order[b:b + batch]
        sources = [ids[i] for i in chunk]
        result = greedy_batch(model, sources, max_tgt) if beam == 1 else \
            beam_batch(model, sources, max_tgt, beam, alpha)
        for i, t in zip(chunk, result):
            out[i] = t
    return [sp.decode(t) for t in out], sum(len(t) for t in out), rejected


def quantized(model, engine):
    """A dynamic-int8 copy of `model` for `engine`: weights are packed for the engine active at
    conversion, so the engine is set first."""
    torch.backends.quantized.engine = engine
    return torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)


def pick_engine(model, sp, lines, batch, max_src, max_tgt, engines):
    """The quantized engine that translates a sample of the file fastest: every k-th of up to 32
    lines, so that short and long sentences are both in it."""
    sample = lines[::max(1, len(lines) // 32)][:32]
    times = {}
    for e in engines:
        q = quantized(model, e)
        translate_lines(q, sp, sample[:batch], batch, max_src, max_tgt)  # warm-up
        t0 = time.perf_counter()
        translate_lines(q, sp, sample, batch, max_src, max_tgt)
        times[e] = time.perf_counter() - t0
    print("torch_translate_file: int8 engines on a sample: "
          + ", ".join(f"{e} {t:.2f} s" for e, t in times.items()), file=sys.stderr)
    return min(times, key=times.get)


def peak_rss_mb():
    """The resident high-water mark (VmHWM) in MB, as pmt-bench reports it."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024 / 1e6
    raise OSError("no VmHWM in /proc/self/status")


def reset_peak_rss():
    """Zeroes VmHWM (Linux /proc/self/clear_refs) so that the peak excludes the load: reading the
    checkpoint holds its optimizer moments, which PocketMT's exported file does not have, and the
    int8 engine trial holds extra model copies. Freed memory goes back to the system first."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", help="safetensors checkpoint (README tensor names, config in __metadata__)")
    ap.add_argument("spm", help="the checkpoint's SentencePiece model")
    ap.add_argument("input", help="text file, one sentence a line")
    ap.add_argument("--precision", choices=("fp32", "int8"), default="fp32",
                    help="int8: torch.ao.quantization.quantize_dynamic on every nn.Linear")
    ap.add_argument("--qengine", default="auto",
                    help="torch.backends.quantized.engine for int8; auto (default): the fastest of this "
                         "torch's engines on the first batches of the file")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    ap.add_argument("--batch", type=int, default=16, help="sentences per batch")
    ap.add_argument("--beam", type=int, default=1, help="beam size (default 1: greedy)")
    ap.add_argument("--alpha", type=float, default=0.6, help="length penalty of the beam search (default 0.6)")
    ap.add_argument("--lines", type=int, default=0, help="translate the first N lines only (0: all)")
    ap.add_argument("--max-src", type=int, default=128,
                    help="longest source in tokens with EOS, as the runtime's max_src_len (default 128)")
    ap.add_argument("--output", help="write the translations here, one line per input line")
    ap.add_argument("--json", help="write the result row here")
    args = ap.parse_args()
    if args.threads < 1 or args.batch < 1 or args.beam < 1 or args.lines < 0 or args.max_src < 2:
        ap.error("threads, batch and beam must be >= 1, lines >= 0, max-src >= 2")

    import_torch(args.threads)
    try:
        with open(args.input, encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # the final newline ends the last line, it does not start one
        meta, weights = tdb.read_safetensors(args.checkpoint)
        model = tdb.Model(meta, weights).eval()
        sp = spm.SentencePieceProcessor(model_file=args.spm)
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        print(f"torch_translate_file: {e}", file=sys.stderr)
        return 2
    del weights
    if args.lines:
        lines = lines[:args.lines]
    if not lines:
        print(f"torch_translate_file: {args.input} holds no line", file=sys.stderr)
        return 2
    if sp.get_piece_size() != model.embed.shape[0]:
        print("torch_translate_file: the SentencePiece model does not fit the checkpoint's vocabulary",
              file=sys.stderr)
        return 2
    max_src = min(args.max_src, model.max_len)
    max_tgt = min(max_src + 50, model.max_len)  # the runtime's default max_tgt_len
    qengine = None
    with torch.inference_mode():
        if args.precision == "int8":
            engines = [e for e in torch.backends.quantized.supported_engines if e != "none"]
            if args.qengine != "auto" and args.qengine not in engines:
                ap.error(f"--qengine must be auto or one of {', '.join(engines)}")
            qengine = args.qengine if args.qengine != "auto" else \
                pick_engine(model, sp, lines, args.batch, max_src, max_tgt, engines)
            model = quantized(model, qengine)
        # Warm-up on the first batch: allocator and thread pool, as pmt-bench's first pass.
        search = (args.beam, args.alpha)
        translate_lines(model, sp, lines[:args.batch], args.batch, max_src, max_tgt, *search)
        reset_peak_rss()
        t0 = time.perf_counter()
        out, target_tokens, rejected = translate_lines(model, sp, lines, args.batch, max_src, max_tgt, *search)
        seconds = time.perf_counter() - t0
    for i in rejected:
        print(f"torch_translate_file: line {i + 1}: longer than {max_src} tokens, left empty", file=sys.stderr)
    row = {
        "engine": "pytorch",
        "torch": torch.__version__,
        "precision": args.precision,
        "qengine": qengine,
        "input": args.input,
        "lines": len(lines),
        "rejected": len(rejected),
        "threads": args.threads,
        "batch": args.batch,
        "beam": args.beam,
        "seconds": seconds,
        "lines_per_s": len(lines) / seconds,
        "target_tokens": target_tokens,
        "target_tokens_per_s": target_tokens / seconds,
        "peak_rss_mb": peak_rss_mb(),
    }
    eng = f" ({qengine})" if qengine else ""
    print(f"pytorch {torch.__version__} {args.precision}{eng}, {args.threads} thread(s), batch {args.batch}, "
          f"beam {args.beam}, "
          f"{len(lines)} lines in {seconds:.2f} s: {row['lines_per_s']:.1f} lines/s, "
          f"{row['target_tokens_per_s']:.0f} target tokens/s, peak RSS {row['peak_rss_mb']:.1f} MB")
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.writelines(t + "\n" for t in out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(row, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
