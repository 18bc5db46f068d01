"""Trigonometric functions and their inverses, accurate in float64.

onnxruntime's CPU provider has no float64 kernel for Tan and the inverse
trigonometric functions, and its float64 Sin and Cos lose all relative
accuracy next to their zeros. These are Cephes' algorithms: a reduction by
``pi/4`` in five parts (exact below ``2**27``, onnxruntime's kernels
beyond, where they are accurate) and Cephes' polynomials.

Maximum relative error against NumPy on dense grids of each domain
(``tests/link/onnx/test_special.py`` asserts 1e-15):

=========  =======  ======================================================
function   float64  notes
=========  =======  ======================================================
sin, cos   3.1e-16  near the zeros too, where onnxruntime's float64 kernels
                    have a relative error of 1; for ``|x| >= 2**27`` those
                    kernels (4.4e-16)
tan        5.7e-16  for ``|x| >= 2**27`` onnxruntime's Sin / Cos
arcsin     2.7e-16
arccos     2.4e-16
arctan     2.2e-16
arctan2    2.5e-16
=========  =======  ======================================================
"""

import math

from pytensor.link.onnx.numerics.constants import PI, PI_2, PI_4
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


def arctan2(y: Value, x: Value) -> Value:
    """NumPy's ``arctan2(y, x)``, with its signed zeros."""
    ay, ax = abs(y), abs(x)
    steep = ay > ax
    ratio = where(steep, ax, ay) / where(steep, ay, ax)
    ratio = where(ay.eq(ax), where(ay.eq(0.0), 0.0, 1.0), ratio)
    angle = arctan_nonnegative(ratio)
    angle = where(steep, PI_2 - angle, angle)
    angle = where(sign_bit(x), PI - angle, angle)
    return odd(y, angle)


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


def reduce_by_quarter_pi(a: Value):
    """Whether ``a >= 0`` is below ``REDUCTION_LIMIT``; there ``z = a - k * pi/4`` for the
    even ``k`` nearest ``a / (pi/4)``, and ``k mod 8``.

    Exact enough to keep the relative error of the reduced argument at the
    level of its rounding, also next to the multiples of ``pi/2`` closest to a
    float64.
    """
    reducible = a < REDUCTION_LIMIT
    s = where(reducible, a, 0.0)
    octant = (s / PI_4).floor()
    octant = octant + (octant - 2.0 * (0.5 * octant).floor())
    z = s
    for part in PI_4_PARTS:
        z = z - octant * part
    return reducible, z, octant - 8.0 * (0.125 * octant).floor()


def tan(x: Value) -> Value:
    """``tan(x)``."""
    a = abs(x)
    reducible, z, octant = reduce_by_quarter_pi(a)
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


def sin_and_cos_of_reduced(z: Value):
    """Cephes' polynomials for ``sin(z)`` and ``cos(z)``, ``|z| <= pi/4``."""
    zz = z * z
    sin_z = z + z * (zz * polevl(zz, SIN_P))
    cos_z = (1.0 - 0.5 * zz) + zz * (zz * polevl(zz, COS_P))
    return sin_z, cos_z


def sin_or_cos(a: Value, kernel: str, cos_octants, negated_octants) -> Value:
    """``sin(a)`` or ``cos(a)`` of ``a >= 0`` (or NaN) from the octant of ``a``.

    onnxruntime's float64 Sin and Cos lose the relative accuracy next to their
    zeros; its ``kernel`` is only used from ``REDUCTION_LIMIT`` on, where it is
    accurate.
    """
    reducible, z, octant = reduce_by_quarter_pi(a)
    sin_z, cos_z = sin_and_cos_of_reduced(z)
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
    reducible, z, octant = reduce_by_quarter_pi(a)
    sin_z, cos_z = sin_and_cos_of_reduced(z)
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
