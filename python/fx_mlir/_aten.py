"""ATen op -> FX dialect op mapping.

Each handler receives the node's context and its arguments with graph nodes
replaced by `Value`s, and returns a Value (or a tuple for multi-result ops).
Handlers raise `Unsupported` with a reason for argument combinations the FX
dialect cannot express; the importer collects those into one report.
"""

import operator

import numpy as np
import torch

from ._emitter import (SymDim, Unsupported, Value, array_attr, element_type, float_attr,
                       int_attr, shape_text)

aten = torch.ops.aten
HANDLERS = {}


# The ops that take a number read from a tensor (aten._local_scalar_dense,
# `.item()`) as an operand: elementwise arithmetic and comparisons, filled
# in below with their overloads.
ITEM_CONSUMERS = set()


def handles(*ops):
    def register(fn):
        for op in ops:
            HANDLERS[op] = fn
        return fn
    return register


def _is_value(x):
    return isinstance(x, Value)


def _list(x, n):
    """ATen's int[N] arguments: a single value stands for all N entries."""
    if isinstance(x, int):
        return [x] * n
    x = list(x)
    if len(x) == 1 and n > 1:
        return x * n
    return x


def _numel(shape):
    return int(np.prod(shape, dtype=np.int64))


def _refuse_dynamic(what, *shapes):
    """Unsupported for an op that needs static shapes, naming the first
    dynamic dimension."""
    for shape in shapes:
        for d in shape:
            if isinstance(d, SymDim) or not isinstance(d, int) or d < 0:
                detail = (f": {shape_text(shape)}, with {d.describe()}"
                          if isinstance(d, SymDim) else "")
                raise Unsupported(f"{what} of a tensor of dynamic shape{detail}. Make that "
                                  "dimension static (leave it out of dynamic_shapes)")


def view_size_attr(shape):
    """fx.view's size for a result shape: a dynamic dimension is -1, which
    the view infers from the element count; one at most."""
    dynamic = [d for d in shape if isinstance(d, SymDim)]
    if len(dynamic) > 1:
        raise Unsupported(
            f"a view to the shape ({', '.join(map(str, shape))}) needs {len(dynamic)} "
            f"dynamic sizes, and fx.view infers only one (-1): "
            f"{'; '.join(d.describe() for d in dynamic)}. Reshape so that at most one "
            "dimension of the result is dynamic (e.g. keep the batch dimension and merge "
            "the others into static ones), or make the dimensions static")
    return array_attr([-1 if isinstance(d, SymDim) else d for d in shape])


def expand_size_attr(source, shape):
    """fx.expand's size for a result shape: a dynamic dimension that the
    source has in the same place is -1 (kept); one the source would have to
    stretch from 1 cannot be written."""
    sizes = []
    lead = len(shape) - len(source)
    for i, d in enumerate(shape):
        if isinstance(d, SymDim):
            if i >= lead and source[i - lead] == d:
                sizes.append(-1)
                continue
            raise Unsupported(
                f"expands dimension {i} to {d.describe()}, which fx.expand cannot write "
                "(its sizes are numbers; -1 keeps a dimension, it cannot stretch one). Let "
                "broadcasting in an elementwise op stretch it, or make that dimension static")
        sizes.append(d)
    return array_attr(sizes)


def scalar_operand(ctx, value, like):
    """A Python number used as a tensor operand (a 'wrapped number')."""
    if _is_value(value):
        return value
    if isinstance(value, SymDim):
        raise Unsupported(f"computes with a size: it {value.number_error()}")
    if isinstance(value, bool):
        etype = "i1"
    elif isinstance(value, int):
        etype = "i64"
    elif isinstance(value, float):
        etype = "f32"
    else:
        raise Unsupported(f"operand of type {type(value).__name__} is not a tensor or number")
    # A rank-0 operand competes with wrapped numbers on equal terms in type
    # promotion; give the number the tensor's type when its category allows,
    # so that the promoted type matches PyTorch's.
    if like is not None and like.rank == 0:
        rank = {"i1": 0, "i64": 1, "i32": 1, "f32": 2, "f16": 2, "bf16": 2}
        if rank[etype] <= rank[like.etype]:
            etype = like.etype
    if etype in ("i64", "i32"):
        value = int(value)
    return ctx.b.scalar(value, etype, ctx.loc)


# ----------------------------------------------------------------------------
# Elementwise

_UNARY = {
    "relu": "relu", "sigmoid": "sigmoid", "tanh": "tanh", "exp": "exp", "log": "log",
    "sqrt": "sqrt", "rsqrt": "rsqrt", "reciprocal": "reciprocal", "sin": "sin", "cos": "cos",
    "erf": "erf", "silu": "silu", "hardswish": "hardswish", "hardsigmoid": "hardsigmoid",
    "neg": "neg", "abs": "abs", "tan": "tan", "asin": "asin", "acos": "acos",
    "atan": "atan", "sinh": "sinh", "cosh": "cosh", "asinh": "asinh", "acosh": "acosh",
    "atanh": "atanh", "log1p": "log1p", "expm1": "expm1", "log2": "log2",
    "log10": "log10", "floor": "floor", "ceil": "ceil", "round": "round",
    "trunc": "trunc", "sign": "sign", "isnan": "isnan", "isinf": "isinf",
    "logical_not": "logical_not", "bitwise_not": "bitwise_not",
}


def _unary(fx_name):
    def handler(ctx, x):
        return ctx.emit(fx_name, [x])
    return handler


for _name, _fx in _UNARY.items():
    handles(getattr(aten, _name).default)(_unary(_fx))


@handles(aten.gelu.default)
def _gelu(ctx, x, approximate="none"):
    attrs = {"approximate": "#fx.gelu_approximate<tanh>"} if approximate == "tanh" else None
    return ctx.emit("gelu", [x], attrs)


@handles(aten.hardtanh.default)
def _hardtanh(ctx, x, min_val=-1.0, max_val=1.0):
    return ctx.emit("hardtanh", [x], {"min_val": float_attr(min_val), "max_val": float_attr(max_val)})


@handles(aten.clamp.default)
def _clamp(ctx, x, min=None, max=None):
    return ctx.emit("clamp", [x], {"min": None if min is None else float_attr(min),
                                   "max": None if max is None else float_attr(max)})


@handles(aten.clamp.Tensor)
def _clamp_tensor(ctx, x, min=None, max=None):
    # Bounds broadcast with x: each step has the result's shape and dtype.
    out = x
    if min is not None:
        out = ctx.emit("maximum", [out, scalar_operand(ctx, min, out)])
    if max is not None:
        out = ctx.emit("minimum", [out, scalar_operand(ctx, max, out)])
    return ctx.retype(out)


def _binary(fx_name, with_alpha=False):
    def handler(ctx, a, b, alpha=1, rounding_mode=None, **_):
        attrs = {}
        if rounding_mode is not None:
            attrs["rounding_mode"] = f"#fx.rounding_mode<{rounding_mode}>"
        if with_alpha and alpha != 1:
            attrs["alpha"] = float_attr(alpha)
        if not _is_value(a) and not _is_value(b):
            raise Unsupported("both operands are numbers")
        a_val = scalar_operand(ctx, a, b if _is_value(b) else None)
        b_val = scalar_operand(ctx, b, a if _is_value(a) else None)
        return ctx.emit(fx_name, [a_val, b_val], attrs or None)
    return handler


for _op, _fx, _alpha in [("add", "add", True), ("sub", "sub", True), ("mul", "mul", False),
                         ("div", "div", False), ("maximum", "maximum", False),
                         ("minimum", "minimum", False), ("eq", "eq", False), ("ne", "ne", False),
                         ("lt", "lt", False), ("le", "le", False), ("gt", "gt", False),
                         ("ge", "ge", False), ("remainder", "remainder", False),
                         ("fmod", "fmod", False), ("atan2", "atan2", False),
                         ("logical_and", "logical_and", False),
                         ("logical_or", "logical_or", False),
                         ("logical_xor", "logical_xor", False),
                         ("bitwise_and", "bitwise_and", False),
                         ("bitwise_or", "bitwise_or", False),
                         ("bitwise_xor", "bitwise_xor", False)]:
    _packet = getattr(aten, _op)
    for _overload in ("Tensor", "Scalar", "default", "Tensor_mode", "Scalar_mode"):
        if hasattr(_packet, _overload):
            handles(getattr(_packet, _overload))(_binary(_fx, _alpha))
            ITEM_CONSUMERS.add(getattr(_packet, _overload))

handles(aten.pow.Tensor_Tensor, aten.pow.Tensor_Scalar, aten.pow.Scalar)(_binary("pow"))
ITEM_CONSUMERS.update((aten.pow.Tensor_Tensor, aten.pow.Tensor_Scalar, aten.pow.Scalar,
                       aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther,
                       aten.where.Scalar))


@handles(aten._local_scalar_dense.default)
def _local_scalar_dense(ctx, x):
    """A number read from a one-element tensor (`.item()`): the 0-d tensor
    itself. Elementwise arithmetic and comparisons (ITEM_CONSUMERS) take it
    as an operand, where it broadcasts like the number it stands for, and
    type promotion gives the same result types (a 0-d tensor, like a
    number, does not raise the dtype of a dimensioned operand of its
    category); the importer refuses every other use (a size, a constant
    argument, a result)."""
    if x.shape == ():
        return x
    return ctx.view(x, ())


@handles(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar)
def _where(ctx, cond, a, b):
    a_val = scalar_operand(ctx, a, b if _is_value(b) else None)
    b_val = scalar_operand(ctx, b, a if _is_value(a) else None)
    return ctx.emit("where", [cond, a_val, b_val])


@handles(aten._to_copy.default)
def _to_copy(ctx, x, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    shape, etype = ctx.result()
    if etype == x.etype:
        return x
    return ctx.emit("convert_element_type", [x])


@handles(aten.clone.default, aten.alias.default, aten.detach.default, aten.lift_fresh_copy.default,
         aten.lift_fresh.default, aten.contiguous.default)
def _identity(ctx, x, *args, **kwargs):
    return x


# ----------------------------------------------------------------------------
# Matrix products, convolution, pooling, normalization

handles(aten.mm.default)(lambda ctx, a, b: ctx.emit("mm", [a, b]))
handles(aten.bmm.default)(lambda ctx, a, b: ctx.emit("bmm", [a, b]))


@handles(aten.addmm.default)
def _addmm(ctx, bias, a, b, beta=1, alpha=1):
    attrs = {"beta": float_attr(beta) if beta != 1 else None,
             "alpha": float_attr(alpha) if alpha != 1 else None}
    return ctx.emit("addmm", [bias, a, b], attrs)


@handles(aten.linear.default)
def _linear(ctx, x, w, b=None):
    return ctx.emit("linear", [x, w] + ([b] if b is not None else []))


if hasattr(aten, "scaled_dot_product_attention"):
    @handles(aten.scaled_dot_product_attention.default)
    def _sdpa(ctx, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
              enable_gqa=False):
        if dropout_p != 0.0:
            raise Unsupported("attention dropout (fx-mlir compiles inference graphs)")
        if enable_gqa and q.shape[:-2] != k.shape[:-2]:
            raise Unsupported("grouped-query attention (enable_gqa with fewer key/value heads)")
        attrs = {"is_causal": "true" if is_causal else None,
                 "scale": float_attr(scale) if scale is not None else None}
        if attn_mask is None:
            return ctx.emit("scaled_dot_product_attention", [q, k, v], attrs)
        return ctx.emit("scaled_dot_product_attention", [q, k, v], attrs,
                        keywords=[("mask", attn_mask)])


@handles(aten.convolution.default, aten._convolution.default)
def _convolution(ctx, x, w, bias, stride, padding, dilation, transposed, output_padding, groups,
                 *rest):
    n = x.rank - 2
    attrs = {"stride": array_attr(_list(stride, n)), "padding": array_attr(_list(padding, n)),
             "dilation": array_attr(_list(dilation, n)),
             "transposed": "true" if transposed else None,
             "output_padding": array_attr(_list(output_padding, n)),
             "groups": int_attr(groups) if groups != 1 else None}
    return ctx.emit("convolution", [x, w] + ([bias] if bias is not None else []), attrs)


def _pool_attrs(kernel, stride, padding, n=2):
    kernel = _list(kernel, n)
    stride = _list(stride, n) if stride else kernel
    return {"kernel_size": array_attr(kernel), "stride": array_attr(stride),
            "padding": array_attr(_list(padding, n))}


@handles(aten.max_pool2d_with_indices.default, aten.max_pool2d.default)
def _max_pool2d(ctx, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    attrs = _pool_attrs(kernel_size, stride, padding)
    attrs["dilation"] = array_attr(_list(dilation, 2))
    attrs["ceil_mode"] = "true" if ceil_mode else None
    if ctx.node.target is aten.max_pool2d.default:
        return ctx.emit("max_pool2d", [x], attrs)
    if not ctx.result_used(1):
        value = ctx.emit_typed("max_pool2d", [x], attrs, [ctx.result(0)])
        return value, None
    return tuple(ctx.emit_multi("max_pool2d_with_indices", [x], attrs,
                                [ctx.result(0), ctx.result(1)]))


@handles(aten.avg_pool2d.default)
def _avg_pool2d(ctx, x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    attrs = _pool_attrs(kernel_size, stride, padding)
    attrs["ceil_mode"] = "true" if ceil_mode else None
    attrs["count_include_pad"] = None if count_include_pad else "false"
    attrs["divisor_override"] = int_attr(divisor_override) if divisor_override else None
    return ctx.emit("avg_pool2d", [x], attrs)


@handles(aten._adaptive_avg_pool2d.default, aten.adaptive_avg_pool2d.default)
def _adaptive_avg_pool2d(ctx, x, output_size):
    return ctx.emit("adaptive_avg_pool2d", [x], {"output_size": array_attr(_list(output_size, 2))})


@handles(aten.native_batch_norm.default)
def _batch_norm(ctx, x, weight, bias, running_mean, running_var, training=False, momentum=0.1,
                eps=1e-5):
    if training:
        raise Unsupported("batch norm in training mode (call model.eval() before importing)")
    if running_mean is None or running_var is None:
        raise Unsupported("batch norm without running statistics")
    if ctx.result_used(1) or ctx.result_used(2):
        raise Unsupported("the saved mean/invstd results of batch norm are used")
    keywords = [(k, v) for k, v in (("weight", weight), ("bias", bias)) if v is not None]
    attrs = {"eps": float_attr(eps) if eps != 1e-5 else None}
    out = ctx.emit_typed("batch_norm", [x, running_mean, running_var], attrs, [ctx.result(0)],
                         keywords)
    return out, None, None


if hasattr(aten, "_native_batch_norm_legit_no_training"):
    @handles(aten._native_batch_norm_legit_no_training.default)
    def _batch_norm_no_training(ctx, x, weight, bias, running_mean, running_var, momentum=0.1,
                                eps=1e-5):
        # What torch.export's Core ATen graphs hold for batch norm in eval mode.
        return _batch_norm(ctx, x, weight, bias, running_mean, running_var, False, momentum, eps)


if hasattr(aten, "_native_batch_norm_legit") and hasattr(aten._native_batch_norm_legit,
                                                          "no_stats"):
    @handles(aten._native_batch_norm_legit.no_stats)
    def _batch_norm_batch_statistics(ctx, x, weight, bias, training, momentum=0.1, eps=1e-5):
        """Batch norm by the statistics of its own input: F.batch_norm with
        training=True and no running statistics, what a weight
        standardization computes on a filter (timm's ScaledStdConv2d in the
        NFNets). The mean and the biased variance of each channel (dimension
        1), then a batch norm by them."""
        if not training:
            raise Unsupported("batch norm without running statistics in eval mode")
        if ctx.result_used(1) or ctx.result_used(2):
            raise Unsupported("the saved mean/invstd results of batch norm are used")
        if x.rank < 2:
            raise Unsupported("batch norm of a tensor without a channel dimension")
        var, mean, _ = _variance(ctx, x, [d for d in range(x.rank) if d != 1], 0, False)
        mean = ctx.view(mean, (x.shape[1],))
        keywords = [(k, v) for k, v in (("weight", weight), ("bias", bias)) if v is not None]
        attrs = {"eps": float_attr(eps) if eps != 1e-5 else None}
        out = ctx.emit_typed("batch_norm", [x, mean, var], attrs, [ctx.result(0)], keywords)
        return out, None, None


@handles(aten.native_layer_norm.default)
def _layer_norm(ctx, x, normalized_shape, weight=None, bias=None, eps=1e-5):
    if ctx.result_used(1) or ctx.result_used(2):
        raise Unsupported("the saved mean/rstd results of layer norm are used")
    keywords = [(k, v) for k, v in (("weight", weight), ("bias", bias)) if v is not None]
    attrs = {"eps": float_attr(eps) if eps != 1e-5 else None,
             "normalized_shape": array_attr(normalized_shape)}
    out = ctx.emit_typed("layer_norm", [x], attrs, [ctx.result(0)], keywords)
    return out, None, None


@handles(aten._softmax.default, aten._log_softmax.default)
def _softmax(ctx, x, dim, half_to_float=False):
    if half_to_float:
        raise Unsupported("softmax with half_to_float=True")
    name = "softmax" if ctx.node.target is aten._softmax.default else "log_softmax"
    return ctx.emit(name, [x], {"dim": int_attr(dim)})


@handles(aten.embedding.default)
def _embedding(ctx, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    attrs = {"padding_idx": int_attr(padding_idx) if padding_idx != -1 else None}
    return ctx.emit("embedding", [weight, indices], attrs)


@handles(aten._embedding_bag.default, aten._embedding_bag_forward_only.default)
def _embedding_bag(ctx, weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                   sparse=False, per_sample_weights=None, include_last_offset=False,
                   padding_idx=-1):
    """nn.EmbeddingBag: bag b sums (mode 0), averages (1) or takes the max
    (2) of the weight rows at indices[offsets[b]:offsets[b + 1]], rows of
    padding_idx left out, an empty bag all zeros. As FX ops: the rows
    (fx.embedding, scaled by per_sample_weights), a [bags, n] membership
    mask from comparing each position with the bags' bounds, then a matmul
    of the mask by the rows (sum, mean) or a masked amax (max). The other
    three results serve the backward pass."""
    for index, what in ((1, "offset2bag"), (2, "bag_size"), (3, "max_indices")):
        if ctx.result_used(index):
            raise Unsupported(f"its {what} result (for the backward pass) is used")
    if weight.rank != 2 or indices.rank != 1 or offsets.rank != 1:
        raise Unsupported("a weight that is not 2-d, or indices or offsets that are not 1-d")
    if mode not in (0, 1, 2):
        raise Unsupported(f"mode {mode}")
    n, dim = indices.shape[0], weight.shape[1]
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    if not all(isinstance(s, int) for s in (n, dim, bags)):
        raise Unsupported("dynamic sizes")
    et, ot = weight.etype, offsets.etype
    shape, _ = ctx.result(0)
    if n == 0 or bags == 0:
        return ctx.b.constant(np.zeros(shape, np.float32), et, ctx.loc), None, None, None

    def op(name, operands, result_shape, etype=et, attrs=None):
        return ctx.emit_typed(name, operands, attrs, [(tuple(result_shape), etype)])

    def part(x, start, end):
        return op("slice", [x], (end - start,), ot,
                  {"dim": int_attr(0), "start": int_attr(start), "end": int_attr(end),
                   "step": int_attr(1)})

    rows = op("embedding", [weight, indices], (n, dim))
    if per_sample_weights is not None:
        rows = op("mul", [rows, ctx.view(per_sample_weights, (n, 1))], (n, dim))
    # Bag b holds the positions [starts[b], ends[b]).
    starts = part(offsets, 0, bags) if include_last_offset else offsets
    if include_last_offset:
        ends = part(offsets, 1, bags + 1)
    else:
        last = ctx.b.constant(np.array([n], np.int64), ot, ctx.loc)
        ends = last if bags == 1 else op("cat", [part(offsets, 1, bags), last], (bags,), ot,
                                         {"dim": int_attr(0)})
    positions = ctx.b.constant(np.arange(n, dtype=np.int64).reshape(1, n), ot, ctx.loc)
    member = op("logical_and", [
        op("ge", [positions, ctx.view(starts, (bags, 1))], (bags, n), "i1"),
        op("lt", [positions, ctx.view(ends, (bags, 1))], (bags, n), "i1")], (bags, n), "i1")
    if padding_idx is not None and padding_idx >= 0:
        kept = op("ne", [ctx.view(indices, (1, n)),
                         ctx.b.scalar(int(padding_idx), indices.etype, ctx.loc)], (1, n), "i1")
        member = op("logical_and", [member, kept], (bags, n), "i1")
    ones = op("convert_element_type", [member], (bags, n))
    if mode in (0, 1):
        out = op("mm", [ones, rows], (bags, dim))
        if mode == 1:
            count = op("sum", [ones], (bags, 1), attrs={"dim": array_attr([1]),
                                                          "keepdim": "true"})
            count = op("clamp", [count], (bags, 1), attrs={"min": float_attr(1.0)})
            out = op("div", [out, count], (bags, dim))
        return out, None, None, None
    masked = op("where", [ctx.view(member, (bags, n, 1)), ctx.view(rows, (1, n, dim)),
                          ctx.b.scalar(float("-inf"), et, ctx.loc)], (bags, n, dim))
    out = op("amax", [masked], (bags, dim), attrs={"dim": array_attr([1])})
    filled = op("amax", [ones], (bags, 1), attrs={"dim": array_attr([1]), "keepdim": "true"})
    nonempty = op("gt", [filled, ctx.b.scalar(0.0, et, ctx.loc)], (bags, 1), "i1")
    out = op("where", [nonempty, out, ctx.b.scalar(0.0, et, ctx.loc)], (bags, dim))
    return out, None, None, None


def _gather_along(ctx, x, dim, idx):
    """x indexed along `dim` by the integer tensor `idx` (shape
    x.shape[:dim] + idx.shape + x.shape[dim + 1:]): a row gather, i.e. an
    embedding lookup over x with `dim` moved first and viewed as [rows, rest],
    then the index dimensions moved back to `dim`."""
    if idx.etype not in ("i64", "i32"):
        raise Unsupported("indexing with a boolean mask")
    _refuse_dynamic("indexing", x.shape, idx.shape)
    rank = len(x.shape)
    order = [dim] + [d for d in range(rank) if d != dim]
    moved = x
    if order != list(range(rank)):
        moved = ctx.emit_typed("permute", [x], {"dims": array_attr(order)},
                               [(tuple(x.shape[d] for d in order), x.etype)])
    rest_shape = moved.shape[1:]
    rest = _numel(rest_shape)
    table = ctx.view(moved, (moved.shape[0], rest))
    rows = ctx.emit_typed("embedding", [table, idx], None, [(idx.shape + (rest,), x.etype)])
    out = ctx.view(rows, idx.shape + rest_shape)
    k = len(idx.shape)
    back = list(range(k, k + dim)) + list(range(k)) + list(range(k + dim, k + rank - 1))
    if back != list(range(len(back))):
        out = ctx.emit_typed("permute", [out], {"dims": array_attr(back)},
                             [(tuple(out.shape[d] for d in back), out.etype)])
    return out


def _broadcast_shape(*shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        sizes = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0} - {1}
        if len(sizes) > 1:
            raise Unsupported("index tensors whose shapes do not broadcast")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


@handles(aten.index.Tensor)
def _index(ctx, x, indices):
    # x[..., i, j, ...] with index tensors on adjacent dimensions (the
    # others sliced whole): those dimensions merged into one, indexed by
    # the broadcast linear index i * size_j + j: a gather along it. (Index
    # tensors apart put their dimensions first in ATen: not supported.)
    given = [i for i, t in enumerate(indices) if t is not None]
    if not given:
        raise Unsupported("indexing without an index tensor")
    first, count = given[0], len(given)
    if given != list(range(first, first + count)):
        raise Unsupported("index tensors on dimensions that are not adjacent")
    if count == 1:
        return _gather_along(ctx, x, first, indices[first])
    block = x.shape[first:first + count]
    _refuse_dynamic("indexing", x.shape)
    tensors = [indices[d] for d in given]
    if any(t.etype != "i64" for t in tensors):
        raise Unsupported("several index tensors that are not all int64")
    shape = _broadcast_shape(*[t.shape for t in tensors])
    linear, stride = None, 1
    for t, size in reversed(list(zip(tensors, block))):
        term = t
        if stride != 1:
            term = ctx.emit_typed("mul", [t, scalar_operand(ctx, stride, t)], None,
                                  [(t.shape, "i64")])
        if linear is not None:
            term = ctx.emit_typed("add", [term, linear], None,
                                  [(_broadcast_shape(term.shape, linear.shape), "i64")])
        linear, stride = term, stride * size
    if linear.shape != shape:
        raise Unsupported("index tensors whose shapes do not broadcast")
    merged = ctx.view(x, x.shape[:first] + (_numel(block),) + x.shape[first + count:])
    return _gather_along(ctx, merged, first, linear)


@handles(torch.ops.prims.rev.default)
def _rev(ctx, x, dims):
    # torch.flip's decomposition (the Core ATen aten.flip goes to prims.rev;
    # so does a bidirectional LSTM/GRU's reversed sequence): a gather along
    # each flipped dimension with the indices n-1, ..., 0.
    out = x
    for dim in sorted({d % max(x.rank, 1) for d in dims}):
        size = x.shape[dim]
        _refuse_dynamic("flipping a dimension", (size,))
        if size <= 1:
            continue
        index = ctx.b.constant(np.arange(size - 1, -1, -1, dtype=np.int64), "i64", ctx.loc)
        out = _gather_along(ctx, out, dim, index)
    return out


@handles(aten.index_select.default)
def _index_select(ctx, x, dim, index):
    dim = dim % max(len(x.shape), 1)
    return _gather_along(ctx, x, dim, index)


# ----------------------------------------------------------------------------
# Reductions

def _reduce_dims(x, dim):
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(x.rank))
    return _list(dim, 1)


@handles(aten.sum.dim_IntList, aten.sum.default, aten.mean.dim, aten.mean.default)
def _sum_mean(ctx, x, dim=None, keepdim=False, dtype=None):
    if ctx.node.target in (aten.sum.default, aten.mean.default):
        dim, keepdim, dtype = None, False, dim  # sum(x, dtype)
    name = "sum" if ctx.node.target in (aten.sum.dim_IntList, aten.sum.default) else "mean"
    attrs = {"dim": array_attr(_reduce_dims(x, dim)), "keepdim": "true" if keepdim else None,
             "dtype": element_type(dtype) if dtype is not None else None}
    return ctx.emit(name, [x], attrs)


def _variance(ctx, x, dim, correction, keepdim):
    """(var, mean with the reduced dims kept, var's shape): the mean, then
    sum((x - mean)^2) / (n - correction). The mean keeps its dims for the
    subtraction."""
    if x.etype not in ("f32", "f16", "bf16"):
        raise Unsupported("var_mean of a non-floating tensor")
    dims = [d % max(x.rank, 1) for d in _reduce_dims(x, dim)]
    # The count of the reduced elements is a number: those dimensions
    # static (a dynamic batch kept is fine).
    _refuse_dynamic("a variance over dimensions", [x.shape[d] for d in dims])
    count = _numel([x.shape[d] for d in dims])
    correction = 1 if correction is None else correction
    kept = tuple(1 if d in dims else size for d, size in enumerate(x.shape))
    dropped = tuple(size for d, size in enumerate(x.shape) if d not in dims)
    out_shape = kept if keepdim else dropped
    mean = ctx.emit_typed("mean", [x], {"dim": array_attr(dims), "keepdim": "true"},
                          [(kept, x.etype)])
    diff = ctx.emit_typed("sub", [x, mean], None, [(x.shape, x.etype)])
    square = ctx.emit_typed("mul", [diff, diff], None, [(x.shape, x.etype)])
    total = ctx.emit_typed("sum", [square], {"dim": array_attr(dims),
                                             "keepdim": "true" if keepdim else None},
                           [(out_shape, x.etype)])
    denominator = max(count - correction, 0)
    # n <= correction: ATen divides by zero (inf or NaN); so does this.
    var = ctx.emit_typed("div", [total, scalar_operand(ctx, float(denominator), total)],
                         None, [(out_shape, x.etype)])
    return var, mean, out_shape


@handles(aten.var_mean.correction, aten.var.correction, aten.std.correction)
def _var_mean(ctx, x, dim=None, correction=None, keepdim=False):
    # (torch.export's group norm decomposes to var_mean.)
    var, mean, out_shape = _variance(ctx, x, dim, correction, keepdim)
    if ctx.node.target is aten.var.correction:
        return var
    if ctx.node.target is aten.std.correction:
        return ctx.emit_typed("sqrt", [var], None, [(out_shape, x.etype)])
    return var, ctx.view(mean, out_shape)


@handles(aten.var.dim)
def _var_dim(ctx, x, dim=None, unbiased=True, keepdim=False):
    # var.dim(x, dim, unbiased) is var.correction with correction 1 or 0.
    return _variance(ctx, x, dim, 1 if unbiased else 0, keepdim)[0]


@handles(aten.amax.default, aten.amin.default)
def _amax(ctx, x, dim=(), keepdim=False):
    name = "amax" if ctx.node.target is aten.amax.default else "amin"
    return ctx.emit(name, [x], {"dim": array_attr(_reduce_dims(x, dim)),
                                "keepdim": "true" if keepdim else None})


@handles(aten.max.default, aten.min.default)
def _max_all(ctx, x):
    """max()/min() of a whole tensor: amax/amin over every dimension."""
    name = "amax" if ctx.node.target is aten.max.default else "amin"
    return ctx.emit(name, [x], {"dim": array_attr(list(range(len(x.shape))))})


@handles(aten.max.dim, aten.min.dim)
def _max_dim(ctx, x, dim, keepdim=False):
    if ctx.result_used(1):
        raise Unsupported("the indices result of max/min along a dim are used")
    name = "amax" if ctx.node.target is aten.max.dim else "amin"
    out = ctx.emit_typed(name, [x], {"dim": array_attr([dim]),
                                     "keepdim": "true" if keepdim else None}, [ctx.result(0)])
    return out, None


# ----------------------------------------------------------------------------
# Shapes and data movement

@handles(aten.view.default, aten._unsafe_view.default, aten._reshape_alias.default,
         aten.reshape.default, aten.flatten.using_ints, aten.squeeze.dim, aten.squeeze.default,
         getattr(aten.squeeze, "dims", aten.squeeze.dim))
def _view(ctx, x, *args):
    shape, _ = ctx.result()
    if tuple(shape) == x.shape:
        return x
    return ctx.emit("view", [x], {"size": view_size_attr(shape)})


@handles(aten.as_strided.default)
def _as_strided(ctx, x, size, stride, storage_offset=None):
    # Only the as_strided calls that are plain reshapes of a contiguous
    # tensor (a dynamic batch included: group norm's decomposition).
    size, stride = list(size), list(stride)
    source = ctx.arg_meta(0)
    ok = (not storage_offset and source is not None and len(size) == len(stride)
          and _numel_parts(size) == _numel_parts(x.shape)
          and _contiguous_strides(size, stride)
          and _contiguous_strides(ctx.importer.dims(source.shape),
                                  ctx.importer.dims(source.stride)))
    if not ok:
        raise Unsupported("as_strided that is not a plain view of a contiguous tensor")
    return ctx.view(x, tuple(size))


def _numel_parts(shape):
    """A shape's element count as (its dynamic factors, the product of the
    static sizes)."""
    return (sorted(str(d) for d in shape if isinstance(d, SymDim)),
            _numel([d for d in shape if not isinstance(d, SymDim)]))


def _contiguous_strides(sizes, strides):
    """Whether `strides` are those of a contiguous tensor of `sizes` (the
    stride of a size-1 dimension does not matter). A stride that would be a
    product of a dynamic size does not match."""
    inner = 1  # the product of the sizes inside; None once one is dynamic
    for d, s in zip(reversed(sizes), reversed(strides)):
        if d != 1 and (inner is None or s != inner):
            return False
        inner = None if inner is None or isinstance(d, SymDim) else inner * d
    return True


handles(aten.t.default)(lambda ctx, x: ctx.emit("t", [x]) if x.rank == 2 else x)


@handles(aten.transpose.int)
def _transpose(ctx, x, dim0, dim1):
    return ctx.emit("transpose", [x], {"dim0": int_attr(dim0), "dim1": int_attr(dim1)})


@handles(aten.permute.default)
def _permute(ctx, x, dims):
    return ctx.emit("permute", [x], {"dims": array_attr(dims)})


@handles(aten.expand.default)
def _expand(ctx, x, size, implicit=False):
    shape, _ = ctx.result()
    if tuple(shape) == x.shape:
        return x
    return ctx.emit("expand", [x], {"size": expand_size_attr(x.shape, shape)})


@handles(aten.unsqueeze.default)
def _unsqueeze(ctx, x, dim):
    return ctx.emit("unsqueeze", [x], {"dim": int_attr(dim)})


def _slice_bounds(size, start, end, step):
    start = 0 if start is None else start
    end = size if end is None else end
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, end, step


@handles(aten.slice.Tensor)
def _slice(ctx, x, dim=0, start=None, end=None, step=1):
    dim = dim % x.rank
    size = x.shape[dim]
    if isinstance(size, SymDim):
        # fx.slice counts negative bounds from the end and clamps, as ATen
        # does: the bounds go as they are (a symbolic bound cannot).
        start = 0 if start is None else start
        end = 2 ** 63 - 1 if end is None or end == size else end
        if (start, end, step) == (0, 2 ** 63 - 1, 1):
            return x
        return ctx.emit("slice", [x], {"dim": int_attr(dim), "start": int_attr(start),
                                       "end": int_attr(end), "step": int_attr(step)})
    start, end, step = _slice_bounds(size, start, end, step)
    if (start, end, step) == (0, x.shape[dim], 1):
        return x
    return ctx.emit("slice", [x], {"dim": int_attr(dim), "start": int_attr(start),
                                   "end": int_attr(end), "step": int_attr(step)})


@handles(aten.select.int)
def _select(ctx, x, dim, index):
    dim = dim % x.rank
    if index < 0 and not isinstance(x.shape[dim], SymDim):
        index += x.shape[dim]  # (fx.select counts a negative index from the end too)
    return ctx.emit("select", [x], {"dim": int_attr(dim), "index": int_attr(index)})


def _split(ctx, x, sizes, dim):
    dim = dim % x.rank
    types = []
    for size in sizes:
        shape = list(x.shape)
        shape[dim] = size
        types.append((tuple(shape), x.etype))
    if len(sizes) == 1:
        return (x,)
    return tuple(ctx.emit_multi("split", [x], {"split_sizes": array_attr(sizes),
                                               "dim": int_attr(dim)}, types))


@handles(aten.split.Tensor, aten.unsafe_split.Tensor)
def _split_tensor(ctx, x, split_size, dim=0):
    total = x.shape[dim % x.rank]
    sizes = [min(split_size, total - s) for s in range(0, total, split_size)] or [0]
    return _split(ctx, x, sizes, dim)


@handles(aten.split_with_sizes.default, aten.unsafe_split_with_sizes.default)
def _split_with_sizes(ctx, x, split_sizes, dim=0):
    return _split(ctx, x, list(split_sizes), dim)


@handles(aten.unbind.int)
def _unbind(ctx, x, dim=0):
    dim = dim % x.rank
    parts = _split(ctx, x, [1] * x.shape[dim], dim)
    shape = x.shape[:dim] + x.shape[dim + 1:]
    return tuple(ctx.view(p, shape) for p in parts)


@handles(aten.cat.default)
def _cat(ctx, tensors, dim=0):
    # Like PyTorch, skip legacy empty 1-D tensors.
    tensors = [t for t in tensors if not (t.rank == 1 and t.shape[0] == 0)]
    if len(tensors) == 1:
        return tensors[0]
    return ctx.emit("cat", tensors, {"dim": int_attr(dim)})


@handles(aten.stack.default)
def _stack(ctx, tensors, dim=0):
    return ctx.emit("stack", tensors, {"dim": int_attr(dim)})


@handles(aten.slice_scatter.default)
def _slice_scatter(ctx, x, src, dim=0, start=None, end=None, step=1):
    dim = dim % x.rank
    start, end, step = _slice_bounds(x.shape[dim], start, end, step)
    if step != 1:
        raise Unsupported("slice_scatter with a step other than 1")
    return _scatter_range(ctx, x, src, dim, start, end)


@handles(aten.select_scatter.default)
def _select_scatter(ctx, x, src, dim, index):
    dim = dim % x.rank
    index = index + x.shape[dim] if index < 0 else index
    src = ctx.emit_typed("unsqueeze", [src], {"dim": int_attr(dim)},
                         [(src.shape[:dim] + (1,) + src.shape[dim:], src.etype)])
    return _scatter_range(ctx, x, src, dim, index, index + 1)


def _scatter_range(ctx, x, src, dim, start, end):
    # x with x[..., start:end, ...] replaced by src: a concatenation of slices.
    if src.etype != x.etype:
        src = ctx.emit_typed("convert_element_type", [src], None, [(src.shape, x.etype)])
    pieces = []
    size = x.shape[dim]
    for lo, hi in ((0, start), (end, size)):
        if hi > lo:
            shape = list(x.shape)
            shape[dim] = hi - lo
            pieces.append((lo, ctx.emit_typed("slice", [x], {
                "dim": int_attr(dim), "start": int_attr(lo), "end": int_attr(hi),
                "step": int_attr(1)}, [(tuple(shape), x.etype)])))
    pieces.append((start, src))
    pieces.sort(key=lambda p: p[0])
    if len(pieces) == 1:
        return src
    return ctx.emit("cat", [p for _, p in pieces], {"dim": int_attr(dim)})


@handles(aten.copy.default)
def _copy(ctx, x, src, non_blocking=False):
    # Functionalized copy_: the result is src broadcast to x's shape and dtype.
    out = src
    if out.etype != x.etype:
        out = ctx.emit_typed("convert_element_type", [out], None, [(out.shape, x.etype)])
    if out.shape != x.shape:
        out = ctx.emit_typed("expand", [out], {"size": expand_size_attr(out.shape, x.shape)},
                             [(x.shape, x.etype)])
    return out


@handles(aten.fill.Scalar, aten.fill.Tensor)
def _fill(ctx, x, value):
    if _is_value(value):
        return _copy(ctx, x, value)
    return ctx.emit("full", [], {"fill_value": float_attr(value)})


# ----------------------------------------------------------------------------
# Creation

@handles(aten.full.default)
def _full(ctx, size, fill_value, **kwargs):
    return ctx.emit("full", [], {"fill_value": float_attr(fill_value)})


handles(aten.zeros.default, aten.zeros_like.default)(
    lambda ctx, size, **kwargs: ctx.emit("zeros", []))
handles(aten.ones.default, aten.ones_like.default)(
    lambda ctx, size, **kwargs: ctx.emit("ones", []))
handles(aten.full_like.default)(
    lambda ctx, x, value, **kwargs: ctx.emit("full", [], {"fill_value": float_attr(value)}))


@handles(aten.scalar_tensor.default)
def _scalar_tensor(ctx, value, **kwargs):
    _, etype = ctx.result()
    return ctx.b.scalar(value, etype, ctx.loc)


@handles(aten.arange.default, aten.arange.start, aten.arange.start_step)
def _arange(ctx, *args, **kwargs):
    numbers = [a for a in args if isinstance(a, (int, float, SymDim))]
    if ctx.node.target is aten.arange.default:
        start, end, step = 0, numbers[0], 1
    elif ctx.node.target is aten.arange.start:
        start, end, step = numbers[0], numbers[1], 1
    else:
        start, end = numbers[:2]
        step = numbers[2] if len(numbers) > 2 else kwargs.get("step", 1)
    attrs = {"start": float_attr(start) if start != 0 else None, "end": float_attr(end),
             "step": float_attr(step) if step != 1 else None}
    return ctx.emit("arange", [], attrs)


# getitem of a multi-result node is resolved by the importer itself.
HANDLERS[operator.getitem] = None


@handles(aten.floor_divide.default, aten.floor_divide.Scalar)
def _floor_divide(ctx, a, b):
    return _binary("div")(ctx, a, b, rounding_mode="floor")


@handles(aten.zero.default)
def _zero(ctx, x):
    # Functionalized zero_().
    return ctx.emit("zeros", [])


# Core ATen ops (torch.Tag.core) the importer leaves out on purpose, by the
# reason why; utils/core-aten-coverage.py publishes them in docs/CoreATen.md.
# Every other core op without a handler is "not yet".
NO_INFERENCE_MEANING = {
    "training only: fx-mlir compiles inference graphs": (
        "_adaptive_avg_pool2d_backward", "avg_pool2d_backward", "convolution_backward",
        "embedding_dense_backward", "max_pool2d_with_indices_backward",
        "native_group_norm_backward", "native_layer_norm_backward", "native_dropout",
        "_native_batch_norm_legit"),
    "random numbers: a compiled inference graph is deterministic": (
        "rand", "randn", "randperm"),
}
# Core ATen overloads that no capture the importer takes puts in a graph,
# by why ("name.overload"); test/Python/Export/not-captured.py checks each
# claim with the torch it runs on.
NOT_CAPTURED = {
    "an out= variant: torch.export, make_fx and AOTAutograd functionalize it into "
    "the functional overload (atan2.default), which is imported": ("atan2.out",),
    "a tensor's stride or storage offset as a number: torch.export writes it as a "
    "size (sym_size) or a constant and Dynamo specializes it (a stride of an "
    "intermediate is a constant, storage_offset a graph break); only make_fx's "
    "symbolic tracing records the op, and no capture here uses it":
    ("sym_stride.int", "sym_storage_offset.default"),
}
# Core ATen ops of size arithmetic that need no handler: the importer
# evaluates them (Importer.run, _is_size_node) to numbers, or to symbolic
# sizes that views and reshapes take as their shape (a dynamic one as -1);
# test/Python/Export/dynamic.py imports both from a torch.export graph.
SIZE_ARITHMETIC = ("sym_size", "sym_numel")
