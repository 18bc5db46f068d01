"""The regularized incomplete beta function: Cephes' ``incbet`` with Boost's
prefactor (SciPy's ``betainc``, which computes it with Boost).

Cephes' power series and its two continued fractions (``incbcf`` and
``incbd``, whichever converges faster) run in ONNX ``Loop`` nodes over all
elements at once, each one until it converges.

Against SciPy, for parameters in ``[1e-3, 1e4]``, the relative error is below
1.3e-12 (the continued fraction for ``x`` above the mean runs on ``1 - x``
rounded), but in the far tails, where SciPy and this round the exponent ``a
log(x) + b log(1 - x) - log B(a, b)`` differently: by up to 2 ulps of its
largest term (3.6e-12 at 2.5e-108). Beyond 1e4, the continued fraction runs on
``1 - x`` next to 1, where the distribution is concentrated, and loses
accuracy: 1.4e-10 for parameters up to 1e6, 2.4e-9 up to 1e7. Where it does
not converge within 10000 steps (parameters beyond about 1e7 close to the
mean, ``b < 1e-3`` with ``x`` next to 1), ``betainc`` is NaN.
"""

import numpy as np

from pytensor.link.onnx.numerics.constants import BIG, BIGINV, DBL_MIN, MACHEP
from pytensor.link.onnx.numerics.elementary import log1p
from pytensor.link.onnx.numerics.gamma import LANCZOS_G, lanczos_sum_expg_scaled
from pytensor.link.onnx.numerics.iteration import converge
from pytensor.link.onnx.value import Value, where


PSERIES_MAXITER = 2000
INCBET_MAXITER = 10_000


def beta_power_terms(a: Value, b: Value, x: Value, y: Value, with_y: bool) -> Value:
    """``x**a y**b / B(a, b)``, or ``x**a / B(a, b)`` (Boost's ``ibeta_power_terms``).

    Lanczos' approximation turns the powers into powers of bases close to 1
    where they are large, which ``log1p`` keeps accurate; ``y = 1 - x``.
    """
    shift = LANCZOS_G - 0.5
    agh, bgh, cgh = a + shift, b + shift, (a + b) + shift
    lanczos = lanczos_sum_expg_scaled
    scale = lanczos(a + b) / lanczos(a) / lanczos(b)
    scale = scale * (bgh / np.e).sqrt() * (agh / cgh).sqrt()

    def log_power_base(base_minus_one, base, ratio):
        # log(base * ratio): the product would round subnormal bases
        return where(
            abs(base_minus_one) < 0.1, log1p(base_minus_one), base.log() + ratio.log()
        )

    log_x_base = log_power_base((x * b - y * agh) / agh, x, cgh / agh)
    if with_y:
        log_y_base = log_power_base((y * a - x * bgh) / bgh, y, cgh / bgh)
    else:
        log_y_base = log1p(a / bgh)
    return scale * (a * log_x_base + b * log_y_base).exp()


def pseries_step(iteration, a, b, x, z, t, total):
    n = iteration + 2.0
    t = t * ((n - b) * x / n)
    v = t / (a + n)
    return {"t": t, "total": total + v}, abs(v) <= z


def beta_series(a: Value, b: Value, x: Value, xc: Value, active: Value) -> Value:
    """Cephes' ``pseries``: ``I_x(a, b)`` for ``b x <= 1``, ``x <= 0.95``;
    ``xc = 1 - x``."""
    u = (1.0 - b) * x
    first = u / (a + 1.0)
    z = MACHEP / a
    done = ~active | (abs(first) <= z)
    state = {"t": u, "total": x.full_like(0.0)}
    _, total, _ = converge(
        pseries_step, [a, b, x, z], state, done, PSERIES_MAXITER, "pseries"
    )
    return beta_power_terms(a, b, x, xc, with_y=False) * ((total + first) + 1.0 / a)


def beta_fraction_step(
    iteration, a, z, k2_start, k6_start, sign, pkm2, pkm1, qkm2, qkm1, ratio
):
    k1, k3 = a + iteration, a + 2.0 * iteration
    k4 = k3 + 1.0
    k2 = k2_start + sign * iteration
    k6 = k6_start - sign * iteration
    # Cephes' (z k1 k2) / (k3 k4), in an order that does not overflow
    xk = -(z * k1 / k3) * (k2 / k4)
    pkm2, pkm1 = pkm1, pkm1 + pkm2 * xk
    qkm2, qkm1 = qkm1, qkm1 + qkm2 * xk
    xk = (z * (iteration + 1.0) / k4) * (k6 / (k3 + 2.0))
    pk = pkm1 + pkm2 * xk
    qk = qkm1 + qkm2 * xk
    r = pk / qk
    valid = ~(qk.eq(0.0) | pk.eq(0.0))
    change = where(valid, abs((ratio - r) / r), 1.0)
    big = abs(qk) + abs(pk) > BIG
    small = (abs(qk) < BIGINV) | (abs(pk) < BIGINV)
    scale = where(big, BIGINV, 1.0) * where(small, BIG, 1.0)
    state = {
        "pkm2": pkm1 * scale,
        "pkm1": pk * scale,
        "qkm2": qkm1 * scale,
        "qkm1": qk * scale,
        "ratio": where(valid, r, ratio),
    }
    return state, change < 3.0 * MACHEP


def beta_fractions(a: Value, b: Value, x: Value, xc: Value, active: Value) -> Value:
    """Cephes' ``incbcf`` or ``incbd``, whichever converges faster, times
    ``x**a xc**b / (a B(a, b))``: ``I_x(a, b)`` for ``x`` below the mean; NaN
    where the continued fraction has not converged."""
    first = x * (a + b - 2.0) - (a - 1.0) < 0.0
    z = where(first, x, x / xc)
    k2_start = where(first, a + b, b - 1.0)
    k6_start = where(first, b - 1.0, a + b)
    sign = where(first, 1.0, -1.0)
    one, zero = x.full_like(1.0), x.full_like(0.0)
    state = {"pkm2": zero, "pkm1": one, "qkm2": one, "qkm1": one, "ratio": one}
    *_, ratio, converged = converge(
        beta_fraction_step,
        [a, z, k2_start, k6_start, sign],
        state,
        ~active,
        INCBET_MAXITER,
        "beta_fraction",
    )
    ratio = where(first, ratio, ratio / xc)
    result = beta_power_terms(a, b, x, xc, with_y=True) * ratio / a
    return where(converged, result, np.nan)


def incomplete_beta(a: Value, b: Value, x: Value, xc=None) -> Value:
    """Cephes ``incbet`` of ``a, b > 0``, ``0 < x < 1``, with Boost's prefactor;
    ``xc`` is ``1 - x`` (by default, ``1 - x`` rounded).

    Cephes' power series also computes ``1 - I_(1-x)(b, a)`` where it applies
    and the result is not small, when the continued fraction would need
    thousands of steps (``b`` small and ``x`` close to 1).
    """
    if xc is None:
        xc = 1.0 - x
    direct_series = (b * x <= 1.0) & (x <= 0.95)
    above_mean = (x > a / (a + b)) & ~direct_series
    complement_series = (a * xc <= 1.0) & (xc <= 0.95) & ~direct_series
    flip = above_mean | complement_series
    series = beta_series(
        where(flip, b, a),
        where(flip, a, b),
        where(flip, xc, x),
        where(flip, x, xc),
        direct_series | complement_series,
    )
    series = where(flip, 1.0 - series, series)
    cancels = complement_series & ~above_mean & (series < 2.0**-10)
    use_series = (direct_series | complement_series) & ~cancels
    fraction = beta_fractions(
        where(above_mean, b, a),
        where(above_mean, a, b),
        where(above_mean, xc, x),
        where(above_mean, x, xc),
        ~use_series,
    )
    fraction = where(above_mean, 1.0 - fraction, fraction)
    return where(use_series, series, fraction)


def betainc(a: Value, b: Value, x: Value) -> Value:
    """SciPy's ``betainc``, with its edge values."""
    invalid = a.isnan() | b.isnan() | x.isnan() | (a < 0.0) | (b < 0.0)
    invalid = invalid | (x < 0.0) | (x > 1.0)
    invalid = invalid | (a.eq(0.0) & b.eq(0.0)) | (a.isinf() & b.isinf())
    # a, b = 0 and, as Lanczos' sums overflow there, subnormal: their limits
    tiny_a, tiny_b = a < DBL_MIN, b < DBL_MIN
    one = (tiny_a & ~tiny_b) | b.isinf()
    zero = (tiny_b & ~tiny_a) | a.isinf()
    both_tiny = tiny_a & tiny_b
    special = invalid | one | zero | both_tiny | x.eq(0.0) | x.eq(1.0)
    result = incomplete_beta(
        where(special, 1.0, a), where(special, 1.0, b), where(special, 0.5, x)
    )
    result = where(both_tiny, b / (a + b), result)
    result = where(one, 1.0, where(zero, 0.0, result))
    result = where(x.eq(0.0), 0.0, where(x.eq(1.0), 1.0, result))
    return where(invalid, np.nan, result)
