"""Samplers of counts: Poisson, binomial and the distributions built on them.

Small means are drawn by inversion (a sequential search from the lowest
count, `inverse_search`), large ones by Hörmann's transformed rejection with
squeeze (PTRS for Poisson, as NumPy; BTRS for binomial). Draws are float64
integers; the converter casts them to int64.
"""

from pytensor.link.onnx.numerics.gamma import gammaln
from pytensor.link.onnx.numerics.iteration import converge
from pytensor.link.onnx.numerics.random import (
    Draws,
    derived_key,
    inverse_search,
    until_accepted,
)
from pytensor.link.onnx.numerics.random_gamma import beta, log_standard_gamma
from pytensor.link.onnx.value import Value, concat, where


# Below this mean, inversion, whose expected search length is the mean.
INVERSION_MEAN = 10.0


def ptrs(draws: Draws, lam: Value):
    """One round of PTRS for Poisson means ``lam >= 10``.

    W. Hörmann, "The transformed rejection method for generating Poisson
    random variables", Insurance: Mathematics and Economics 12, 1993 (as
    NumPy's ``random_poisson_ptrs``).
    """
    b = 0.931 + 2.53 * lam.sqrt()
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    u = draws.uniform() - 0.5
    v = draws.open_uniform()
    us = 0.5 - abs(u)
    k = ((2.0 * a / us + b) * u + lam + 0.43).floor()
    valid = where(k < 0.0, 0.0, k)
    bound = valid * lam.log() - lam - gammaln(valid + 1.0)
    test = v.log() + inv_alpha.log() - (a / (us * us) + b).log()
    tested = (k >= 0.0) & ((us >= 0.013) | (v <= us)) & (test <= bound)
    return k, ((us >= 0.07) & (v <= vr)) | tested


def poisson_ratio(k, lam):
    return lam / (k + 1.0)


def poisson(draws: Draws, lam: Value) -> Value:
    """Poisson counts: inversion for means below 10, PTRS above."""
    small = lam < INVERSION_MEAN
    small_lam = where(small, lam, 0.0)
    searched = inverse_search(
        poisson_ratio,
        draws,
        small_lam,
        start_pmf=(-small_lam).exp(),
        skip=~small,
        name="poisson",
    )
    large_lam = where(small, INVERSION_MEAN, lam)
    large = until_accepted(
        ptrs, draws.derived(0), large_lam, skip=small, name="poisson"
    )
    return where(small, searched, large)


def btrs(draws: Draws, n: Value, p: Value):
    """One round of BTRS for binomial draws with ``p <= 1/2`` and ``n p >= 10``.

    W. Hörmann, "The generation of binomial random variates", Journal of
    Statistical Computation and Simulation 46, 1993; the acceptance bound
    is the exact ``log(f(k) / f(m))`` at the mode ``m``.
    """
    q = 1.0 - p
    spq = (n * p * q).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    m = ((n + 1.0) * p).floor()
    u = draws.uniform() - 0.5
    v = draws.open_uniform()
    us = 0.5 - abs(u)
    k = ((2.0 * a / us + b) * u + c).floor()
    inside = (k >= 0.0) & (k <= n)
    valid = where(inside, k, m)
    log_ratio = (
        gammaln(m + 1.0)
        + gammaln(n - m + 1.0)
        - gammaln(valid + 1.0)
        - gammaln(n - valid + 1.0)
        + (valid - m) * (p / q).log()
    )
    tested = inside & ((v * alpha / (a / (us * us) + b)).log() <= log_ratio)
    return k, ((us >= 0.07) & (v <= vr)) | tested


def binomial_ratio(k, n, p):
    return (n - k) / (k + 1.0) * (p / (1.0 - p))


def binomial(draws: Draws, n: Value, p: Value) -> Value:
    """Binomial counts: of the rarer outcome (``min(p, 1 - p)``) by inversion
    for means below 10 and BTRS above, as NumPy (which uses BTPE)."""
    flipped = p > 0.5
    rare = where(flipped, 1.0 - p, p)
    small = n * rare < INVERSION_MEAN
    small_p = where(small, rare, 0.0)
    searched = inverse_search(
        binomial_ratio,
        draws,
        n,
        small_p,
        start_pmf=(n * (1.0 - small_p).log()).exp(),
        last=n,
        skip=~small,
        name="binomial",
    )
    large = until_accepted(
        btrs,
        draws.derived(0),
        where(small, INVERSION_MEAN * 2.0, n),
        where(small, 0.5, rare),
        skip=small,
        name="binomial",
    )
    count = where(small, searched, large)
    return where(flipped, n - count, count)


def negative_binomial(draws: Draws, n: Value, p: Value) -> Value:
    """``Poisson(Gamma(n, (1 - p) / p))``, as NumPy."""
    rate = log_standard_gamma(draws.derived(1), n).exp() * ((1.0 - p) / p)
    return poisson(draws, rate)


def beta_binomial(draws: Draws, n: Value, a: Value, b: Value) -> Value:
    return binomial(draws, n, beta(draws.derived(1), a, b))


def hypergeometric(draws: Draws, good: Value, bad: Value, sample: Value) -> Value:
    """Good items among ``sample`` drawn without replacement: one draw per
    ``Loop`` iteration, of the sample or, if smaller, of its complement.

    The loop runs ``min(sample, good + bad - sample)`` iterations (the largest
    over the draws): exact, and slow for large samples.
    """
    total = good + bad
    complement = sample > 0.5 * total
    drawn = where(complement, total - sample, sample)
    flat_shape = draws.size.unsqueeze([0])

    def step(iteration, key, flat_shape, drawn, good_left, total_left, picked):
        u = Draws(derived_key(key, iteration.cast("uint64")), flat_shape).flat_uniform()
        is_good = (u * total_left < good_left).cast("float64")
        state = {
            "good_left": good_left - is_good,
            "total_left": total_left - 1.0,
            "picked": picked + is_good,
        }
        return state, iteration + 1.0 >= drawn

    flat_drawn = draws.flat(drawn)
    _, _, picked, _ = converge(
        step,
        [draws.key, flat_shape, flat_drawn],
        {
            "good_left": draws.flat(good),
            "total_left": draws.flat(total),
            "picked": flat_drawn * 0.0,
        },
        flat_drawn <= 0.0,
        2**62,
        "hypergeometric_draws",
    )
    picked = draws.shaped(picked)
    return where(complement, good - picked, picked)


def multinomial(draws: Draws, n: Value, p: Value, n_categories: int) -> Value:
    """Counts of ``n_categories`` categories (the last axis): conditional
    binomials, ``Binomial(n - previous counts, p_i / (1 - previous p))``,
    with the remainder in the last category (as NumPy)."""
    batch_shape = draws.shape.slice(0, -1)
    remaining = n
    left = p.constant(1.0)
    counts = []
    for i in range(n_categories - 1):
        p_i = p.slice(i, i + 1, axis=-1).squeeze([-1])
        share = where(left > 0.0, p_i / left, 0.0)
        share = where(share > 1.0, 1.0, share)
        count = binomial(draws.derived(i, batch_shape), remaining, share)
        counts.append(count.unsqueeze([-1]))
        remaining = remaining - count
        left = left - p_i
    counts.append(remaining.unsqueeze([-1]))
    return concat(counts, axis=-1).expand(draws.shape)
