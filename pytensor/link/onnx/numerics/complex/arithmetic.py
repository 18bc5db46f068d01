"""Complex arithmetic on the real pairs ONNX holds complex values as.

ONNX has no complex tensors that onnxruntime computes with: a complex array
of shape ``s`` is the real array of shape ``(*s, 2)`` holding its real and
imaginary parts along the last axis (complex64: float32, complex128:
float64), as torch.onnx writes them. The functions here take and return
*parts*: a pair ``(re, im)`` of real values that keep a trailing axis of
length 1, so that they broadcast like the complex values they stand for;
`split` gives them and `join` stacks them back. The special values (signed
zeros, infinities, NaN) follow NumPy's complex loops.
"""

import numpy as np

from pytensor.link.onnx.numerics.cumulative import prefix_product, shifted
from pytensor.link.onnx.numerics.elementary import log1p, odd
from pytensor.link.onnx.numerics.reductions import flatten_axes_last
from pytensor.link.onnx.numerics.trigonometric import arctan2, cos, sin
from pytensor.link.onnx.value import (
    Value,
    concat,
    where,
)


Parts = tuple[Value, Value]


def split(z: Value) -> Parts:
    """The parts of the complex value ``z`` (one ``Split`` node)."""
    re, im = z.apply_multi("Split", z, axis=-1, num_outputs=2, dtypes=[z.dtype] * 2)
    return re, im


def join(z: Parts) -> Value:
    """The complex value of the parts ``z`` (one ``Concat`` node)."""
    return concat(list(z), axis=-1)


def real(z: Value) -> Value:
    """The real part of the complex value ``z``, without the pair axis."""
    return z.take(0, axis=-1)


def imag(z: Value) -> Value:
    """The imaginary part of the complex value ``z``, without the pair axis."""
    return z.take(1, axis=-1)


def from_real(x: Value) -> Parts:
    """The parts of the real value ``x`` (no pair axis) as a complex number."""
    re = x.unsqueeze([-1])
    return re, re.full_like(0.0)


def add(z: Parts, w: Parts) -> Parts:
    return z[0] + w[0], z[1] + w[1]


def subtract(z: Parts, w: Parts) -> Parts:
    return z[0] - w[0], z[1] - w[1]


def negative(z: Parts) -> Parts:
    return -z[0], -z[1]


def conj(z: Parts) -> Parts:
    return z[0], -z[1]


def multiply(z: Parts, w: Parts) -> Parts:
    """``z * w = (ac - bd, ad + bc)``, without the fused multiply-adds that
    NumPy's loops may use (so possibly a last bit apart)."""
    (a, b), (c, d) = z, w
    return a * c - b * d, a * d + b * c


def divide(z: Parts, w: Parts) -> Parts:
    """``z / w`` by Smith's algorithm, as NumPy computes it (no overflow of
    ``|w|**2``; division by zero gives NumPy's infinities and NaN)."""
    # onnxruntime's Where turns a -0 it selects from its first branch into +0
    # (and rewrites Where(Not(c), x, y) into Where(c, y, x)): each ratio
    # comes second, against an exact factor of 1
    (a, b), (c, d) = z, w
    abs_c, abs_d = abs(c), abs(d)
    tall, wide = abs_c < abs_d, abs_c >= abs_d
    ratio_if_wide = where(tall, 1.0, d / c)
    ratio_if_tall = where(wide, 1.0, c / d)
    larger = where(tall, d, c)
    scale = 1.0 / (larger + where(tall, c * ratio_if_tall, d * ratio_if_wide))
    re = (a * ratio_if_tall + b * ratio_if_wide) * scale
    im = (b * ratio_if_tall - a * ratio_if_wide) * scale
    by_zero = (abs_c + abs_d).eq(0.0)
    return where(by_zero, a / abs_c, re), where(by_zero, b / abs_c, im)


def reciprocal(z: Parts) -> Parts:
    """``1 / z``, by `divide`."""
    return divide((z[0].constant(1.0), z[0].constant(0.0)), z)


def magnitude_and_ratio(z: Parts) -> tuple[Value, Value, Value, Value]:
    """``|re|``, ``|im|``, the larger of them and the smaller over the larger."""
    x, y = abs(z[0]), abs(z[1])
    x_larger = x > y
    big = where(x_larger, x, y)
    return x, y, big, where(x_larger, y, x) / big


def absolute(z: Parts) -> Value:
    """``|z|``, C's ``hypot``: no overflow or underflow of the squares,
    infinite when a part is (even if the other is NaN)."""
    x, y, big, ratio = magnitude_and_ratio(z)
    hypot = where((x + y).eq(0.0), 0.0, big * (1.0 + ratio * ratio).sqrt())
    return where(x.isinf() | y.isinf(), np.inf, hypot)


def log_absolute(z: Parts) -> Value:
    """``log|z|``, accurate where ``|z|`` is close to 1."""
    x, y, big, ratio = magnitude_and_ratio(z)
    small = big * ratio
    near_one = (big > 0.5) & (big < 2.0)
    near = 0.5 * log1p((big - 1.0) * (big + 1.0) + small * small)
    far = absolute(z).log()
    return where(near_one & ~(x.isinf() | y.isinf()), near, far)


def angle(z: Parts) -> Value:
    """``arg z``, NumPy's ``arctan2(im, re)`` with its signed zeros."""
    return arctan2(z[1], z[0])


def exp(z: Parts) -> Parts:
    """``exp(z)``; a zero imaginary part stays exactly (with its sign)."""
    a, b = z
    scale = a.exp()
    # a product rather than a Where, which would lose the sign of a zero b
    re, im = scale * cos(b), where(b.eq(0.0), 1.0, scale) * sin(b)
    # exp(+-inf + i y) for an infinite or NaN y: (inf, NaN) and (0, 0)
    limit = a.isinf() & (b - b).isnan()
    im = where(limit, where(a > 0.0, np.nan, 0.0), im)
    return where(limit, scale, re), im * where(limit & (b < 0.0), -1.0, 1.0)


def log(z: Parts) -> Parts:
    """The principal ``log(z)``: ``(log|z|, arg z)``."""
    return log_absolute(z), angle(z)


def sqrt(z: Parts) -> Parts:
    """The principal square root, with C's ``csqrt`` special values."""
    a, b = z
    t = (0.5 * abs(a) + 0.5 * absolute(z)).sqrt()
    other = abs(b) / (2.0 * t)
    negative_re = a < 0.0
    re = where(negative_re, other, t)
    im_magnitude = where(negative_re, t, other)
    zero, infinite_im = a.eq(0.0) & b.eq(0.0), b.isinf()
    re = where(zero, 0.0, where(infinite_im, np.inf, re))
    im_magnitude = where(zero, 0.0, where(infinite_im, np.inf, im_magnitude))
    return re, odd(b, im_magnitude)


def from_polar(radius: Value, theta: Value) -> Parts:
    """``radius * exp(i theta)`` of real values with the pair axis."""
    return radius * cos(theta), radius * sin(theta)


def equal(z: Parts, w: Parts) -> Value:
    return z[0].eq(w[0]) & z[1].eq(w[1])


def not_equal(z: Parts, w: Parts) -> Value:
    return z[0].ne(w[0]) | z[1].ne(w[1])


def matmul(z: Parts, w: Parts) -> Parts:
    """The matrix product, from four real ``MatMul``s (the parts of each
    matrix lose their trailing axis first)."""
    a, b, c, d = (part.squeeze([-1]) for part in (*z, *w))
    return (a @ c - b @ d).unsqueeze([-1]), (a @ d + b @ c).unsqueeze([-1])


# Products and scans of complex numbers


def multiply_shifted(z: Value, shift: Value, axis: int) -> Value:
    """The complex ``z`` times ``z`` shifted by ``shift`` along ``axis`` with
    ones shifted in (one step of `cumulative_product`, 16 nodes)."""
    re, im = split(z)
    ones = shifted(re, shift, axis, 1.0), shifted(im, shift, axis, 0.0)
    return join(multiply((re, im), ones))


def cumulative_product(z: Value, axis: int, ndim: int, length: int | None) -> Value:
    """The cumulative product of the complex ``z`` of ``ndim`` axes along the
    non-negative ``axis`` of static ``length`` (None if unknown): the prefix
    products of `prefix_product`, ``ceil(log2(length))`` steps of complex
    multiplies (unrolled, or a ``Loop``)."""
    return prefix_product(z, axis, ndim + 1, length, step=multiply_shifted)


def product(z: Value, ndim: int, axes, length: int | None) -> Value:
    """The product of the complex ``z`` of ``ndim`` axes over ``axes``, whose
    ``length`` elements (None if unknown) are multiplied as in
    `cumulative_product`: one of 1 leads them, for empty ``axes``."""
    pairs = flatten_axes_last(z, ndim + 1, axes)
    re, im = pairs.apply_multi(
        "Split", pairs, axis=-2, num_outputs=2, dtypes=[z.dtype] * 2
    )
    last = ndim - len(axes)
    # all the pads: onnxruntime's transpose optimizer misreads those of `axes`
    pads = z.indices([0] * (last + 1) + [1] + [0] * (last + 2))
    one, zero = (
        part.apply("Pad", part, pads, part.constant(fill))
        for part, fill in ((re, 1.0), (im, 0.0))
    )
    led = concat([one, zero], axis=-2).transpose([*range(last), last + 1, last])
    leading_one = None if length is None else length + 1
    products = prefix_product(led, last, last + 2, leading_one, step=multiply_shifted)
    return products.take(-1, axis=last)
