#!/usr/bin/python3
"""Per-token decoder latency of a PocketMT checkpoint run by PyTorch: the peer in the comparison.

The same weights as the .pmt exported from the checkpoint, run eagerly by PyTorch (Debian's
python3-torch) in fp32 or with torch's dynamic int8 quantization of every nn.Linear, batch 1,
greedy, with an efficient incremental decoder: a preallocated self-attention key/value cache per
layer and cross-attention keys/values computed once per sentence, so step t costs O(t), not
O(t^2). The Model takes batches (bench/torch_translate_file.py translates files with it); this
benchmark runs batch 1. EOS does not stop the loop: exactly --gen-len tokens are generated so every position is
timed. --check first verifies that the incremental decoder's logits equal a full (parallel,
causally masked) recomputation.

  /usr/bin/python3 bench/torch_decode_bench.py CHECKPOINT --precision int8 --threads 1 --json out.json
"""
import argparse
import json
import math
import os
import resource
import statistics
import struct
import sys
import time

# The qnnpack engine logs a warning on every dynamic-int8 call (torch's dynamic Linear hard-codes
# reduce_range): C++ log messages below errors are dropped. Must precede the import. Debian's torch
# logs through glog, which reads its own variable.
os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
os.environ.setdefault("GLOG_minloglevel", "2")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402


def read_safetensors(path):
    """Returns (metadata dict, {name: float32 tensor}) of a safetensors file (F32 only)."""
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + header_len])
    metadata = header.pop("__metadata__", {})
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise ValueError(f"{path}: tensor {name} has dtype {info['dtype']}, expected F32")
        begin, end = info["data_offsets"]
        flat = torch.frombuffer(bytearray(data[base + begin:base + end]), dtype=torch.float32)
        tensors[name] = flat.reshape(info["shape"])
    return metadata, tensors


def linear(weight, bias=None):
    layer = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None)
    layer.weight = nn.Parameter(weight, requires_grad=False)  # shares the checkpoint's storage
    if bias is not None:
        layer.bias = nn.Parameter(bias, requires_grad=False)
    return layer


def attend(q, k, v, causal, mask=None):
    """Scaled dot-product attention: q [B, H, Lq, dh] (already scaled), k, v [B, H, Lk, dh].
    causal: query i is the last of the Lq newest positions and sees keys up to its own.
    mask: None or [B, 1, 1, Lk], added to the scores (-inf on a padded source position)."""
    scores = torch.matmul(q, k.transpose(-1, -2))
    if mask is not None:
        scores = scores + mask
    if causal and q.shape[2] > 1:
        lq, lk = q.shape[2], k.shape[2]
        hidden = torch.ones(lq, lk, dtype=torch.bool).triu(lk - lq + 1)
        scores.masked_fill_(hidden, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def padding_mask(lengths, width):
    """Additive key mask [B, 1, 1, width] for sources of `lengths` padded to `width`; None when
    nothing is padded (batch 1), which spares the addition."""
    if all(n == width for n in lengths):
        return None
    padded = torch.arange(width)[None, :] >= torch.tensor(lengths)[:, None]
    return torch.zeros(padded.shape).masked_fill_(padded, float("-inf"))[:, None, None, :]


class Model(nn.Module):
    """The PocketMT Transformer (README tensor names), post-LN or pre-LN per the config. Every
    call takes a batch: ids [B, L], activations [B, L, D]."""

    def __init__(self, meta, w):
        super().__init__()
        self.d = int(meta["d_model"])
        self.h = int(meta["n_heads"])
        self.dh = self.d // self.h
        self.pre_ln = meta["pre_ln"] == "1"
        self.eps = float(meta["ln_eps"])
        self.bos, self.eos = int(meta["bos_id"]), int(meta["eos_id"])
        self.max_len = int(meta["max_len"])
        self.embed = w["embed.weight"]
        self.out_proj = linear(self.embed)  # shared with the embedding, no bias
        pos = torch.arange(self.max_len, dtype=torch.float64)[:, None]
        freq = torch.pow(10000.0, -torch.arange(0, self.d, 2, dtype=torch.float64) / self.d)
        pe = torch.zeros(self.max_len, self.d, dtype=torch.float64)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
        self.pe = pe.float()
        n_enc, n_dec = int(meta["n_enc_layers"]), int(meta["n_dec_layers"])
        self.enc = nn.ModuleList(self._layer(w, f"encoder.layers.{i}", cross=False) for i in range(n_enc))
        self.dec = nn.ModuleList(self._layer(w, f"decoder.layers.{i}", cross=True) for i in range(n_dec))
        self.final = {side: (w[f"{side}.norm.weight"], w[f"{side}.norm.bias"])
                      for side in ("encoder", "decoder") if self.pre_ln}

    def _layer(self, w, p, cross):
        d = self.d
        m = nn.Module()
        m.qkv = linear(w[f"{p}.self_attn.in_proj_weight"], w[f"{p}.self_attn.in_proj_bias"])
        m.sa_out = linear(w[f"{p}.self_attn.out_proj.weight"], w[f"{p}.self_attn.out_proj.bias"])
        if cross:
            iw, ib = w[f"{p}.multihead_attn.in_proj_weight"], w[f"{p}.multihead_attn.in_proj_bias"]
            m.ca_q, m.ca_kv = linear(iw[:d], ib[:d]), linear(iw[d:], ib[d:])
            m.ca_out = linear(w[f"{p}.multihead_attn.out_proj.weight"], w[f"{p}.multihead_attn.out_proj.bias"])
        m.ff1 = linear(w[f"{p}.linear1.weight"], w[f"{p}.linear1.bias"])
        m.ff2 = linear(w[f"{p}.linear2.weight"], w[f"{p}.linear2.bias"])
        m.norms = [(w[f"{p}.norm{i}.weight"], w[f"{p}.norm{i}.bias"]) for i in ((1, 2, 3) if cross else (1, 2))]
        return m

    def _norm(self, x, wb):
        return F.layer_norm(x, (self.d,), wb[0], wb[1], self.eps)

    def _sublayer(self, x, norm, fn):
        if self.pre_ln:
            return x + fn(self._norm(x, norm))
        return self._norm(x + fn(x), norm)

    def _heads(self, x):  # [B, L, D] -> [B, H, L, dh]
        return x.view(x.shape[0], x.shape[1], self.h, self.dh).transpose(1, 2)

    def _merge(self, x):  # [B, H, L, dh] -> [B, L, D]
        return x.transpose(1, 2).reshape(x.shape[0], x.shape[2], self.d)

    def _embed(self, ids, pos0):
        return self.embed[ids] * math.sqrt(self.d) + self.pe[pos0:pos0 + ids.shape[1]]

    def encode(self, src, mask=None):
        """src: ids [B, S] (EOS included, padded after it), mask: padding_mask(...) -> memory [B, S, D]."""
        x = self._embed(src, 0)
        scale = 1.0 / math.sqrt(self.dh)
        for m in self.enc:
            def self_attn(y, m=m):
                q, k, v = m.qkv(y).split(self.d, dim=-1)
                a = attend(self._heads(q) * scale, self._heads(k), self._heads(v), False, mask)
                return m.sa_out(self._merge(a))
            x = self._sublayer(x, m.norms[0], self_attn)
            x = self._sublayer(x, m.norms[1], lambda y, m=m: m.ff2(torch.relu(m.ff1(y))))
        return self._norm(x, self.final["encoder"]) if self.pre_ln else x

    def start(self, memory, max_steps, mask=None):
        """Decoder state of a batch: cross-attention K/V of every layer (computed once), an empty
        self-attention cache of max_steps positions, and the source padding mask."""
        layers = []
        for m in self.dec:
            k, v = m.ca_kv(memory).split(self.d, dim=-1)
            cache = torch.zeros(2, memory.shape[0], self.h, max_steps, self.dh)
            layers.append((self._heads(k).contiguous(), self._heads(v).contiguous(), cache))
        return layers, mask

    @staticmethod
    def keep_rows(state, rows):
        """The state of batch rows `rows` (index tensor) only: finished sentences leave the batch
        so that later steps compute nothing for them."""
        layers, mask = state
        return [(ck[rows], cv[rows], cache[:, rows]) for ck, cv, cache in layers], \
            None if mask is None else mask[rows]

    def decode(self, ids, pos0, state):
        """Runs the decoder on ids [B, L], the tokens at positions pos0.. (1 per greedy step),
        given the cache of positions < pos0, fills the cache, returns logits [B, L, V]."""
        x = self._embed(ids, pos0)
        scale = 1.0 / math.sqrt(self.dh)
        end = pos0 + ids.shape[1]
        layers, mask = state
        for m, (ck, cv, cache) in zip(self.dec, layers):
            def self_attn(y, m=m, cache=cache):
                q, k, v = m.qkv(y).split(self.d, dim=-1)
                cache[0, :, :, pos0:end] = self._heads(k)
                cache[1, :, :, pos0:end] = self._heads(v)
                a = attend(self._heads(q) * scale, cache[0, :, :, :end], cache[1, :, :, :end], True)
                return m.sa_out(self._merge(a))

            def cross_attn(y, m=m, ck=ck, cv=cv):
                return m.ca_out(self._merge(attend(self._heads(m.ca_q(y)) * scale, ck, cv, False, mask)))
            x = self._sublayer(x, m.norms[0], self_attn)
            x = self._sublayer(x, m.norms[1], cross_attn)
            x = self._sublayer(x, m.norms[2], lambda y, m=m: m.ff2(torch.relu(m.ff1(y))))
        if self.pre_ln:
            x = self._norm(x, self.final["decoder"])
        return self.out_proj(x)


# Wall time by default; --clock cpu: the process's CPU time, which other processes' load does not
# inflate (the uncontended latency on a busy machine, meaningful with 1 thread).
clock = time.perf_counter


def greedy_timed(model, src, steps):
    """One sentence: returns (encoder seconds incl. cross K/V, [seconds per step], tokens)."""
    t0 = clock()
    state = model.start(model.encode(src[None]), steps)
    t_enc = clock() - t0
    tok, times, out = torch.tensor([[model.bos]]), [], []
    for pos in range(steps):
        t = clock()
        tok = model.decode(tok, pos, state)[0].argmax(dim=-1, keepdim=True)
        out.append(int(tok.item()))  # what a real loop does to test for EOS
        times.append(clock() - t)
    return t_enc, times, out


def check_incremental(model, src, steps):
    """Max |incremental - full recomputation| over the logits of a greedy run of `steps` tokens."""
    memory = model.encode(src[None])
    state = model.start(memory, steps)
    tok, ids, inc = torch.tensor([[model.bos]]), [model.bos], []
    for pos in range(steps):
        logits = model.decode(tok, pos, state)[0]
        inc.append(logits[0])
        tok = logits.argmax(dim=-1, keepdim=True)
        ids.append(int(tok.item()))
    full = model.decode(torch.tensor([ids[:-1]]), 0, model.start(memory, steps))[0]
    return (torch.stack(inc) - full).abs().max().item()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", help="safetensors checkpoint (README tensor names, config in __metadata__)")
    ap.add_argument("--precision", choices=("fp32", "int8"), default="fp32",
                    help="int8: torch.ao.quantization.quantize_dynamic on every nn.Linear")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    ap.add_argument("--src-len", type=int, default=32, help="source tokens, EOS included")
    ap.add_argument("--gen-len", type=int, default=128, help="generated tokens per sentence (EOS ignored)")
    ap.add_argument("--repeats", type=int, default=10, help="timed sentences; medians are taken over them")
    ap.add_argument("--positions", default="1,16,64,128", help="positions (1-based steps) to print")
    ap.add_argument("--qengine", help="torch.backends.quantized.engine (default: torch's choice)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", action="store_true", help="verify the KV cache against full recomputation")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="cpu: process CPU time, the uncontended latency on a busy machine (use with 1 thread)")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args()
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    positions = [int(p) for p in args.positions.split(",") if p]
    if args.threads < 1 or args.src_len < 1 or args.gen_len < 1 or args.repeats < 1 or \
            any(p < 1 or p > args.gen_len for p in positions):
        ap.error("threads, src-len, gen-len, repeats must be >= 1 and positions within 1..gen-len")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.qengine:
        torch.backends.quantized.engine = args.qengine
    t0 = clock()
    try:
        meta, weights = read_safetensors(args.checkpoint)
        model = Model(meta, weights).eval()
    except (OSError, ValueError, KeyError) as e:
        print(f"torch_decode_bench: cannot load {args.checkpoint}: {e}", file=sys.stderr)
        return 2
    load_s = clock() - t0
    del weights
    if args.gen_len > model.max_len or args.src_len > model.max_len:
        ap.error(f"src-len and gen-len must be <= the model's max_len {model.max_len}")
    vocab = model.embed.shape[0]
    src = torch.cat([torch.randint(4, vocab, (args.src_len - 1,)), torch.tensor([model.eos])])
    if args.check:  # on the fp32 model: dynamic int8 quantizes each call's rows differently
        with torch.inference_mode():
            err = check_incremental(model, src, min(args.gen_len, 16))
        print(f"check: max |incremental - full| logit difference {err:.2e}")
        if err > 1e-3:
            print("torch_decode_bench: incremental decoder disagrees with full recomputation", file=sys.stderr)
            return 1
    if args.precision == "int8":
        t0 = clock()
        model = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
        load_s += clock() - t0

    with torch.inference_mode():
        greedy_timed(model, src, args.gen_len)  # warm-up
        runs = [greedy_timed(model, src, args.gen_len) for _ in range(args.repeats)]

    ms = 1e3
    per_step = [statistics.median(r[1][i] for r in runs) * ms for i in range(args.gen_len)]
    result = {
        "engine": "pytorch",
        "torch": torch.__version__,
        "precision": args.precision,
        "qengine": torch.backends.quantized.engine if args.precision == "int8" else None,
        "threads": args.threads,
        "clock": args.clock,
        "src_len": args.src_len,
        "beam": 1,
        "gen_len": args.gen_len,
        "load_ms": load_s * ms,
        "encoder_ms": statistics.median(r[0] for r in runs) * ms,
        "first_token_ms": statistics.median(r[0] + r[1][0] for r in runs) * ms,
        "per_token_ms_median": statistics.median(t * ms for r in runs for t in r[1]),
        "per_token_ms_p90": statistics.quantiles([t * ms for r in runs for t in r[1]], n=10)[-1],
        "per_step_ms": per_step,
        "positions": {str(p): per_step[p - 1] for p in positions},
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    result["tokens_per_s"] = 1e3 / result["per_token_ms_median"]
    eng = f" ({result['qengine']})" if result["qengine"] else ""
    print(f"pytorch {torch.__version__} {args.precision}{eng}, {args.threads} thread(s), source {args.src_len} "
          f"tokens, {args.gen_len} generated, median of {args.repeats}")
    print(f"  encoder {result['encoder_ms']:.3f} ms, first token {result['first_token_ms']:.3f} ms, "
          f"per token {result['per_token_ms_median']:.3f} ms (p90 {result['per_token_ms_p90']:.3f}), "
          f"{result['tokens_per_s']:.0f} tokens/s, peak RSS {result['peak_rss_mb']:.1f} MB")
    print("  per token at position " + ", ".join(f"{p}: {per_step[p - 1]:.3f} ms" for p in positions))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
