#!/usr/bin/env python3
"""Times prefill and decode of the simulator catalog's model shapes on the GPU this runs on, in
PyTorch with random weights, and writes the figures as calibration rows.

    python3 calibration/torch_timing.py --hardware h200 --out rows.csv [--precision fp8] [--models ID ...]

Each model is built at its real shape (the catalog's layers, heads and head size; the FFN and
vocabulary sizes from the model's config.json, below) and filled with random numbers: no weights
are downloaded, and the time of a forward pass does not depend on the values (but for Mixtral's
routing, below). The layers are what
serving engines run: fused QKV and gate/up projections, RoPE, flash attention with grouped KV heads
over a KV cache, RMSNorm, SwiGLU (GeGLU for Gemma), and the LM head on the last token. Mixtral's
experts (bf16 only) run as a fused Triton kernel over the tokens routed to each (fused_moe.py), as
vLLM runs them; its random router spreads tokens near uniformly over them, as the simulator assumes.

Precisions, as the catalog names them: `bf16`, everything in bf16; `fp8-kv16`, every projection
and the LM head in FP8 (E4M3, per-tensor scales, `torch._scaled_mm` on FP8 activations), the KV
cache and the rest in bf16, as vLLM's `--quantization fp8` runs by default.

Scenarios, as calibration/README.md defines them:
- ttft: one prompt of `input` tokens, batch 1, to the first token's argmax; one CUDA graph.
- decode: each stream's tokens/s with `batch` streams at a context of input + output/2; one decode
  step as a CUDA graph, replayed (what vLLM and TensorRT-LLM do up to their graph batch sizes).
- static_batch: `batch` prompts of `input` tokens started together, run to `output` tokens each
  (prefill, then output - 1 decode steps); output tokens/s over the whole run. One CUDA graph per
  step, since the context grows each step. The log also has the same run done eagerly: its time
  against the graphs' shows how far Python's launch rate bounds eager PyTorch.

Writes one CSV row per figure (the columns of measurements.csv) to --out as it goes, and a JSON
line per figure with the raw timings to --log, so a run cut short keeps what it measured.
"""

import argparse
import csv
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
import yaml

CATALOG = Path(__file__).resolve().parent.parent / "src" / "sim" / "catalog.yaml"

# What the catalog does not hold: FFN width, vocabulary and layer style, from each model's
# config.json on Hugging Face. `extra_params_b` is what the catalog's params_b counts beyond the
# text decoder (Gemma 3's vision tower), so the parameter check compares like with like.
ARCHITECTURES = {
    "llama-2-7b": dict(ffn=11008, vocab=32000, style="llama"),
    "llama-3.1-8b": dict(ffn=14336, vocab=128256, style="llama"),
    "mistral-7b": dict(ffn=14336, vocab=32768, style="llama"),
    "qwen2.5-7b": dict(ffn=18944, vocab=152064, style="llama"),
    "gemma-3-27b": dict(ffn=21504, vocab=262208, style="gemma", tied=True, extra_params_b=0.4),
    "llama-3.3-70b": dict(ffn=28672, vocab=128256, style="llama"),
    "mixtral-8x7b": dict(ffn=14336, vocab=32000, style="llama"),
}
DEFAULT_MODELS = ["llama-3.1-8b", "qwen2.5-7b", "mistral-7b", "llama-2-7b", "gemma-3-27b", "llama-3.3-70b"]
PRECISIONS = ["bf16", "fp8-kv16"]
SCENARIOS = ["ttft", "decode", "static_batch"]

# Each suite's shapes: TTFT prompt lengths; decode (batch, input, output), each stream's rate
# with `batch` streams at a context of input + output / 2; static batches (batch, input, output).
# `long` is where the KV cache and attention, rather than the weights, take most of the time; its
# static batch fills Llama 2's 4,096 positions. `batch` steps ever more streams at once, up to and
# past the point where arithmetic, not the weights' reads, bounds a step.
SUITES = {
    "short": dict(
        ttft=[128, 512, 2048], decode=[(1, 512, 256), (1, 4096, 256)], static=[(32, 128, 128), (128, 128, 128)]
    ),
    "long": dict(
        ttft=[8192, 32768], decode=[(1, 16384, 256), (1, 65536, 256), (1, 130048, 256)], static=[(32, 3968, 128)]
    ),
    "batch": dict(ttft=[], decode=[(b, 1024, 128) for b in (8, 32, 64, 128, 256, 512)], static=[]),
}
DTYPE = torch.bfloat16
DEVICE = "cuda"


class Model:
    """A decoder of the given shape with random weights and a KV cache for `batch` x `max_len`."""

    def __init__(self, spec, arch, fp8=False):
        self.layers = spec["layers"]
        self.hidden = spec["hidden"]
        self.heads = spec["heads"]
        self.kv_heads = spec["kv_heads"]
        self.head_dim = spec["head_dim"]
        self.gemma = arch["style"] == "gemma"
        ffn, vocab = arch["ffn"], arch["vocab"]
        q, kv = self.heads * self.head_dim, self.kv_heads * self.head_dim
        self.experts, self.top_k = spec.get("experts", 0), spec.get("experts_per_token", 0)
        if self.experts and fp8:
            raise RuntimeError("FP8 experts are not implemented")
        if self.experts:
            if not hasattr(torch, "_grouped_mm"):
                raise RuntimeError("a mixture of experts needs torch._grouped_mm (PyTorch 2.8 or later)")
            try:
                from fused_moe import fused_moe
            except ImportError as e:
                raise RuntimeError(f"a mixture of experts needs Triton: {e}") from e
            self.fused_moe = fused_moe

        def weight(*shape):
            return torch.empty(*shape, dtype=DTYPE, device=DEVICE).normal_(0, 0.02)

        def projection(*shape):
            return weight(*shape).to(torch.float8_e4m3fn) if fp8 else weight(*shape)

        def mlp():
            if not self.experts:
                return dict(gate_up=projection(2 * ffn, self.hidden), down=projection(self.hidden, ffn))
            return dict(
                router=weight(self.experts, self.hidden),
                gate_up=weight(self.experts, 2 * ffn, self.hidden),
                down=weight(self.experts, self.hidden, ffn),
            )

        self.unit_scale = torch.ones((), dtype=torch.float32, device=DEVICE)
        self.embed = weight(vocab, self.hidden)
        # A tied head shares the embedding's weights; in FP8 it is a copy, but still the model's
        # parameters once.
        self.tied = bool(arch.get("tied"))
        self.lm_head = self.embed if self.tied and not fp8 else projection(vocab, self.hidden)
        self.final_norm = torch.ones(self.hidden, dtype=DTYPE, device=DEVICE)
        self.blocks = []
        for _ in range(self.layers):
            self.blocks.append(
                dict(
                    qkv=projection(q + 2 * kv, self.hidden),
                    o=projection(self.hidden, q),
                    **mlp(),
                    norms=[torch.ones(self.hidden, dtype=DTYPE, device=DEVICE) for _ in range(4 if self.gemma else 2)],
                    qk_norm=torch.ones(self.head_dim, dtype=DTYPE, device=DEVICE),
                )
            )
        self.cache = None

    def parameters(self):
        count = self.embed.numel() + (0 if self.tied else self.lm_head.numel())
        for b in self.blocks:
            count += sum(b[w].numel() for w in ("qkv", "o", "gate_up", "down", "router") if w in b)
        return count

    def allocate_cache(self, batch, max_len):
        self.cache = None
        torch.cuda.empty_cache()
        shape = (self.layers, 2, batch, self.kv_heads, max_len, self.head_dim)
        self.cache = torch.zeros(shape, dtype=DTYPE, device=DEVICE)
        positions = torch.arange(max_len, device=DEVICE, dtype=torch.float32)
        inv = 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2, device=DEVICE, dtype=torch.float32) / self.head_dim))
        angles = torch.outer(positions, inv)
        self.cos = torch.cat([angles.cos(), angles.cos()], dim=-1).to(DTYPE)
        self.sin = torch.cat([angles.sin(), angles.sin()], dim=-1).to(DTYPE)

    def _linear(self, x, w):
        if w.dtype != torch.float8_e4m3fn:
            return F.linear(x, w)
        flat = x.reshape(-1, x.shape[-1]).to(torch.float8_e4m3fn)
        out = torch._scaled_mm(flat, w.t(), self.unit_scale, self.unit_scale, out_dtype=DTYPE)
        return out.view(*x.shape[:-1], w.shape[0])

    def _rope(self, x, start, length):
        cos = self.cos[start : start + length].view(1, length, 1, self.head_dim)
        sin = self.sin[start : start + length].view(1, length, 1, self.head_dim)
        half = self.head_dim // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * cos + rotated * sin

    def forward(self, ids, start):
        """Runs `ids` ([batch, tokens]) at positions start.. and returns the next tokens' argmax."""
        batch, tokens = ids.shape
        q_width, kv_width = self.heads * self.head_dim, self.kv_heads * self.head_dim
        h = F.embedding(ids, self.embed)
        for layer, b in enumerate(self.blocks):
            norms = b["norms"]
            a = F.rms_norm(h, (self.hidden,), norms[0])
            q, k, v = self._linear(a, b["qkv"]).split([q_width, kv_width, kv_width], dim=-1)
            q = q.view(batch, tokens, self.heads, self.head_dim)
            k = k.view(batch, tokens, self.kv_heads, self.head_dim)
            v = v.view(batch, tokens, self.kv_heads, self.head_dim)
            if self.gemma:
                q = F.rms_norm(q, (self.head_dim,), b["qk_norm"])
                k = F.rms_norm(k, (self.head_dim,), b["qk_norm"])
            q, k = self._rope(q, start, tokens), self._rope(k, start, tokens)
            keys, values = self.cache[layer, 0], self.cache[layer, 1]
            keys[:, :, start : start + tokens] = k.transpose(1, 2)
            values[:, :, start : start + tokens] = v.transpose(1, 2)
            o = F.scaled_dot_product_attention(
                q.transpose(1, 2),
                keys[:, :, : start + tokens],
                values[:, :, : start + tokens],
                is_causal=tokens > 1,
                enable_gqa=self.kv_heads != self.heads,
            )
            o = self._linear(o.transpose(1, 2).reshape(batch, tokens, q_width), b["o"])
            h = h + (F.rms_norm(o, (self.hidden,), norms[2]) if self.gemma else o)
            a = F.rms_norm(h, (self.hidden,), norms[1])
            if self.experts:
                flat = a.reshape(batch * tokens, self.hidden)
                m = self.fused_moe(flat, b["router"], b["gate_up"], b["down"], self.top_k).view(a.shape)
            else:
                gate, up = self._linear(a, b["gate_up"]).chunk(2, dim=-1)
                act = F.gelu(gate, approximate="tanh") if self.gemma else F.silu(gate)
                m = self._linear(act * up, b["down"])
            h = h + (F.rms_norm(m, (self.hidden,), norms[3]) if self.gemma else m)
        last = F.rms_norm(h[:, -1], (self.hidden,), self.final_norm)
        return self._linear(last, self.lm_head).argmax(dim=-1)


def graph_of(fn, pool=None, warmups=2):
    """Captures fn() as a CUDA graph after warming it up on a side stream, as PyTorch advises.
    Graphs given one pool share their memory, and must then be replayed in the order captured."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(warmups):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, pool=pool):
        fn()
    return graph


def cuda_seconds(fn, repeats=1):
    """The GPU's mean seconds per call over `repeats` back-to-back calls of fn(), by CUDA events."""
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    for _ in range(repeats):
        fn()
    end.record()
    end.synchronize()
    return begin.elapsed_time(end) / 1e3 / repeats


def time_rounds(fn, repeats, rounds=3):
    """Median over `rounds` of cuda_seconds(fn, repeats), and each round's figure."""
    means = [cuda_seconds(fn, repeats) for _ in range(rounds)]
    return statistics.median(means), means


def replays_for(graph, least):
    """How many replays make a round of about half a second, and at least `least`."""
    return max(least, int(0.5 / max(cuda_seconds(graph.replay), 1e-4)))


def measure_ttft(model, prompt):
    model.allocate_cache(1, prompt)
    ids = torch.randint(0, model.embed.shape[0], (1, prompt), device=DEVICE)
    graph = graph_of(lambda: model.forward(ids, 0))
    seconds, means = time_rounds(graph.replay, repeats=min(10, replays_for(graph, 1)))
    del graph
    return seconds * 1e3, "ms", dict(round_means_s=means)


def measure_decode(model, batch, context):
    model.allocate_cache(batch, context + 1)
    ids = torch.randint(0, model.embed.shape[0], (batch, 1), device=DEVICE)
    graph = graph_of(lambda: model.forward(ids, context))
    seconds, means = time_rounds(graph.replay, repeats=replays_for(graph, 20))
    del graph
    return 1.0 / seconds, "tok/s", dict(step_s=seconds, round_means_s=means)


def measure_static_batch(model, batch, prompt, output):
    """Runs the batch eagerly (warming every shape up), then as one CUDA graph per step, each at its
    own context length, as a serving engine would; the graphs' rate is the row's figure."""
    model.allocate_cache(batch, prompt + output)
    prompts = torch.randint(0, model.embed.shape[0], (batch, prompt), device=DEVICE)
    ids = torch.zeros(batch, 1, dtype=torch.long, device=DEVICE)

    def prefill():
        ids.copy_(model.forward(prompts, 0).view(batch, 1))

    def step(position):
        ids.copy_(model.forward(ids, position).view(batch, 1))

    def eager():
        prefill()
        for i in range(output - 1):
            step(prompt + i)

    eager()
    torch.cuda.synchronize()
    started = time.perf_counter()
    eager()
    torch.cuda.synchronize()
    eager_s = time.perf_counter() - started

    graphs = [graph_of(prefill, warmups=1)]
    for i in range(output - 1):
        graphs.append(graph_of(lambda p=prompt + i: step(p), pool=graphs[0].pool(), warmups=1))

    def replay_all():
        for graph in graphs:
            graph.replay()

    seconds, totals = time_rounds(replay_all, repeats=1)
    del graphs
    return batch * output / seconds, "tok/s", dict(graphs_s=totals, eager_s=eager_s)


def environment():
    try:
        driver = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        driver = "unknown"
    return dict(gpu=torch.cuda.get_device_name(), torch=torch.__version__, cuda=torch.version.cuda, driver=driver)


def ceilings(fp8):
    """The copy bandwidth and matmul rates this GPU reaches, to read the rows against: bf16, and
    FP8 when the rows are (a GPU without FP8 tensor cores refuses it)."""
    src = torch.empty(2 * 1024**3, dtype=torch.uint8, device=DEVICE)
    dst = torch.empty_like(src)
    dst.copy_(src)
    found = dict(copy_read_plus_write_gb_s=round(2 * src.numel() / cuda_seconds(lambda: dst.copy_(src), 10) / 1e9))
    del src, dst
    n = 8192
    a = torch.randn(n, n, dtype=DTYPE, device=DEVICE)
    b = torch.randn(n, n, dtype=DTYPE, device=DEVICE)
    a @ b
    found["bf16_matmul_tflops"] = round(2 * n**3 / cuda_seconds(lambda: a @ b, 10) / 1e12, 1)
    if fp8:
        a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn).t()
        one = torch.ones((), dtype=torch.float32, device=DEVICE)

        def product():
            return torch._scaled_mm(a8, b8, one, one, out_dtype=DTYPE)

        product()
        found["fp8_matmul_tflops"] = round(2 * n**3 / cuda_seconds(product, 10) / 1e12, 1)
        del a8, b8
    del a, b
    torch.cuda.empty_cache()
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hardware", required=True, help="the catalog's id of this GPU, e.g. h200")
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS, choices=sorted(ARCHITECTURES))
    parser.add_argument("--precision", choices=PRECISIONS, default="bf16")
    parser.add_argument("--suite", choices=sorted(SUITES), default="short", help="the shapes to time (SUITES)")
    parser.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=SCENARIOS, help="which of the suite's")
    parser.add_argument("--out", type=Path, required=True, help="CSV rows, measurements.csv's columns")
    parser.add_argument("--log", type=Path, help="one JSON line per figure with the raw timings")
    parser.add_argument("--source", default="PT", help="the rows' source key (calibration/README.md)")
    args = parser.parse_args()

    catalog = {m["id"]: m for m in yaml.safe_load(CATALOG.read_text())["models"]}
    env = environment()
    engine = f"PyTorch {torch.__version__.split('+')[0]}"
    log = open(args.log, "a") if args.log else None

    def record(entry):
        print(json.dumps(entry), flush=True)
        if log:
            log.write(json.dumps(entry) + "\n")
            log.flush()

    record(dict(environment=env, **ceilings(args.precision == "fp8-kv16")))
    columns = "id,hardware,model,precision,devices,engine,scenario,batch,input,output,requests,value,unit,source,note"
    with open(args.out, "w", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns.split(","))
        for model_id in args.models:
            spec, arch = catalog[model_id], ARCHITECTURES[model_id]
            # Keep every context within the model's positions and, where layers slide, within the
            # window, under which plain causal attention is exact.
            limit = min(spec.get("sliding_window", math.inf), spec["max_context"])
            try:
                model = Model(spec, arch, fp8=args.precision == "fp8-kv16")
            except RuntimeError as e:
                record(dict(model=model_id, error=f"not built: {str(e).splitlines()[0]}"))
                torch.cuda.empty_cache()
                continue
            built_b = model.parameters() / 1e9
            record(dict(model=model_id, parameters_b=round(built_b, 3), catalog_params_b=spec["params_b"]))
            suite = SUITES[args.suite]
            jobs = [("ttft", 1, n, 1, lambda n=n: measure_ttft(model, n)) for n in suite["ttft"] if n <= limit]
            jobs += [
                ("decode", b, i, o, lambda b=b, c=i + o // 2: measure_decode(model, b, c))
                for b, i, o in suite["decode"]
                if i + o <= limit
            ]
            jobs += [
                ("static_batch", b, i, o, lambda b=b, i=i, o=o: measure_static_batch(model, b, i, o))
                for b, i, o in suite["static"]
                if i + o <= limit
            ]
            for scenario, batch, prompt, output, job in (j for j in jobs if j[0] in args.scenarios):
                shape = {"ttft": f"ttft{prompt}", "decode": f"dec{prompt}+{output}"}.get(
                    scenario, f"b{batch}x{prompt}x{output}"
                ) + (f"-b{batch}" if scenario == "decode" and batch > 1 else "")
                precision = "" if args.precision == "bf16" else f"-{args.precision}"
                row_id = f"pt-{args.hardware}-{model_id}{precision}-{shape}"
                try:
                    value, unit, raw = job()
                except RuntimeError as e:  # out of memory, or a kernel this GPU lacks: keep going
                    record(dict(id=row_id, error=f"{type(e).__name__}: {str(e).splitlines()[0]}"))
                    torch.cuda.empty_cache()
                    continue
                note = f"CUDA graphs; random {args.precision} weights"
                writer.writerow(
                    [row_id, args.hardware, model_id, args.precision, 1, engine, scenario, batch, prompt, output, batch]
                    + [f"{float(f'{value:.4g}'):g}", unit, args.source, note]
                )
                out.flush()
                record(dict(id=row_id, value=value, unit=unit, **raw))
            model.cache = None
            del model
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
