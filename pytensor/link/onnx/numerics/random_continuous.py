"""Continuous samplers beyond plain inversion: von Mises, truncated normal,
and the distributions PyMC defines."""

import numpy as np

from pytensor.link.onnx.numerics.error_functions import (
    erfc,
    erfcinv,
    erfcx_nonnegative,
)
from pytensor.link.onnx.numerics.random import Draws, until_accepted
from pytensor.link.onnx.numerics.trigonometric import arccos
from pytensor.link.onnx.value import Value, arange, concat, maximum, where


def best_fisher(draws: Draws, kappa: Value, s: Value):
    """One round of Best and Fisher's sampler: candidates ``W = cos(theta)``.

    D. J. Best and N. I. Fisher, "Efficient simulation of the von Mises
    distribution", Applied Statistics 28, 1979 (as NumPy's ``random_vonmises``).
    """
    z = (np.pi * draws.uniform()).cos()
    w = (1.0 + s * z) / (s + z)
    y = kappa * (s - w)
    v = draws.open_uniform()
    accepted = (y * (2.0 - y) - v >= 0.0) | ((y / v).log() + 1.0 - y >= 0.0)
    return w, accepted


def von_mises(draws: Draws, mu: Value, kappa: Value) -> Value:
    """Angles in ``[-pi, pi]``: Best-Fisher rejection; uniform for
    ``kappa < 1e-8`` and a wrapped normal above ``1e6``, as NumPy."""
    uniform = kappa < 1e-8
    normal = kappa > 1e6
    skip = uniform | normal | kappa.isnan()
    safe = where(skip, 1.0, kappa)
    r = 1.0 + (1.0 + 4.0 * safe * safe).sqrt()
    rho = (r - (2.0 * r).sqrt()) / (2.0 * safe)
    s = where(safe < 1e-5, 1.0 / safe + safe, (1.0 + rho * rho) / (2.0 * rho))
    w = until_accepted(
        best_fisher, draws.derived(0), safe, s, skip=skip, name="vonmises"
    )
    w = where(w > 1.0, 1.0, where(w < -1.0, -1.0, w))
    theta = where(draws.uniform() < 0.5, -arccos(w), arccos(w))
    theta = where(uniform, np.pi * (2.0 * draws.uniform() - 1.0), theta)
    theta = where(normal, (1.0 / kappa).sqrt() * draws.standard_normal(), theta)
    angle = mu + theta
    wrapped = (abs(angle) + np.pi).apply("Mod", abs(angle) + np.pi, 2.0 * np.pi, fmod=1)
    wrapped = wrapped - np.pi
    return where(angle < 0.0, -wrapped, wrapped) + where(kappa.isnan(), np.nan, 0.0)


def normal_cdf(x: Value) -> Value:
    return 0.5 * erfc(-x * np.sqrt(0.5))


# Below this, inverse CDFs of the normal tail are computed from logarithms
FAR_TAIL = -5.0
NEWTON_STEPS = 3


def log_normal_tail_cdf(x: Value) -> Value:
    """``log Phi(x)`` for ``x <= FAR_TAIL``, ``log(erfcx(-x / sqrt(2)) / 2) - x**2 / 2``."""
    return (0.5 * erfcx_nonnegative(-x * np.sqrt(0.5))).log() - 0.5 * x * x


def normal_tail_quantile_of_log(log_q: Value) -> Value:
    """``Phi^-1(exp(log_q))`` for ``log_q <= log Phi(FAR_TAIL)``: Newton's method
    from the asymptotic ``x**2 = t - log t``, ``t = -2 log_q - log(2 pi)``,
    whose relative error is below ``1e-3`` there (``1e-15`` after three steps)."""
    t = -2.0 * log_q - np.log(2.0 * np.pi)
    x = -(t - t.log()).sqrt()
    for _ in range(NEWTON_STEPS):
        mills = erfcx_nonnegative(-x * np.sqrt(0.5)) * np.sqrt(0.5 * np.pi)
        x = x - (log_normal_tail_cdf(x) - log_q) * mills
    return x


def truncated_normal(draws: Draws, mu, sigma, lower, upper) -> Value:
    """Inversion of the normal CDF restricted to ``[lower, upper]``.

    Intervals above the mean are reflected below it, where the CDF's small
    values keep their precision: ``x = Phi^-1(Phi(a) + u (Phi(b) - Phi(a)))``
    with ``Phi^-1(q) = -sqrt(2) erfcinv(2 q)``. Intervals in the far tail
    (``b < FAR_TAIL``, where ``Phi`` underflows from -37.5 on) invert ``log q =
    log Phi(b) + log(u + (1 - u) Phi(a) / Phi(b))`` instead.
    """
    a = (lower - mu) / sigma
    b = (upper - mu) / sigma
    reflect = a > 0.0
    low = where(reflect, -b, a)
    high = where(reflect, -a, b)
    u = draws.open_uniform()
    cdf_low = normal_cdf(low)
    q = cdf_low + u * (normal_cdf(high) - cdf_low)
    x = -np.sqrt(2.0) * erfcinv(2.0 * q)
    far = high < FAR_TAIL
    far_high = where(far, high, FAR_TAIL)
    log_cdf_high = log_normal_tail_cdf(far_high)
    ratio = (log_normal_tail_cdf(where(far, low, 2.0 * FAR_TAIL)) - log_cdf_high).exp()
    ratio = where(low.isinf(), 0.0, ratio)
    log_q = log_cdf_high + (u + (1.0 - u) * ratio).log()
    x = where(far, normal_tail_quantile_of_log(log_q), x)
    x = where(x < low, low, where(x > high, high, x))
    return mu + sigma * where(reflect, -x, x)


def skew_normal(draws, mu, sigma, alpha):
    """Azzalini's construction, as SciPy's ``skewnorm``."""
    u0 = draws.standard_normal()
    v = draws.derived(0).standard_normal()
    d = alpha / (1.0 + alpha * alpha).sqrt()
    u1 = d * u0 + (1.0 - d * d).sqrt() * v
    return mu + sigma * where(u0 >= 0.0, u1, -u1)


def rice(draws, b, sigma):
    """The norm of a normal pair centred at ``(b, 0)``, scaled by ``sigma``."""
    x = b + draws.standard_normal()
    y = draws.derived(0).standard_normal()
    return sigma * (x * x + y * y).sqrt()


def moyal(draws, mu, sigma):
    """``mu - sigma log(Z**2)`` for a standard normal ``Z`` (SciPy's ``moyal``)."""
    z = draws.standard_normal()
    return mu - sigma * (z * z).log()


def interpolated(draws: Draws, x, pdf, cdf) -> Value:
    """Inversion of the CDF of a piecewise-linear density (PyMC's ``Interpolated``).

    The density goes through ``(x, pdf)`` (the last axis) and its CDF through
    ``(x, cdf)``. A uniform ``u`` falls in the segment ``i`` with ``cdf[i] <
    u <= cdf[i + 1]``, where the CDF is ``cdf[i] + f t + s t**2 / 2`` at ``t``
    past ``x[i]`` (``f = pdf[i]``, ``s`` the slope): ``t = 2 d / (f + sqrt(f**2
    + 2 s d))`` for ``d = u - cdf[i]``, the root PyMC takes, written without
    its cancellation.
    """
    u = draws.open_uniform().unsqueeze([-1])
    points = concat([draws.shape, x.shape(-1)], axis=0)
    below = (cdf < u).cast("int64")
    start = below.sum([-1]) - 1

    def at(values, index):
        return values.expand(points).take_along(index, axis=-1).squeeze([-1])

    x0, x1 = at(x, start), at(x, start + 1)
    f0, f1 = at(pdf, start), at(pdf, start + 1)
    slope = (f1 - f0) / (x1 - x0)
    d = u.squeeze([-1]) - at(cdf, start)
    denominator = f0 + maximum(f0 * f0 + 2.0 * slope * d, 0.0).sqrt()
    return x0 + where(denominator > 0.0, 2.0 * d / denominator, 0.0)


# Devroye's sampler of J*(1, c) = 4 PG(1, 2 c) (Polson, Scott and Windle 2013,
# appendix; Windle's thesis): a proposal from the envelope a_0(x) exp(-c**2 x / 2)
# of the density, an exponential right of the truncation point and an inverse
# Gaussian (or a Levy proposal for small c) left of it, accepted by the
# alternating series sum (-1)**n a_n(x) of the density.
PG_TRUNCATION = 0.64
# The largest h of PG(h, z) drawn (as sums of h draws of PG(1, z))
MAX_POLYA_GAMMA_SHAPE = 1024
# The envelope's mass left of the truncation point without exp(-c**2 x / 2),
# with the normal tail of N in x = 1 / N**2 proposed as sqrt(1 / t + 2 E):
# 4 exp(-1 / (2 t)) sqrt(t / (2 pi)).
LEVY_MASS = 4.0 * np.exp(-0.5 / PG_TRUNCATION) * np.sqrt(PG_TRUNCATION / (2 * np.pi))
# Above this c the inverse Gaussian proposal (mass 2 exp(-c)) beats Levy's.
INVERSE_GAUSSIAN_FROM = float(np.log(2.0 / LEVY_MASS))
# a_n(x) / a_0(x) = (2 n + 1) exp(-n (n + 1) s(x)), s(x) >= 2 / t: the fifth
# term is below 11 exp(-30 s) < 1e-39, far below the resolution of the uniforms.
SERIES_EXPONENTS = np.array([2.0, 6.0, 12.0, 20.0])
SERIES_FACTORS = np.array([-3.0, 5.0, -7.0, 9.0])


def inverse_gaussian(draws: Draws, mean: Value) -> Value:
    """Inverse Gaussian draws of shape 1 (Michael, Schucany and Haas 1976).

    The smaller root ``mean (1 + y / 2 - sqrt(y + y**2 / 4))`` of ``y = mean
    N**2`` is computed without cancellation as ``4 mean / (sqrt(y) + sqrt(y +
    4))**2``.
    """
    n = draws.standard_normal()
    root_y = abs(n) * mean.sqrt()
    root = 4.0 * mean / (root_y + (root_y * root_y + 4.0).sqrt()) ** 2
    smaller = draws.uniform() * (mean + root) <= mean
    return where(smaller, root, mean * mean / root)


def devroye_round(draws: Draws, c: Value):
    """One round of Devroye's sampler of J*(1, c): candidates, where accepted."""
    t = PG_TRUNCATION
    rate = np.pi**2 / 8.0 + 0.5 * c * c
    log_right_mass = np.log(np.pi / 2.0) - rate * t - rate.log()
    use_levy = c < INVERSE_GAUSSIAN_FROM
    log_left_mass = where(use_levy, np.log(LEVY_MASS), np.log(2.0) - c)
    log_mass_ratio = log_right_mass - log_left_mass
    right = draws.uniform() < log_mass_ratio.apply("Sigmoid", log_mass_ratio)
    exponential = t - draws.open_uniform().log() / rate
    levy = t / (1.0 - 2.0 * t * draws.open_uniform().log())
    levy_weight = (levy / t).sqrt() * (-0.5 * c * c * levy).exp()
    mean = 1.0 / where(use_levy, 1.0, c)
    gaussian = inverse_gaussian(draws, mean)
    left = where(use_levy, levy, gaussian)
    left_weight = where(use_levy, levy_weight, where(gaussian < t, 1.0, 0.0))
    x = where(right, exponential, left)
    s = where(right, 0.5 * np.pi**2 * x, 2.0 / x).unsqueeze([-1])
    terms = (s * -SERIES_EXPONENTS).exp() * SERIES_FACTORS
    series = 1.0 + terms.sum([-1], keepdims=False)
    accepted = draws.uniform() <= where(right, 1.0, left_weight) * series
    return x, accepted


def polya_gamma_draws(h: Value) -> Value:
    """Where `polya_gamma` draws PG(h, z): integer ``h`` from 1 to `MAX_POLYA_GAMMA_SHAPE`."""
    return (h >= 1.0) & (h <= MAX_POLYA_GAMMA_SHAPE) & h.eq(h.floor())


def polya_gamma(draws: Draws, h: Value, z: Value) -> Value:
    """PG(h, z) for integer ``h`` from 1 to `MAX_POLYA_GAMMA_SHAPE`: sums of
    ``h`` draws of PG(1, z) = J*(1, |z| / 2) / 4.

    Each PG(1, z) is drawn by Devroye's exact rejection sampler (see
    `devroye_round`); the draws take ``max(h)`` of them each, those past their
    own ``h`` skipped. Other ``h`` and NaN ``z`` give NaN, infinite ``z`` gives 0.
    """
    valid = polya_gamma_draws(h)
    count = where(valid, h, 0.0)
    flat_count = draws.flat(count)
    most = concat([flat_count, flat_count.constant([1.0])], axis=0).max([0])
    most = most.cast("int64")
    terms = draws.derived(0, concat([draws.shape, most], axis=0))
    term_index = arange(most.squeeze([0])).cast("float64")
    c = 0.5 * abs(z).unsqueeze([-1])
    skip = (term_index >= count.unsqueeze([-1])) | ~(c < np.inf)
    j_star = until_accepted(devroye_round, terms, c, skip=skip, name="polyagamma")
    sums = 0.25 * j_star.sum([-1], keepdims=False)
    return where(valid & ~z.isnan(), sums, np.nan)
