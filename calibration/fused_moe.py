"""A mixture-of-experts MLP as one Triton kernel per projection, the way serving engines run it
(vLLM's fused MoE is the model): each token's copies are grouped by the expert they go to, each
group padded to the kernel's row block, and every block of rows multiplies its own expert's weights.
Only the experts some token chose are read, at close to the memory's rate even for one token;
PyTorch's `torch._grouped_mm` reads them at about half that rate when groups have few rows
(calibration/moe_kernel_check.py measures both). Every shape is fixed by the token count, so a
step that uses it can be captured as a CUDA graph."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl


def _configs():
    return [
        triton.Config(dict(BLOCK_N=n, BLOCK_K=k), num_warps=w, num_stages=s)
        for n, k, w, s in [
            (64, 128, 4, 4),
            (128, 128, 4, 3),
            (64, 64, 4, 4),
            (128, 64, 4, 4),
            (128, 64, 8, 3),
            (256, 64, 8, 3),
            (32, 128, 4, 4),
            (32, 256, 4, 3),
            (64, 256, 4, 3),
        ]
    ]


@triton.autotune(configs=_configs(), key=["copies", "N", "K", "BLOCK_M"])
@triton.jit
def _expert_product(
    a,
    w,
    c,
    rows,
    block_experts,
    padded_total,
    copies,
    rows_per_input,
    N,
    K,
    stride_a,
    stride_we,
    stride_wn,
    stride_c,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    """c[copy] = a[copy // rows_per_input] @ w[expert of copy].T for the BLOCK_M copies of block
    program_id(0); padding slots hold `copies` and are neither read nor written."""
    block = tl.program_id(0)
    if block * BLOCK_M >= tl.load(padded_total):
        return
    expert = tl.load(block_experts + block).to(tl.int64)
    copy = tl.load(rows + block * BLOCK_M + tl.arange(0, BLOCK_M))
    real = copy < copies
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a + (copy // rows_per_input).to(tl.int64)[:, None] * stride_a + offs_k[None, :]
    w_ptrs = w + expert * stride_we + offs_n[None, :].to(tl.int64) * stride_wn + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        acc += tl.dot(tl.load(a_ptrs, mask=real[:, None], other=0.0), tl.load(w_ptrs))
        a_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    c_ptrs = c + copy.to(tl.int64)[:, None] * stride_c + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c.dtype.element_ty), mask=real[:, None])


def row_block(copies, experts):
    """Rows per block: 16 (the smallest tensor-core tile) while groups are small, so padding
    stays a small share of the work, then 64."""
    return 16 if copies <= 32 * experts else 64


def align(chosen, experts, block_m):
    """For `chosen` ([tokens, top_k] expert ids): the copies' ids sorted by expert, each expert's
    run padded to a multiple of block_m with the id `copies`; each block's expert; and the padded
    length, as a tensor, so nothing waits on the host."""
    flat = chosen.flatten()
    copies = flat.numel()
    counts = torch.zeros(experts, dtype=torch.int64, device=flat.device)
    counts.scatter_add_(0, flat, torch.ones_like(flat))
    padded = (counts + block_m - 1) // block_m * block_m
    padded_ends = padded.cumsum(0)
    order = flat.argsort(stable=True)
    by_expert = flat[order]
    rank = torch.arange(copies, device=flat.device)
    slot = (padded_ends - padded)[by_expert] + rank - (counts.cumsum(0) - counts)[by_expert]
    capacity = triton.cdiv(copies + experts * (block_m - 1), block_m) * block_m
    rows = torch.full((capacity,), copies, dtype=torch.int32, device=flat.device)
    rows.scatter_(0, slot, order.to(torch.int32))
    starts = torch.arange(0, capacity, block_m, device=flat.device)
    block_experts = torch.searchsorted(padded_ends, starts, right=True).clamp_(max=experts - 1).to(torch.int32)
    return rows, block_experts, padded_ends[-1:]


def _product(a, w, rows, block_experts, padded_total, copies, rows_per_input, block_m):
    n, k = w.shape[1], w.shape[2]
    if n % 256 or k % 128:
        raise ValueError(f"expert weights of {n} x {k}: the kernel's blocks need multiples of 256 x 128")
    c = torch.empty(copies, n, dtype=a.dtype, device=a.device)

    def grid(meta):
        return (rows.numel() // block_m, triton.cdiv(n, meta["BLOCK_N"]))

    _expert_product[grid](
        a,
        w,
        c,
        rows,
        block_experts,
        padded_total,
        copies,
        rows_per_input,
        n,
        k,
        a.stride(0),
        w.stride(0),
        w.stride(1),
        c.stride(0),
        BLOCK_M=block_m,
    )
    return c


def grouped(x, chosen, weights, gate_up, down):
    """The same MLP through `torch._grouped_mm` (CUTLASS): faster than the kernel above once each
    expert has hundreds of rows, as in prefill."""
    top_k = chosen.shape[1]
    flat = chosen.flatten()
    order = flat.argsort(stable=True)
    token = order // top_k
    counts = torch.zeros(gate_up.shape[0], dtype=torch.int32, device=x.device)
    counts.scatter_add_(0, flat, torch.ones_like(flat, dtype=torch.int32))
    ends = counts.cumsum(0, dtype=torch.int32)
    gate, up = torch._grouped_mm(x[token], gate_up.transpose(-2, -1), offs=ends).chunk(2, dim=-1)
    out = torch._grouped_mm(F.silu(gate) * up, down.transpose(-2, -1), offs=ends)
    return torch.zeros_like(x).index_add_(0, token, out * weights.flatten()[order].unsqueeze(-1))


def fused(x, chosen, weights, gate_up, down):
    """The MLP through the kernel above, two launches and the copies' alignment."""
    tokens, hidden = x.shape
    experts, top_k = gate_up.shape[0], chosen.shape[1]
    copies = tokens * top_k
    block_m = row_block(copies, experts)
    rows, block_experts, padded_total = align(chosen, experts, block_m)
    gate, up = _product(x, gate_up, rows, block_experts, padded_total, copies, top_k, block_m).chunk(2, dim=-1)
    out = _product(F.silu(gate) * up, down, rows, block_experts, padded_total, copies, 1, block_m)
    return (out.view(tokens, top_k, hidden) * weights.unsqueeze(-1)).sum(dim=1)


def route(x, router, top_k):
    """Each token's top_k experts by `router` ([experts, hidden]) and the softmax of their scores."""
    scores, chosen = F.linear(x, router).topk(top_k, dim=-1)
    return chosen, scores.float().softmax(dim=-1).to(x.dtype)


def fused_moe(x, router, gate_up, down, top_k):
    """The MLP of a mixture of experts over tokens `x` ([tokens, hidden]): each token goes to its
    top_k experts by `router`, weighted by the softmax of their scores, through SwiGLU experts
    `gate_up` ([experts, 2 * ffn, hidden]) and `down` ([experts, hidden, ffn]). Up to 256 rows per
    expert on average (decode, short prompts) it runs the kernel above, past that `_grouped_mm`:
    the faster of the two at each size on the H200 (calibration/moe_kernel_check.py)."""
    chosen, weights = route(x, router, top_k)
    small = x.shape[0] * top_k <= 256 * router.shape[0]
    return (fused if small else grouped)(x, chosen, weights, gate_up, down)
