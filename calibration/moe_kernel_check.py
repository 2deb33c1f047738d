#!/usr/bin/env python3
"""Checks fused_moe.py on the GPU at Mixtral 8x7B's expert shapes: both of its ways (the Triton
kernel and `torch._grouped_mm`) against a plain per-expert reference, and their times for one
layer's experts, as CUDA graphs, against reading the chosen experts' weights at the copy rate
measured here (torch_timing's, read plus write). fused_moe picks between them by these figures.

    python3 calibration/moe_kernel_check.py [--tokens 1 8 64 256 1024 2048 8192]
"""

import argparse
import sys

import torch
import torch.nn.functional as F

from fused_moe import fused, grouped, route
from torch_timing import ceilings, cuda_seconds, graph_of

EXPERTS, TOP_K, HIDDEN, FFN = 8, 2, 4096, 14336


def reference(x, router, gate_up, down):
    scores, chosen = F.linear(x, router).topk(TOP_K, dim=-1)
    weights = scores.float().softmax(dim=-1)
    out = torch.zeros(x.shape, dtype=torch.float32, device=x.device)
    for e in range(EXPERTS):
        token, slot = (chosen == e).nonzero(as_tuple=True)
        if token.numel():
            gate, up = F.linear(x[token], gate_up[e]).chunk(2, dim=-1)
            y = F.linear(F.silu(gate) * up, down[e]).float()
            out.index_add_(0, token, y * weights[token, slot].unsqueeze(-1))
    return out


def microseconds(fn, repeats=20):
    """GPU time per call of fn() captured as a CUDA graph, as a model's step runs it, so Python's
    launch time is left out."""
    return cuda_seconds(graph_of(fn).replay, repeats) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", nargs="+", type=int, default=[1, 8, 64, 256, 1024, 2048, 8192])
    args = parser.parse_args()
    torch.manual_seed(0)
    read_rate = ceilings(False)["copy_read_plus_write_gb_s"] * 1e9
    router = torch.randn(EXPERTS, HIDDEN, device="cuda", dtype=torch.bfloat16)
    gate_up = torch.randn(EXPERTS, 2 * FFN, HIDDEN, device="cuda", dtype=torch.bfloat16) * 0.02
    down = torch.randn(EXPERTS, HIDDEN, FFN, device="cuda", dtype=torch.bfloat16) * 0.02
    expert_bytes = (gate_up[0].numel() + down[0].numel()) * gate_up.element_size()
    print(f"copy rate {read_rate / 1e12:.2f} TB/s (read plus write); one expert {expert_bytes / 1e6:.0f} MB")
    failed = False
    for tokens in args.tokens:
        x = torch.randn(tokens, HIDDEN, device="cuda", dtype=torch.bfloat16)
        chosen, weights = route(x, router, TOP_K)
        want = reference(x, router, gate_up, down)
        errors = []
        for way in (fused, grouped):
            got = way(x, chosen, weights, gate_up, down).float()
            errors.append(((got - want).norm() / want.norm()).item())
        failed |= not max(errors) < 1e-2
        fused_us = microseconds(lambda: fused(x, chosen, weights, gate_up, down))
        grouped_us = microseconds(lambda: grouped(x, chosen, weights, gate_up, down))
        read_us = chosen.unique().numel() * expert_bytes / read_rate * 1e6
        print(
            f"tokens {tokens:5d}: experts read {chosen.unique().numel()}, relative errors {errors[0]:.1e} "
            f"{errors[1]:.1e}; fused {fused_us:7.1f} us, _grouped_mm {grouped_us:7.1f} us, reading the "
            f"experts {read_us:7.1f} us; fused / read {fused_us / read_us:.2f}, _grouped_mm / fused "
            f"{grouped_us / fused_us:.2f}",
            flush=True,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
