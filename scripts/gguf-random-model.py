#!/usr/bin/env python3
"""Write a random-weight GGUF model with the shape of a catalog model, for llama-bench ground truth.

  scripts/gguf-random-model.py --gguf-py LLAMA_CPP/gguf-py --model data/models/qwen2.5-0.5b.yaml \
      --out /tmp/qwen2.5-0.5b-f16.gguf [--type f16|bf16|f32] [--layers N] [--vocab N] [--seed S]

The weights are Gaussian noise (std 0.02): llama-bench's speed depends on the shapes and the
formats, not on the values. The model is written as llama.cpp's `llama` architecture (dense
decoder, SwiGLU, RoPE, GQA, RMSNorm); biases and tied embeddings are ignored, so a model whose
catalog entry has them is approximated (stated in the rows this feeds). Quantised variants
(Q8_0, Q4_0) come from `llama-quantize` on this file. The vocabulary is `no_vocab` with the catalog's
size, which llama.cpp accepts for benchmarking. Needs numpy (Debian: python3-numpy) and the gguf
package of a llama.cpp checkout; writes nothing else.
"""
import argparse
import re
import sys


def read_shape(path):
    """The few keys of a catalog model YAML this needs (flat `key: value` lines)."""
    keys = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([a-z_]+):\s*([^#\n]+)", line)
            if m:
                keys[m.group(1)] = m.group(2).strip().strip('"')
    need = ["name", "layers", "hidden", "heads", "ffn_hidden", "vocab"]
    missing = [k for k in need if k not in keys]
    if missing:
        sys.exit(f"{path}: expected keys {missing} (a dense decoder from data/models/)")
    if keys.get("arch", "decoder") != "decoder" or "moe" in keys:
        sys.exit(f"{path}: only dense decoders are supported")
    shape = {k: int(float(keys[k])) for k in need[1:]}
    shape["name"] = keys["name"]
    shape["kv_heads"] = int(float(keys.get("kv_heads", keys["heads"])))
    shape["head_dim"] = int(float(keys.get("head_dim", shape["hidden"] // shape["heads"])))
    shape["rope_theta"] = float(keys.get("rope_theta", 10000.0))
    return shape


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gguf-py", required=True, help="gguf-py folder of the llama.cpp checkout")
    ap.add_argument("--model", required=True, help="catalog model YAML (data/models/*.yaml)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--type", default="f16", choices=["f16", "bf16", "f32"])
    ap.add_argument("--layers", type=int, default=0, help="override the layer count (smoke tests)")
    ap.add_argument("--vocab", type=int, default=0, help="override the vocabulary (smoke tests)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    sys.path.insert(0, a.gguf_py)
    import numpy as np
    import gguf

    s = read_shape(a.model)
    if a.layers > 0:
        s["layers"] = a.layers
    if a.vocab > 0:
        s["vocab"] = a.vocab
    rng = np.random.default_rng(a.seed)
    qtype = {"f16": gguf.GGMLQuantizationType.F16, "bf16": gguf.GGMLQuantizationType.BF16,
             "f32": gguf.GGMLQuantizationType.F32}[a.type]
    ftype = {"f16": gguf.LlamaFileType.MOSTLY_F16, "bf16": gguf.LlamaFileType.MOSTLY_BF16,
             "f32": gguf.LlamaFileType.ALL_F32}[a.type]

    def weight(rows, cols):
        w = rng.standard_normal((rows, cols), dtype=np.float32) * np.float32(0.02)
        if a.type == "f16":
            return w.astype(np.float16), None
        if a.type == "bf16":
            # bf16 = the high 16 bits of fp32 (round to nearest even).
            u = w.view(np.uint32)
            u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
            return u.astype(np.uint16).view(np.uint8).reshape(rows, cols * 2), qtype
        return w, None

    h, L, nh, nkv, d, f, V = (s["hidden"], s["layers"], s["heads"], s["kv_heads"], s["head_dim"],
                              s["ffn_hidden"], s["vocab"])
    w = gguf.GGUFWriter(a.out, "llama")
    w.add_name(f"{s['name']} (random weights, infercap scripts/gguf-random-model.py)")
    w.add_context_length(8192)
    w.add_embedding_length(h)
    w.add_block_count(L)
    w.add_feed_forward_length(f)
    w.add_head_count(nh)
    w.add_head_count_kv(nkv)
    w.add_key_length(d)
    w.add_value_length(d)
    w.add_rope_dimension_count(d)
    w.add_rope_freq_base(s["rope_theta"])
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(ftype)
    w.add_vocab_size(V)
    w.add_tokenizer_model("no_vocab")

    def add(name, arr_q):
        arr, raw = arr_q
        if raw is not None:
            w.add_tensor(name, arr, raw_dtype=raw)
        else:
            w.add_tensor(name, arr)

    ones = np.ones(h, dtype=np.float32)
    add("token_embd.weight", weight(V, h))
    for i in range(L):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", ones)
        add(p + "attn_q.weight", weight(nh * d, h))
        add(p + "attn_k.weight", weight(nkv * d, h))
        add(p + "attn_v.weight", weight(nkv * d, h))
        add(p + "attn_output.weight", weight(h, nh * d))
        w.add_tensor(p + "ffn_norm.weight", ones)
        add(p + "ffn_gate.weight", weight(f, h))
        add(p + "ffn_up.weight", weight(f, h))
        add(p + "ffn_down.weight", weight(h, f))
    w.add_tensor("output_norm.weight", ones)
    add("output.weight", weight(V, h))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"wrote {a.out}: {s['name']} shape, {L} layers, {a.type}")


if __name__ == "__main__":
    main()
