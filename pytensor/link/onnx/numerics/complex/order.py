"""The order of complex numbers, NumPy's: lexicographic (real parts, then
imaginary parts), with its rules for NaN parts; the comparisons, extremes and
sort keys of the parts ``(re, im)`` of
`pytensor.link.onnx.numerics.complex.arithmetic`.
"""

import numpy as np

from pytensor.link.onnx.numerics.complex.arithmetic import Parts, split
from pytensor.link.onnx.value import Value, where, where_keeping_zero_signs


def has_nan(z: Parts) -> Value:
    """Whether a part of ``z`` is NaN."""
    return z[0].isnan() | z[1].isnan()


def has_inf(z: Parts) -> Value:
    """Whether a part of ``z`` is infinite."""
    return z[0].isinf() | z[1].isinf()


def less(z: Parts, w: Parts) -> Value:
    """NumPy's ``z < w``: by real parts, then by imaginary parts (false
    where an imaginary part is NaN and the real parts differ)."""
    (a, b), (c, d) = z, w
    return ((a < c) & ~has_nan((b, d))) | (a.eq(c) & (b < d))


def less_equal(z: Parts, w: Parts) -> Value:
    """NumPy's ``z <= w``, lexicographic as `less`."""
    (a, b), (c, d) = z, w
    return ((a < c) & ~has_nan((b, d))) | (a.eq(c) & (b <= d))


def greater(z: Parts, w: Parts) -> Value:
    return less(w, z)


def greater_equal(z: Parts, w: Parts) -> Value:
    return less_equal(w, z)


def chosen(keep_z: Value, z: Parts, w: Parts) -> Parts:
    """``z`` where ``keep_z``, else ``w`` (signs of zeros kept)."""
    return (
        where_keeping_zero_signs(keep_z, z[0], w[0]),
        where_keeping_zero_signs(keep_z, z[1], w[1]),
    )


def maximum(z: Parts, w: Parts) -> Parts:
    """NumPy's ``maximum``: ``z`` if it has a NaN part or ``z >= w``, else ``w``
    (so a NaN part of either propagates)."""
    return chosen(has_nan(z) | greater_equal(z, w), z, w)


def minimum(z: Parts, w: Parts) -> Parts:
    """NumPy's ``minimum``: ``z`` if it has a NaN part or ``z <= w``, else ``w``."""
    return chosen(has_nan(z) | less_equal(z, w), z, w)


def largest(re: Value, im: Value, axis: int) -> tuple[Value, Value, Value]:
    """NumPy's ``maximum.reduce`` and ``argmax`` of the complex numbers of
    parts ``re`` and ``im`` (without the pair axis) along ``axis``: the first
    number with a NaN part if there is one, else the first largest in
    lexicographic order. Its parts and its position, kept along ``axis``."""
    is_nan = re.isnan() | im.isnan()
    re_or_least = where(is_nan, -np.inf, re)
    is_max_re = re_or_least.eq(re_or_least.max([axis])) & ~is_nan
    im_max = where(is_max_re, im, -np.inf).max([axis])
    is_max = is_max_re & im.eq(im_max)
    chosen = where(is_nan.any_along([axis]), is_nan, is_max).cast("uint8")
    position = chosen.apply("ArgMax", chosen, axis=axis, keepdims=1)
    return re.take_along(position, axis), im.take_along(position, axis), position


def sorts_before(z: Value, w: Value) -> Value:
    """``z < w`` in NumPy's sort order of complex numbers, NaN classes then
    lexicographic (`z` and `w` are complex values; the result has no pair
    axis)."""
    (a, b), (c, d) = split(z), split(w)
    a_nan, b_nan, c_nan, d_nan = a.isnan(), b.isnan(), c.isnan(), d.isnan()
    by_im = (b < d) | (d_nan & ~b_nan)
    less = (
        ((a < c) & (~b_nan | d_nan))
        | ((a > c) & d_nan & ~b_nan)
        | ((a.eq(c) | (a_nan & c_nan)) & by_im)
        | (c_nan & ~a_nan)
    )
    return less.squeeze([-1])
