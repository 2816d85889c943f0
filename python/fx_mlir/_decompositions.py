"""Decompositions applied while tracing, for ATen ops with no FX-dialect op.

Two sources:
* PyTorch's own decomposition table (torch._decomp) for ops that are plain
  compositions of ops the FX dialect has (roll, constant_pad_nd, norm, ...).
* The CPU fast paths PyTorch takes under no_grad for transformer layers
  (`_transformer_encoder_layer_fwd`, `_native_multi_head_attention`), written
  out here as the math of nn.MultiheadAttention / nn.TransformerEncoderLayer.

Decompositions run under make_fx's tracing, so what they call is recorded as
ATen nodes that the importer then maps op by op.
"""

import math

import torch
import torch.nn.functional as F
from torch._decomp import get_decompositions

aten = torch.ops.aten

# Ops decomposed with PyTorch's own decompositions. Everything else that
# reaches the importer is mapped directly (or reported as unsupported).
_TORCH_DECOMPOSED = [
    aten.masked_fill,
    aten.new_zeros,
    aten.new_ones,
    aten.new_full,
    aten.zeros_like,
    aten.ones_like,
    aten.full_like,
    aten.clamp_min,
    aten.clamp_max,
    aten.leaky_relu,
    aten.elu,
    aten.softplus,
    aten.mish,
    aten.rsub,
    aten.mv,
    aten.flip,
    aten.glu,
    aten.addcmul,
    aten.addcdiv,
    aten.lerp,
    aten.sgn,
    aten.square,
    aten.upsample_bilinear2d,
    aten.repeat,
    aten.reflection_pad1d,
    aten.reflection_pad2d,
    aten.replication_pad2d,
    aten.upsample_nearest2d,
    aten.im2col,
    aten.native_group_norm,
    aten.grid_sampler_2d,
]
# torch 2's `any` goes through ne and amax, torch 1.13's through prims.
# torch 2's var and std go through prims: var.correction and
# std.correction are mapped instead (_aten.py), torch 1.13's decompose.
if hasattr(torch, "export"):
    _TORCH_DECOMPOSED.append(aten.any)
else:
    _TORCH_DECOMPOSED += [aten.std, aten.var]


def _multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
                          proj_weight, proj_bias, mask=None, need_weights=True,
                          average_attn_weights=True, mask_type=None):
    # aten::_native_multi_head_attention: inputs are [B, L, E] (batch first).
    batch, q_len, _ = query.shape
    head_dim = embed_dim // num_head
    w_q, w_k, w_v = qkv_weight.chunk(3, dim=0)
    b_q, b_k, b_v = qkv_bias.chunk(3, dim=0)

    def heads(x, w, b):
        y = F.linear(x, w, b)
        return y.reshape(batch, x.shape[1], num_head, head_dim).transpose(1, 2)

    q = heads(query, w_q, b_q)
    k = heads(key, w_k, b_k)
    v = heads(value, w_v, b_v)
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(head_dim))
    if mask is not None:
        if mask_type == 1 and mask.dim() == 2:  # key padding mask [B, S]
            mask = mask.view(batch, 1, 1, mask.shape[-1])
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(mask, float("-inf"))
        else:
            scores = scores + mask
    attn = torch.softmax(scores, dim=-1)
    out = torch.matmul(attn, v).transpose(1, 2).reshape(batch, q_len, embed_dim)
    out = F.linear(out, proj_weight, proj_bias)
    if not need_weights:
        return out, torch.empty(0, dtype=out.dtype)
    if average_attn_weights:
        attn = attn.mean(dim=1)
    return out, attn


def _transformer_encoder_layer(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
                               proj_bias, use_gelu, norm_first, eps, norm_weight_1, norm_bias_1,
                               norm_weight_2, norm_bias_2, ffn_weight_1, ffn_bias_1,
                               ffn_weight_2, ffn_bias_2, mask=None, mask_type=None):
    # aten::_transformer_encoder_layer_fwd: nn.TransformerEncoderLayer's
    # forward (batch first, eval mode: dropouts are identities).
    def attention(x):
        return _multi_head_attention(x, x, x, embed_dim, num_heads, qkv_weight, qkv_bias,
                                     proj_weight, proj_bias, mask, False, True, mask_type)[0]

    def feed_forward(x):
        h = F.linear(x, ffn_weight_1, ffn_bias_1)
        h = F.gelu(h) if use_gelu else F.relu(h)
        return F.linear(h, ffn_weight_2, ffn_bias_2)

    def norm(x, w, b):
        return F.layer_norm(x, (embed_dim,), w, b, eps)

    x = src
    if norm_first:
        x = x + attention(norm(x, norm_weight_1, norm_bias_1))
        x = x + feed_forward(norm(x, norm_weight_2, norm_bias_2))
    else:
        x = norm(x + attention(x), norm_weight_1, norm_bias_1)
        x = norm(x + feed_forward(x), norm_weight_2, norm_bias_2)
    return x


def _roll(x, shifts, dims=()):
    # A rotation is two slices concatenated in swapped order, per dim.
    shifts = list(shifts) if isinstance(shifts, (list, tuple)) else [shifts]
    dims = list(dims) if isinstance(dims, (list, tuple)) else [dims]
    if not dims:
        return _roll(x.reshape(-1), shifts, [0]).reshape(x.shape)
    for shift, dim in zip(shifts, dims):
        size = x.shape[dim]
        s = shift % size if size else 0
        if s:
            x = torch.cat([x.narrow(dim, size - s, s), x.narrow(dim, 0, size - s)], dim)
    return x


def _constant_pad_nd(x, pad, value=0.0):
    # pad = (last_lo, last_hi, second_last_lo, ...); negative entries crop.
    for i in range(len(pad) // 2):
        dim = x.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo < 0:
            x = x.narrow(dim, -lo, x.shape[dim] + lo)
        if hi < 0:
            x = x.narrow(dim, 0, x.shape[dim] + hi)
        parts = []
        for amount in (lo, hi):
            shape = list(x.shape)
            shape[dim] = max(amount, 0)
            parts.append(torch.full(shape, value, dtype=x.dtype) if amount > 0 else None)
        pieces = [p for p in (parts[0], x, parts[1]) if p is not None]
        if len(pieces) > 1:
            x = torch.cat(pieces, dim)
    return x


def _vector_norm(x, p=2.0, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = x.to(dtype)
    dims = list(range(x.dim())) if dim is None or dim == [] else dim
    if p == 2:
        return torch.sqrt(torch.sum(x * x, dims, keepdim=keepdim))
    if p == 1:
        return torch.sum(torch.abs(x), dims, keepdim=keepdim)
    if p == float("inf"):
        return torch.amax(torch.abs(x), dims, keepdim=keepdim)
    if p == float("-inf"):
        return torch.amin(torch.abs(x), dims, keepdim=keepdim)
    if p == 0:  # the number of non-zero elements
        return torch.sum((x != 0).to(x.dtype), dims, keepdim=keepdim)
    return torch.pow(torch.sum(torch.pow(torch.abs(x), p), dims, keepdim=keepdim), 1.0 / p)


def _norm(x, p=2.0, dim=None, keepdim=False, dtype=None):
    return _vector_norm(x, 2.0 if p is None else p, dim, keepdim, dtype)


def _logsumexp(x, dim, keepdim=False):
    # log(sum(exp(x - m))) + m with m the row's maximum, where an infinite
    # maximum counts as 0: a row of -inf then gives log(0) + 0 = -inf (as
    # eager does) rather than exp(-inf - -inf) = NaN, which torch 1.13's own
    # decomposition computes.
    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    if not dims:
        dims = list(range(x.dim()))
    m = torch.amax(x, dims, keepdim=True)
    m = m.masked_fill(m.abs() == float("inf"), 0)
    out = torch.log(torch.sum(torch.exp(x - m), dims, keepdim=True)) + m
    if not keepdim:
        for d in sorted((d % x.dim() for d in dims), reverse=True):
            out = out.squeeze(d)
    return out


def _arg_extreme(x, dim, keepdim, largest):
    """argmax / argmin through reductions the FX dialect has: the smallest
    index whose value is the extreme (ties: the first, as PyTorch); a NaN
    counts as the extreme, as in PyTorch, whose amax/amin propagate it."""
    rank = x.dim()
    if rank == 0:
        return torch.zeros((), dtype=torch.int64)
    flat = x.reshape(-1) if dim is None else x
    axis = 0 if dim is None else dim % rank
    reduce = torch.amax if largest else torch.amin
    extreme = reduce(flat, axis, keepdim=True)
    size = flat.shape[axis]
    shape = [1] * flat.dim()
    shape[axis] = size
    iota = torch.arange(size, dtype=torch.int64).reshape(shape)
    hit = (flat == extreme) | (flat != flat)
    index = torch.amin(torch.where(hit, iota, size), axis, keepdim=keepdim)
    if dim is None and keepdim:
        index = index.reshape([1] * rank)
    return index


def _argmax(x, dim=None, keepdim=False):
    return _arg_extreme(x, dim, keepdim, largest=True)


def _argmin(x, dim=None, keepdim=False):
    return _arg_extreme(x, dim, keepdim, largest=False)


def _cumsum(x, dim, dtype=None):
    """cumsum as log2(n) shifted additions (a Hillis-Steele scan): each step
    adds the running sums `step` places back, padded with zeros. Integers
    and bools sum in int64, as in PyTorch."""
    if dtype is not None:
        x = x.to(dtype)
    elif not x.is_floating_point() and not x.is_complex():
        x = x.to(torch.int64)
    rank = x.dim()
    if rank == 0:
        return x.clone()
    axis = dim % rank
    size = x.shape[axis]
    step = 1
    while step < size:
        kept = x.narrow(axis, 0, size - step)
        # F.pad's pairs run from the last dimension backwards.
        shifted = F.pad(kept, [0, 0] * (rank - 1 - axis) + [step, 0])
        x = x + shifted
        step *= 2
    return x


def decomposition_table():
    table = get_decompositions(_TORCH_DECOMPOSED)
    table[aten.cumsum.default] = _cumsum
    table[aten.argmax.default] = _argmax
    table[aten.argmin.default] = _argmin
    table[aten.roll.default] = _roll
    table[aten.constant_pad_nd.default] = _constant_pad_nd
    table[aten.logsumexp.default] = _logsumexp
    for overload in (aten.norm.ScalarOpt_dim, aten.norm.Scalar, aten.norm.ScalarOpt_dim_dtype):
        table[overload] = _norm
    table[aten.linalg_vector_norm.default] = _vector_norm
    table[aten._native_multi_head_attention.default] = _multi_head_attention
    table[aten._transformer_encoder_layer_fwd.default] = _transformer_encoder_layer
    return table
