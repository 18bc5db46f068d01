"""The digamma and trigamma functions, SciPy's ``psi`` and ``polygamma(1, x)``.

``psi`` is Cephes' for ``x > 0`` but for Boost's rational approximation on
``[1, 2]`` around its positive root and its asymptotic series from 6 (SciPy:
10, with four terms fewer), with the reflection formula below 0 and a Taylor
series around its root in ``(-1, 0)``, which run only for arguments that
need them (`~pytensor.link.onnx.value.where_rare`); ``trigamma`` is the Hurwitz
zeta function ``zeta(2, x)``: the ten terms of its sum from ``x``, then its
asymptotic expansion at ``x + 10`` (no masks: 96 nodes, was 175). Below 0,
``sin(pi x)`` is `trigonometric.sin_pi` of the distance to the nearest
integer; ``psi`` keeps ``tan`` of the rounded ``pi * fraction``, as SciPy.

Their largest relative error against SciPy over dense grids, as
``tests/link/onnx/test_special_math.py`` asserts it:

=========  =======  ======================================================
function   float64  notes
=========  =======  ======================================================
psi        7.8e-16  for ``x > 0``; 2.4e-15 for ``x < 0`` and an absolute
                    3.6e-15 next to the zeros below -1, which SciPy does
                    not resolve either
tri_gamma  1.1e-15
=========  =======  ======================================================

`psi_small` and `trigamma_small`, for few values, have the same accuracy.
"""

import numpy as np
from scipy.special import bernoulli

from pytensor.link.onnx.numerics.constants import PI
from pytensor.link.onnx.numerics.series import power_series, rationals
from pytensor.link.onnx.numerics.trigonometric import sin_pi, tan
from pytensor.link.onnx.value import (
    Value,
    maximum,
    polevl,
    where,
    where_lazily,
    where_rare,
)


# The asymptotic series of psi from PSI_ASYMPTOTIC_FROM: B_2k / (2k) for
# k = 11, ..., 1, in powers of 1 / x**2 (Cephes: seven terms from 10)
PSI_ASYMPTOTIC_FROM = 6.0
PSI_ASYMPTOTIC = [bernoulli(22)[2 * k] / (2 * k) for k in range(11, 0, -1)]
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
    """SciPy's digamma of ``x >= 1``: steps down to ``(1, 2]`` from ``x <=
    PSI_ASYMPTOTIC_FROM`` (SciPy: 10), the asymptotic series above."""
    small = x <= PSI_ASYMPTOTIC_FROM
    s = where(small, x, 1.0)
    steps = 0.0
    for k in range(1, int(PSI_ASYMPTOTIC_FROM) - 1):
        # Cephes' step k, taken while s - k > 1: five nodes (Cephes' six)
        shifted = s - float(k)
        steps = where(shifted > 1.0, 1.0 / shifted, 0.0) + steps
    near = steps + psi_one_two(s - maximum(s.ceil() - 2.0, 0.0))
    return where_lazily(small, near, psi_asymptotic(x))


def psi_near_negative_root(x: Value) -> Value:
    t = (x - PSI_NEGATIVE_ROOT[0]) - PSI_NEGATIVE_ROOT[1]
    return t * polevl(t, PSI_NEGATIVE_ROOT_SERIES) / (x * (x + 1.0))


def psi(x: Value) -> Value:
    """The digamma function ``Γ'(x) / Γ(x)``."""
    negative = x < 0.0
    # tan of the rounded PI * fraction, as SciPy: its error near the poles
    # (2e-14) is in the reference values
    fraction = x - x.ceil()
    reflection = where_rare(negative, -PI / tan(PI * fraction), 0.0)
    y = where(negative, 1.0 - x, x)
    below_one = y < 1.0
    result = where(below_one, -1.0 / y, 0.0) + reflection
    result = result + psi_positive(where(below_one, y + 1.0, y))
    near_root = abs(x - PSI_NEGATIVE_ROOT[0]) < 0.3
    result = where_rare(near_root, psi_near_negative_root(x), result)
    return where(negative & fraction.eq(0.0), np.nan, result)


# Cephes' steps of psi down to (1, 2], along a new axis
STEPS = np.arange(1.0, PSI_ASYMPTOTIC_FROM - 1.0)


def psi_asymptotic(x: Value, few_values: bool = False) -> Value:
    """``psi(x)`` for ``x > PSI_ASYMPTOTIC_FROM``, its polynomial by Horner's
    rule, or for few values by one ``MatMul``."""
    z = 1.0 / (x * x)
    if few_values:
        series = power_series(z, PSI_ASYMPTOTIC[::-1])
    else:
        series = polevl(z, PSI_ASYMPTOTIC)
    return x.log() - 0.5 / x - z * series


def psi_near(y: Value) -> Value:
    """``psi(y)`` for ``0 <= y <= PSI_ASYMPTOTIC_FROM``: the steps to ``(1, 2]``
    summed along a new axis."""
    below_one = y < 1.0
    s = where(below_one, y + 1.0, y)
    shifts = maximum(s.ceil() - 2.0, 0.0)
    shifted = s.unsqueeze([-1]) - STEPS
    used = shifts.unsqueeze([-1]) >= STEPS
    steps = where(used, 1.0 / shifted, 0.0).sum([-1], keepdims=False)
    steps = where(below_one, -1.0 / y, steps)
    r = s - shifts
    g = r
    for part in PSI_ROOT:
        g = g - part
    [ratio] = rationals(r - 1.0, (PSI_P, PSI_Q))
    return steps + g * (ratio + PSI_Y)


def psi_small(x: Value, choose=where) -> Value:
    """`psi` for few values, each method chosen by ``choose`` (`where`;
    `~pytensor.link.onnx.value.where_lazily`, or
    `~pytensor.link.onnx.value.branch` for one value, to run only the methods
    the values need)."""
    negative = x < 0.0
    y = where(negative, 1.0 - x, x)
    positive = choose(
        y <= PSI_ASYMPTOTIC_FROM, psi_near(y), psi_asymptotic(y, few_values=True)
    )
    fraction = x - x.ceil()
    reflected = positive - PI / tan(PI * fraction)
    t = (x - PSI_NEGATIVE_ROOT[0]) - PSI_NEGATIVE_ROOT[1]
    near_root = t * power_series(t, PSI_NEGATIVE_ROOT_SERIES[::-1]) / (x * (x + 1.0))
    reflected = choose(abs(t) < 0.3, near_root, reflected)
    reflected = where(fraction.eq(0.0), np.nan, reflected)
    return choose(negative, reflected, positive)


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
    """``zeta(2, x)`` of ``x >= 0``: ``1/x**2 + ... + 1/(x+9)**2`` (a sum of
    positive terms, all of them whatever ``x``, so without masks) and the
    asymptotic expansion at ``z = x + 10``."""
    total = 1.0 / (x * x)
    for k in range(1, int(TRIGAMMA_FROM)):
        z = x + float(k)
        total = total + 1.0 / (z * z)
    z = x + TRIGAMMA_FROM
    w = 1.0 / (z * z)
    series = polevl(w, TRIGAMMA_BERNOULLI)
    return total + (1.0 + 0.5 / z + w * series) / z


def trigamma(x: Value) -> Value:
    """SciPy's ``polygamma(1, x)``, the Hurwitz zeta function ``zeta(2, x)``."""
    negative = x < 0.0
    sin_pi_x = sin_pi(x - x.round())
    reflection = (PI * PI) / (sin_pi_x * sin_pi_x)
    positive_part = trigamma_positive(where(negative, 1.0 - x, x))
    result = where(negative, reflection - positive_part, positive_part)
    return where(x.eq(-np.inf), np.inf, result)


# The first ten terms of zeta(2, x), along a new axis
TRIGAMMA_TERMS = np.arange(TRIGAMMA_FROM)


def trigamma_positive_small(x: Value) -> Value:
    """`trigamma_positive`, its terms summed along a new axis."""
    z = x.unsqueeze([-1]) + TRIGAMMA_TERMS
    total = (1.0 / (z * z)).sum([-1], keepdims=False)
    z = x + TRIGAMMA_FROM
    w = 1.0 / (z * z)
    series = power_series(w, TRIGAMMA_BERNOULLI[::-1])
    return total + (1.0 + 0.5 / z + w * series) / z


def trigamma_small(x: Value, choose=where) -> Value:
    """`trigamma` for few values, the reflection chosen by ``choose``."""
    negative = x < 0.0
    positive_part = trigamma_positive_small(where(negative, 1.0 - x, x))
    sin_pi_x = sin_pi(x - x.round())
    reflected = (PI * PI) / (sin_pi_x * sin_pi_x) - positive_part
    reflected = where(x.eq(-np.inf), np.inf, reflected)
    return choose(negative, reflected, positive_part)
