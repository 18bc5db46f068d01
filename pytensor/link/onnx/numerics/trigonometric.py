"""Trigonometric functions and their inverses, accurate in float64.

onnxruntime's CPU provider has no float64 kernel for Tan and the inverse
trigonometric functions, and its float64 Sin and Cos lose all relative
accuracy next to their zeros. These are Cephes' algorithms: a reduction by
``pi/4`` in five parts (exact below ``2**27``, onnxruntime's kernels
beyond, where they are accurate) and Cephes' polynomials.

Maximum error against NumPy in ulp of NumPy's result, on dense grids of
each domain and at the hard points (``tests/link/onnx/test_elementary_ulp.py``):

=========  =====  =========================================================
function   ulp    notes
=========  =====  =========================================================
sin, cos   1      the reduced argument carries the rounding errors of the
                  reduction (``z + z_low``) and the kernels round once: 96%
                  of the results equal NumPy's; from ``|x| >= 2**27``
                  onnxruntime's kernels
tan        2
arcsin     2
arccos     2
arctan     1
arctan2    1      ``k pi/4`` and the small terms added last;
                  ``arctan2(sin(x), cos(x))`` is within 2 ulp
=========  =====  =========================================================
"""

import math

from pytensor.link.onnx.numerics.constants import PI_2, PI_4
from pytensor.link.onnx.numerics.elementary import odd, sign_bit
from pytensor.link.onnx.value import Value, polevl, where


ATAN_P = [
    -8.750608600031904122785e-1,
    -1.615753718733365076637e1,
    -7.500855792314704667340e1,
    -1.228866684490136173410e2,
    -6.485021904942025371773e1,
]
ATAN_Q = [
    1.0,
    2.485846490142306297962e1,
    1.650270098316988542046e2,
    4.328810604912902668951e2,
    4.853903996359136964868e2,
    1.945506571482613964425e2,
]
TAN_3PI_8 = 2.41421356237309504880
PI_2_LOW = 6.123233995736765886130e-17


def arctan_nonnegative(a: Value) -> Value:
    """Cephes ``atan`` of ``a >= 0`` (or NaN)."""
    large = a > TAN_3PI_8
    medium = a > 0.66
    reduced = where(large, -1.0 / a, where(medium, (a - 1.0) / (a + 1.0), a))
    offset = where(large, PI_2, where(medium, PI_4, 0.0))
    low_bits = where(large, PI_2_LOW, where(medium, 0.5 * PI_2_LOW, 0.0))
    z = reduced * reduced
    ratio = z * polevl(z, ATAN_P) / polevl(z, ATAN_Q)
    return offset + ((reduced * ratio + reduced) + low_bits)


def arctan(x: Value) -> Value:
    """``arctan(x)``."""
    return odd(x, arctan_nonnegative(abs(x)))


def arcsin(x: Value) -> Value:
    """``arcsin(x)``."""
    return arctan(x / ((1.0 - x) * (1.0 + x)).sqrt())


def arccos(x: Value) -> Value:
    """``arccos(x)``."""
    return 2.0 * arctan_nonnegative(((1.0 - x) / (1.0 + x)).sqrt())


# The rounding error of PI_4: k * PI_4 + k * PI_4_LOW is k pi/4 to 1e-32
PI_4_LOW = 3.061616997868383e-17


def arctan2(y: Value, x: Value) -> Value:
    """NumPy's ``arctan2(y, x)``, with its signed zeros.

    The angle is ``k pi/4 +- t`` for ``t = arctan(r) - n pi/4`` of the ratio
    ``r <= 1`` of ``|y|`` and ``|x|`` (``n`` 0 or 1, Cephes' reduction):
    ``k pi/4`` (exact in float64 for ``k <= 4``) and the small terms are added
    last, so that the result is rounded once.
    """
    ay, ax = abs(y), abs(x)
    steep = ay > ax
    ratio = where(steep, ax, ay) / where(steep, ay, ax)
    ratio = where(ay.eq(ax), where(ay.eq(0.0), 0.0, 1.0), ratio)
    medium = ratio > 0.66
    reduced = where(medium, (ratio - 1.0) / (ratio + 1.0), ratio)
    z = reduced * reduced
    t = reduced * (z * polevl(z, ATAN_P) / polevl(z, ATAN_Q)) + reduced
    quarters = where(medium, 1.0, 0.0)
    quarters = where(steep, 2.0 - quarters, quarters)
    t = where(steep, -t, t)
    backwards = sign_bit(x)
    quarters = where(backwards, 4.0 - quarters, quarters)
    t = where(backwards, -t, t)
    return odd(y, quarters * PI_4 + (quarters * PI_4_LOW + t))


TAN_P = [
    -1.30936939181383777646e4,
    1.15351664838587416140e6,
    -1.79565251976484877988e7,
]
TAN_Q = [
    1.0,
    1.36812963470692954678e4,
    -1.32089234440210967447e6,
    2.50083801823357915839e7,
    -5.38695755929454629881e7,
]
# pi/4 in five parts; the first four have at most 25 significant bits, so
# their products with octant counts below 2**28 are exact.
PI_4_PARTS = [
    7.853981554508209228515625e-1,
    7.946627356147928e-09,
    3.061616966026797e-17,
    3.1841585276126414e-25,
    5.41428336960957e-33,
]
REDUCTION_LIMIT = 2.0**27


def two_sum(a: Value, b: Value):
    """``a + b`` rounded and its rounding error, exactly (Knuth's TwoSum)."""
    total = a + b
    b_part = total - a
    return total, (a - (total - b_part)) + (b - b_part)


def reduce_by_quarter_pi(a: Value, with_low_part: bool = True):
    """Whether ``a >= 0`` is below ``REDUCTION_LIMIT``; there ``z + z_low = a -
    k * pi/4`` for the even ``k`` nearest ``a / (pi/4)``, and ``k mod 8``.

    ``z_low``, below an ulp of ``z``, holds the rounding errors of the
    subtractions (TwoSum) and the last parts of ``pi/4``: with it the kernels
    round once, also next to the multiples of ``pi/2`` closest to a float64.
    Without ``with_low_part``, ``z`` alone (14 fewer nodes) keeps the relative
    error of the reduced argument at the level of its rounding, and ``z_low``
    is 0.
    """
    reducible = a < REDUCTION_LIMIT
    s = where(reducible, a, 0.0)
    octant = (s / PI_4).floor()
    octant = octant + (octant - 2.0 * (0.5 * octant).floor())
    octant_mod_8 = octant - 8.0 * (0.125 * octant).floor()
    first, second, third, *last = PI_4_PARTS
    if not with_low_part:
        z = s
        for part in PI_4_PARTS:
            z = z - octant * part
        return reducible, z, 0.0, octant_mod_8
    z, error_2 = two_sum(s - octant * first, -(octant * second))
    z, error_3 = two_sum(z, -(octant * third))
    z_low = error_2 + error_3
    for part in last:
        z_low = z_low - octant * part
    return reducible, z, z_low, octant_mod_8


def tan(x: Value) -> Value:
    """``tan(x)``."""
    a = abs(x)
    reducible, z, _, octant = reduce_by_quarter_pi(a, with_low_part=False)
    zz = z * z
    t = z + z * (zz * polevl(zz, TAN_P) / polevl(zz, TAN_Q))
    cotangent = octant.eq(2.0) | octant.eq(6.0)
    reduced = where(cotangent, -1.0 / t, t)
    return odd(x, where(reducible, reduced, a.sin() / a.cos()))


SIN_P = [
    1.58962301576546568060e-10,
    -2.50507477628578072866e-8,
    2.75573136213857245213e-6,
    -1.98412698295895385996e-4,
    8.33333333332211858878e-3,
    -1.66666666666666307295e-1,
]
COS_P = [
    -1.13585365213876817300e-11,
    2.08757008419747316778e-9,
    -2.75573141792967388112e-7,
    2.48015872888517045348e-5,
    -1.38888888888730564116e-3,
    4.16666666666665929218e-2,
]


def sin_and_cos_of_reduced(z: Value, z_low: Value):
    """Cephes' polynomials for ``sin(z + z_low)`` and ``cos(z + z_low)``,
    ``|z| <= pi/4``, each rounded once at the end (as fdlibm's kernels): the
    small terms, ``z_low`` and the rounding error of ``1 - z**2 / 2`` are
    summed before they are added to the leading one."""
    zz = z * z
    sin_z = z + (z_low + z * (zz * polevl(zz, SIN_P)))
    half_zz = 0.5 * zz
    leading = 1.0 - half_zz
    small = ((1.0 - leading) - half_zz) + (zz * (zz * polevl(zz, COS_P)) - z * z_low)
    return sin_z, leading + small


def sin_or_cos(a: Value, kernel: str, cos_octants, negated_octants) -> Value:
    """``sin(a)`` or ``cos(a)`` of ``a >= 0`` (or NaN) from the octant of ``a``.

    onnxruntime's float64 Sin and Cos lose the relative accuracy next to their
    zeros; its ``kernel`` is only used from ``REDUCTION_LIMIT`` on, where it is
    accurate.
    """
    reducible, z, z_low, octant = reduce_by_quarter_pi(a)
    sin_z, cos_z = sin_and_cos_of_reduced(z, z_low)
    use_cos = octant.eq(cos_octants[0]) | octant.eq(cos_octants[1])
    negate = octant.eq(negated_octants[0]) | octant.eq(negated_octants[1])
    reduced = where(use_cos, cos_z, sin_z) * where(negate, -1.0, 1.0)
    return where(reducible, reduced, a.apply(kernel, a))


def sin(x: Value) -> Value:
    """``sin(x)``, accurate next to its zeros."""
    return odd(x, sin_or_cos(abs(x), "Sin", (2.0, 6.0), (4.0, 6.0)))


def cos(x: Value) -> Value:
    """``cos(x)``, accurate next to its zeros."""
    return sin_or_cos(abs(x), "Cos", (0.0, 4.0), (2.0, 4.0))


def sin_and_cos(a: Value):
    """``sin(a)`` and ``cos(a)`` of ``a >= 0`` (or NaN, inf) from one range reduction.

    Accurate next to the zeros too; onnxruntime's kernels, accurate there, take
    over from ``REDUCTION_LIMIT``.
    """
    reducible, z, z_low, octant = reduce_by_quarter_pi(a)
    sin_z, cos_z = sin_and_cos_of_reduced(z, z_low)
    swap = octant.eq(2.0) | octant.eq(6.0)
    sin_sign = where(octant.eq(4.0) | octant.eq(6.0), -1.0, 1.0)
    cos_sign = where(octant.eq(2.0) | octant.eq(4.0), -1.0, 1.0)
    sin_a = where(swap, cos_z, sin_z) * sin_sign
    cos_a = where(swap, sin_z, cos_z) * cos_sign
    return where(reducible, sin_a, a.sin()), where(reducible, cos_a, a.cos())


# (-1)**k pi**(2k+1) / (2k+1)!, k = 10, ..., 0: the Taylor series of sin(pi z) / z
SIN_PI_TAYLOR = [
    (-1) ** k * math.pi ** (2 * k + 1) / math.factorial(2 * k + 1)
    for k in range(10, -1, -1)
]


def sin_pi(z: Value) -> Value:
    """``sin(pi z)`` for ``|z| <= 1/2`` (or NaN): its Taylor series to the power
    21, whose remainder is below 2e-18, by Horner's rule in ``z**2``.

    No range reduction: 24 nodes where `sin` takes about 70. Relative error
    against ``sin(pi z)`` in extended precision at most 3.3e-16 (measured
    on 10**6 points).
    """
    return z * polevl(z * z, SIN_PI_TAYLOR)
