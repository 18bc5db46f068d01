"""The inverses of the regularized incomplete gamma functions: Cephes' ``igami``
and ``igamci`` (SciPy's ``gammaincinv`` and ``gammainccinv``).

DiDonato and Morris' starting point and three Halley steps, as SciPy. Both
solve for the smaller of ``y`` and ``1 - y``. For ``a`` in ``[1e-3, 1e4]``
they are within 1e-12 of SciPy, and ``2e-15 / a`` for ``a < 2e-3``, where the
inverse magnifies the rounding of ``P(a, x) ~ x**a``.
"""

import numpy as np

from pytensor.link.onnx.numerics.constants import EULER
from pytensor.link.onnx.numerics.elementary import log1p
from pytensor.link.onnx.numerics.gamma import gamma, gammaln
from pytensor.link.onnx.numerics.incomplete_gamma import igam_fac, incomplete_gamma
from pytensor.link.onnx.value import Value, polevl, where


# DiDonato and Morris' rational function of equation 32, Cephes' order
INVERSE_S_P = [0.213623493715853, 4.28342155967104, 11.6616720288968, 3.31125922108741]
INVERSE_S_Q = [
    0.3611708101884203e-1,
    1.27364489782223,
    6.40691597760039,
    6.61053765625462,
    1.0,
]
INVERSE_GAMMA_HALLEY_STEPS = 3


def inverse_normal_s(p: Value, q: Value) -> Value:
    """DiDonato and Morris' ``s`` of equation 32, roughly ``Φ⁻¹(q)``."""
    lower = p < 0.5
    t = (-2.0 * where(lower, p, q).log()).sqrt()
    s = t - polevl(t, INVERSE_S_P) / polevl(t, INVERSE_S_Q)
    return where(lower, -s, s)


def didonato_eq25(a: Value, y: Value) -> Value:
    """DiDonato and Morris' equation 25: ``x`` far in the upper tail."""
    c1 = (a - 1.0) * y.log()
    c1_2 = c1 * c1
    c1_3 = c1_2 * c1
    c1_4 = c1_2 * c1_2
    a_2 = a * a
    a_3 = a_2 * a
    c2 = (a - 1.0) * (1.0 + c1)
    c3 = (a - 1.0) * (-(c1_2 / 2.0) + (a - 2.0) * c1 + (3.0 * a - 5.0) / 2.0)
    c4 = (a - 1.0) * (
        (c1_3 / 3.0)
        - (3.0 * a - 5.0) * c1_2 / 2.0
        + (a_2 - 6.0 * a + 7.0) * c1
        + (11.0 * a_2 - 46.0 * a + 47.0) / 6.0
    )
    c5 = (a - 1.0) * (
        -(c1_4 / 4.0)
        + (11.0 * a - 17.0) * c1_3 / 6.0
        + (-3.0 * a_2 + 13.0 * a - 13.0) * c1_2
        + (2.0 * a_3 - 25.0 * a_2 + 72.0 * a - 61.0) * c1 / 2.0
        + (25.0 * a_3 - 195.0 * a_2 + 477.0 * a - 379.0) / 12.0
    )
    y_2 = y * y
    return y + c1 + (c2 / y) + (c3 / y_2) + (c4 / (y_2 * y)) + (c5 / (y_2 * y_2))


def inverse_gamma_start_below_one(a: Value, p: Value, q: Value) -> Value:
    """Cephes' starting point for ``a < 1``: DiDonato and Morris, eqs. 21 to 25."""
    g = gamma(a)
    b = q * g
    power = (p * g * a) ** (1.0 / a)
    u = where((b * q > 1e-8) & (q > 1e-5), power, (-q / a - EULER).exp())
    eq21 = u / (1.0 - (u / (a + 1.0)))
    t = (-EULER - b).exp()
    eq22 = t * (t * t.exp()).exp()
    y = -b.log()
    u = y - (1.0 - a) * y.log()
    log_u = (1.0 - a) * u.log()
    eq23 = y - log_u - (1.0 + (1.0 - a) / (1.0 + u)).log()
    ratio = (u * u + 2.0 * (3.0 - a) * u + (2.0 - a) * (3.0 - a)) / (
        u * u + (5.0 - a) * u + 2.0
    )
    eq24 = y - log_u - ratio.log()
    result = where(b > 0.1, eq24, didonato_eq25(a, y))
    result = where((b > 0.15) | (a >= 0.3), eq23, result)
    result = where((a < 0.3) & (b >= 0.35), eq22, result)
    return where((b > 0.6) | ((b >= 0.45) & (a >= 0.3)), eq21, result)


DIDONATO_SN_TERMS = 40


def didonato_sn(a: Value, x: Value) -> Value:
    """DiDonato and Morris' series ``S_N`` of equation 34 (``x <= 0.7 (a + 1)``).

    Cephes stops adding terms below 1e-4; this sums a fixed number, which
    changes only the starting point of the iteration.
    """
    total, term = 1.0, 1.0
    for i in range(1, DIDONATO_SN_TERMS + 1):
        term = term * (x / (a + float(i)))
        total = total + term
    return total


def inverse_gamma_start_above_one(a: Value, p: Value, q: Value) -> Value:
    """Cephes' starting point for ``a > 1``: DiDonato and Morris, eqs. 31 to 36."""
    s = inverse_normal_s(p, q)
    s_2 = s * s
    s_3 = s_2 * s
    s_4 = s_2 * s_2
    ra = a.sqrt()
    w = a + s * ra + (s_2 - 1.0) / 3.0
    w = w + (s_3 - 7.0 * s) / (36.0 * ra)
    w = w - (3.0 * s_4 + 7.0 * s_2 - 16.0) / (810.0 * a)
    w = w + (9.0 * s_4 * s + 256.0 * s_3 - 433.0 * s) / (38880.0 * a * ra)

    lb = q.log() + gammaln(a)
    u = -lb + (a - 1.0) * w.log() - (1.0 + (1.0 - a) / (1.0 + w)).log()
    eq33 = -lb + (a - 1.0) * u.log() - (1.0 + (1.0 - a) / (1.0 + u)).log()
    far = lb < -2.3 * where(a * (a - 1.0) > 2.0, a * (a - 1.0), 2.0)
    upper_tail = where(w < 3.0 * a, w, where(far, didonato_eq25(a, -lb), eq33))

    ap1, ap2 = a + 1.0, a + 2.0
    v = p.log() + gammaln(ap1)
    z = ((v + w) / a).exp()
    for last in (False, False, True):
        inner = z / ap2 * (1.0 + z / (a + 3.0)) if last else z / ap2
        s = log1p(z / ap1 * (1.0 + inner))
        z = ((v + z - s) / a).exp()
    z = where(w < 0.15 * ap1, z, w)
    ls = didonato_sn(a, z).log()
    z36 = ((v + z - ls) / a).exp()
    eq36 = z36 * (1.0 - (a * z36.log() - z36 - v + ls) / (a - z36))
    lower_tail = where((z <= 0.01 * ap1) | (z > 0.7 * ap1), z, eq36)

    result = where(p > 0.5, upper_tail, lower_tail)
    return where((a >= 500.0) & (abs(1.0 - w / a) < 1e-6), w, result)


def inverse_gamma_start(a: Value, p: Value, q: Value) -> Value:
    """Cephes' ``find_inverse_gamma``: ``x`` with ``P(a, x) ≈ p``, ``q = 1 - p``."""
    exponential = where(q > 0.9, -log1p(-p), -q.log())
    result = where(
        a < 1.0,
        inverse_gamma_start_below_one(a, p, q),
        inverse_gamma_start_above_one(a, p, q),
    )
    return where(a.eq(1.0), exponential, result)


def inverse_incomplete_gamma(a: Value, target: Value, upper: Value) -> Value:
    """``x`` with ``P(a, x) = target``, or ``Q(a, x)`` where ``upper``, for
    ``a > 0`` and ``0 < target <= 0.9``: Cephes' three steps of Halley's method."""
    q = where(upper, target, 1.0 - target)
    p = where(upper, 1.0 - target, target)
    gammaln_a = gammaln(a)
    x = inverse_gamma_start(a, p, q)
    stopped = x.eq(0.0)
    for _ in range(INVERSE_GAMMA_HALLEY_STEPS):
        valid = (x > 0.0) & (x < np.inf)
        x_safe = where(valid, x, 1.0)
        fac = igam_fac(a, x_safe, gammaln_a)
        fac = where(valid, fac, where(x.eq(0.0), 0.0, np.nan))
        stopped = stopped | fac.eq(0.0)
        f = incomplete_gamma(a, x_safe, upper, gammaln_a) - target
        # the Newton step f / f' (Q decreases), then Halley's correction
        newton = where(upper, -1.0, 1.0) * f * x_safe / fac
        f2_f1 = -1.0 + (a - 1.0) / x_safe
        halley = newton / (1.0 - 0.5 * newton * f2_f1)
        x = where(stopped, x, x - where(f2_f1.isinf(), newton, halley))
    return x


def regularized_gamma_inverse(a: Value, y: Value, complement: bool) -> Value:
    """SciPy's ``gammaincinv`` or (``complement``) ``gammainccinv``, with its
    edge values. Both solve for the smaller of ``y`` and ``1 - y``, as Cephes."""
    if complement:
        upper = y <= 0.9
        target = where(upper, y, 1.0 - y)
    else:
        upper = y > 0.9
        target = where(upper, 1.0 - y, y)
    q = where(upper, target, 1.0 - target)
    invalid = a.isnan() | y.isnan() | (a < 0.0) | (y < 0.0) | (y > 1.0)
    special = invalid | a.eq(0.0) | a.isinf() | y.eq(0.0) | y.eq(1.0)
    x = inverse_incomplete_gamma(
        where(special, 1.0, a), where(special, 0.5, target), upper
    )
    x = where(a.isinf(), np.nan, x)
    # Cephes' starting point at a = 0 is 0 (a fixed point) or NaN, and NaN at -0
    at_zero_a = where((q <= 1e-5) & (1.0 / a > 0.0), 0.0, np.nan)
    x = where(a.eq(0.0), at_zero_a, x)
    at_zero, at_one = (np.inf, 0.0) if complement else (0.0, np.inf)
    x = where(y.eq(0.0), at_zero, where(y.eq(1.0), at_one, x))
    return where(invalid, np.nan, x)


def gammaincinv(a: Value, y: Value) -> Value:
    """SciPy's ``gammaincinv``: ``x`` with ``P(a, x) = y``."""
    return regularized_gamma_inverse(a, y, complement=False)


def gammainccinv(a: Value, y: Value) -> Value:
    """SciPy's ``gammainccinv``: ``x`` with ``Q(a, x) = y``."""
    return regularized_gamma_inverse(a, y, complement=True)
