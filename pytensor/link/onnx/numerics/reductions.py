"""Reductions onnxruntime computes wrong: exact integer sums and products that
wrap like NumPy's, float products in NumPy's sequential order, and int64
extrema read at the position of the extremum.

They reduce the axes of an array moved last and merged into one
(:func:`flatten_axes_last`).
"""

import numpy as np

from pytensor.link.onnx.numerics.cumulative import sequential_product
from pytensor.link.onnx.numerics.matmul import matmul
from pytensor.link.onnx.value import Value, concat


def flatten_axes_last(x: Value, ndim: int, axes) -> Value:
    """``x`` with ``axes`` moved last and merged into one axis.

    Parameters
    ----------
    x
        An array of rank ``ndim``.
    axes
        The non-empty sequence of axes to merge.

    Returns
    -------
    Value
        Of rank ``ndim - len(axes) + 1``: the other axes in order, then the
        merged one.
    """
    kept = [axis for axis in range(ndim) if axis not in axes]
    permutation = kept + sorted(axes)
    if permutation != list(range(ndim)):
        x = x.transpose(permutation)
    if len(axes) == 1:
        return x
    merged = x.shape(len(kept)).prod([0])
    return x.reshape(concat([x.shape(0, len(kept)), merged], axis=0))


def integer_sum(x: Value, ndim: int, axes) -> Value:
    """The exact sum over ``axes`` (dropped) of the int64 ``x``, wrapping like NumPy.

    A product with a vector of ones: onnxruntime's integer ``ReduceSum``
    computes in float64. int64 arithmetic wraps to the bits of any narrower
    or unsigned integer type.
    """
    flat = flatten_axes_last(x, ndim, axes)
    last_axis = ndim - len(axes)
    ones = flat.constant(1).expand(flat.shape(last_axis))
    return x.result(
        matmul(x.builder, flat.name, ones.name, "int64", last_axis + 1, 1), "int64"
    )


def pad_with_one(x: Value, axis: int, pad_length: Value) -> Value:
    """``x`` with ``pad_length`` (an int64 vector of one element) ones appended
    to its last axis, ``axis``.

    The pads are given for every axis: onnxruntime's transpose optimizer
    mishandles the ``axes`` input of Pad.
    """
    pads = concat([x.indices([0] * (2 * axis + 1)), pad_length], axis=0)
    return x.apply("Pad", x, pads, x.constant(1))


def multiply_halves(x: Value, axis: int) -> Value:
    """The first half of the last axis, ``axis``, of the int64 ``x`` times the
    second half; an odd length is padded with a 1."""
    length = x.shape(axis, axis + 1)
    odd = length % 2
    padded = pad_with_one(x, axis, odd)
    half = (length + odd) / 2
    return padded.slice(0, half, axis) * padded.slice(half, None, axis)


def longer_than_one(x: Value, axis: int) -> Value:
    """Whether ``axis`` of ``x`` has more than one element, a 0-d bool."""
    return (x.shape(axis, axis + 1) > 1).squeeze([0])


def product_loop_body(builder, axis: int):
    """The body of a ``Loop`` halving the last axis, ``axis``, of its int64 state."""
    body = builder.loop_body("product_body")
    state = body.add_input("partial_product", "int64", (None,) * (axis + 1))
    product = multiply_halves(body.value(state, "int64"), axis)
    body.add_output(longer_than_one(product, axis).name, "more", "bool", ())
    body.add_output(product.name, "partial_product", "int64", (None,) * (axis + 1))
    return body.make_graph()


def integer_product(x: Value, axis: int, length: int | None) -> Value:
    """The product along the last axis, ``axis`` (dropped), of the int64 ``x``,
    exact and wrapping like NumPy.

    onnxruntime's ``ReduceProd`` computes integers in float64 (inexact beyond
    2**53 and saturating), so pairs are multiplied instead: a tree of ``Mul``
    unrolled if the ``length`` of the axis is known, else a ``Loop``.
    """
    # an extra 1 makes the axis non-empty and does not change the product
    x = pad_with_one(x, axis, x.indices([1]))
    if length is not None:
        for _ in range(int(np.ceil(np.log2(length + 1)))):
            x = multiply_halves(x, axis)
    else:
        body = product_loop_body(x.builder, axis)
        x = x.apply("Loop", None, longer_than_one(x, axis), x, body=body)
    return x.squeeze([axis])


def sequential_float_product(x: Value, axis: int, length: int | None) -> Value:
    """The product along the last axis, ``axis`` (dropped), of the float ``x``,
    as NumPy's ``multiply.reduce`` forms it: in sequence, so that a partial
    product that overflows stays infinite (onnxruntime's ``ReduceProd``
    multiplies in another order). The last of `sequential_product`'s prefix
    products, after a trailing 1 for empty axes.
    """
    x = pad_with_one(x, axis, x.indices([1]))
    length = None if length is None else length + 1
    products = sequential_product(x, axis, axis + 1, length)
    return products.slice(-1, None, axis).squeeze([axis])


def extremum_by_position(x: Value, ndim: int, axes, position_op: str) -> Value:
    """The extremum over ``axes`` (dropped) of ``x``, read where ``position_op``
    (``ArgMax`` or ``ArgMin``) finds it.

    onnxruntime's int64 ``ReduceMax``, ``ReduceMin`` and ``Max`` are wrong for
    values that differ only in their low 32 bits; its ``ArgMax`` and
    ``ArgMin`` are right.
    """
    flat = flatten_axes_last(x, ndim, axes)
    last_axis = ndim - len(axes)
    position = flat.apply(position_op, flat, axis=last_axis, keepdims=1)
    return flat.take_along(position, last_axis).squeeze([last_axis])
