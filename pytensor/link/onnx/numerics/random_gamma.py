"""Samplers built on gamma variates: gamma, beta, Dirichlet, Student-t and kin.

Every gamma variate is computed as its logarithm, by `log_standard_gamma`,
so that the ratios of gammas (beta, Dirichlet, Student-t) stay exact where
the gammas themselves would underflow (shapes far below 1): NumPy reaches
the same distributions with Johnk's algorithm there.
"""

from pytensor.link.onnx.numerics.random import Draws, until_accepted
from pytensor.link.onnx.value import Value, where


def marsaglia_tsang(draws: Draws, d: Value, c: Value):
    """One round of Marsaglia and Tsang's sampler: candidates ``log(d v)``.

    G. Marsaglia and W. W. Tsang, "A simple method for generating gamma
    variables", ACM TOMS 26(3), 2000 (as NumPy's ``random_standard_gamma``).
    """
    x = draws.standard_normal()
    t = 1.0 + c * x
    v = t * t * t
    log_v = where(v > 0.0, v, 1.0).log()
    u = draws.open_uniform()
    accepted = (v > 0.0) & (u.log() < 0.5 * x * x + d - d * v + d * log_v)
    return d.log() + log_v, accepted


def log_standard_gamma(draws: Draws, shape: Value) -> Value:
    """The logarithm of Gamma(``shape``, 1) variates (float64).

    Marsaglia and Tsang's rejection sampler for ``shape >= 1``; below 1, the
    boost ``Gamma(a) = Gamma(a + 1) U**(1/a)`` taken in logarithms (Marsaglia
    and Tsang, section 6), so that it is ``-inf`` only at ``shape = 0``.
    Infinite and NaN shapes give ``log(shape)``.
    """
    infinite = shape.isinf() | shape.isnan()
    boosted = where(infinite, 1.0, where(shape < 1.0, shape + 1.0, shape))
    d = boosted - 1.0 / 3.0
    c = 1.0 / (9.0 * d).sqrt()
    log_gamma = until_accepted(
        marsaglia_tsang, draws.derived(0), d, c, skip=infinite, name="gamma"
    )
    boost = draws.open_uniform().log() / where(shape < 1.0, shape, 1.0)
    log_gamma = log_gamma + where(shape < 1.0, boost, 0.0)
    return where(infinite, shape.log(), log_gamma)


def gamma(draws, shape, scale):
    return scale * log_standard_gamma(draws, shape).exp()


def inverse_gamma(draws, shape, scale):
    return scale * (-log_standard_gamma(draws, shape)).exp()


def generalized_gamma(draws, alpha, p, lambd):
    """SciPy's ``gengamma(alpha / p, p, scale=lambd)``: ``lambd Gamma(alpha / p)**(1/p)``."""
    return lambd * (log_standard_gamma(draws, alpha / p) / p).exp()


def beta(draws, a, b):
    """``X / (X + Y)`` for ``X ~ Gamma(a)``, ``Y ~ Gamma(b)``: the logistic
    function of ``d = log X - log Y``, from ``exp(-|d|)`` so that values near 0
    keep their precision (onnxruntime's ``Sigmoid`` flushes them to 0)."""
    d = log_standard_gamma(draws.derived(1), a) - log_standard_gamma(
        draws.derived(2), b
    )
    e = (-abs(d)).exp()
    return where(d < 0.0, e / (1.0 + e), 1.0 / (1.0 + e))


def dirichlet(draws, alphas):
    """Independent gammas normalized along the last axis: the softmax of their logarithms."""
    log_gammas = log_standard_gamma(draws, alphas.expand(draws.shape))
    return log_gammas.apply("Softmax", log_gammas, axis=-1)


def student_t(draws, df, loc, scale):
    """``Z / sqrt(G / (df / 2))`` for ``Z`` normal and ``G ~ Gamma(df / 2)`` (as NumPy)."""
    half_df = 0.5 * df
    log_gamma = log_standard_gamma(draws.derived(1), half_df)
    z = draws.standard_normal()
    return loc + scale * z * (0.5 * (half_df.log() - log_gamma)).exp()


def skew_student_t(draws, a, b, mu, sigma):
    """Jones and Faddy's skew-t from ``B ~ Beta(a, b)``, as SciPy's ``jf_skew_t``:
    ``(2 B - 1) sqrt(a + b) / (2 sqrt(B (1 - B)))``."""
    x = beta(draws, a, b)
    t = (2.0 * x - 1.0) * (a + b).sqrt() / (2.0 * (x * (1.0 - x)).sqrt())
    return mu + sigma * t
