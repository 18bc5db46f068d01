"""Cumulative algorithms ONNX has no operator for: products by doubling, runs.

`prefix_product` is the cumulative product (Hillis-Steele doubling);
`sequential_product` the cumulative product NumPy's sequential order gives;
`run_positions` is ``numpy.repeat(numpy.arange(len(counts)), counts)``.
"""

import numpy as np

from pytensor.link.onnx.value import Value, concat, where


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


# NumPy's multiply.accumulate of floats, which multiplies in sequence: a
# prefix that overflows to inf or underflows to 0 stays there (or becomes NaN)
# whatever follows. The doubling above multiplies in another order, so its
# partial products may overflow where NumPy's do not, and recover where
# NumPy's stayed inf or 0. `sequential_product` computes the exact prefix
# products from mantissas and exponents, then continues NumPy's way from the
# first prefix that is not finite and non-zero.

INV_LN2 = 1.4426950408889634
# mantissas in [1/sqrt(2), sqrt(2)): products of up to this many of them are finite
MANTISSA_PRODUCT_LENGTH = 2000


def is_finite_nonzero(x: Value) -> Value:
    return (abs(x) < np.inf) & x.ne(0.0)


def nearest_exponent(x: Value, normal: Value) -> Value:
    """The power of two nearest ``|x|`` (as a float), 0 where not ``normal``."""
    exponent = (abs(x).log() * INV_LN2).round()
    return where(normal, exponent, 0.0)


def times_power_of_two(x: Value, exponent: Value) -> Value:
    """``x * 2**exponent``, exact while finite, in two factors of two so that
    neither overflows where the result does not."""
    half = (exponent * 0.5).floor()
    return x * x.constant(2.0) ** half * x.constant(2.0) ** (exponent - half)


def mantissas_and_exponents(x: Value) -> tuple[Value, Value]:
    """``x = mantissa * 2**exponent`` with ``|mantissa|`` in about
    ``[1/sqrt(2), sqrt(2))``; zeros, infinities and NaN are their own
    mantissa, of exponent 0."""
    exponent = nearest_exponent(x, is_finite_nonzero(x))
    return times_power_of_two(x, -exponent), exponent


def multiply_shifted_pairs(pairs: Value, shift: Value, axis: int) -> Value:
    """One doubling step over (mantissa, exponent + 1) pairs on the last axis,
    renormalizing the mantissas (ones shifted in are the pair of 1)."""
    other = shifted(pairs, shift, axis, 1)
    mantissa, offset = split_pairs(pairs)
    other_mantissa, other_offset = split_pairs(other)
    product = mantissa * other_mantissa
    rescale = nearest_exponent(product, is_finite_nonzero(product))
    mantissa = times_power_of_two(product, -rescale)
    return concat([mantissa, offset + other_offset - 1.0 + rescale], axis=-1)


def split_pairs(pairs: Value) -> tuple[Value, Value]:
    first, second = pairs.apply_multi(
        "Split", pairs, axis=-1, num_outputs=2, dtypes=[pairs.dtype] * 2
    )
    return first, second


def exact_prefix_products(x: Value, axis: int, ndim: int, length: int | None) -> Value:
    """The cumulative products of the float64 ``x`` along ``axis``, each
    rounded once from its exact value (a product over- or underflows only if
    it is out of range itself)."""
    mantissa, exponent = mantissas_and_exponents(x)
    if length is not None and length <= MANTISSA_PRODUCT_LENGTH:
        products = prefix_product(mantissa, axis, ndim, length)
        return times_power_of_two(products, exponent.cumsum(axis))
    pairs = concat([mantissa.unsqueeze([-1]), (exponent + 1.0).unsqueeze([-1])], -1)
    pairs = prefix_product(pairs, axis, ndim + 1, length, multiply_shifted_pairs)
    products, offsets = split_pairs(pairs)
    return times_power_of_two(products, offsets - 1.0).squeeze([-1])


def sequential_product(x: Value, axis: int, ndim: int, length: int | None) -> Value:
    """NumPy's ``multiply.accumulate`` of the floating-point ``x`` along the
    non-negative ``axis`` of static ``length`` (None if unknown), in ``x``'s dtype.

    The exact prefix products, rounded to ``x``'s dtype, are NumPy's up to the
    first one that is infinite, zero or NaN. From there on NumPy multiplies
    that one by each later element, so only signs and zeros, infinities and
    NaN matter: the prefix products of ``sign(x)`` (or ``x`` itself where it
    is not finite and non-zero), into which the first such prefix product's
    magnitude is multiplied.
    """
    exact = exact_prefix_products(x.cast("float64"), axis, ndim, length).cast(x.dtype)
    special = ~is_finite_nonzero(exact)
    specials_so_far = special.cast("int64").cumsum(axis)
    first_special = special & specials_so_far.eq(1)
    signs = where(is_finite_nonzero(x), x.apply("Sign", x), x)
    continued = signs * where(first_special, abs(exact), 1.0)
    continued = prefix_product(continued, axis, ndim, length)
    return where(specials_so_far.eq(0), exact, continued)
