"""The gamma function and its logarithm, Cephes' ``lgam`` and ``Gamma``
(SciPy's ``gammaln`` and ``gamma``), and Boost's Lanczos approximation.

Cephes' loops, which shift the argument by up to 31 steps, are unrolled
into that many masked factors of one product (four nodes each); below -1
the reflection formula, which Cephes uses below -33, saves 33 more, with
``sin(pi z)`` by `trigonometric.sin_pi` (no range reduction). ``gammaln``
switches to Stirling's series at 6 rather than 13, with ten terms rather
than five, so that three of Cephes' steps remain; its reflection formula
runs only when some argument is below -1 (`~pytensor.link.onnx.value.where_rare`).

Maximum relative error against SciPy on dense grids of each domain
(``tests/link/onnx/test_special_math.py`` asserts 2e-15, with the exceptions
noted):

=========  =======  ======================================================
function   float64  notes
=========  =======  ======================================================
gammaln    1.1e-15  where ``|gammaln| >= 0.5``; next to its zeros at 1 and
                    2 the absolute error is 7.8e-16, as SciPy's own
                    (relative 1e-11); below -1, where the reflection
                    formula replaces 33 of Cephes' steps, it is at most
                    4.3e-14 next to the negative integers (relative 1e-10
                    next to the zeros there)
gamma      1.6e-15
=========  =======  ======================================================

`gammaln_small`, for few values, meets the same bounds.
"""

import numpy as np
from scipy.special import bernoulli, zeta

from pytensor.link.onnx.numerics.constants import EULER, PI
from pytensor.link.onnx.numerics.series import power_series, rationals
from pytensor.link.onnx.numerics.trigonometric import sin_pi
from pytensor.link.onnx.value import Value, polevl, where, where_lazily, where_rare


def rising_product(base: Value, count: Value, steps: int) -> Value:
    """``base (base + 1) ... (base + count - 1)``: ``count <= steps`` factors,
    1 for ``count <= 0``; four nodes a factor (Cephes' loops take five)."""
    product = where(count > 0.0, base, 1.0)
    for k in range(1, steps):
        product = product * where(count > float(k), base + float(k), 1.0)
    return product


def shift_to_two_three(x: Value, steps: int):
    """``product``, ``down`` and ``r`` in ``[2, 3)`` with ``Γ(x) = Γ(r) *
    product`` where ``down``, else ``Γ(r) / product``, for ``-1 <= x <
    steps + 3``.

    Cephes' loops, ``(x-1)(x-2)...r`` for ``x >= 3`` and ``x(x+1)...(r-1)``
    for ``x < 2``: one `rising_product` serves both, as at most one of them
    has factors. ``r = x - (floor(x) - 2)`` is exact from 2 on, and rounded
    once below.
    """
    shift = x.floor() - 2.0
    r = x - shift
    down = shift >= 0.0
    return rising_product(where(down, r, x), abs(shift), steps), down, r


def is_non_positive_integer(x: Value) -> Value:
    return (x <= 0.0) & x.eq(x.floor())


LOGPI = 1.14472988584940017414
LS2PI = 0.91893853320467274178
MAXLGM = 2.556348e305
LGAM_B = [
    -1.37825152569120859100e3,
    -3.88016315134637840924e4,
    -3.31612992738871184744e5,
    -1.16237097492762307383e6,
    -1.72173700820839662146e6,
    -8.53555664245765465627e5,
]
LGAM_C = [
    1.0,
    -3.51815701436523470549e2,
    -1.70642106651881159223e4,
    -2.20528590553854454839e5,
    -1.13933444367982507207e6,
    -2.53252307177582951285e6,
    -2.01889141433532773231e6,
]


# Stirling's series of log Γ(x) from STIRLING_FROM: B_2k / (2k (2k - 1)) for
# k = 10, ..., 1, in powers of 1 / x**2 (Cephes: five terms from 13)
STIRLING_FROM = 6.0
# Cephes' steps to [2, 3) from [-1, STIRLING_FROM)
NEAR_STEPS = 3
BERNOULLI = bernoulli(20)
LGAM_STIRLING = [BERNOULLI[2 * k] / (2 * k * (2 * k - 1)) for k in range(10, 0, -1)]


def lgam_stirling(x: Value, few_values: bool = False) -> Value:
    """``log Γ(x)`` for ``x >= STIRLING_FROM`` by Stirling's series, its
    polynomial by Horner's rule, or for few values by one ``MatMul``."""
    w = 1.0 / (x * x)
    if few_values:
        series = power_series(w, LGAM_STIRLING[::-1])
    else:
        series = polevl(w, LGAM_STIRLING)
    result = ((x - 0.5) * x.log() - x + LS2PI) + series / x
    return where(x > MAXLGM, np.inf, result)


def reflected_fraction(q: Value):
    """``floor(q)`` and the distance ``z <= 1/2`` of ``q`` to its nearest integer."""
    p = q.floor()
    fraction = q - p
    return p, where(fraction > 0.5, 1.0 - fraction, fraction)


def gammaln(x: Value) -> Value:
    """``log |Γ(x)|``: Cephes' loop from -1 (Cephes: -34) to 6 (Cephes: 13),
    then Stirling's series; the reflection formula below -1."""
    reflect = x < -1.0
    y = where(reflect, -x, x)
    product, down, r = shift_to_two_three(y, NEAR_STEPS)
    t = r - 2.0
    # 1 / product overflows to inf for subnormal y, as Cephes' z /= x does
    near = abs(where(down, product, 1.0 / product)).log() + t * polevl(
        t, LGAM_B
    ) / polevl(t, LGAM_C)
    lgam_y = where_lazily(y < STIRLING_FROM, near, lgam_stirling(y))
    _, fraction = reflected_fraction(y)
    reflected = (LOGPI - (y * sin_pi(fraction)).log()) - lgam_y
    result = where_rare(reflect, reflected, lgam_y)
    # inf where Cephes' first step, 1 / x, overflows
    overflow = is_non_positive_integer(x) | (abs(x) < 1.0 / np.finfo(np.float64).max)
    result = where(overflow, np.inf, result)
    return where(x.isinf(), x, result)


# Cephes' shifts to [2, 3) of gammaln below STIRLING_FROM, along a new axis
SHIFTS = np.arange(NEAR_STEPS, dtype="float64")


def lgam_near(y: Value) -> Value:
    """Cephes ``lgam`` for ``-1 <= y < STIRLING_FROM``, its shifts a product
    along a new axis."""
    shift = y.floor() - 2.0
    r = y - shift
    down = shift >= 0.0
    factors = where(down, r, y).unsqueeze([-1]) + SHIFTS
    # Cephes' z /= x upwards, which overflows where 1 / y does
    factors = where(down.unsqueeze([-1]), factors, 1.0 / factors)
    used = abs(shift).unsqueeze([-1]) > SHIFTS
    product = where(used, factors, 1.0).prod([-1], keepdims=False)
    t = r - 2.0
    [ratio] = rationals(t, (LGAM_B, LGAM_C))
    return abs(product).log() + t * ratio


def gammaln_small(x: Value, choose=where) -> Value:
    """`gammaln` for few values: 85 nodes where `gammaln` takes 139. With
    ``choose`` `~pytensor.link.onnx.value.branch` (for one value) about 32
    of them run, with `~pytensor.link.onnx.value.where_lazily` (107 nodes)
    about 48 for values in one range."""
    reflect = x < -1.0
    y = where(reflect, -x, x)
    stirling = lgam_stirling(y, few_values=True)
    lgam_y = choose(y < STIRLING_FROM, lgam_near(y), stirling)
    _, fraction = reflected_fraction(y)
    reflected = (LOGPI - (y * sin_pi(fraction)).log()) - lgam_y
    reflected = where(fraction.eq(0.0), np.inf, reflected)
    return choose(reflect, where(y.isinf(), x, reflected), lgam_y)


MAXGAM = 171.624376956302725
MAXSTIR = 143.01608
SQTPI = 2.50662827463100050242
GAMMA_P = [
    1.60119522476751861407e-4,
    1.19135147006586384913e-3,
    1.04213797561761569935e-2,
    4.76367800457137231464e-2,
    2.07448227648435975150e-1,
    4.94214826801497100753e-1,
    9.99999999999999996796e-1,
]
GAMMA_Q = [
    -2.31581873324120129819e-5,
    5.39605580493303397842e-4,
    -4.45641913851797240494e-3,
    1.18139785222060435552e-2,
    3.58236398605498653373e-2,
    -2.34591795718243348568e-1,
    7.14304917030273074085e-2,
    1.00000000000000000320e0,
]
STIR = [
    7.87311395793093628397e-4,
    -2.29549961613378126380e-4,
    -2.68132617805781232825e-3,
    3.47222221605458667310e-3,
    8.33333333333482257126e-2,
]


def stirling_gamma(x: Value) -> Value:
    """Cephes ``stirf``: ``Γ(x)`` for ``x > 33``."""
    w = 1.0 / x
    w = 1.0 + w * polevl(w, STIR)
    e = x.exp()
    # the power in two halves from MAXSTIR on, where it overflows before Γ
    half_power = x ** (0.5 * x - 0.25)
    power_over_exp = where(
        x > MAXSTIR, half_power * (half_power / e), x ** (x - 0.5) / e
    )
    return where(x >= MAXGAM, np.inf, SQTPI * power_over_exp * w)


def gamma(x: Value) -> Value:
    """``Γ(x)``: Cephes' loop from -1 (Cephes: -33) to 33, then Stirling's
    formula; the reflection formula below."""
    reflect = x < -1.0
    y = where(reflect, -x, x)
    product, down, r = shift_to_two_three(y, 31)
    t = r - 2.0
    near = where(down, product, 1.0 / product) * polevl(t, GAMMA_P) / polevl(t, GAMMA_Q)
    gamma_y = where(y <= 33.0, near, stirling_gamma(y))
    p, fraction = reflected_fraction(y)
    # SciPy takes the parity of p converted to a C int, even from 2**31 on
    p_is_even = (p - 2.0 * (0.5 * p).floor()).eq(0.0) | (p >= 2.0**31)
    sign = where(p_is_even, -1.0, 1.0)
    reflected = sign * (PI / (abs(y * sin_pi(fraction)) * gamma_y))
    # the reflection can be -0.0, which onnxruntime's Where keeps only second
    result = where(x >= -1.0, gamma_y, reflected)
    negative_integer = (x < 0.0) & x.eq(x.floor())
    result = where(negative_integer, np.nan, result)
    # Γ(±0) = ±inf; the product of the shifts loses the sign of -0
    return where(x.eq(0.0), 1.0 / x, result)


LANCZOS_G = 6.024680040776729583740234375
# Boost's lanczos13m53, the sum scaled by exp(-g): numerator and denominator
LANCZOS_NUM = [
    0.006061842346248906525783753964555936883222,
    0.5098416655656676188125178644804694509993,
    19.51992788247617482847860966235652136208,
    449.9445569063168119446858607650988409623,
    6955.999602515376140356310115515198987526,
    75999.29304014542649875303443598909137092,
    601859.6171681098786670226533699352302507,
    3481712.15498064590882071018964774556468,
    14605578.08768506808414169982791359218571,
    43338889.32467613834773723740590533316085,
    86363131.28813859145546927288977868422342,
    103794043.1163445451906271053616070238554,
    56906521.91347156388090791033559122686859,
]
# x (x + 1) ... (x + 11)
LANCZOS_DENOM = [1.0, 66.0, 1925.0, 32670.0, 357423.0, 2637558.0, 13339535.0]
LANCZOS_DENOM += [45995730.0, 105258076.0, 150917976.0, 120543840.0, 39916800.0, 0.0]
# The coefficients of the numerator and denominator of Lanczos' sum in powers
# of x (for x <= 1) and of 1 / x, from the power 0 up
LANCZOS_POWERS = np.array(
    [LANCZOS_NUM[::-1], LANCZOS_DENOM[::-1], LANCZOS_NUM, LANCZOS_DENOM]
).T


def lanczos_sum_expg_scaled(x: Value) -> Value:
    """``Γ(x) / ((x + g - 1/2) / e)**(x - 1/2)`` of ``x > 0`` (SciPy's, Boost's)."""
    large = x > 1.0
    sums = power_series(where(large, 1.0 / x, x), LANCZOS_POWERS)
    small_ratio = sums.take(0, axis=1) / sums.take(1, axis=1)
    return where(large, sums.take(2, axis=1) / sums.take(3, axis=1), small_ratio)


# Cephes' lgam1p_taylor(x) / x: -EULER, then (-1)**n zeta(n) / n for n = 2, ..., 41
LGAM1P_TAYLOR = [-EULER] + [(-1) ** n * float(zeta(n)) / n for n in range(2, 42)]


def lgam1p_below_three_halves(x: Value) -> Value:
    """Cephes ``lgam1p``, ``log Γ(1 + x)``, for ``0 <= x < 3/2``."""
    near_zero = x <= 0.5
    t = where(near_zero, x, x - 1.0)
    taylor = t * power_series(t, LGAM1P_TAYLOR)
    return where(near_zero, taylor, x.log() + taylor)
