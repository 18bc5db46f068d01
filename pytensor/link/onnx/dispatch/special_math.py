"""Converters for the special functions of ``pytensor.scalar.math``.

ONNX has none of them, so they are built from elementwise float64 operators
with the algorithms SciPy (the Python implementation of the PyTensor Ops)
uses: Cephes' ``lgam``, ``Gamma``, ``psi``, ``ndtri``, ``i0`` and ``i1``,
Boost's digamma near its positive root, and for ``erfcx`` Cephes' ``erfc``
rational functions without their ``exp(-x**2)`` factor. Cephes' loops, which
shift the argument of the gamma functions by up to 31 steps, are unrolled
into that many masked steps; below -1 the reflection formula, which Cephes
uses below -33, saves 33 more. Float32 (and float16) values are computed in
float64 and rounded once, as SciPy's float32 loops do.

Maximum relative error against SciPy on dense grids of each domain
(``tests/link/onnx/test_special_math.py`` asserts 2e-15, with the exceptions
noted); float32 results equal SciPy's but for erfinv and log1mexp (2.3e-7):

=========  =======  ======================================================
function   float64  notes
=========  =======  ======================================================
gammaln    1.4e-15  where ``|gammaln| >= 0.5``; next to its zeros at 1 and
                    2 the absolute error is 7.8e-16, as SciPy's own
                    (relative 1e-11); below -1, where the reflection
                    formula replaces 33 of Cephes' steps, it is at most
                    4.3e-14 next to the negative integers (relative 1e-10
                    next to the zeros there)
gamma      1.6e-15
psi        3.9e-16  for ``x > 0``; 2.4e-15 for ``x < 0`` and an absolute
                    3.6e-15 next to the zeros below -1, which SciPy does
                    not resolve either
tri_gamma  1.1e-15
erfcx      1.9e-15  5.7e-14 for ``x < 0``: SciPy rounds ``x*x`` in
                    ``exp(x*x)``, this converter does not
erfinv     7.2e-16
erfcinv    1.1e-15
log1mexp   5.5e-16
i0, i1     4.4e-16  ``ive`` 8.9e-16, but 5.7e-14 for order 1 below 1e-230,
                    where SciPy's AMOS result is the inaccurate one
=========  =======  ======================================================

The regularized incomplete gamma and beta functions are not converted: their
series and continued fractions need a number of iterations that grows without
bound with the parameters, which takes an ONNX ``Loop``.
"""

import numpy as np
import pytensor.scalar.math as psm

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.scalar import cast_all, constant_data, output_dtype
from pytensor.link.onnx.dispatch.special import (
    ERFC_P,
    ERFC_Q,
    ERFC_R,
    ERFC_S,
    PI,
    Value,
    construct,
    erf,
    erf_central,
    erfc,
    expm1,
    log1p,
    polevl,
    sin,
    tan,
    where,
)


try:  # PyTensor < 3
    from pytensor.tensor.xlogx import XlogX, XlogY0
except ImportError:
    XlogX = XlogY0 = None


def shift_to_two_three(x: Value, n_down: int, n_up: int):
    """``down``, ``up`` and ``r`` in ``[2, 3)`` with ``Γ(x) = Γ(r) * down / up``.

    Cephes' loops ``down = (x-1)(x-2)...r`` for ``x >= 3`` and ``up =
    x(x+1)...(r-1)`` for ``x < 2``, unrolled to ``n_down`` and ``n_up`` steps.
    """
    r, down, up = x, 1.0, 1.0
    for _ in range(n_down):
        step = r >= 3.0
        r = where(step, r - 1.0, r)
        down = where(step, r, 1.0) * down
    for _ in range(n_up):
        step = r < 2.0
        up = where(step, r, 1.0) * up
        r = where(step, r + 1.0, r)
    return down, up, r


def is_non_positive_integer(x: Value) -> Value:
    return (x <= 0.0) & x.eq(x.floor())


LOGPI = 1.14472988584940017414
LS2PI = 0.91893853320467274178
MAXLGM = 2.556348e305
LGAM_A = [
    8.11614167470508450300e-4,
    -5.95061904284301438324e-4,
    7.93650340457716943945e-4,
    -2.77777777730099687205e-3,
    8.33333333333331927722e-2,
]
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


def lgam_stirling(x: Value) -> Value:
    """Cephes ``lgam`` for ``x >= 13``."""
    series = polevl(1.0 / (x * x), LGAM_A) / x
    result = ((x - 0.5) * x.log() - x + LS2PI) + series
    return where(x > MAXLGM, np.inf, result)


def reflected_fraction(q: Value):
    """``floor(q)`` and the distance ``z <= 1/2`` of ``q`` to its nearest integer."""
    p = q.floor()
    fraction = q - p
    return p, where(fraction > 0.5, 1.0 - fraction, fraction)


def gammaln(x: Value) -> Value:
    # Cephes: the loop from -1 (Cephes: -34) to 13, then Stirling's formula;
    # the reflection formula below
    reflect = x < -1.0
    y = where(reflect, -x, x)
    down, up, r = shift_to_two_three(y, 10, 3)
    t = r - 2.0
    near = abs(down / up).log() + t * polevl(t, LGAM_B) / polevl(t, LGAM_C)
    lgam_y = where(y < 13.0, near, lgam_stirling(y))
    _, fraction = reflected_fraction(y)
    reflected = (LOGPI - (y * sin(PI * fraction)).log()) - lgam_y
    result = where(reflect, reflected, lgam_y)
    result = where(is_non_positive_integer(x), np.inf, result)
    return where(x.isinf(), x, result)


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
    # Cephes: the loop from -1 (Cephes: -33) to 33, then Stirling's formula;
    # the reflection formula below
    reflect = x < -1.0
    y = where(reflect, -x, x)
    down, up, r = shift_to_two_three(y, 31, 3)
    t = r - 2.0
    near = down / up * polevl(t, GAMMA_P) / polevl(t, GAMMA_Q)
    gamma_y = where(y <= 33.0, near, stirling_gamma(y))
    p, fraction = reflected_fraction(y)
    # SciPy takes the parity of p converted to a C int, even from 2**31 on
    p_is_even = (p - 2.0 * (0.5 * p).floor()).eq(0.0) | (p >= 2.0**31)
    sign = where(p_is_even, -1.0, 1.0)
    reflected = sign * (PI / (abs(y * sin(PI * fraction)) * gamma_y))
    # the reflection can be -0.0, which onnxruntime's Where keeps only second
    result = where(x >= -1.0, gamma_y, reflected)
    negative_integer = (x < 0.0) & x.eq(x.floor())
    result = where(negative_integer, np.nan, result)
    # Γ(±0) = ±inf; the product of the shifts loses the sign of -0
    return where(x.eq(0.0), 1.0 / x, result)


PSI_ASYMPTOTIC = [
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
]
# Boost's rational approximation of digamma on [1, 2] around its root
# 1.4616321449683623... = ROOT_1 + ROOT_2 + ROOT_3
PSI_ROOT = (
    1569415565.0 / 1073741824.0,
    381566830.0 / 1073741824.0**2,
    0.9016312093258695918615325266959189453125e-19,
)
PSI_Y = 0.99558162689208984
PSI_P = [
    -0.0020713321167745952,
    -0.045251321448739056,
    -0.28919126444774784,
    -0.65031853770896507,
    -0.32555031186804491,
    0.25479851061131551,
]
PSI_Q = [
    -0.55789841321675513e-6,
    0.0021284987017821144,
    0.054151797245674225,
    0.43593529692665969,
    1.4606242909763515,
    2.0767117023730469,
    1.0,
]
# psi's root in (-1, 0) in two parts and the Taylor coefficients around it of
# psi(x) * x * (x + 1) / (x - root), whose nearest singularity is at -2.
PSI_NEGATIVE_ROOT = (-0.5040830082644554, -8.15428206243813e-18)
PSI_NEGATIVE_ROOT_SERIES = [
    -8.479030950674343e-05,
    0.00012683996906346032,
    -0.00018974382354607425,
    0.00028384540120907184,
    -0.0004246201271640549,
    0.0006352238666042625,
    -0.0009503106668917634,
    0.0014217571565900812,
    -0.002127259375208346,
    0.0031832775894079846,
    -0.0047646148717195155,
    0.007134250082079621,
    -0.010689364085250239,
    0.016033823893267518,
    -0.024096220803253077,
    0.03633254943328824,
    -0.055103260669750805,
    0.0844597341702341,
    -0.1320592859831457,
    0.2149011146093249,
    -0.3825626117191633,
    0.882302452239129,
    0.1293203302734437,
    -2.234800604705252,
]


def psi_one_two(x: Value) -> Value:
    """Boost's digamma for ``1 <= x <= 2``."""
    g = x
    for part in PSI_ROOT:
        g = g - part
    r = polevl(x - 1.0, PSI_P) / polevl(x - 1.0, PSI_Q)
    return g * PSI_Y + g * r


def psi_positive(x: Value) -> Value:
    """SciPy's digamma of ``x >= 1``: steps down to ``(1, 2]`` from ``x <= 10``."""
    small = x <= 10.0
    s, steps = where(small, x, 1.0), 0.0
    for _ in range(8):
        step = s > 2.0
        s = where(step, s - 1.0, s)
        steps = where(step, 1.0 / s, 0.0) + steps
    near = steps + psi_one_two(s)
    z = 1.0 / (x * x)
    asymptotic = x.log() - 0.5 / x - z * polevl(z, PSI_ASYMPTOTIC)
    return where(small, near, asymptotic)


def psi_near_negative_root(x: Value) -> Value:
    t = (x - PSI_NEGATIVE_ROOT[0]) - PSI_NEGATIVE_ROOT[1]
    return t * polevl(t, PSI_NEGATIVE_ROOT_SERIES) / (x * (x + 1.0))


def psi(x: Value) -> Value:
    negative = x < 0.0
    fraction = x - x.ceil()
    reflection = where(negative, -PI / tan(PI * fraction), 0.0)
    y = where(negative, 1.0 - x, x)
    below_one = y < 1.0
    result = where(below_one, -1.0 / y, 0.0) + reflection
    result = result + psi_positive(where(below_one, y + 1.0, y))
    near_root = abs(x - PSI_NEGATIVE_ROOT[0]) < 0.3
    result = where(near_root, psi_near_negative_root(x), result)
    return where(negative & fraction.eq(0.0), np.nan, result)


TRIGAMMA_FROM = 10.0
# Bernoulli numbers B2, B4, ..., B18 of the asymptotic expansion
TRIGAMMA_BERNOULLI = [
    43867 / 798,
    -3617 / 510,
    7 / 6,
    -691 / 2730,
    5 / 66,
    -1 / 30,
    1 / 42,
    -1 / 30,
    1 / 6,
]


def trigamma_positive(x: Value) -> Value:
    z, total = x, 0.0
    for _ in range(int(TRIGAMMA_FROM)):
        step = z < TRIGAMMA_FROM
        total = where(step, 1.0 / (z * z), 0.0) + total
        z = where(step, z + 1.0, z)
    w = 1.0 / (z * z)
    series = polevl(w, TRIGAMMA_BERNOULLI)
    return total + (1.0 + 0.5 / z + w * series) / z


def trigamma(x: Value) -> Value:
    # SciPy's polygamma(1, x), the Hurwitz zeta function zeta(2, x)
    negative = x < 0.0
    fraction = x - x.round()
    sin_pi_x = sin(PI * fraction)
    reflection = (PI * PI) / (sin_pi_x * sin_pi_x)
    positive_part = trigamma_positive(where(negative, 1.0 - x, x))
    result = where(negative, reflection - positive_part, positive_part)
    return where(x.eq(-np.inf), np.inf, result)


def exp_square_doubled(a: Value) -> Value:
    """``2 * exp(a**2)``, accurate to the last bits and without early overflow."""
    m = (128.0 * a + 0.5).floor() / 128.0
    f = a - m
    half = (0.5 * (m * m)).exp()
    return (2.0 * half) * (half * (2.0 * m * f + f * f).exp())


ERFCX_ASYMPTOTIC_FROM = 50.0
INV_SQRT_PI = 0.56418958354775628695


# (2n - 1)!! (-1)**n of the asymptotic series of sqrt(pi) * x * erfcx(x) in
# powers of 1 / (2 * x**2)
ERFCX_ASYMPTOTIC = [10395.0, -945.0, 105.0, -15.0, 3.0, -1.0, 1.0]


def erfcx_nonnegative(a: Value) -> Value:
    central = (a * a).exp() * (1.0 - erf_central(a))
    rational = where(
        a < 8.0,
        polevl(a, ERFC_P) / polevl(a, ERFC_Q),
        polevl(a, ERFC_R) / polevl(a, ERFC_S),
    )
    asymptotic = INV_SQRT_PI / a * polevl(0.5 / (a * a), ERFCX_ASYMPTOTIC)
    result = where(a < ERFCX_ASYMPTOTIC_FROM, rational, asymptotic)
    return where(a < 1.0, central, result)


def erfcx(x: Value) -> Value:
    # erfcx(x) = 2 exp(x**2) - erfcx(-x), which overflows from x = -26.63 on
    positive = erfcx_nonnegative(abs(x))
    negative = where(x < -27.0, np.inf, exp_square_doubled(x) - positive)
    return where(x < 0.0, negative, positive)


SQRT_PI_2 = 0.88622692545275801365
NDTRI_P0 = [
    -5.99633501014107895267e1,
    9.80010754185999661536e1,
    -5.66762857469070293439e1,
    1.39312609387279679503e1,
    -1.23916583867381258016e0,
]
NDTRI_Q0 = [
    1.0,
    1.95448858338141759834e0,
    4.67627912898881538453e0,
    8.63602421390890590575e1,
    -2.25462687854119370527e2,
    2.00260212380060660359e2,
    -8.20372256168333339912e1,
    1.59056225126211695515e1,
    -1.18331621121330003142e0,
]
NDTRI_P1 = [
    4.05544892305962419923e0,
    3.15251094599893866154e1,
    5.71628192246421288162e1,
    4.40805073893200834700e1,
    1.46849561928858024014e1,
    2.18663306850790267539e0,
    -1.40256079171354495875e-1,
    -3.50424626827848203418e-2,
    -8.57456785154685413611e-4,
]
NDTRI_Q1 = [
    1.0,
    1.57799883256466749731e1,
    4.53907635128879210584e1,
    4.13172038254672030440e1,
    1.50425385692907503408e1,
    2.50464946208309415979e0,
    -1.42182922854787788574e-1,
    -3.80806407691578277194e-2,
    -9.33259480895457427372e-4,
]
NDTRI_P2 = [
    3.23774891776946035970e0,
    6.91522889068984211695e0,
    3.93881025292474443415e0,
    1.33303460815807542389e0,
    2.01485389549179081538e-1,
    1.23716634817820021358e-2,
    3.01581553508235416007e-4,
    2.65806974686737550832e-6,
    6.23974539184983293730e-9,
]
NDTRI_Q2 = [
    1.0,
    6.02427039364742014255e0,
    3.67983563856160859403e0,
    1.37702099489081330271e0,
    2.16236993594496635890e-1,
    1.34204006088543189037e-2,
    3.28014464682127739104e-4,
    2.89247864745380683936e-6,
    6.79019408009981274425e-9,
]
# Cephes' ndtri(p) uses its central approximation for |p - 1/2| <= 1/2 - exp(-2)
ERFINV_CENTRAL = 1.0 - 2.0 * 0.13533528323661269189
NEWTON_LIMIT = 26.0


def erfinv_central(y: Value) -> Value:
    """``erfinv(y)`` for ``|y| <= ERFINV_CENTRAL`` (Cephes ``ndtri`` and a Newton step)."""
    h2 = 0.25 * (y * y)
    x = SQRT_PI_2 * (y + y * (h2 * polevl(h2, NDTRI_P0) / polevl(h2, NDTRI_Q0)))
    return x - (erf(x) - y) * (SQRT_PI_2 * (x * x).exp())


def erfcinv_tail(z: Value) -> Value:
    """``erfcinv(z)`` for ``0 <= z <= 1 - ERFINV_CENTRAL`` (Cephes ``ndtri``, Newton)."""
    t = (-2.0 * (0.5 * z).log()).sqrt()
    s = where(t.isinf(), 1.0, t)
    x0 = s - s.log() / s
    w = 1.0 / s
    x1 = where(
        s < 8.0,
        w * polevl(w, NDTRI_P1) / polevl(w, NDTRI_Q1),
        w * polevl(w, NDTRI_P2) / polevl(w, NDTRI_Q2),
    )
    x = (x0 - x1) * 0.70710678118654752440
    refinable = x < NEWTON_LIMIT
    r = where(refinable, x, 1.0)
    refined = r + (erfc(r) - z) * (SQRT_PI_2 * (r * r).exp())
    return where(t.isinf(), t, where(refinable, refined, x))


def erfinv(y: Value) -> Value:
    a = abs(y)
    central = erfinv_central(where(a <= ERFINV_CENTRAL, y, 0.0))
    tail = erfcinv_tail(1.0 - a) * where(y < 0.0, -1.0, 1.0)
    # + 0.0: erfinv(-0.0) is 0.0 in SciPy
    return where(a <= ERFINV_CENTRAL, central, tail) + 0.0


def erfcinv(z: Value) -> Value:
    tail = 1.0 - ERFINV_CENTRAL
    lower = erfcinv_tail(where(z < tail, z, tail))
    upper = -erfcinv_tail(where(z > 2.0 - tail, 2.0 - z, tail))
    central = -erfinv_central(where((z < tail) | (z > 2.0 - tail), 0.0, z - 1.0))
    result = where(z < tail, lower, where(z > 2.0 - tail, upper, central))
    return where((z < 0.0) | (z > 2.0), np.nan, result)


LOG_HALF = -0.6931471805599453


def log1mexp(x: Value) -> Value:
    # log1p(-0.0) = -0.0 goes second: onnxruntime's Where drops the sign of
    # a -0.0 in its first branch
    return where(x >= LOG_HALF, (-expm1(x)).log(), log1p(-x.exp()))


def chbevl(x: Value, coefficients) -> Value:
    """Cephes' sum of a Chebyshev series, coefficients from the highest order."""
    b0, b1, b2 = coefficients[0], 0.0, 0.0
    for coefficient in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + coefficient
    return 0.5 * (b0 - b2)


I0E_A = [
    -4.41534164647933937950e-18,
    3.33079451882223809783e-17,
    -2.43127984654795469359e-16,
    1.71539128555513303061e-15,
    -1.16853328779934516808e-14,
    7.67618549860493561688e-14,
    -4.85644678311192946090e-13,
    2.95505266312963983461e-12,
    -1.72682629144155570723e-11,
    9.67580903537323691224e-11,
    -5.18979560163526290666e-10,
    2.65982372468238665035e-9,
    -1.30002500998624804212e-8,
    6.04699502254191894932e-8,
    -2.67079385394061173391e-7,
    1.11738753912010371815e-6,
    -4.41673835845875056359e-6,
    1.64484480707288970893e-5,
    -5.75419501008210370398e-5,
    1.88502885095841655729e-4,
    -5.76375574538582365885e-4,
    1.63947561694133579842e-3,
    -4.32430999505057594430e-3,
    1.05464603945949983183e-2,
    -2.37374148058994688156e-2,
    4.93052842396707084878e-2,
    -9.49010970480476444210e-2,
    1.71620901522208775349e-1,
    -3.04682672343198398683e-1,
    6.76795274409476084995e-1,
]
I0E_B = [
    -7.23318048787475395456e-18,
    -4.83050448594418207126e-18,
    4.46562142029675999901e-17,
    3.46122286769746109310e-17,
    -2.82762398051658348494e-16,
    -3.42548561967721913462e-16,
    1.77256013305652638360e-15,
    3.81168066935262242075e-15,
    -9.55484669882830764870e-15,
    -4.15056934728722208663e-14,
    1.54008621752140982691e-14,
    3.85277838274214270114e-13,
    7.18012445138366623367e-13,
    -1.79417853150680611778e-12,
    -1.32158118404477131188e-11,
    -3.14991652796324136454e-11,
    1.18891471078464383424e-11,
    4.94060238822496958910e-10,
    3.39623202570838634515e-9,
    2.26666899049817806459e-8,
    2.04891858946906374183e-7,
    2.89137052083475648297e-6,
    6.88975834691682398426e-5,
    3.36911647825569408990e-3,
    8.04490411014108831608e-1,
]
I1E_A = [
    2.77791411276104639959e-18,
    -2.11142121435816608115e-17,
    1.55363195773620046921e-16,
    -1.10559694773538630805e-15,
    7.60068429473540693410e-15,
    -5.04218550472791168711e-14,
    3.22379336594557470981e-13,
    -1.98397439776494371520e-12,
    1.17361862988909016308e-11,
    -6.66348972350202774223e-11,
    3.62559028155211703701e-10,
    -1.88724975172282928790e-9,
    9.38153738649577178388e-9,
    -4.44505912879632808065e-8,
    2.00329475355213526229e-7,
    -8.56872026469545474066e-7,
    3.47025130813767847674e-6,
    -1.32731636560394358279e-5,
    4.78156510755005422638e-5,
    -1.61760815825896745588e-4,
    5.12285956168575772895e-4,
    -1.51357245063125314899e-3,
    4.15642294431288815669e-3,
    -1.05640848946261981558e-2,
    2.47264490306265168283e-2,
    -5.29459812080949914269e-2,
    1.02643658689847095384e-1,
    -1.76416518357834055153e-1,
    2.52587186443633654823e-1,
]
I1E_B = [
    7.51729631084210481353e-18,
    4.41434832307170791151e-18,
    -4.65030536848935832153e-17,
    -3.20952592199342395980e-17,
    2.96262899764595013876e-16,
    3.30820231092092828324e-16,
    -1.88035477551078244854e-15,
    -3.81440307243700780478e-15,
    1.04202769841288027642e-14,
    4.27244001671195135429e-14,
    -2.10154184277266431302e-14,
    -4.08355111109219731823e-13,
    -7.19855177624590851209e-13,
    2.03562854414708950722e-12,
    1.41258074366137813316e-11,
    3.25260358301548823856e-11,
    -1.89749581235054123450e-11,
    -5.58974346219658380687e-10,
    -3.83538038596423702205e-9,
    -2.63146884688951950684e-8,
    -2.51223623787020892529e-7,
    -3.88256480887769039346e-6,
    -1.10588938762623716291e-4,
    -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
]


def bessel_i(x: Value, central, tail, order: int, scaled: bool) -> Value:
    """Cephes ``i0``, ``i0e``, ``i1`` and ``i1e`` (``order``, ``scaled``)."""
    a = abs(x)
    near = chbevl(a / 2.0 - 2.0, central)
    far = chbevl(32.0 / a - 2.0, tail)
    if order:
        near = near * a
    if not scaled:
        e = a.exp()
        near, far = near * e, e * far
    result = where(a <= 8.0, near, far / a.sqrt())
    if order:
        result = result * where(x < 0.0, -1.0, 1.0)
    return result


def i0(x: Value) -> Value:
    return bessel_i(x, I0E_A, I0E_B, 0, scaled=False)


def i1(x: Value) -> Value:
    return bessel_i(x, I1E_A, I1E_B, 1, scaled=False)


def xlogx(x: Value) -> Value:
    return where(x.eq(0.0), 0.0, x * x.log())


def xlogy0(x: Value, y: Value) -> Value:
    return where(x.eq(0.0), 0.0, x * y.log())


CONSTRUCTIONS = {
    psm.GammaLn: gammaln,
    psm.Gamma: gamma,
    psm.Psi: psi,
    psm.TriGamma: trigamma,
    psm.Erfcx: erfcx,
    psm.Erfinv: erfinv,
    psm.Erfcinv: erfcinv,
    psm.Log1mexp: log1mexp,
    psm.I0: i0,
    psm.I1: i1,
}


@onnx_funcify.register(psm.GammaLn)
@onnx_funcify.register(psm.Gamma)
@onnx_funcify.register(psm.Psi)
@onnx_funcify.register(psm.TriGamma)
@onnx_funcify.register(psm.Erfcx)
@onnx_funcify.register(psm.Erfinv)
@onnx_funcify.register(psm.Erfcinv)
@onnx_funcify.register(psm.Log1mexp)
@onnx_funcify.register(psm.I0)
@onnx_funcify.register(psm.I1)
def onnx_funcify_special_function(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    args = cast_all(builder, node, inputs, dtype)
    return [construct(builder, CONSTRUCTIONS[type(op)], args, dtype, "float64")]


def constant_orders(node, op) -> np.ndarray:
    """The orders ``v`` of a Bessel function node, as ``0`` or ``1``."""
    orders = constant_data(node.inputs[0])
    if orders is None or not np.isin(orders, (-1, 0, 1)).all():
        unsupported = (
            "a variable order" if orders is None else np.unique(orders).tolist()
        )
        raise NotImplementedError(
            f"{type(op).__name__} is only converted for a constant order v of -1, 0 "
            f"or 1 (Cephes' i0 and i1), not for {unsupported}: other orders need "
            "the AMOS algorithms of SciPy."
        )
    return np.abs(orders).astype("int64")


BESSEL_I_TABLES = {0: (I0E_A, I0E_B), 1: (I1E_A, I1E_B)}
# SciPy's ive (AMOS) returns NaN beyond AMOS_LIMIT and 0.0 for I1 up to
# IVE1_UNDERFLOW; its iv returns NaN for subnormal x and ±0 for I1 up to
# IV1_UNDERFLOW.
AMOS_LIMIT = 1073741823.5
IVE1_UNDERFLOW = 7.844454502088054e-305
DBL_MIN = 2.2250738585072014e-308
IV1_UNDERFLOW = 1.0547686614862998e-154


def ive(x: Value, order: int) -> Value:
    a = abs(x)
    result = bessel_i(x, *BESSEL_I_TABLES[order], order, scaled=True)
    if order:
        result = where(a <= IVE1_UNDERFLOW, 0.0, result)
    return where(a > AMOS_LIMIT, np.nan, result)


def iv(x: Value, order: int) -> Value:
    a = abs(x)
    # I(x) overflows later than exp(|x|)
    half = (0.5 * a).exp()
    result = (half * bessel_i(x, *BESSEL_I_TABLES[order], order, scaled=True)) * half
    if order:
        # -0.0 goes second: onnxruntime's Where turns it into 0.0 in the first
        signed_zero = where(x < 0.0, -1.0, 1.0) * 0.0
        keep = (a > IV1_UNDERFLOW) | a.isnan()
        result = where(keep, result, signed_zero)
    subnormal = (a < DBL_MIN) & (a > 0.0)
    return where(subnormal | a.isinf(), np.nan, result)


def bessel_i_of_orders(orders, x: Value, scaled: bool) -> Value:
    """SciPy's ``ive`` (``scaled``) or ``iv`` of the constant ``orders`` 0 and 1."""
    function = ive if scaled else iv
    results = {order: function(x, order) for order in np.unique(orders).tolist()}
    if len(results) == 1:
        [result] = results.values()
        return result
    is_one = Value(x.builder, x.builder.constant(orders == 1, "bool"), x.dtype)
    return where(is_one, results[1], results[0])


BESSEL_I_ORDERS = {psm.Ive: True}
if hasattr(psm, "Iv"):
    BESSEL_I_ORDERS[psm.Iv] = False


def onnx_funcify_bessel_i_of_order(op, node, builder, inputs, **kwargs):
    orders = constant_orders(node, op)
    dtype = output_dtype(node)
    [_, x] = cast_all(builder, node, inputs, dtype)

    def construction(x):
        return bessel_i_of_orders(orders, x, BESSEL_I_ORDERS[type(op)])

    return [construct(builder, construction, [x], dtype, "float64")]


for op_class in BESSEL_I_ORDERS:
    onnx_funcify.register(op_class)(onnx_funcify_bessel_i_of_order)


def onnx_funcify_xlog(op, node, builder, inputs, **kwargs):
    # In the output dtype, like the NumPy implementations
    dtype = output_dtype(node)
    args = [
        Value(builder, arg, dtype) for arg in cast_all(builder, node, inputs, dtype)
    ]
    return [(xlogx if len(args) == 1 else xlogy0)(*args).name]


if XlogX is not None:
    onnx_funcify.register(XlogX)(onnx_funcify_xlog)
    onnx_funcify.register(XlogY0)(onnx_funcify_xlog)


ITERATIVE = (psm.GammaInc, psm.GammaIncC, psm.GammaU, psm.GammaL, psm.BetaInc)


def onnx_funcify_iterative(op, node, builder, inputs, **kwargs):
    raise NotImplementedError(
        f"{type(op).__name__} is not converted: its series and continued fractions "
        "take a number of iterations that grows without bound with the "
        "parameters, which needs an ONNX Loop. Evaluate this function outside of "
        "the ONNX graph (for instance with mode='FAST_RUN')."
    )


for op_class in ITERATIVE:
    onnx_funcify.register(op_class)(onnx_funcify_iterative)
