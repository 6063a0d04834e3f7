#!/usr/bin/python3
"""Training throughput of the PocketMT Transformer in PyTorch: the peer of the C++ trainer.

The `small` preset (`--preset base`: d_model 512, 8 heads, d_ff 2048, 6+6 layers) (vocab 8000, d_model 256, 4 heads, d_ff 1024, 3+3 layers, post-LN, dropout
0.1, label smoothing 0.1) as torch.nn.Transformer with the PocketMT conventions: shared
embedding scaled by sqrt(d_model) + sinusoidal positions (dropout on their sum), output
projection = embedding^T without bias, pad-key masks, causal decoder self-attention, no final
norms (post-LN), F.cross_entropy(label_smoothing, ignore_index=pad), Adam (0.9, 0.98, 1e-9).
nn.Transformer also applies dropout to the attention weights.

One timed step = forward + loss + backward + Adam update + zero_grad, float32, CPU, eager, with
N threads for both torch and OpenBLAS. Prints one JSON line per thread count:
  {"threads": N, "target_tokens_per_s": ..., "tokens_per_s": ... (non-pad src + tgt), ...,
   "blas": the BLAS libraries mapped (and OpenBLAS's core kernels), "malloc": the allocator,
   "peak_rss_mb": the process's resident high-water mark so far}
bench/torch_train_peer.sh runs it with the best BLAS and allocator Debian has (the fair peer).

Batches: random ids (default: 128 sentences, source 32 and target 32 tokens, no padding, ~4k
target tokens), or real sentence pairs with --data DIR (DIR/train.en, DIR/train.es as written
by `pmt-convert prepare`) and --spm MODEL (encoded with the spm_encode tool), --batch random
pairs per step padded to the longest.

  /usr/bin/python3 bench/torch_train_bench.py                       # 1 and 2 threads, ~1 min
  /usr/bin/python3 bench/torch_train_bench.py --threads 4 --steps 10 --batch 64 --tgt-len 40
  /usr/bin/python3 bench/torch_train_bench.py --data data/web-rv --spm data/web-rv/spm.model
"""
import argparse
import ctypes
import json
import math
import os
import random
import resource
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

PAD, BOS, EOS = 0, 2, 3
FIRST_WORD_ID = 4  # ids below are pad, unk, bos, eos
SMALL = {"vocab_size": 8000, "d_model": 256, "n_heads": 4, "d_ff": 1024, "n_enc_layers": 3,
         "n_dec_layers": 3, "max_len": 256, "dropout": 0.1, "label_smoothing": 0.1}
# The trainer's presets (runtime/src/config.cc) that this peer measures.
PRESETS = {"small": SMALL, "base": dict(SMALL, d_model=512, n_heads=8, d_ff=2048, n_enc_layers=6, n_dec_layers=6)}


class Seq2Seq(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["d_model"]
        self.cfg = cfg
        self.embed = nn.Embedding(cfg["vocab_size"], d)
        nn.init.normal_(self.embed.weight, std=d ** -0.5)
        self.transformer = nn.Transformer(
            d_model=d, nhead=cfg["n_heads"], num_encoder_layers=cfg["n_enc_layers"],
            num_decoder_layers=cfg["n_dec_layers"], dim_feedforward=cfg["d_ff"],
            dropout=cfg["dropout"], batch_first=True)
        self.transformer.encoder.norm = None  # post-LN: no final norms
        self.transformer.decoder.norm = None
        self.dropout = nn.Dropout(cfg["dropout"])
        pos = torch.arange(cfg["max_len"], dtype=torch.float64)[:, None]
        angle = pos / torch.pow(10000.0, torch.arange(0, d, 2, dtype=torch.float64) / d)
        pe = torch.zeros(cfg["max_len"], d, dtype=torch.float64)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(angle), torch.cos(angle)
        self.register_buffer("pe", pe.float())

    def inputs(self, ids):
        x = self.embed(ids) * math.sqrt(self.cfg["d_model"]) + self.pe[:ids.shape[1]]
        return self.dropout(x)

    def forward(self, src, tgt_in):
        src_pad = src == PAD
        causal = torch.triu(torch.full((tgt_in.shape[1],) * 2, float("-inf")), diagonal=1)
        y = self.transformer(self.inputs(src), self.inputs(tgt_in), tgt_mask=causal,
                             src_key_padding_mask=src_pad, memory_key_padding_mask=src_pad)
        return F.linear(y, self.embed.weight)


def random_batches(args, cfg, count, gen):
    """`count` batches of random word ids with EOS/BOS, no padding."""
    out = []
    for _ in range(count):
        src = torch.randint(FIRST_WORD_ID, cfg["vocab_size"], (args.batch, args.src_len), generator=gen)
        words = torch.randint(FIRST_WORD_ID, cfg["vocab_size"], (args.batch, args.tgt_len - 1), generator=gen)
        src[:, -1] = EOS
        bos = torch.full((args.batch, 1), BOS)
        eos = torch.full((args.batch, 1), EOS)
        out.append((src, torch.cat([bos, words], 1), torch.cat([words, eos], 1)))
    return out


def fail(message):
    """Bad input: message on stderr, exit status 2."""
    print("torch_train_bench: " + message, file=sys.stderr)
    sys.exit(2)


def encode(spm_model, path, max_tokens):
    """Token ids of every line of `path`, cut to max_tokens - 1 so EOS/BOS fit."""
    for needed in (spm_model, path):
        if not os.path.isfile(needed):
            fail("%s: no such file" % needed)
    result = subprocess.run(["spm_encode", "--model", spm_model, "--output_format", "id", "--input", path],
                            capture_output=True, text=True)
    if result.returncode != 0:
        fail("spm_encode failed on %s: %s" % (path, result.stderr.strip()))
    return [[int(t) for t in line.split()][:max_tokens - 1] for line in result.stdout.splitlines()]


def pad(rows):
    out = torch.full((len(rows), max(len(r) for r in rows)), PAD)
    for i, r in enumerate(rows):
        out[i, :len(r)] = torch.tensor(r)
    return out


def real_batches(args, cfg, count):
    """`count` batches of --batch random sentence pairs from DATA/train.{en,es}."""
    src = encode(args.spm, os.path.join(args.data, "train.en"), cfg["max_len"])
    tgt = encode(args.spm, os.path.join(args.data, "train.es"), cfg["max_len"])
    if len(src) != len(tgt) or not src:
        fail("%s: train.en and train.es must have the same, non-zero number of lines" % args.data)
    pairs = [(s, t) for s, t in zip(src, tgt) if s and t]
    rng = random.Random(1)
    out = []
    for _ in range(count):
        chosen = rng.sample(pairs, min(args.batch, len(pairs)))
        out.append((pad([s + [EOS] for s, _ in chosen]), pad([[BOS] + t for _, t in chosen]),
                    pad([t + [EOS] for _, t in chosen])))
    return out


def set_threads(n):
    """torch's intra-op threads and OpenBLAS's: Debian's torch reaches OpenBLAS through the generic
    libblas, so torch.set_num_threads alone leaves every GEMM on OpenBLAS's own thread count.
    Returns the OpenBLAS thread count now in effect (None without OpenBLAS)."""
    torch.set_num_threads(n)
    try:
        openblas = ctypes.CDLL("libopenblas.so.0")
    except OSError:
        return None
    openblas.openblas_set_num_threads(n)
    return openblas.openblas_get_num_threads()


def runtime_libraries():
    """(BLAS, allocator) this process actually runs: the matching libraries in /proc/self/maps,
    and OpenBLAS's kernel set (its core name) when it is loaded."""
    with open("/proc/self/maps") as maps:
        paths = sorted({line.split()[-1] for line in maps if "/" in line})
    blas = [p for p in paths if "blas" in os.path.basename(p)]
    if any("openblas" in p for p in blas):
        openblas = ctypes.CDLL("libopenblas.so.0")
        openblas.openblas_get_corename.restype = ctypes.c_char_p
        blas.append("core " + openblas.openblas_get_corename().decode())
    allocators = [p for p in paths if any(a in os.path.basename(p) for a in ("jemalloc", "tcmalloc", "mimalloc"))]
    if allocators and os.environ.get("MALLOC_CONF"):
        allocators.append("MALLOC_CONF=" + os.environ["MALLOC_CONF"])
    return ", ".join(blas) or "none mapped", ", ".join(allocators) or "glibc malloc"


def measure(args, cfg, batches, threads):
    blas_threads = set_threads(threads)
    torch.manual_seed(0)
    model = Seq2Seq(cfg)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)

    # --autocast bf16: PyTorch's own mixed precision on the CPU (oneDNN bf16 matmuls, on AMX or
    # AVX512-BF16 where the CPU has them; fp32 master weights), the peer of `--gemm bf16`.
    autocast = torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.autocast == "bf16")

    def step(batch):
        src, tgt_in, tgt_out = batch
        with autocast:
            logits = model(src, tgt_in)
        loss = F.cross_entropy(logits.reshape(-1, cfg["vocab_size"]), tgt_out.reshape(-1),
                               ignore_index=PAD, label_smoothing=cfg["label_smoothing"])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss.item()

    for batch in batches[:args.warmup]:
        step(batch)
    timed = batches[args.warmup:]
    start, cpu_start = time.perf_counter(), time.process_time()
    for batch in timed:
        loss = step(batch)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start  # all threads; shows contention from others
    blas, malloc = runtime_libraries()
    tgt_tokens = sum(int((b[2] != PAD).sum()) for b in timed)
    src_tokens = sum(int((b[0] != PAD).sum()) for b in timed)
    return {
        "threads": threads, "blas_threads": blas_threads, "steps": len(timed), "batch": args.batch,
        "src_len": int(timed[0][0].shape[1]), "tgt_len": int(timed[0][1].shape[1]),
        "target_tokens_per_step": tgt_tokens / len(timed),
        "seconds_per_step": round(seconds / len(timed), 4),
        "cpu_seconds_per_step": round(cpu_seconds / len(timed), 4),
        "target_tokens_per_s": round(tgt_tokens / seconds, 1),
        "tokens_per_s": round((tgt_tokens + src_tokens) / seconds, 1),
        "preset": args.preset, "autocast": args.autocast,
        "last_loss": round(loss, 4), "torch": torch.__version__, "blas": blas, "malloc": malloc,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=128, help="sentences per batch")
    parser.add_argument("--src-len", type=int, default=32, help="source tokens incl. EOS (random data)")
    parser.add_argument("--tgt-len", type=int, default=32, help="target tokens incl. BOS/EOS (random data)")
    parser.add_argument("--steps", type=int, default=5, help="timed steps per thread count")
    parser.add_argument("--warmup", type=int, default=1, help="untimed steps first")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--data", help="directory with train.en/train.es (real sentences)")
    parser.add_argument("--spm", help="SentencePiece model for --data")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="small", help="model size (default small)")
    parser.add_argument("--autocast", choices=["off", "bf16"], default="off",
                        help="bf16: torch.autocast on the CPU (mixed precision), else float32")
    args = parser.parse_args()
    cfg = PRESETS[args.preset]
    try:
        threads = [int(t) for t in args.threads.split(",")]
    except ValueError:
        parser.error("--threads must be comma-separated integers")
    if min(threads) < 1 or args.batch < 1 or args.steps < 1 or args.warmup < 0:
        parser.error("--threads, --batch and --steps must be >= 1, --warmup >= 0")
    if not 2 <= args.src_len <= cfg["max_len"] or not 2 <= args.tgt_len <= cfg["max_len"]:
        parser.error("--src-len and --tgt-len must be in [2, %d]" % cfg["max_len"])
    if (args.data is None) != (args.spm is None):
        parser.error("--data and --spm go together")

    count = args.warmup + args.steps
    if args.data:
        batches = real_batches(args, cfg, count)
    else:
        batches = random_batches(args, cfg, count, torch.Generator().manual_seed(0))
    for n in threads:
        print(json.dumps(measure(args, cfg, batches, n)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
