"""Converters of the Ops that order, reduce and scan complex values: products,
cumulative sums and products, sorting, largest values.

Complex numbers are ordered as NumPy orders them: lexicographically (real
parts, then imaginary parts), with its rules for NaN parts. The elementwise
comparisons are in `pytensor.link.onnx.dispatch.complex.elementwise`.
"""

from pytensor.tensor.extra_ops import CumOp, SearchsortedOp, Unique
from pytensor.tensor.math import Argmax, Max, Prod
from pytensor.tensor.sort import ArgSortOp, SortOp

from pytensor.link.onnx.complex_pairs import complex_parts_dtype, is_complex
from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.complex.operands import (
    complex_pairs,
    convert_part_wise,
    parts_dtype,
    value_of,
)
from pytensor.link.onnx.dispatch.lengths import (
    reduced_axes,
    require_not_empty,
    static_length,
)
from pytensor.link.onnx.dispatch.operands import along_sort_axis
from pytensor.link.onnx.dispatch.variables import value_type
from pytensor.link.onnx.numerics.complex import arithmetic as nc
from pytensor.link.onnx.numerics.complex import order as nco
from pytensor.link.onnx.numerics.reductions import flatten_axes_last
from pytensor.link.onnx.numerics.sorting import (
    group_starts,
    searchsorted,
    stable_argsort,
    unique_outputs,
)
from pytensor.link.onnx.value import Value, concat


# Products and cumulative Ops


@onnx_funcify.register(Prod, complex=True)
def onnx_funcify_complex_Prod(op, node, builder, inputs, **kwargs):
    # complex64 products accumulate in complex128, as in PyTensor
    [z], [out] = node.inputs, node.outputs
    value = value_of(builder, z, inputs[0]).cast(complex_parts_dtype(op.acc_dtype))
    axes = reduced_axes(op.axis, z.type.ndim)
    if axes:
        value = nc.product(value, z.type.ndim, axes, static_length(z, axes))
    return [value.cast(value_type(out)[0]).name]


@onnx_funcify.register(CumOp, complex=True)
def onnx_funcify_complex_CumOp(op, node, builder, inputs, **kwargs):
    if op.mode == "add":
        return convert_part_wise(op, node, builder, inputs, **kwargs)
    [z] = node.inputs
    value = value_of(builder, z, inputs[0])
    length = z.type.shape[op.axis]
    return [nc.cumulative_product(value, op.axis, z.type.ndim, length).name]


# Sorting in NumPy's order: R + Rj, R + nanj, nan + Rj, nan + nanj, each
# lexicographic (real parts, then imaginary parts)


def lexicographic_argsort(builder, re: Value, im: Value, axis: int) -> Value:
    """The stable order of the complex numbers of parts ``re`` and ``im`` (no
    pair axis) along ``axis``: stable sorts by imaginary parts, by real parts,
    then by NaN class as listed above."""
    nan_class = re.isnan().cast("int64") * 2 + im.isnan().cast("int64")
    order = None
    for key in (im, re, nan_class):
        in_order = key if order is None else key.take_along(order, axis)
        by_key = builder.value(
            stable_argsort(builder, in_order.name, key.dtype, axis), "int64"
        )
        order = by_key if order is None else order.take_along(by_key, axis)
    return order


@onnx_funcify.register(SortOp, complex=True)
@onnx_funcify.register(ArgSortOp, complex=True)
def onnx_funcify_complex_sort(op, node, builder, inputs, **kwargs):
    z = value_of(builder, node.inputs[0], inputs[0])
    re, im = nc.real(z), nc.imag(z)
    [out] = node.outputs

    def sort_along(axis):
        order = lexicographic_argsort(builder, re, im, axis)
        if not is_complex(out):
            return order.name
        parts = (part.take_along(order, axis).unsqueeze([-1]) for part in (re, im))
        return nc.join(tuple(parts)).name

    return [along_sort_axis(builder, node, inputs, sort_along, value_type(out)[0])]


# Largest complex numbers (NumPy's lexicographic order, the first NaN first)


def largest_of(builder, node, name, axis, empty_message):
    """`numerics.complex.order.largest` over the axes ``axis`` (None: all) of the
    complex input of ``node`` (ONNX value ``name``), merged last."""
    [z] = node.inputs
    value = value_of(builder, z, name)
    axes = reduced_axes(axis, z.type.ndim)
    require_not_empty(builder, node, value, axes, empty_message)
    re, im = (
        flatten_axes_last(part, z.type.ndim, axes)
        for part in (nc.real(value), nc.imag(value))
    )
    return nco.largest(re, im, z.type.ndim - len(axes))


@onnx_funcify.register(Max, complex=True)
def onnx_funcify_complex_Max(op, node, builder, inputs, **kwargs):
    message = "zero-size array to reduction operation maximum which has no identity"
    re, im, _ = largest_of(builder, node, inputs[0], op.axis, message)
    return [nc.join((re, im)).name]


@onnx_funcify.register(Argmax, complex=True)
def onnx_funcify_complex_Argmax(op, node, builder, inputs, **kwargs):
    message = "attempt to get argmax of an empty sequence"
    _, _, position = largest_of(builder, node, inputs[0], op.axis, message)
    return [position.squeeze([-1]).name]


@onnx_funcify.register(SearchsortedOp, complex=True)
def onnx_funcify_complex_SearchsortedOp(op, node, builder, inputs, **kwargs):
    # in the common dtype of x and v, as NumPy
    dtype = parts_dtype(node)
    x, v = (
        complex_pairs(builder, var, name, dtype)
        for var, name in zip(node.inputs[:2], inputs[:2], strict=True)
    )
    if len(inputs) == 3:
        x = x.take(builder.value(inputs[2], node.inputs[2].type.dtype), axis=0)
    v_ndim = node.inputs[1].type.ndim
    return [searchsorted(x, v, op.side, v_ndim, before=nco.sorts_before).name]


@onnx_funcify.register(Unique, complex=True)
def onnx_funcify_complex_Unique(op, node, builder, inputs, **kwargs):
    if op.axis is not None and node.inputs[0].type.ndim > 1:
        raise NotImplementedError(
            "unique sub-arrays (an axis of a 2+ dimensional array) of complex "
            "values are not supported; only unique elements"
        )
    z = value_of(builder, node.inputs[0], inputs[0])
    pairs = z.reshape(z.indices([-1, 2]))
    order = lexicographic_argsort(builder, nc.real(pairs), nc.imag(pairs), 0)
    in_order = pairs.take(order, axis=0)
    # numbers with NaN parts are one group, as in numpy.unique (equal_nan)
    has_nan = in_order.isnan().any_along([1], keepdims=False)
    after_nan = concat([has_nan.constant([False]), has_nan.slice(0, -1)], axis=0)
    is_start = group_starts(in_order, by_rows=True) & ~(has_nan & after_nan)
    uniques = in_order.apply("Compress", in_order, is_start, axis=0)
    return unique_outputs(op, uniques, order, is_start)
