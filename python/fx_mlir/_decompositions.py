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

from ._aten import _list

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
    aten.max_pool3d_with_indices,  # torch 2 only: torch 1.13 has none
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


def _contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return strides[::-1]


def _positions(shape, dim):
    """arange(shape[dim]) shaped to broadcast along `dim` of `shape`."""
    view = [1] * len(shape)
    view[dim] = shape[dim]
    return torch.arange(shape[dim], dtype=torch.int64).reshape(view)


def _gather(x, dim, index, sparse_grad=False):
    """torch.gather as one lookup into the flattened tensor: the linear
    index of out[i] is index[i] along `dim` and i elsewhere (index may be
    smaller than x in the other dimensions). Indices out of range are
    clamped by the lookup, as `embedding` does (eager raises)."""
    rank = x.dim()
    if rank == 0:
        return x.clone()
    dim %= rank
    strides = _contiguous_strides(x.shape)
    linear = index.to(torch.int64) * strides[dim]
    for d in range(rank):
        if d != dim and index.shape[d] > 1:
            linear = linear + _positions(index.shape, d) * strides[d]
    return x.reshape(-1)[linear]


def _tree_reduce(x, dim, combine, identity):
    """Combines the elements along `dim` pairwise (log2(n) steps)."""
    size = x.shape[dim]
    if size == 0:
        shape = list(x.shape)
        shape[dim] = 1
        return torch.full(shape, identity, dtype=x.dtype)
    while size > 1:
        half = size // 2
        paired = combine(x.narrow(dim, 0, half), x.narrow(dim, half, half))
        rest = x.narrow(dim, 2 * half, size - 2 * half)
        x = torch.cat([paired, rest], dim) if size % 2 else paired
        size = x.shape[dim]
    return x


def _prod_input(x, dtype):
    if dtype is not None:
        return x.to(dtype)
    if not x.is_floating_point() and not x.is_complex():
        return x.to(torch.int64)  # integers and bools multiply in int64
    return x


def _prod_dim(x, dim, keepdim=False, dtype=None):
    x = _prod_input(x, dtype)
    if x.dim() == 0:
        return x.clone()
    dim %= x.dim()
    out = _tree_reduce(x, dim, torch.mul, 1)
    return out if keepdim else out.squeeze(dim)


def _prod(x, dtype=None):
    return _prod_dim(_prod_input(x, dtype).reshape(-1), 0)


def _scatter_parts(x, dim, index, src):
    """The one-hot view of a scatter along `dim`: `hit[..., j, k]` says
    whether index[..., j] is k, for the positions of x that index covers
    (x[..., :index.shape]); src cut to index's shape. Dimension `dim`
    moved last, j just before it."""
    dim %= x.dim()
    index = index.to(torch.int64)
    covered = x
    for d in range(x.dim()):
        if d != dim and index.shape[d] != x.shape[d]:
            covered = covered.narrow(d, 0, index.shape[d])
    if src is not None:
        for d in range(src.dim()):
            if src.shape[d] != index.shape[d]:
                src = src.narrow(d, 0, index.shape[d])
        src = src.movedim(dim, -1).unsqueeze(-1)
    k = torch.arange(x.shape[dim], dtype=torch.int64)
    hit = index.movedim(dim, -1).unsqueeze(-1) == k
    return dim, covered.movedim(dim, -1), hit, src


def _scatter_back(x, dim, covered_result):
    """Puts the covered part's result (dim last) back into x's shape."""
    out = covered_result.movedim(-1, dim)
    pad = []
    for d in reversed(range(x.dim())):
        pad += [0, x.shape[d] - out.shape[d]]
    if any(pad):
        whole = F.pad(out, pad)
        mask = F.pad(torch.ones(out.shape, dtype=torch.bool), pad)
        out = torch.where(mask, whole, x)
    return out


def _last_hit(hit, src):
    """src at the last j with a hit (eager's serial order), and whether
    any j hits."""
    count = hit.shape[-2]
    j = torch.arange(count, dtype=torch.int64).unsqueeze(-1)
    last = torch.amax(torch.where(hit, j, -1), -2)
    any_hit = last >= 0
    picked = _gather(src.squeeze(-1), src.dim() - 2, last.clamp(min=0))
    return picked, any_hit


def _scatter_src(x, dim, index, src):
    dim, covered, hit, src = _scatter_parts(x, dim, index, src)
    picked, any_hit = _last_hit(hit, src)
    return _scatter_back(x, dim, torch.where(any_hit, picked.to(x.dtype), covered))


def _scatter_value(x, dim, index, value):
    dim, covered, hit, _ = _scatter_parts(x, dim, index, None)
    any_hit = hit.sum(-2) > 0  # (torch 1.13 has no `any` decomposition)
    return _scatter_back(x, dim, torch.where(any_hit, torch.full((), value, dtype=x.dtype),
                                             covered))


def _extreme_value(dtype, largest):
    if dtype.is_floating_point:
        return float("-inf") if largest else float("inf")
    if dtype == torch.bool:
        return not largest
    info = torch.iinfo(dtype)
    return info.min if largest else info.max


def _scatter_reduce(x, dim, index, src, reduce, include_self=True):
    dim, covered, hit, src = _scatter_parts(x, dim, index, src)
    src = src.to(x.dtype)
    any_hit = hit.sum(-2) > 0  # (torch 1.13 has no `any` decomposition)
    if reduce in ("sum", "mean"):
        total = torch.sum(torch.where(hit, src, 0), -2).to(x.dtype)
        count = hit.sum(-2)
        if include_self:
            total, count = covered + total, count + 1
        if reduce == "mean":
            count = count.clamp(min=1)
            total = (total / count if x.is_floating_point()
                     else torch.div(total, count, rounding_mode="floor")).to(x.dtype)
    elif reduce == "prod":
        total = _tree_reduce(torch.where(hit, src, 1), hit.dim() - 2, torch.mul, 1).squeeze(-2)
        if include_self:
            total = covered * total
    elif reduce in ("amax", "amin"):
        largest = reduce == "amax"
        fill = _extreme_value(x.dtype, largest)
        pick = torch.amax if largest else torch.amin
        total = pick(torch.where(hit, src, fill), -2)
        if include_self:
            total = (torch.maximum if largest else torch.minimum)(covered, total)
    else:
        return NotImplemented
    return _scatter_back(x, dim, torch.where(any_hit, total, covered))


def _scatter_add(x, dim, index, src):
    return _scatter_reduce(x, dim, index, src, "sum", include_self=True)


def _index_put(x, indices, values, accumulate=False):
    """x[i, j, ...] = values (or +=) with int64 index tensors on x's
    leading dimensions: those dimensions merged into one, indexed by the
    broadcast linear index, and a scatter along it. Other forms (boolean
    masks, index tensors after a slice) stay unsupported."""
    given = [t for t in indices if t is not None]
    if (len(given) != len(indices) or not given or
            any(t.dtype not in (torch.int64, torch.int32) for t in given) or
            len(given) > x.dim()):
        return NotImplemented
    count = len(given)
    block = list(x.shape[:count])
    linear = torch.zeros((), dtype=torch.int64)
    step = 1
    for t, size in reversed(list(zip(given, block))):
        t = t.to(torch.int64)
        linear = linear + torch.where(t < 0, t + size, t) * step
        step *= size
    rest = list(x.shape[count:])
    flat = x.reshape([step] + rest)
    shape = list(linear.shape) + rest
    values = values.to(x.dtype).expand(shape).reshape([-1] + rest)
    positions = linear.reshape([-1] + [1] * len(rest)).expand(values.shape)
    if accumulate:
        out = _scatter_reduce(flat, 0, positions, values, "sum", include_self=True)
    else:
        out = _scatter_src(flat, 0, positions, values)
    return out.reshape(x.shape)


def _diagonal(x, offset=0, dim1=0, dim2=1):
    """The diagonal as a lookup along the last dimension of x with dim1 and
    dim2 moved last and merged (a copy, not a view)."""
    rank = x.dim()
    dim1, dim2 = dim1 % rank, dim2 % rank
    moved = x.movedim((dim1, dim2), (-2, -1))
    n, m = moved.shape[-2], moved.shape[-1]
    if offset >= 0:
        length = max(0, min(n, m - offset))
        first = offset
    else:
        length = max(0, min(n + offset, m))
        first = -offset * m
    merged = moved.reshape(list(moved.shape[:-2]) + [n * m])
    index = torch.arange(length, dtype=torch.int64) * (m + 1) + first
    return merged[..., index]


def _empty(size, dtype=None, layout=None, device=None, pin_memory=None,
           memory_format=None):
    # Uninitialized memory may hold anything: zeros.
    return torch.zeros(size, dtype=dtype or torch.get_default_dtype())


def _empty_strided(size, stride, dtype=None, layout=None, device=None,
                   pin_memory=None):
    return torch.zeros(size, dtype=dtype or torch.get_default_dtype())


def _pool_1d_as_2d(x, pool):
    """A 1-d pooling of [N,] C, L as `pool` of N, C, 1, L."""
    batched = x.dim() == 3
    out = pool((x if batched else x.unsqueeze(0)).unsqueeze(-2)).squeeze(-2)
    return out if batched else out.squeeze(0)


def _avg_pool1d(x, kernel_size, stride=(), padding=0, ceil_mode=False,
                count_include_pad=True):
    (kernel,) = _list(kernel_size, 1)
    (stride,) = _list(stride, 1) if stride else (kernel,)
    (padding,) = _list(padding, 1)
    return _pool_1d_as_2d(x, lambda t: F.avg_pool2d(t, (1, kernel), (1, stride), (0, padding),
                                                    ceil_mode, count_include_pad))


def _adaptive_avg_pool1d(x, output_size):
    (size,) = _list(output_size, 1)
    return _pool_1d_as_2d(x, lambda t: F.adaptive_avg_pool2d(t, (1, size)))


def _pool_3d_separably(x, pool_hw, pool_d):
    """A 3-d average pooling of [N,] C, D, H, W as `pool_hw` of the planes
    (N, C * D, H, W), then `pool_d` of each (h, w) column over D (N, C,
    H' * W', D): each window's divisor is the product of its extents in the
    three dimensions, as eager computes it."""
    batched = x.dim() == 5
    if not batched:
        x = x.unsqueeze(0)
    n, c, d, h, w = x.shape
    planes = pool_hw(x.reshape(n, c * d, h, w))
    ho, wo = planes.shape[-2:]
    out = pool_d(planes.reshape(n, c, d, ho * wo).transpose(2, 3))
    out = out.transpose(2, 3).reshape(n, c, out.shape[-1], ho, wo)
    return out if batched else out.squeeze(0)


def _avg_pool3d(x, kernel_size, stride=(), padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
    if divisor_override:
        return NotImplemented
    kd, kh, kw = _list(kernel_size, 3)
    sd, sh, sw = _list(stride, 3) if stride else (kd, kh, kw)
    pd, ph, pw = _list(padding, 3)
    return _pool_3d_separably(
        x,
        lambda t: F.avg_pool2d(t, (kh, kw), (sh, sw), (ph, pw), ceil_mode, count_include_pad),
        lambda t: F.avg_pool2d(t, (1, kd), (1, sd), (0, pd), ceil_mode, count_include_pad))


def _adaptive_avg_pool3d(x, output_size):
    od, oh, ow = _list(output_size, 3)
    return _pool_3d_separably(x, lambda t: F.adaptive_avg_pool2d(t, (oh, ow)),
                              lambda t: F.adaptive_avg_pool2d(t, (t.shape[-2], od)))


# Sorting compares every pair of a row's elements: at most this many
# comparisons per sort (64 Mi: a 4096-element row of 4096 rows, a
# 8192-element one alone); larger sorts stay unsupported.
_SORT_MAX_PAIRS = 1 << 26


def _sort_ranks(x, descending):
    """Each element's position in the sorted order along the last dimension: the number of elements that sort before it, ties broken by
    position (a stable sort). NaNs sort after every number, as in eager
    (first when descending)."""
    a = x.unsqueeze(-1)  # [..., i, 1]
    b = x.unsqueeze(-2)  # [..., 1, j]
    if x.is_floating_point():
        a_nan, b_nan = a != a, b != b
        # before[..., i, j]: element j sorts strictly before element i.
        if descending:
            before = (b > a) | (b_nan & ~a_nan)
        else:
            before = (b < a) | (a_nan & ~b_nan)
        same = (a == b) | (a_nan & b_nan)
    else:
        before = b > a if descending else b < a
        same = a == b
    n = x.shape[-1]
    positions = torch.arange(n, dtype=torch.int64)
    earlier = positions.unsqueeze(-1) > positions  # [i, j]: j < i
    return torch.sum(before | (same & earlier), -1)


def _sort(x, dim=-1, descending=False):
    """A comparison sort (stable: each is): ranks from all pairs
    (_sort_ranks), then each rank's element and index picked by a one-hot
    mask."""
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    dim %= x.dim()
    n = x.shape[dim]
    if x.numel() * n > _SORT_MAX_PAIRS:
        return NotImplemented
    row = x.movedim(dim, -1)
    ranks = _sort_ranks(row, descending)
    # at[..., k, i]: element i has rank k.
    at = ranks.unsqueeze(-2) == torch.arange(n, dtype=torch.int64).unsqueeze(-1)
    values = torch.sum(torch.where(at, row.unsqueeze(-2), torch.zeros((), dtype=x.dtype)),
                       -1).to(x.dtype)
    if x.is_floating_point():
        # NaNs (which the sum of a one-hot row would not carry through
        # 0 * NaN) are where the NaN elements sorted to.
        nan_at = torch.sum((at & (row != row).unsqueeze(-2)).to(torch.int64), -1) > 0
        values = torch.where(nan_at, torch.full((), float("nan"), dtype=x.dtype), values)
    indices = torch.sum(torch.where(at, torch.arange(n, dtype=torch.int64), 0), -1)
    return values.movedim(-1, dim), indices.movedim(-1, dim)


def _sort_stable(x, *, stable=None, dim=-1, descending=False):
    return _sort(x, dim, descending)


def _topk(x, k, dim=-1, largest=True, sorted=True):
    """The first k of a sort (the largest first, or the smallest)."""
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    dim %= x.dim()
    result = _sort(x, dim, descending=largest)
    if result is NotImplemented:
        return NotImplemented
    values, indices = result
    return values.narrow(dim, 0, k), indices.narrow(dim, 0, k)


def _transposed_convolution(x, w, bias, stride, padding, dilation, transposed,
                            output_padding, groups):
    """A transposed convolution as a direct one: the input with stride - 1
    zeros between its elements, padded by dilation * (kernel - 1) - padding
    (plus output_padding after), convolved with stride 1 by the filter
    flipped in space and with its channel roles swapped per group.
    Direct convolutions are left to the FX op (NotImplemented)."""
    if not transposed:
        return NotImplemented
    spatial = x.dim() - 2
    if spatial < 1 or w.dim() != x.dim():
        return NotImplemented
    stride, padding = _list(stride, spatial), _list(padding, spatial)
    dilation, output_padding = _list(dilation, spatial), _list(output_padding, spatial)
    kernel = list(w.shape[2:])
    for i in range(spatial):
        dim = 2 + i
        s = stride[i]
        if s > 1 and x.shape[dim] > 0:
            zeros = torch.zeros(x.shape, dtype=x.dtype)
            spread = torch.stack([x] + [zeros] * (s - 1), dim + 1)
            shape = list(x.shape)
            shape[dim] *= s
            x = spread.reshape(shape).narrow(dim, 0, (x.shape[dim] - 1) * s + 1)
    pad = []
    for i in reversed(range(spatial)):
        lo = dilation[i] * (kernel[i] - 1) - padding[i]
        pad += [lo, lo + output_padding[i]]
    x = _constant_pad_nd(x, pad)
    # [C_in, C_out / g, k...] -> [C_out, C_in / g, k...], flipped in space.
    c_in, c_out_g = w.shape[0], w.shape[1]
    w = w.reshape([groups, c_in // groups, c_out_g] + kernel).transpose(1, 2)
    w = w.reshape([groups * c_out_g, c_in // groups] + kernel)
    w = torch.flip(w, list(range(2, 2 + spatial)))
    return torch.convolution(x, w, bias, [1] * spatial, [0] * spatial, dilation, False,
                             [0] * spatial, groups)


def _col2im(x, output_size, kernel_size, dilation, padding, stride):
    """F.fold: the sum of the patches back into the image, as a transposed
    convolution of the columns (one channel per kernel position of each
    image channel) by one-hot filters, a group per image channel."""
    batched = x.dim() == 3
    if not batched:
        x = x.unsqueeze(0)
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    height, width = output_size
    oh = (height + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (width + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    n, rows, _ = x.shape
    taps = kh * kw
    channels = rows // taps
    positions = torch.arange(taps, dtype=torch.int64)
    one_hot = (positions.unsqueeze(1) == positions).to(x.dtype).reshape(taps, 1, kh, kw)
    weight = one_hot.repeat(channels, 1, 1, 1)
    # The rows and columns no window reaches (past the last stride) are
    # the output padding.
    extra = (height - ((oh - 1) * sh - 2 * ph + dh * (kh - 1) + 1),
             width - ((ow - 1) * sw - 2 * pw + dw * (kw - 1) + 1))
    out = F.conv_transpose2d(x.reshape(n, rows, oh, ow), weight, None, (sh, sw), (ph, pw),
                             extra, channels, (dh, dw))
    return out if batched else out.squeeze(0)


def _masked_scatter(x, mask, source):
    """x with its masked elements replaced by source's first elements in
    order: the k-th masked element (a running count of the mask) takes
    source.flatten()[k]."""
    mask = mask.expand(x.shape) if mask.shape != x.shape else mask
    flat_mask = mask.reshape(-1)
    if flat_mask.numel() == 0:
        return x.clone()
    order = _cumsum(flat_mask.to(torch.int64), 0) - 1
    picked = source.reshape(-1)[order.clamp(0, max(source.numel() - 1, 0))]
    return torch.where(flat_mask, picked.to(x.dtype), x.reshape(-1)).reshape(x.shape)


def _cdist(x1, x2, p, compute_mode=None):
    return _vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, [-1])


def _pad_by_index(x, pad, source):
    """Pads the last len(pad) / 2 dimensions by looking up, along each,
    the source position of every output position (`source(positions,
    size)` maps -lo .. size + hi - 1 into 0 .. size - 1)."""
    for i in range(len(pad) // 2):
        dim = x.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo == 0 and hi == 0:
            continue
        size = x.shape[dim]
        positions = torch.arange(-lo, size + hi, dtype=torch.int64)
        x = x.index_select(dim, source(positions, size))
    return x


def _replication_pad(x, padding):
    return _pad_by_index(x, padding, lambda p, n: p.clamp(0, n - 1))


def _reflection_pad(x, padding):
    # -1 -> 1, n -> n - 2: reflected about the first and last elements.
    return _pad_by_index(x, padding, lambda p, n: (n - 1) - ((n - 1) - p.abs()).abs())


def _pdist(x, p=2.0):
    """The distances of rows i < j, in row-major order of (i, j): all
    pairs' distances (as cdist), then a lookup of the upper triangle's
    positions i * n + j."""
    n = x.shape[0]
    if n < 2:
        return torch.zeros(0, dtype=x.dtype)
    full = _cdist(x, x, p).reshape(-1)
    positions = torch.cat([torch.arange(i * n + i + 1, (i + 1) * n, dtype=torch.int64)
                           for i in range(n - 1)])
    return full[positions]


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
    table[aten.gather.default] = _gather
    table[aten.scatter.src] = _scatter_src
    table[aten.scatter.value] = _scatter_value
    table[aten.scatter_add.default] = _scatter_add
    table[aten.scatter_reduce.two] = _scatter_reduce
    table[aten.index_put.default] = _index_put
    table[aten.prod.default] = _prod
    table[aten.prod.dim_int] = _prod_dim
    table[aten.diagonal.default] = _diagonal
    table[aten.empty.memory_format] = _empty
    table[aten.empty_strided.default] = _empty_strided
    table[aten.avg_pool1d.default] = _avg_pool1d
    table[aten.adaptive_avg_pool1d.default] = _adaptive_avg_pool1d
    table[aten.avg_pool3d.default] = _avg_pool3d
    table[aten._adaptive_avg_pool3d.default] = _adaptive_avg_pool3d
    table[aten.sort.default] = _sort
    table[aten.sort.stable] = _sort_stable
    table[aten.topk.default] = _topk
    table[aten.col2im.default] = _col2im
    table[aten.convolution.default] = _transposed_convolution
    table[aten.masked_scatter.default] = _masked_scatter
    table[aten._cdist_forward.default] = _cdist
    table[aten._pdist_forward.default] = _pdist
    table[aten.reflection_pad3d.default] = _reflection_pad
    table[aten.replication_pad3d.default] = _replication_pad
    return table
