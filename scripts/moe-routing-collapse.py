#!/usr/bin/env python3
"""Which experts does Mixtral 8x7B's router pick when the weights are TensorRT-LLM's random ones?

TensorRT-LLM's v0.9.0 performance page built its engines from a model config without a
checkpoint (`trtllm-build --model_config`), and gptSessionBenchmark fed random token ids. Weights
no checkpoint sets are filled by `Parameter.xavier_init` (tensorrt_llm/parameter.py, the same
function in v0.7.1 and in v0.10.0.dev2024043000, the releases either side of v0.9.0):

    v_range = sqrt(6) / sqrt(rows + cols)     (0.1 for 1-D weights: the norms)
    value   = (torch.randn(shape) * 2 - 1) * v_range

a normal of mean -v_range and standard deviation 2 v_range (the comment beside it says
"N[-v_range, v_range]"). The common mean makes every matrix product add one large component
along the all-ones direction, whatever the input, so after the first layer all tokens' hidden
states point the same way and the router sends every token of a step to the same two experts.
`--init uniform` draws U[-v_range, v_range] instead (zero mean, TensorRT-LLM's later code for
FP8 weights) for comparison.

This script runs the forward pass of Mixtral 8x7B's shapes (hidden 4096, 32 query / 8 KV heads
of 128, 8 experts of 14336, top-2) in float32 with numpy for a few tokens and layers and prints
each layer's mean cosine between tokens' residual streams and the experts each token picks. It
computes only the experts some token picks, so a layer costs about one to two seconds per
expert on one core. `--separate` gives every token its own sequence (a decode batch: no token
attends to another).

    python3 scripts/moe-routing-collapse.py --tokens 16 --layers 4
    python3 scripts/moe-routing-collapse.py --tokens 16 --layers 4 --separate
    python3 scripts/moe-routing-collapse.py --tokens 16 --layers 4 --init uniform

Needs numpy (Debian: python3-numpy). Prints to stdout; writes nothing.
"""
import argparse
import math
import sys

import numpy as np

HIDDEN, FFN, EXPERTS, TOP_K = 4096, 14336, 8, 2
HEADS, KV_HEADS, HEAD_DIM, VOCAB = 32, 8, 128, 32000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", type=int, default=16, help="tokens in the step (default 16)")
    ap.add_argument("--layers", type=int, default=4, help="layers to run (default 4 of 32)")
    ap.add_argument("--separate", action="store_true", help="one sequence per token")
    ap.add_argument("--init", choices=["trtllm", "uniform"], default="trtllm")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.tokens < 2 or a.layers < 1:
        ap.error("--tokens needs at least 2 and --layers at least 1")
    rng = np.random.default_rng(a.seed)

    def weights(shape):
        v = math.sqrt(6) / math.sqrt(shape[0] + shape[1]) if len(shape) == 2 else 0.1
        if a.init == "trtllm":
            return (rng.standard_normal(shape, dtype=np.float32) * 2 - 1) * v
        return (rng.random(shape, dtype=np.float32) * 2 - 1) * v

    def rms_norm(x, w):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w

    def mean_cos(x):
        n = x / np.linalg.norm(x, axis=1, keepdims=True)
        c = n @ n.T
        t = len(x)
        return (c.sum() - t) / (t * t - t)

    t = a.tokens
    ids = rng.integers(0, VOCAB, t)
    x = weights((VOCAB, HIDDEN))[ids]
    # Causal within one sequence; with --separate each token sees only itself.
    mask = np.triu(np.full((t, t), -np.inf), 1)
    if a.separate:
        mask = mask + np.tril(np.full((t, t), -np.inf), -1)
    print(f"init {a.init}, {t} tokens ({'one sequence each' if a.separate else 'one sequence'})")
    print(f"embeddings: mean cosine between tokens {mean_cos(x):.3f}")
    group = HEADS // KV_HEADS
    for layer in range(a.layers):
        h = rms_norm(x, weights((HIDDEN,)))
        q = (h @ weights((HEADS * HEAD_DIM, HIDDEN)).T).reshape(t, HEADS, HEAD_DIM)
        k = (h @ weights((KV_HEADS * HEAD_DIM, HIDDEN)).T).reshape(t, KV_HEADS, HEAD_DIM)
        v = (h @ weights((KV_HEADS * HEAD_DIM, HIDDEN)).T).reshape(t, KV_HEADS, HEAD_DIM)
        att = np.empty((t, HEADS, HEAD_DIM), np.float32)
        for head in range(HEADS):
            s = q[:, head] @ k[:, head // group].T / math.sqrt(HEAD_DIM) + mask
            p = np.exp(s - s.max(1, keepdims=True))
            att[:, head] = (p / p.sum(1, keepdims=True)) @ v[:, head // group]
        x = x + att.reshape(t, -1) @ weights((HIDDEN, HEADS * HEAD_DIM)).T
        h = rms_norm(x, weights((HIDDEN,)))
        logits = h @ weights((EXPERTS, HIDDEN)).T
        top = np.argsort(-logits, axis=1)[:, :TOP_K]
        chosen = sorted({int(e) for e in top.ravel()})
        picks = sorted({tuple(sorted(int(e) for e in row)) for row in top})
        print(f"layer {layer}: mean cosine {mean_cos(x):.4f}, max |x| {abs(x).max():.3g}, "
              f"expert pairs picked {picks}, distinct experts {len(chosen)} of {EXPERTS}")
        sys.stdout.flush()
        moe = np.zeros_like(x)
        for e in chosen:
            w1, w3, w2 = weights((FFN, HIDDEN)), weights((FFN, HIDDEN)), weights((HIDDEN, FFN))
            for i in range(t):
                if e not in top[i]:
                    continue
                g = np.exp(logits[i, top[i]] - logits[i, top[i]].max())
                gate = g[list(top[i]).index(e)] / g.sum()
                u = h[i] @ w1.T
                moe[i] += gate * (((u / (1 + np.exp(-u))) * (h[i] @ w3.T)) @ w2.T)
        x = x + moe
    return 0


if __name__ == "__main__":
    sys.exit(main())
