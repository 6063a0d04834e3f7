#!/usr/bin/python3
"""Independent PyTorch reference of the PocketMT Transformer; writes the trainer's test fixtures.

Regenerate (Debian python3-torch, not a pyenv Python; deterministic, a few seconds):

    /usr/bin/python3 tests/reference/transformer_reference.py            # writes tests/fixtures/
    /usr/bin/python3 tests/reference/transformer_reference.py --out DIR  # elsewhere

Outputs: tiny_reference.safetensors (post-LN) and tiny_reference_preln.safetensors (pre-LN),
both for the `tiny` preset (vocab 64, d_model 32, 4 heads, d_ff 64, 2+2 layers, max_len 64,
ln_eps 1e-5, label_smoothing 0.1) with dropout 0.

Fixture format (safetensors, every tensor F32, in this order):
  __metadata__         every ModelConfig field, keys and formatting as config_to_metadata()
                       in converter/common/safetensors.cc (ints decimal, floats %.9g, pre_ln 0/1)
  <param name>         the initial weights, named and shaped as in README.md; random, with
                       random biases and LayerNorm parameters so every gradient is non-trivial
  batch.src            [B, S] token ids stored as floats; each row: tokens, EOS, then pads
  batch.tgt_in         [B, T] BOS + tokens, then pads
  batch.tgt_out        [B, T] tokens + EOS, then pads (tgt_in shifted left)
  expected.loss        [1] mean label-smoothed cross-entropy over non-pad tgt_out tokens
  expected.logits      [B, T, V] decoder logits at every position, pad positions included
  grad.<param name>    d(expected.loss)/d(param) for every parameter

Semantics (the paper's Transformer, dropout off): inputs = embed[id] * sqrt(D) + PE with
PE[pos, 2i] = sin(pos / 10000^(2i/D)), PE[pos, 2i+1] = cos(same); attention masks pad keys in
encoder self-attention and cross-attention; decoder self-attention is causal only (pad query
rows of the target are therefore not pad-masked, which only affects logits at pad positions);
ReLU FFN; LayerNorm with ln_eps; logits = final decoder states @ embed^T (no bias); label
smoothing puts 1 - eps + eps/V on the target and eps/V on every other class (all V classes,
pad included: F.cross_entropy(label_smoothing=eps, ignore_index=pad)).
Everything is computed in float64 from the float32-rounded weights (and float32-rounded
ln_eps / label_smoothing, as the C++ side reads them) and stored as float32.

The script cross-checks itself against torch.nn.Transformer and F.cross_entropy before writing.
"""

import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

PAD, UNK, BOS, EOS = 0, 1, 2, 3


def f32(x):
    """x rounded to float32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def tiny_config(pre_ln):
    return {
        "vocab_size": 64, "d_model": 32, "n_heads": 4, "d_ff": 64,
        "n_enc_layers": 2, "n_dec_layers": 2, "max_len": 64,
        "dropout": 0.0, "label_smoothing": f32(0.1), "pre_ln": pre_ln, "ln_eps": f32(1e-5),
        "pad_id": PAD, "unk_id": UNK, "bos_id": BOS, "eos_id": EOS,
    }


def config_to_metadata(cfg):
    """Same strings as the C++ config_to_metadata()."""
    out = {}
    for key, value in cfg.items():
        if isinstance(value, bool):
            out[key] = "1" if value else "0"
        elif isinstance(value, float):
            out[key] = "%.9g" % f32(value)
        else:
            out[key] = str(value)
    return out


# ---- parameters -----------------------------------------------------------------------------

def attention_shapes(prefix, d):
    return [(prefix + ".in_proj_weight", [3 * d, d]), (prefix + ".in_proj_bias", [3 * d]),
            (prefix + ".out_proj.weight", [d, d]), (prefix + ".out_proj.bias", [d])]


def ffn_shapes(prefix, d, ff):
    return [(prefix + ".linear1.weight", [ff, d]), (prefix + ".linear1.bias", [ff]),
            (prefix + ".linear2.weight", [d, ff]), (prefix + ".linear2.bias", [d])]


def norm_shapes(name, d):
    return [(name + ".weight", [d]), (name + ".bias", [d])]


def param_shapes(cfg):
    """(name, shape) of every parameter, in checkpoint order (README.md)."""
    d, ff = cfg["d_model"], cfg["d_ff"]
    shapes = [("embed.weight", [cfg["vocab_size"], d])]
    for i in range(cfg["n_enc_layers"]):
        p = "encoder.layers.%d" % i
        shapes += attention_shapes(p + ".self_attn", d) + ffn_shapes(p, d, ff)
        shapes += norm_shapes(p + ".norm1", d) + norm_shapes(p + ".norm2", d)
    if cfg["pre_ln"]:
        shapes += norm_shapes("encoder.norm", d)
    for i in range(cfg["n_dec_layers"]):
        p = "decoder.layers.%d" % i
        shapes += attention_shapes(p + ".self_attn", d) + attention_shapes(p + ".multihead_attn", d)
        shapes += ffn_shapes(p, d, ff)
        shapes += norm_shapes(p + ".norm1", d) + norm_shapes(p + ".norm2", d)
        shapes += norm_shapes(p + ".norm3", d)
    if cfg["pre_ln"]:
        shapes += norm_shapes("decoder.norm", d)
    return shapes


def init_params(cfg, seed):
    """Random float32 values (returned as float64 leaves): Xavier-uniform matrices, N(0, D^-0.5)
    embeddings, N(0, 0.1) biases, LayerNorm weight 1 + N(0, 0.1) and bias N(0, 0.1)."""
    gen = torch.Generator().manual_seed(seed)
    params = {}
    for name, shape in param_shapes(cfg):
        if name == "embed.weight":
            t = torch.randn(shape, generator=gen) * cfg["d_model"] ** -0.5
        elif len(shape) == 2:
            bound = math.sqrt(6.0 / (shape[0] + shape[1]))
            t = (torch.rand(shape, generator=gen) * 2 - 1) * bound
        elif ".norm" in name and name.endswith(".weight"):
            t = 1 + 0.1 * torch.randn(shape, generator=gen)
        else:
            t = 0.1 * torch.randn(shape, generator=gen)
        params[name] = t.float().double().requires_grad_()
    return params


# ---- model ----------------------------------------------------------------------------------

def positional_encoding(length, d):
    pos = torch.arange(length, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d, 2, dtype=torch.float64)[None, :]
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d)
    pe = torch.zeros(length, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe


def embed(ids, p, cfg):
    d = cfg["d_model"]
    return p["embed.weight"][ids] * math.sqrt(d) + positional_encoding(ids.shape[1], d)


def layer_norm(x, p, name, cfg):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)  # biased variance, as nn.LayerNorm
    return (x - mean) / torch.sqrt(var + cfg["ln_eps"]) * p[name + ".weight"] + p[name + ".bias"]


def attention(q_in, kv_in, p, prefix, cfg, key_pad=None, causal=False):
    """Multi-head attention. key_pad: [B, Sk] True where the key is padding."""
    d, h = cfg["d_model"], cfg["n_heads"]
    dh = d // h
    w, b = p[prefix + ".in_proj_weight"], p[prefix + ".in_proj_bias"]
    q = q_in @ w[:d].T + b[:d]
    k = kv_in @ w[d:2 * d].T + b[d:2 * d]
    v = kv_in @ w[2 * d:].T + b[2 * d:]

    def heads(x):  # [B, L, D] -> [B, H, L, dh]
        return x.reshape(x.shape[0], x.shape[1], h, dh).transpose(1, 2)

    scores = heads(q) @ heads(k).transpose(-1, -2) / math.sqrt(dh)  # [B, H, Lq, Lk]
    if key_pad is not None:
        scores = scores.masked_fill(key_pad[:, None, None, :], float("-inf"))
    if causal:
        lq, lk = scores.shape[-2:]
        future = torch.triu(torch.ones(lq, lk, dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(future, float("-inf"))
    ctx = torch.softmax(scores, dim=-1) @ heads(v)  # [B, H, Lq, dh]
    ctx = ctx.transpose(1, 2).reshape(q_in.shape[0], q_in.shape[1], d)
    return ctx @ p[prefix + ".out_proj.weight"].T + p[prefix + ".out_proj.bias"]


def ffn(x, p, prefix):
    hidden = torch.relu(x @ p[prefix + ".linear1.weight"].T + p[prefix + ".linear1.bias"])
    return hidden @ p[prefix + ".linear2.weight"].T + p[prefix + ".linear2.bias"]


def sublayer(x, fn, p, norm, cfg):
    """Residual block: post-LN LN(x + fn(x)) or pre-LN x + fn(LN(x))."""
    if cfg["pre_ln"]:
        return x + fn(layer_norm(x, p, norm, cfg))
    return layer_norm(x + fn(x), p, norm, cfg)


def forward(p, cfg, src, tgt_in):
    """Logits [B, T, V] (float64)."""
    src_pad = src == cfg["pad_id"]
    x = embed(src, p, cfg)
    for i in range(cfg["n_enc_layers"]):
        pre = "encoder.layers.%d" % i
        x = sublayer(x, lambda t: attention(t, t, p, pre + ".self_attn", cfg, key_pad=src_pad),
                     p, pre + ".norm1", cfg)
        x = sublayer(x, lambda t: ffn(t, p, pre), p, pre + ".norm2", cfg)
    memory = layer_norm(x, p, "encoder.norm", cfg) if cfg["pre_ln"] else x

    y = embed(tgt_in, p, cfg)
    for i in range(cfg["n_dec_layers"]):
        pre = "decoder.layers.%d" % i
        y = sublayer(y, lambda t: attention(t, t, p, pre + ".self_attn", cfg, causal=True),
                     p, pre + ".norm1", cfg)
        y = sublayer(y, lambda t: attention(t, memory, p, pre + ".multihead_attn", cfg, key_pad=src_pad),
                     p, pre + ".norm2", cfg)
        y = sublayer(y, lambda t: ffn(t, p, pre), p, pre + ".norm3", cfg)
    if cfg["pre_ln"]:
        y = layer_norm(y, p, "decoder.norm", cfg)
    return y @ p["embed.weight"].T


def smoothed_loss(logits, tgt_out, cfg):
    """Mean over non-pad targets of -sum_c q_c log p_c with q = (1-eps) one_hot + eps/V."""
    eps, vocab = cfg["label_smoothing"], cfg["vocab_size"]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    uniform = -logp.sum(-1) / vocab
    per_token = (1 - eps) * nll + eps * uniform
    mask = tgt_out != cfg["pad_id"]
    return per_token[mask].sum() / mask.sum()


# ---- batch ----------------------------------------------------------------------------------

def make_batch(cfg, src_lengths, tgt_lengths, seed):
    """Padded batch from random sentences (ids >= 4) of the given lengths (without EOS/BOS)."""
    gen = torch.Generator().manual_seed(seed)
    b = len(src_lengths)
    s, t = max(src_lengths) + 1, max(tgt_lengths) + 1
    src = torch.full((b, s), cfg["pad_id"], dtype=torch.long)
    tgt_in = torch.full((b, t), cfg["pad_id"], dtype=torch.long)
    tgt_out = torch.full((b, t), cfg["pad_id"], dtype=torch.long)
    for row, (ls, lt) in enumerate(zip(src_lengths, tgt_lengths)):
        words = torch.randint(4, cfg["vocab_size"], (ls,), generator=gen)
        src[row, :ls + 1] = torch.cat([words, torch.tensor([cfg["eos_id"]])])
        words = torch.randint(4, cfg["vocab_size"], (lt,), generator=gen)
        tgt_in[row, :lt + 1] = torch.cat([torch.tensor([cfg["bos_id"]]), words])
        tgt_out[row, :lt + 1] = torch.cat([words, torch.tensor([cfg["eos_id"]])])
    return src, tgt_in, tgt_out


# ---- cross-checks ---------------------------------------------------------------------------

def check_against_torch(p, cfg, src, tgt_in, tgt_out, logits, loss, grads):
    """Same numbers from torch.nn.Transformer and F.cross_entropy (independent code paths)."""
    model = torch.nn.Transformer(
        d_model=cfg["d_model"], nhead=cfg["n_heads"], num_encoder_layers=cfg["n_enc_layers"],
        num_decoder_layers=cfg["n_dec_layers"], dim_feedforward=cfg["d_ff"], dropout=0.0,
        layer_norm_eps=cfg["ln_eps"], batch_first=True, norm_first=cfg["pre_ln"]).double()
    if not cfg["pre_ln"]:  # nn.Transformer always has final norms; post-LN models have none
        model.encoder.norm = None
        model.decoder.norm = None
    state = {k: v.detach() for k, v in p.items() if k != "embed.weight"}
    model.load_state_dict(state, strict=True)
    model.train()  # dropout is 0; train mode avoids the inference fast path's nested tensors
    emb = p["embed.weight"].detach().clone().requires_grad_()
    d = cfg["d_model"]
    src_pad = src == cfg["pad_id"]
    out = model(emb[src] * math.sqrt(d) + positional_encoding(src.shape[1], d),
                emb[tgt_in] * math.sqrt(d) + positional_encoding(tgt_in.shape[1], d),
                tgt_mask=model.generate_square_subsequent_mask(tgt_in.shape[1]).double(),
                src_key_padding_mask=src_pad, memory_key_padding_mask=src_pad)
    torch_logits = out @ emb.T
    torch_loss = F.cross_entropy(torch_logits.reshape(-1, cfg["vocab_size"]), tgt_out.reshape(-1),
                                 ignore_index=cfg["pad_id"], label_smoothing=cfg["label_smoothing"])
    torch_loss.backward()
    torch_grads = {k: v.grad for k, v in model.named_parameters()}
    torch_grads["embed.weight"] = emb.grad
    assert torch.allclose(torch_logits, logits, rtol=0, atol=1e-10), "logits differ from nn.Transformer"
    assert abs(torch_loss.item() - loss.item()) < 1e-12, "loss differs from F.cross_entropy"
    assert set(torch_grads) == set(grads), "parameter names differ from nn.Transformer"
    for name, g in grads.items():
        assert torch.allclose(torch_grads[name], g, rtol=0, atol=1e-10), "gradient differs: " + name


def check_finite_difference(p, cfg, src, tgt_in, tgt_out, grads):
    """Central differences on a few entries, independent of autograd."""
    gen = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for name in ("embed.weight", "encoder.layers.0.self_attn.in_proj_weight",
                     "decoder.layers.1.multihead_attn.in_proj_bias", "decoder.layers.0.norm3.bias"):
            flat = p[name].view(-1)
            for idx in torch.randint(0, flat.numel(), (3,), generator=gen).tolist():
                h, old = 1e-6, flat[idx].item()
                flat[idx] = old + h
                up = smoothed_loss(forward(p, cfg, src, tgt_in), tgt_out, cfg).item()
                flat[idx] = old - h
                down = smoothed_loss(forward(p, cfg, src, tgt_in), tgt_out, cfg).item()
                flat[idx] = old
                numeric = (up - down) / (2 * h)
                assert abs(numeric - grads[name].view(-1)[idx].item()) < 1e-7, "finite difference: " + name


# ---- safetensors ----------------------------------------------------------------------------

def write_safetensors(path, metadata, tensors):
    """tensors: list of (name, float64/int tensor); stored as little-endian F32 in list order."""
    header = {"__metadata__": metadata}
    blobs, offset = [], 0
    for name, t in tensors:
        data = t.detach().cpu().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    os.replace(path + ".tmp", path)


def read_safetensors(path):
    """(metadata, {name: float32 numpy array}) for verifying what was written."""
    with open(path, "rb") as f:
        raw = f.read()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + size])
    metadata = header.pop("__metadata__")
    data = raw[8 + size:]
    out = {}
    for name, info in header.items():
        assert info["dtype"] == "F32"
        begin, end = info["data_offsets"]
        out[name] = np.frombuffer(data[begin:end], dtype="<f4").reshape(info["shape"])
    return metadata, out


# ---- main -----------------------------------------------------------------------------------

def build_fixture(path, pre_ln):
    cfg = tiny_config(pre_ln)
    params = init_params(cfg, seed=1234 if not pre_ln else 4321)
    src, tgt_in, tgt_out = make_batch(cfg, src_lengths=[7, 3, 5], tgt_lengths=[4, 8, 2], seed=99)

    logits = forward(params, cfg, src, tgt_in)
    loss = smoothed_loss(logits, tgt_out, cfg)
    loss.backward()
    grads = {k: v.grad.clone() for k, v in params.items()}
    for name, g in grads.items():
        assert g.abs().max() > 0, "zero gradient: " + name

    check_against_torch(params, cfg, src, tgt_in, tgt_out, logits.detach(), loss.detach(), grads)
    check_finite_difference(params, cfg, src, tgt_in, tgt_out, grads)

    tensors = [(name, params[name]) for name, _ in param_shapes(cfg)]
    tensors += [("batch.src", src), ("batch.tgt_in", tgt_in), ("batch.tgt_out", tgt_out),
                ("expected.loss", loss.detach().reshape(1)), ("expected.logits", logits.detach())]
    tensors += [("grad." + name, grads[name]) for name, _ in param_shapes(cfg)]
    metadata = config_to_metadata(cfg)
    write_safetensors(path, metadata, tensors)

    meta_back, back = read_safetensors(path)
    assert meta_back == metadata and list(back) == [name for name, _ in tensors]
    for name, t in tensors:
        assert np.array_equal(back[name], t.detach().numpy().astype(np.float32)), name
    print("%s: loss %.9f, %d tensors, %d bytes" % (path, loss.item(), len(tensors), os.path.getsize(path)))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "fixtures")),
                        help="output directory (default: tests/fixtures)")
    args = parser.parse_args()
    torch.set_default_dtype(torch.float64)
    build_fixture(os.path.join(args.out, "tiny_reference.safetensors"), pre_ln=False)
    build_fixture(os.path.join(args.out, "tiny_reference_preln.safetensors"), pre_ln=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
