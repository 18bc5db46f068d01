"""Owen's T function, SciPy's ``owens_t``: Patefield and Tandy's algorithm (2000).

``T(h, a)`` for ``0 <= a <= 1`` is computed by each of their six methods, of
an order ``m``, for all elements, and selected by the region of ``(h, a)``;
``|a| > 1`` is reduced to it by their equation 2.

It is within 4.4e-13 of SciPy (outside SciPy's subnormal results): 1.2e-13
for ``|h| < 10``, where the recurrence of method T3 magnifies the rounding of
its inputs, and more beyond, where ``erfc`` does not round ``x * x`` as
SciPy's.
"""

from fractions import Fraction
from functools import cache
from math import isqrt

import numpy as np

from pytensor.link.onnx.numerics.constants import PI
from pytensor.link.onnx.numerics.elementary import expm1
from pytensor.link.onnx.numerics.error_functions import (
    ndtr_minus_half,
    normal_half_interval,
    normal_tail,
)
from pytensor.link.onnx.numerics.trigonometric import arctan
from pytensor.link.onnx.value import Value, where


# T(h, a) for 0 <= a <= 1 is computed by one of their methods T1 to T6, of an
# order m, chosen by the region of (h, a) that these bounds delimit
OWENS_T_H_BOUNDS = [0.02, 0.06, 0.09, 0.125, 0.26, 0.4, 0.6, 1.6, 1.7, 2.33]
OWENS_T_H_BOUNDS += [2.4, 3.36, 3.4, 4.8]
OWENS_T_A_BOUNDS = [0.025, 0.09, 0.15, 0.36, 0.5, 0.9, 0.99999]
# A row per interval of a, a column per interval of h: a (method, order) index
OWENS_T_REGIONS = [
    [0, 0, 1, 12, 12, 12, 12, 12, 12, 12, 12, 15, 15, 15, 8],
    [0, 1, 1, 2, 2, 4, 4, 13, 13, 14, 14, 15, 15, 15, 8],
    [1, 1, 2, 2, 2, 4, 4, 14, 14, 14, 14, 15, 15, 15, 9],
    [1, 1, 2, 4, 4, 4, 4, 6, 6, 15, 15, 15, 15, 15, 9],
    [1, 2, 2, 4, 4, 5, 5, 7, 7, 16, 16, 16, 11, 11, 10],
    [1, 2, 4, 4, 4, 5, 5, 7, 7, 16, 16, 16, 11, 11, 11],
    [1, 2, 3, 3, 5, 5, 7, 7, 16, 16, 16, 16, 16, 11, 11],
    [1, 2, 3, 3, 5, 5, 17, 17, 17, 17, 16, 16, 16, 11, 11],
]
OWENS_T_METHODS = [1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 4, 4, 4, 4, 5, 6]
OWENS_T_ORDERS = [2, 3, 4, 5, 7, 10, 12, 18, 10, 20, 30, 0, 4, 7, 8, 20, 0, 0]
OWENS_T_GAUSS_POINTS = 26
TWO_PI = 2.0 * PI
SQRT_TWO_PI = 2.5066282746310002


@cache
def reciprocal_one_plus_square_coefficients() -> list[float]:
    """``c_i`` of ``1 / (1 + x**2) ≈ sum(c_i x**(2 i))`` for ``|x| <= 1``, ``i <=
    30``: its Chebyshev series ``√2 (1/2 + sum((-1)**k r**(2 k) T_2k(x)))``, ``r =
    √2 - 1``, up to ``T_60`` (Patefield and Tandy's method T3)."""
    digits = 10**60
    sqrt2 = Fraction(isqrt(2 * digits * digits), digits)
    r_squared = (sqrt2 - 1) ** 2
    previous, current = [1], [0, 1]  # T_0, T_1 by their powers of x
    coefficients = [Fraction(0)] * 61
    coefficients[0] += sqrt2 / 2
    for n in range(2, 61):
        previous, current = (
            current,
            [2 * c - p for c, p in zip([0, *current], [*previous, 0, 0], strict=True)],
        )
        if n % 2 == 0:
            weight = sqrt2 * (-r_squared) ** (n // 2)
            for power, c in enumerate(current):
                coefficients[power] += weight * c
    return [float(c) for c in coefficients[::2]]


def owens_t_gauss_legendre():
    """Squares of the positive Gauss-Legendre points and their weights over 2π."""
    points, weights = np.polynomial.legendre.leggauss(OWENS_T_GAUSS_POINTS)
    positive = points > 0.0
    return points[positive] ** 2, weights[positive] / TWO_PI


def masked_sum(terms, m: Value) -> Value:
    """``terms[0] + ... + terms[m]`` for an order ``m`` per element."""
    total = 0.0
    for k, term in enumerate(terms):
        total = where(m >= float(k), term, 0.0) + total
    return total


def times(x: Value, c: float) -> Value:
    """``x * c``, as rounded, also for a ``c`` within 1e-8 of 1, by which
    onnxruntime's NoopElimination drops a multiplication."""
    return (x * (2.0 * c)) * 0.5


def owens_t1(h: Value, a: Value, m: Value) -> Value:
    hs = -0.5 * (h * h)
    a_squared = a * a
    aj, dj, gj = a / TWO_PI, expm1(hs), hs * hs.exp()
    terms = []
    for j in range(1, max(OWENS_T_ORDERS[:8]) + 1):
        terms.append(dj * aj / float(2 * j - 1))
        aj, dj, gj = aj * a_squared, gj - dj, gj * hs / float(j + 1)
    return arctan(a) / TWO_PI + masked_sum(terms, m - 1.0)


def owens_t2(h: Value, a: Value, ah: Value, m: Value) -> Value:
    y = 1.0 / (h * h)
    minus_a_squared = -(a * a)
    vi = a * (-0.5 * (ah * ah)).exp() / SQRT_TWO_PI
    z = ndtr_minus_half(ah) / h
    terms = []
    for k in range(max(OWENS_T_ORDERS[8:11]) + 1):
        terms.append(z)
        z = y * (vi - float(2 * k + 1) * z)
        vi = vi * minus_a_squared
    return masked_sum(terms, m) * (-0.5 * (h * h)).exp() / SQRT_TWO_PI


def owens_t3(h: Value, a: Value, ah: Value) -> Value:
    y = 1.0 / (h * h)
    a_squared = a * a
    vi = a * (-0.5 * (ah * ah)).exp() / SQRT_TWO_PI
    zi = normal_half_interval(ah) / h
    total = 0.0
    for i, c in enumerate(reciprocal_one_plus_square_coefficients()):
        total = total + times(zi, c)
        zi = y * (float(2 * i + 1) * zi - vi)
        vi = vi * a_squared
    return total * (-0.5 * (h * h)).exp() / SQRT_TWO_PI


def owens_t4(h: Value, a: Value, m: Value) -> Value:
    hh = h * h
    minus_a_squared = -(a * a)
    ai = a * (-0.5 * hh * (1.0 - minus_a_squared)).exp() / TWO_PI
    yi = 1.0
    terms = []
    for k in range(max(OWENS_T_ORDERS[12:16]) + 1):
        terms.append(ai * yi)
        yi = (1.0 - hh * yi) / float(2 * k + 3)
        ai = ai * minus_a_squared
    return masked_sum(terms, m)


def owens_t5(h: Value, a: Value) -> Value:
    a_squared = a * a
    minus_half_hh = -0.5 * (h * h)
    total = 0.0
    for point, weight in zip(*owens_t_gauss_legendre(), strict=True):
        r = 1.0 + a_squared * float(point)
        total = total + float(weight) * (minus_half_hh * r).exp() / r
    return total * a


def owens_t6(h: Value, a: Value) -> Value:
    tail = normal_tail(h)
    y = 1.0 - a
    r = arctan(y / (1.0 + a))
    correction = r * (-y * (h * h) / (2.0 * r)).exp() / TWO_PI
    return tail * (1.0 - tail) / 2.0 - where(r.eq(0.0), 0.0, correction)


def lookup(table, index: Value) -> Value:
    """``table[index]`` of an integral float ``index`` per element."""
    values = index.constant(np.asarray(table, dtype="float64"), "float64")
    return values.take(index.cast("int64"), axis=0)


def interval_index(x: Value, bounds) -> Value:
    """The number of ``bounds`` below ``x``."""
    index = 0.0
    for bound in bounds:
        index = where(x > bound, 1.0, 0.0) + index
    return index


def owens_t_reduced(h: Value, a: Value, ah: Value) -> Value:
    """``T(h, a)`` for ``h >= 0``, ``0 <= a <= 1`` and ``ah = a h``."""
    regions = np.asarray(OWENS_T_REGIONS).ravel()
    row = interval_index(a, OWENS_T_A_BOUNDS)
    region = row * float(len(OWENS_T_H_BOUNDS) + 1) + interval_index(
        h, OWENS_T_H_BOUNDS
    )
    method = lookup(np.asarray(OWENS_T_METHODS)[regions], region)
    m = lookup(np.asarray(OWENS_T_ORDERS)[regions], region)
    result = where(method.eq(1.0), owens_t1(h, a, m), owens_t6(h, a))
    result = where(method.eq(2.0), owens_t2(h, a, ah, m), result)
    result = where(method.eq(3.0), owens_t3(h, a, ah), result)
    result = where(method.eq(4.0), owens_t4(h, a, m), result)
    result = where(method.eq(5.0), owens_t5(h, a), result)
    result = where(a.eq(1.0), normal_tail(-h) * normal_tail(h) / 2.0, result)
    result = where(a.eq(0.0), 0.0, result)
    return where(h.eq(0.0), arctan(a) / TWO_PI, result)


def owens_t(h: Value, a: Value) -> Value:
    """Owen's T function ``T(h, a)``."""
    # T is even in h and odd in a; for |a| > 1, T(h, a) is computed from
    # T(a h, 1 / a) (Patefield and Tandy's equation 2)
    h = abs(h)
    abs_a = abs(a)
    ah = abs_a * h
    above_one = abs_a > 1.0
    reduced = owens_t_reduced(
        where(above_one, ah, h),
        where(above_one, 1.0 / abs_a, abs_a),
        where(above_one, h, ah),
    )
    near = 0.25 - normal_half_interval(h) * normal_half_interval(ah)
    tail_h, tail_ah = normal_tail(h), normal_tail(ah)
    far = (tail_h + tail_ah) / 2.0 - tail_h * tail_ah
    result = where(above_one, where(ah <= 0.67, near, far) - reduced, reduced)
    result = where(h.isinf(), 0.0, result)
    result = where(abs_a.isinf(), tail_h / 2.0, result)
    result = result * where(a < 0.0, -1.0, 1.0)
    return where(h.isnan() | a.isnan(), np.nan, result)
