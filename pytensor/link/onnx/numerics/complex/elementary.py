"""Complex trigonometric, hyperbolic and power functions on parts.

Functions of the parts ``(re, im)`` of `pytensor.link.onnx.numerics.complex.arithmetic`,
computing NumPy's complex loops: the hyperbolic functions from the real
ones of the parts (``tanh`` as C's ``ctanh``, without overflow for large
``|re|``), the inverse functions by Kahan's formulas ("Branch cuts for
complex elementary functions", 1987), whose square roots of ``1 - z`` and
``1 + z`` carry the signs of zero onto the branch cuts as NumPy does, and
the others by the same formulas as NumPy's ``nc_*`` loops (``log1p`` is
NumPy's ``log(1 + z)``, which loses the accuracy of tiny ``z`` as NumPy's).
The trigonometric functions are the hyperbolic ones of ``i z``.
"""

import numpy as np

from pytensor.link.onnx.numerics import elementary as real
from pytensor.link.onnx.numerics import trigonometric as real_trigonometric
from pytensor.link.onnx.numerics.complex import arithmetic as nc
from pytensor.link.onnx.numerics.constants import PI_2, PI_4
from pytensor.link.onnx.numerics.elementary import half_exp, odd
from pytensor.link.onnx.numerics.trigonometric import (
    arctan2,
    arctan_nonnegative,
    sin_and_cos,
)
from pytensor.link.onnx.value import Value, where


Parts = nc.Parts
LN2 = 0.6931471805599453
LOG2E = 1.4426950408889634
LOG10E = 0.4342944819032518
# From here on sinh(x) and cosh(x) equal exp(x) / 2 in float64
HYPERBOLIC_ASYMPTOTE = 22.0


def times_i(z: Parts) -> Parts:
    """``i z``."""
    return -z[1], z[0]


def times_minus_i(z: Parts) -> Parts:
    """``-i z``."""
    return z[1], -z[0]


def signed_sin_and_cos(b: Value) -> tuple[Value, Value]:
    """``sin(b)`` and ``cos(b)`` from one range reduction."""
    sin_b, cos_b = sin_and_cos(abs(b))
    return odd(b, sin_b), cos_b


def abs_sinh_and_cosh(a: Value) -> tuple[Value, Value]:
    """``|sinh(a)|`` and ``cosh(a)`` from one ``expm1``."""
    x = abs(a)
    t = real.expm1(x)
    e = t + 1.0
    moderate = x < HYPERBOLIC_ASYMPTOTE
    asymptote = half_exp(x)
    return (
        where(moderate, 0.5 * (t + t / e), asymptote),
        where(moderate, 0.5 * (e + 1.0 / e), asymptote),
    )


def sinh(z: Parts) -> Parts:
    """``sinh(a + ib) = sinh(a) cos(b) + i cosh(a) sin(b)``; a zero ``b``
    stays exactly (with its sign)."""
    a, b = z
    abs_sinh_a, cosh_a = abs_sinh_and_cosh(a)
    sin_b, cos_b = signed_sin_and_cos(b)
    re = odd(a, abs_sinh_a) * cos_b
    return re, where(b.eq(0.0), 1.0, cosh_a) * sin_b


def cosh(z: Parts) -> Parts:
    """``cosh(a + ib) = cosh(a) cos(b) + i sinh(a) sin(b)``."""
    a, b = z
    abs_sinh_a, cosh_a = abs_sinh_and_cosh(a)
    sin_b, cos_b = signed_sin_and_cos(b)
    im = odd(a, where(b.eq(0.0), 1.0, abs_sinh_a) * sin_b)
    return cosh_a * cos_b, im


def tanh(z: Parts) -> Parts:
    """C's ``ctanh``: ``(sinh(a) cosh(a) + i sin(b) cos(b)) / (sinh(a)**2 +
    cos(b)**2)``, and from ``|a| = 22`` on ``sign(a) + 4i sin(b) cos(b)
    exp(-2|a|)``."""
    a, b = z
    abs_sinh_a, cosh_a = abs_sinh_and_cosh(a)
    sin_b, cos_b = signed_sin_and_cos(b)
    moderate = abs(a) < HYPERBOLIC_ASYMPTOTE
    scale = 1.0 / (abs_sinh_a * abs_sinh_a + cos_b * cos_b)
    re = odd(a, where(moderate, abs_sinh_a * cosh_a * scale, 1.0))
    im_scale = where(moderate, scale, 4.0 * (-2.0 * abs(a)).exp())
    return re, where(a.isinf(), 0.0, sin_b * cos_b) * im_scale


def sin(z: Parts) -> Parts:
    """``sin(z) = -i sinh(i z)``."""
    return times_minus_i(sinh(times_i(z)))


def cos(z: Parts) -> Parts:
    """``cos(z) = cosh(i z)``."""
    return cosh(times_i(z))


def tan(z: Parts) -> Parts:
    """``tan(z) = -i tanh(i z)``."""
    return times_minus_i(tanh(times_i(z)))


def sqrt_of_one_minus_and_plus(z: Parts) -> tuple[Parts, Parts]:
    """``sqrt(1 - z)`` and ``sqrt(1 + z)``, ``1 - z`` as ``(1 - a) - ib``."""
    a, b = z
    return nc.sqrt((1.0 - a, -b)), nc.sqrt((1.0 + a, b))


def angle_toward_infinity(x: Value) -> Value:
    """``arg(x + i inf)``: ``pi/2`` for a finite ``x``, ``pi/4`` for ``+inf``
    and ``3 pi/4`` for ``-inf``."""
    return where(x.isinf(), where(x > 0.0, PI_4, 3.0 * PI_4), PI_2)


def signed_like(x: Value, magnitude: Value) -> Value:
    """``magnitude`` with the sign of ``x``, not zero."""
    return where(x > 0.0, magnitude, -magnitude)


def arcsin(z: Parts) -> Parts:
    """Kahan: ``arctan(a / Re(xi eta)) + i arcsinh(Im(conj(xi) eta))`` with
    ``xi = sqrt(1 - z)``, ``eta = sqrt(1 + z)``; C99's real part for an
    infinite ``a``."""
    a, b = z
    (xi_re, xi_im), (eta_re, eta_im) = sqrt_of_one_minus_and_plus(z)
    re = real_trigonometric.arctan(a / abs(xi_re * eta_re - xi_im * eta_im))
    re = where(a.isinf(), signed_like(a, angle_toward_infinity(abs(b))), re)
    return re, real.arcsinh(xi_re * eta_im - xi_im * eta_re)


def arccos(z: Parts) -> Parts:
    """Kahan: ``2 arctan(Re(xi) / Re(eta)) + i arcsinh(Im(conj(eta) xi))``;
    C99's real part for an infinite ``b``."""
    a, b = z
    (xi_re, xi_im), (eta_re, eta_im) = sqrt_of_one_minus_and_plus(z)
    re = 2.0 * arctan_nonnegative(xi_re / eta_re)
    re = where(b.isinf(), angle_toward_infinity(a), re)
    return re, real.arcsinh(eta_re * xi_im - eta_im * xi_re)


def arccosh(z: Parts) -> Parts:
    """Kahan: ``arcsinh(Re(conj(xi) eta)) + 2i arctan(Im(xi) / Re(eta))``
    with ``xi = sqrt(z - 1)``, ``eta = sqrt(z + 1)``; C99's imaginary part
    for an infinite ``b``."""
    a, b = z
    xi_re, xi_im = nc.sqrt((a - 1.0, b))
    eta_re, eta_im = nc.sqrt((a + 1.0, b))
    re = real.arcsinh(xi_re * eta_re + xi_im * eta_im)
    im = 2.0 * real_trigonometric.arctan(xi_im / eta_re)
    return re, where(b.isinf(), signed_like(b, angle_toward_infinity(a)), im)


def arcsinh(z: Parts) -> Parts:
    """``arcsinh(z) = -i arcsin(i z)``."""
    return times_minus_i(arcsin(times_i(z)))


def arctanh(z: Parts) -> Parts:
    """``log1p(4|a| / ((1 - |a|)**2 + b**2)) / 4`` with the sign of ``a``
    ``+ i arctan2(2b, (1 - |a|)(1 + |a|) - b**2) / 2``; where the squares
    would overflow, ``a / |z|**2 + i sign(b) pi/2``."""
    a, b = z
    x, y, larger, ratio = nc.magnitude_and_ratio(z)
    one_minus_x = 1.0 - x
    re = 0.25 * real.log1p(4.0 * x / (one_minus_x * one_minus_x + y * y))
    im = 0.5 * arctan2(2.0 * y, one_minus_x * (1.0 + x) - y * y)
    huge = larger > float(np.sqrt(np.finfo(a.dtype).max) / 4.0)
    re_if_huge = where(x < y, ratio, 1.0) / (larger * (1.0 + ratio * ratio))
    re_if_huge = where(larger.isinf(), 0.0, re_if_huge)
    return odd(a, where(huge, re_if_huge, re)), odd(b, where(huge, PI_2, im))


def arctan(z: Parts) -> Parts:
    """``arctan(z) = -i arctanh(i z)``."""
    return times_minus_i(arctanh(times_i(z)))


def power(z: Parts, w: Parts) -> Parts:
    """``z ** w = exp(w log z)``, with NumPy's ``z ** 0 = 1`` and ``0 ** w``
    (0 if ``Re w > 0``, else NaN)."""
    (c, d), (log_abs_z, arg_z) = w, nc.log(z)
    re, im = nc.exp((c * log_abs_z - d * arg_z, c * arg_z + d * log_abs_z))
    zero_base = z[0].eq(0.0) & z[1].eq(0.0)
    zero_exponent = c.eq(0.0) & d.eq(0.0)
    zero_power = where(c > 0.0, 0.0, np.nan)
    re = where(zero_exponent, 1.0, where(zero_base, zero_power, re))
    return re, where(zero_exponent, 0.0, where(zero_base, zero_power, im))


def log1p(z: Parts) -> Parts:
    """NumPy's ``log(1 + z)`` (its loss of accuracy for tiny ``z`` too)."""
    return nc.log((1.0 + z[0], z[1]))


def scaled(z: Parts, factor: float) -> Parts:
    return z[0] * factor, z[1] * factor


def log2(z: Parts) -> Parts:
    return scaled(nc.log(z), LOG2E)


def log10(z: Parts) -> Parts:
    return scaled(nc.log(z), LOG10E)


def exp2(z: Parts) -> Parts:
    return nc.exp(scaled(z, LN2))


def expm1(z: Parts) -> Parts:
    """NumPy's ``expm1(a) cos(b) - 2 sin(b/2)**2 + i exp(a) sin(b)``, ``sin(b)``
    and ``cos(b)`` from the one range reduction of ``b/2``."""
    a, b = z
    sin_half_b, cos_half_b = signed_sin_and_cos(0.5 * b)
    twice_sin_squared = 2.0 * sin_half_b * sin_half_b
    re = real.expm1(a) * (1.0 - twice_sin_squared) - twice_sin_squared
    return re, a.exp() * (2.0 * sin_half_b * cos_half_b)
