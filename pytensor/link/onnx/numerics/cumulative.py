"""Cumulative algorithms ONNX has no operator for: products by doubling, runs.

`prefix_product` is the cumulative product (Hillis-Steele doubling);
`run_positions` is ``numpy.repeat(numpy.arange(len(counts)), counts)``.
"""

from pytensor.link.onnx.value import Value, concat


def shifted(y: Value, shift: Value, axis: int, fill) -> Value:
    """``y`` shifted by ``shift`` along ``axis``, with ``fill`` shifted in.

    ``shift`` is an int64 vector of one element.
    """
    head = y.slice(0, y.shape(axis, axis + 1) - shift, axis)
    pads = concat([shift, shift.indices([0])], axis=0)
    return head.apply("Pad", head, pads, head.constant(fill), head.indices([axis]))


def multiply_shifted(y: Value, shift: Value, axis: int) -> Value:
    """``y`` times ``y`` shifted by ``shift`` along ``axis``, with ones shifted in."""
    return y * shifted(y, shift, axis, 1)


def doubling_loop_body(builder, axis: int, ndim: int, dtype, step):
    """The body of a ``Loop`` doing one ``step`` of `prefix_product`."""
    body = builder.loop_body()
    y = body.value(body.add_input("partial_products", dtype, (None,) * ndim), dtype)
    shift = body.value(body.add_input("shift", "int64", (1,)), "int64")
    product = step(y, shift, axis)
    doubled = shift + shift
    more = doubled < y.shape(axis, axis + 1)
    body.add_output(more.squeeze([0]).name, "more", "bool", ())
    body.add_output(product.name, "partial_products", dtype, (None,) * ndim)
    body.add_output(doubled.name, "shift", "int64", (1,))
    return body.make_model("prefix_product_body").graph


def prefix_product(
    x: Value, axis: int, ndim: int, length: int | None, step=multiply_shifted
) -> Value:
    """The cumulative product of ``x`` along ``axis`` (Hillis-Steele doubling).

    Step ``k`` multiplies every element by the element ``2**k`` before it, so
    ``ceil(log2(length))`` steps suffice: unrolled if ``length`` is known,
    else a ``Loop``.

    Parameters
    ----------
    x
        The values, of ``ndim`` dimensions.
    axis
        The non-negative axis to multiply along.
    ndim
        The number of dimensions of ``x``.
    length
        The length of ``axis`` if it is known statically, else None.
    step
        ``step(y, shift, axis)``: ``y`` times itself shifted by ``shift``
        along ``axis`` (by default `multiply_shifted`; another product, such
        as that of complex numbers, gives its own prefix products).
    """
    if length is not None:
        shift = 1
        while shift < length:
            x = step(x, x.indices([shift]), axis)
            shift *= 2
        return x
    longer_than_one = x.shape(axis, axis + 1) > x.indices([1])
    product, _ = x.apply_multi(
        "Loop",
        None,
        longer_than_one.squeeze([0]),
        x,
        x.indices([1]),
        dtypes=(x.dtype, "int64"),
        body=doubling_loop_body(x.builder, axis, ndim, x.dtype, step),
    )
    return product


def run_positions(counts: Value) -> Value:
    """``numpy.repeat(numpy.arange(len(counts)), counts)`` for non-negative int64 ``counts``.

    Marks where each element's run ends with a scatter-add; the number of
    marks at or before a position is the element it repeats.
    """
    ends = counts.apply("CumSum", counts, counts.constant(0))
    total = concat([counts.indices([0]), ends], axis=0).slice(-1)
    zeros = counts.constant(0).expand(total + total.indices([1]))
    ones = counts.constant(1).expand(ends.shape())
    marks = zeros.apply("ScatterElements", zeros, ends, ones, reduction="add")
    marks = marks.slice(0, total, 0)
    return marks.apply("CumSum", marks, marks.constant(0))
