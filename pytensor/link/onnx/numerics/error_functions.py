"""The error functions and their inverses: Cephes' ``erf``, ``erfc`` and
``ndtri`` (SciPy's ``erf``, ``erfc``, ``erfinv`` and ``erfcinv``), ``erfcx``
from Cephes' ``erfc`` rational functions without their ``exp(-x**2)`` factor,
and the normal distribution function built on them.

onnxruntime has no float64 Erf kernel and ONNX no erfc. ``exp(±x**2)`` is
computed without rounding ``x**2`` (Cephes' ``expx2``); the inverses add a
Newton step to Cephes' ``ndtri``.

Maximum relative error against SciPy on dense grids of each domain
(``tests/link/onnx/test_special.py`` and ``test_special_math.py``):

=========  =======  ======================================================
function   float64  notes
=========  =======  ======================================================
erf        1.3e-16
erfc       5.7e-14  all of it SciPy's error, which rounds x*x in exp(-x*x);
                    against mpmath our erfc is within 2e-15. 0 where
                    SciPy's is (``x**2 > 709.78``)
erfcx      1.9e-15  5.7e-14 for ``x < 0``: SciPy rounds ``x*x`` in
                    ``exp(x*x)``, this function does not
erfinv     7.2e-16
erfcinv    1.1e-15
=========  =======  ======================================================

`erf_small`, `erfc_small` and `erfcx_small`, for few values, have the same
accuracy.
"""

import numpy as np

from pytensor.link.onnx.numerics.constants import MAXLOG, SQRT1_2
from pytensor.link.onnx.numerics.elementary import odd
from pytensor.link.onnx.numerics.series import power_series, rationals
from pytensor.link.onnx.value import Value, polevl, where, where_lazily, where_rare


ERF_T = [
    9.60497373987051638749e0,
    9.00260197203842689217e1,
    2.23200534594684319226e3,
    7.00332514112805075473e3,
    5.55923013010394962768e4,
]
ERF_U = [
    1.0,
    3.35617141647503099647e1,
    5.21357949780152679795e2,
    4.59432382970980127987e3,
    2.26290000613890934246e4,
    4.92673942608635921086e4,
]
ERFC_P = [
    2.46196981473530512524e-10,
    5.64189564831068821977e-1,
    7.46321056442269912687e0,
    4.86371970985681366614e1,
    1.96520832956077098242e2,
    5.26445194995477358631e2,
    9.34528527171957607540e2,
    1.02755188689515710272e3,
    5.57535335369399327526e2,
]
ERFC_Q = [
    1.0,
    1.32281951154744992508e1,
    8.67072140885989742329e1,
    3.54937778887819891062e2,
    9.75708501743205489753e2,
    1.82390916687909736289e3,
    2.24633760818710981792e3,
    1.65666309194161350182e3,
    5.57535340817727675546e2,
]
ERFC_R = [
    5.64189583547755073984e-1,
    1.27536670759978104416e0,
    5.01905042251180477414e0,
    6.16021097993053585195e0,
    7.40974269950448939160e0,
    2.97886665372100240670e0,
]
ERFC_S = [
    1.0,
    2.26052863220117276590e0,
    9.39603524938001434673e0,
    1.20489539808096656605e1,
    1.70814450747565897222e1,
    9.60896809063285878198e0,
    3.36907645100081516050e0,
]


def erf_central(x: Value) -> Value:
    """Cephes ``erf`` for ``|x| <= 1``."""
    z = x * x
    return x * polevl(z, ERF_T) / polevl(z, ERF_U)


def square_in_parts(a: Value, scale: float):
    """``scale * m**2``, exact, and ``m**2 - a**2``, rounded twice, for ``m``
    the multiple of 1/128 nearest ``a`` and ``scale`` a power of two (Cephes
    ``expx2``: only the small ``m**2 - a**2 = (m - a) (m + a)`` is rounded)."""
    k = (128.0 * a).round()
    m = k * (1.0 / 128.0)
    return k * (k * (scale / 16384.0)), (m - a) * (a + m)


def exp_minus_square(a: Value) -> Value:
    """``exp(-a**2)`` accurate to the last bits."""
    minus_m_squared, rest = square_in_parts(a, -1.0)
    return minus_m_squared.exp() * rest.exp()


def erfcx_tail_rational(a: Value) -> Value:
    """Cephes' ``erfc(a) * exp(a**2)`` for ``a >= 1``, its rational function
    from 8 computed only where some element needs it (see `erfcx_rational`
    for few values)."""
    return where_rare(
        a >= 8.0,
        polevl(a, ERFC_R) / polevl(a, ERFC_S),
        polevl(a, ERFC_P) / polevl(a, ERFC_Q),
    )


def erfc_tail(a: Value) -> Value:
    """Cephes ``erfc`` for ``a >= 1`` (or NaN), 0 where ``a**2 > MAXLOG``."""
    underflow = a * a > MAXLOG
    s = where(underflow, 1.0, a)
    return where(underflow, 0.0, exp_minus_square(s) * erfcx_tail_rational(s))


def erf(x: Value) -> Value:
    """The error function."""
    a = abs(x)
    return odd(x, where_lazily(a <= 1.0, erf_central(a), 1.0 - erfc_tail(a)))


def erfc(x: Value) -> Value:
    """``1 - erf(x)``, accurate where it is small."""
    a = abs(x)
    tail = erfc_tail(a)
    tail = where(x < 0.0, 2.0 - tail, tail)
    return where_lazily(a < 1.0, 1.0 - erf_central(x), tail)


def exp_square_doubled(a: Value) -> Value:
    """``2 * exp(a**2)``, accurate to the last bits and without early overflow."""
    half_m_squared, rest = square_in_parts(a, 0.5)
    half = half_m_squared.exp()
    return (2.0 * half) * (half * (-rest).exp())


ERFCX_ASYMPTOTIC_FROM = 50.0
INV_SQRT_PI = 0.56418958354775628695


# (2n - 1)!! (-1)**n of the asymptotic series of sqrt(pi) * x * erfcx(x) in
# powers of 1 / (2 * x**2)
ERFCX_ASYMPTOTIC = [10395.0, -945.0, 105.0, -15.0, 3.0, -1.0, 1.0]


def erfcx_nonnegative(a: Value) -> Value:
    central = (a * a).exp() * (1.0 - erf_central(a))
    rational = erfcx_tail_rational(a)
    asymptotic = INV_SQRT_PI / a * polevl(0.5 / (a * a), ERFCX_ASYMPTOTIC)
    result = where_rare(a >= ERFCX_ASYMPTOTIC_FROM, asymptotic, rational)
    return where_lazily(a < 1.0, central, result)


def erfcx(x: Value) -> Value:
    """``exp(x**2) erfc(x)``; below 0 ``2 exp(x**2) - erfcx(-x)``, which
    overflows from -26.63 on."""
    positive = erfcx_nonnegative(abs(x))
    negative = where(x < -27.0, np.inf, exp_square_doubled(x) - positive)
    return where_rare(x < 0.0, negative, positive)


def erf_central_small(x: Value) -> Value:
    [ratio] = rationals(x * x, (ERF_T, ERF_U))
    return x * ratio


def erfc_tail_small(a: Value, choose) -> Value:
    """`erfc_tail` for few values."""
    rational = erfcx_rational(a)
    return choose(a * a > MAXLOG, 0.0, exp_minus_square(a) * rational)


def erfcx_rational(a: Value) -> Value:
    """Cephes' ``erfc(a) * exp(a**2)`` for ``1 <= a``: both of its rational
    functions by one ``MatMul``."""
    near, far = rationals(a, (ERFC_P, ERFC_Q), (ERFC_R, ERFC_S))
    return where(a < 8.0, near, far)


def erf_small(x: Value, choose=where) -> Value:
    """`erf` for few values, each method chosen by ``choose`` (`where`;
    `~pytensor.link.onnx.value.where_lazily`, or
    `~pytensor.link.onnx.value.branch` for one value, to run only the methods
    the values need)."""
    a = abs(x)
    tail = 1.0 - erfc_tail_small(a, choose)
    return odd(x, choose(a <= 1.0, erf_central_small(a), tail))


def erfc_small(x: Value, choose=where) -> Value:
    """`erfc` for few values, each method chosen by ``choose``."""
    a = abs(x)
    tail = erfc_tail_small(a, choose)
    tail = where(x < 0.0, 2.0 - tail, tail)
    return choose(a < 1.0, 1.0 - erf_central_small(x), tail)


def erfcx_small(x: Value, choose=where) -> Value:
    """`erfcx` for few values, each method chosen by ``choose``."""
    a = abs(x)
    asymptotic = INV_SQRT_PI / a * power_series(0.5 / (a * a), ERFCX_ASYMPTOTIC[::-1])
    far = choose(a < ERFCX_ASYMPTOTIC_FROM, erfcx_rational(a), asymptotic)
    central = (a * a).exp() * (1.0 - erf_central_small(a))
    positive = choose(a < 1.0, central, far)
    negative = choose(x < -27.0, np.inf, exp_square_doubled(x) - positive)
    return choose(x < 0.0, negative, positive)


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
    x = (x0 - x1) * SQRT1_2
    refinable = x < NEWTON_LIMIT
    r = where(refinable, x, 1.0)
    refined = r + (erfc(r) - z) * (SQRT_PI_2 * (r * r).exp())
    return where(t.isinf(), t, where(refinable, refined, x))


def erfinv(y: Value) -> Value:
    """The inverse of ``erf``."""
    a = abs(y)
    central = erfinv_central(where(a <= ERFINV_CENTRAL, y, 0.0))
    tail = erfcinv_tail(1.0 - a) * where(y < 0.0, -1.0, 1.0)
    # + 0.0: erfinv(-0.0) is 0.0 in SciPy
    return where(a <= ERFINV_CENTRAL, central, tail) + 0.0


def erfcinv(z: Value) -> Value:
    """The inverse of ``erfc``."""
    tail = 1.0 - ERFINV_CENTRAL
    lower = erfcinv_tail(where(z < tail, z, tail))
    upper = -erfcinv_tail(where(z > 2.0 - tail, 2.0 - z, tail))
    central = -erfinv_central(where((z < tail) | (z > 2.0 - tail), 0.0, z - 1.0))
    result = where(z < tail, lower, where(z > 2.0 - tail, upper, central))
    return where((z < 0.0) | (z > 2.0), np.nan, result)


def normal_half_interval(x: Value) -> Value:
    """``Φ(x) - 1/2``."""
    return 0.5 * erf(x * SQRT1_2)


def normal_tail(x: Value) -> Value:
    """``1 - Φ(x)``."""
    return 0.5 * erfc(x * SQRT1_2)


def ndtr_minus_half(x: Value) -> Value:
    """SciPy's ``ndtr(x) - 0.5`` for ``x >= 0``, rounded as Cephes' ``ndtr``."""
    z = x * SQRT1_2
    return where(z < SQRT1_2, 0.5 + 0.5 * erf(z), 1.0 - 0.5 * erfc(z)) - 0.5
