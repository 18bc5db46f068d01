"""Goodness of fit of every sampler under mode="ONNX", float64 and float32.

Each case draws 20,000 values at a fixed seed and compares them with SciPy's
distribution: Kolmogorov-Smirnov for continuous draws, chi-square on
quantile bins (which pool the tails) for discrete ones, and the mean and
variance within 6 standard errors where those moments exist. The seeds are
fixed, so the outcome is deterministic; the p-value threshold, 1e-4, is far
above what a wrong sampler gives (~1e-50) at this sample size.
"""

import itertools
import warnings

import numpy as np
import pytensor.tensor as pt
import pytest
import scipy.stats as stats
from pytensor.compile.mode import Mode
from pytensor.compile.sharedvalue import shared

import pytensor
from pytensor.link.onnx.numerics import random as random_numerics
from pytensor.link.onnx.numerics import random_continuous, random_multivariate
from tests.link.onnx.utils import PYMC_MISSING, evaluate_numerics


pytestmark = pytest.mark.filterwarnings(
    "ignore:RandomVariable Ops will stop hiding:DeprecationWarning"
)
N_DRAWS = 20_000
MIN_P_VALUE = 1e-4
STANDARD_ERRORS = 6


def compile_draws(rvs, dtype):
    """One ONNX function drawing ``N_DRAWS`` of each ``(rv, params)`` of ``rvs``.

    Float parameters are cast to ``dtype``, the dtype of float draws.
    """
    outputs = []
    for i, (rv, params) in enumerate(rvs):
        rng = shared(np.random.default_rng(i))
        cast = [np.asarray(p, dtype) if isinstance(p, float) else p for p in params]
        kwargs = {"dtype": dtype} if getattr(rv, "dtype", "floatX") == "floatX" else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            outputs.append(rv(*cast, size=(N_DRAWS,), rng=rng, **kwargs))
    return pytensor.function([], outputs, mode="ONNX")()


def assert_moments(sample, dist):
    mean, variance, _, kurtosis = (float(m) for m in dist.stats(moments="mvsk"))
    sample = sample.astype("float64")
    if np.isfinite(variance):
        assert abs(sample.mean() - mean) < STANDARD_ERRORS * np.sqrt(variance / N_DRAWS)
    if np.isfinite(kurtosis):
        variance_error = variance * np.sqrt((kurtosis + 2) / N_DRAWS)
        assert abs(sample.var() - variance) < STANDARD_ERRORS * variance_error


def quantile_bins_p_value(sample, dist, n_bins=30):
    """Chi-square p-value of the counts of discrete draws in bins of about
    equal probability, the tails pooled into the first and last."""
    edges = np.unique(dist.ppf(np.linspace(0, 1, n_bins + 1)[1:-1]))
    probabilities = np.diff(np.concatenate([[0.0], dist.cdf(edges), [1.0]]))
    counts = np.bincount(np.searchsorted(edges, sample), minlength=len(edges) + 1)
    possible = probabilities > 0
    assert counts[~possible].sum() == 0, "draws of probability 0"
    expected = probabilities[possible] / probabilities[possible].sum() * sample.size
    return stats.chisquare(counts[possible], expected).pvalue


def gamma(shape, scale, **kwargs):
    return pt.random.gamma(shape, scale=scale, **kwargs)


CONTINUOUS = {
    "gamma": (gamma, (2.5, 2.0), stats.gamma(2.5, scale=2)),
    "gamma shape<1": (gamma, (0.3, 1.0), stats.gamma(0.3)),
    "gamma huge shape": (gamma, (1e6, 1e-6), stats.gamma(1e6, scale=1e-6)),
    "gamma huge scale": (gamma, (3.0, 1e30), stats.gamma(3, scale=1e30)),
    "gamma tiny scale": (gamma, (3.0, 1e-30), stats.gamma(3, scale=1e-30)),
    "invgamma": (pt.random.invgamma, (3.0, 2.0), stats.invgamma(3, scale=2)),
    "gengamma": (
        pt.random.gengamma,
        (2.0, 1.5, 2.0),
        stats.gengamma(2 / 1.5, 1.5, scale=2),
    ),
    "beta": (pt.random.beta, (2.0, 3.0), stats.beta(2, 3)),
    "beta shapes<1": (pt.random.beta, (0.4, 0.6), stats.beta(0.4, 0.6)),
    "t": (pt.random.t, (3.0, 1.0, 2.0), stats.t(3, 1, 2)),
    "t df=30": (pt.random.t, (30.0, 0.0, 1.0), stats.t(30)),
    "t df<1": (pt.random.t, (0.5, 0.0, 1.0), stats.t(0.5)),
    "vonmises": (pt.random.vonmises, (0.0, 2.0), stats.vonmises(2.0)),
    "vonmises kappa=1e-3": (pt.random.vonmises, (0.0, 1e-3), stats.vonmises(1e-3)),
    "vonmises kappa=1e7": (pt.random.vonmises, (0.0, 1e7), stats.norm(0, 1e7**-0.5)),
}

DISCRETE = {
    "poisson": (pt.random.poisson, (3.0,), stats.poisson(3)),
    "poisson 9.9": (pt.random.poisson, (9.9,), stats.poisson(9.9)),
    "poisson 10": (pt.random.poisson, (10.0,), stats.poisson(10)),
    "poisson 1e6": (pt.random.poisson, (1e6,), stats.poisson(1e6)),
    "poisson 1e-3": (pt.random.poisson, (1e-3,), stats.poisson(1e-3)),
    "binomial": (pt.random.binomial, (20, 0.2), stats.binom(20, 0.2)),
    "binomial p>1/2": (pt.random.binomial, (20, 0.9), stats.binom(20, 0.9)),
    "binomial large": (pt.random.binomial, (200, 0.7), stats.binom(200, 0.7)),
    "binomial 1e9": (pt.random.binomial, (10**9, 0.3), stats.binom(10**9, 0.3)),
    "negative_binomial": (
        pt.random.negative_binomial,
        (5, 0.3),
        stats.nbinom(5, 0.3),
    ),
    "negative_binomial n<1": (
        pt.random.negative_binomial,
        (0.5, 0.2),
        stats.nbinom(0.5, 0.2),
    ),
    "betabinom": (pt.random.betabinom, (10, 2.0, 3.0), stats.betabinom(10, 2, 3)),
    "hypergeometric": (
        pt.random.hypergeometric,
        (7, 12, 9),
        stats.hypergeom(19, 7, 9),
    ),
    "hypergeometric large sample": (
        pt.random.hypergeometric,
        (50, 60, 80),
        stats.hypergeom(110, 50, 80),
    ),
}


@pytest.fixture(scope="module", params=["float64", "float32"])
def samples(request):
    cases = {**CONTINUOUS, **DISCRETE}
    draws = compile_draws([case[:2] for case in cases.values()], request.param)
    return request.param, dict(zip(cases, draws, strict=True))


@pytest.mark.parametrize("name", list(CONTINUOUS))
def test_continuous_goodness_of_fit(samples, name):
    dtype, draws = samples
    sample = draws[name]
    dist = CONTINUOUS[name][2]
    assert sample.dtype == dtype and sample.shape == (N_DRAWS,)
    p_value = stats.kstest(sample.astype("float64"), dist.cdf).pvalue
    assert p_value > MIN_P_VALUE
    assert_moments(sample, dist)


@pytest.mark.parametrize("name", list(DISCRETE))
def test_discrete_goodness_of_fit(samples, name):
    _, draws = samples
    sample = draws[name]
    dist = DISCRETE[name][2]
    assert sample.dtype == np.int64
    lower, upper = dist.support()
    assert sample.min() >= lower and sample.max() <= upper
    assert quantile_bins_p_value(sample, dist) > MIN_P_VALUE
    assert_moments(sample, dist)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_dirichlet_marginals_are_betas(dtype):
    alphas = np.array([0.5, 1.0, 2.5])
    [sample] = compile_draws([(pt.random.dirichlet, (alphas.astype(dtype),))], dtype)
    assert sample.shape == (N_DRAWS, 3) and sample.dtype == dtype
    np.testing.assert_allclose(sample.sum(-1), 1, rtol=1e-5)
    for i, alpha in enumerate(alphas):
        marginal = stats.beta(alpha, alphas.sum() - alpha)
        assert stats.kstest(sample[:, i], marginal.cdf).pvalue > MIN_P_VALUE


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_multinomial_marginals_are_binomials(dtype):
    p = np.array([0.2, 0.0, 0.3, 0.5], dtype=dtype)
    [sample] = compile_draws([(pt.random.multinomial, (40, p))], dtype)
    assert sample.shape == (N_DRAWS, 4) and sample.dtype == np.int64
    np.testing.assert_array_equal(sample.sum(-1), 40)
    np.testing.assert_array_equal(sample[:, 1], 0)
    for i in (0, 2, 3):
        marginal = stats.binom(40, float(p[i]))
        assert quantile_bins_p_value(sample[:, i], marginal) > MIN_P_VALUE
        assert_moments(sample[:, i], marginal)


def draw_once(x):
    return pytensor.function([], x, mode="ONNX")()


def rng(seed=0):
    return shared(np.random.default_rng(seed))


@pytest.mark.parametrize(
    "rv, params, numpy_draw",
    [
        (pt.random.gamma, (1e-3, 1.0), lambda gen: gen.gamma(1e-3, size=N_DRAWS)),
        (pt.random.beta, (0.05, 0.1), lambda gen: gen.beta(0.05, 0.1, size=N_DRAWS)),
        (
            pt.random.dirichlet,
            (np.array([0.01, 0.02]),),
            lambda gen: gen.dirichlet([0.01, 0.02], size=N_DRAWS)[:, 0],
        ),
    ],
    ids=["gamma 1e-3", "beta 0.05 0.1", "dirichlet 0.01 0.02"],
)
def test_tiny_shapes_match_numpy(rv, params, numpy_draw):
    # SciPy's CDFs are inaccurate for such shapes: compare with NumPy's draws
    sample = draw_once(rv(*params, size=(N_DRAWS,), rng=rng()))
    sample = sample[:, 0] if sample.ndim == 2 else sample
    reference = numpy_draw(np.random.default_rng(1))
    assert stats.ks_2samp(sample, reference).pvalue > MIN_P_VALUE


def test_edge_parameters_like_numpy():
    zero, one, nan = np.array(0.0), np.array(1.0), np.array(np.nan)
    np.testing.assert_array_equal(
        draw_once(pt.random.gamma(zero, one, size=5, rng=rng())), 0
    )
    np.testing.assert_array_equal(
        draw_once(pt.random.poisson(zero, size=5, rng=rng())), 0
    )
    binomial = pt.random.binomial(7, np.array([0.0, 1.0]), size=(50, 2), rng=rng())
    np.testing.assert_array_equal(draw_once(binomial), np.broadcast_to([0, 7], (50, 2)))
    nb = pt.random.negative_binomial(3, one, size=5, rng=rng())
    np.testing.assert_array_equal(draw_once(nb), 0)
    for x in (
        pt.random.gamma(nan, one, size=3, rng=rng()),
        pt.random.beta(nan, one, size=3, rng=rng()),
        pt.random.vonmises(zero, nan, size=3, rng=rng()),
    ):
        assert np.isnan(draw_once(x)).all()
    assert np.isinf(draw_once(pt.random.gamma(np.array(np.inf), one, rng=rng())))


# The Python mode raises the same errors, except where PyTensor draws with
# SciPy (t, nbinom), whose messages differ.
@pytest.mark.parametrize(
    "make, message, same_in_python_mode",
    [
        (lambda r: pt.random.gamma(-1.0, 1.0, rng=r), "shape < 0", True),
        (lambda r: pt.random.beta(0.0, 1.0, rng=r), "a <= 0", True),
        (lambda r: pt.random.poisson(-1.0, rng=r), "lam < 0", True),
        (lambda r: pt.random.poisson(np.nan, rng=r), "lam < 0 or lam is NaN", True),
        (lambda r: pt.random.poisson(1e19, rng=r), "lam value too large", True),
        (lambda r: pt.random.binomial(5, 1.5, rng=r), "p < 0, p > 1", True),
        (lambda r: pt.random.binomial(-1, 0.5, rng=r), "n < 0", True),
        (lambda r: pt.random.negative_binomial(5, 0.0, rng=r), "p <= 0", False),
        (lambda r: pt.random.t(0.0, rng=r), "df <= 0", False),
        (lambda r: pt.random.vonmises(0.0, -1.0, rng=r), "kappa < 0", True),
        (lambda r: pt.random.hypergeometric(5, 5, 11, rng=r), "ngood \\+ nbad", True),
    ],
)
def test_invalid_parameters_raise_like_numpy(make, message, same_in_python_mode):
    x = make(rng())
    with pytest.raises(ValueError, match=message):
        draw_once(x)
    if same_in_python_mode:
        with pytest.raises(ValueError, match=message):
            pytensor.function([], x, mode=Mode(linker="py", optimizer=None))()


def test_rejection_cap_raises(monkeypatch):
    # one round: some of 1,000 draws are rejected (each with probability ~0.05)
    monkeypatch.setattr(random_numerics, "MAX_ROUNDS", 1)
    x = pt.random.gamma(2.0, 1.0, size=1000, rng=rng())
    with pytest.raises(RuntimeError, match="gamma sampler did not accept every draw"):
        draw_once(x)


@pytest.mark.parametrize(
    "make",
    [
        lambda r: pt.random.gamma(0.5, 1.0, size=100, rng=r),
        lambda r: pt.random.poisson(np.array([2.0, 500.0]), size=(50, 2), rng=r),
        lambda r: pt.random.binomial(np.array([5, 500]), 0.4, size=(50, 2), rng=r),
        lambda r: pt.random.multinomial(9, np.array([0.3, 0.7]), size=20, rng=r),
    ],
    ids=["gamma", "poisson", "binomial", "multinomial"],
)
def test_same_seed_same_draws_and_generator_advances(make):
    generator = rng(5)
    x = make(generator)
    fn = pytensor.function([], x, updates={generator: x.owner.outputs[0]}, mode="ONNX")
    first, second = fn(), fn()
    assert not np.array_equal(first, second)
    generator.set_value(np.random.default_rng(5))
    np.testing.assert_array_equal(fn(), first)
    reference = np.random.default_rng(5)
    reference.integers(2**64, dtype=np.uint64)
    assert generator.get_value().bit_generator.state == reference.bit_generator.state


def test_parameters_broadcast_with_size():
    lam = np.array([[1.0], [100.0]])
    sample = draw_once(pt.random.poisson(lam, size=(5000, 2, 3), rng=rng()))
    assert sample.shape == (5000, 2, 3)
    means = sample.mean(0)
    assert (abs(means - lam) < STANDARD_ERRORS * np.sqrt(lam / 5000)).all()
    n = pt.lscalar("n")
    x = pt.random.gamma(np.array([0.5, 5.0]), 1.0, size=(n, 2), rng=rng())
    fn = pytensor.function([n], x, mode="ONNX")
    assert fn(0).shape == (0, 2)
    assert abs(fn(20_000).mean(0) - [0.5, 5.0]).max() < 0.1


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda r: pt.random.normal(size=(3, 0), rng=r), (3, 0)),
        (lambda r: pt.random.gamma(2.0, 1.0, size=(0, 3), rng=r), (0, 3)),
        (lambda r: pt.random.poisson(3.0, size=(2, 0), rng=r), (2, 0)),
        (lambda r: pt.random.dirichlet(np.ones(3), size=(0, 2), rng=r), (0, 2, 3)),
        (lambda r: pt.random.permutation(np.ones((2, 0)), rng=r), (2, 0)),
    ],
)
def test_sizes_with_a_zero_length(make, shape):
    assert draw_once(make(rng())).shape == shape


def test_multinomial_needs_a_static_number_of_categories():
    p = pt.vector("p")
    x = pt.random.multinomial(5, p, rng=rng())
    with pytest.raises(NotImplementedError, match="number of categories known"):
        pytensor.function([p], x, mode="ONNX")


# Permutations and choices without replacement


def ordered_counts(sample, n_items):
    """How often each ordered tuple of items (the rows of ``sample``) occurs."""
    codes = (sample.astype("int64") * n_items ** np.arange(sample.shape[1])).sum(1)
    return np.bincount(codes, minlength=n_items ** sample.shape[1])


def ordered_codes(n_items, n_chosen):
    """The `ordered_counts` indices of the tuples of distinct items."""
    weights = n_items ** np.arange(n_chosen)
    return [
        int(np.dot(items, weights))
        for items in itertools.permutations(range(n_items), n_chosen)
    ]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_permutations_are_uniform(dtype):
    items = np.arange(4, dtype=dtype)
    sample = draw_once(pt.random.permutation(items, size=(N_DRAWS,), rng=rng()))
    assert sample.dtype == dtype and sample.shape == (N_DRAWS, 4)
    counts = ordered_counts(sample, 4)
    codes = ordered_codes(4, 4)
    assert counts.sum() == counts[codes].sum() == N_DRAWS
    assert stats.chisquare(counts[codes]).pvalue > MIN_P_VALUE


def test_permutation_of_an_integer_and_of_rows_per_batch():
    np.testing.assert_array_equal(
        np.sort(draw_once(pt.random.permutation(7, rng=rng()))), np.arange(7)
    )
    x = np.arange(2 * 5 * 3).reshape(2, 5, 3)
    op = pt.random.permutation(x[0], rng=rng()).owner.op
    sample = draw_once(op(x, rng=rng()))
    assert sample.shape == x.shape and sample.dtype == x.dtype
    for batch, rows in zip(x, sample, strict=True):
        order = np.argsort(rows[:, 0])
        np.testing.assert_array_equal(rows[order], batch)
    assert not np.array_equal(sample[0] - x[0], sample[1] - x[1])


def choose(n_items, n_chosen, p, batch):
    """Choices of ``n_chosen`` of ``range(n_items)`` without replacement, with
    probabilities ``p`` (or None), ``batch`` times."""
    x = pt.random.choice(n_items, size=(n_chosen,), replace=False, p=p, rng=rng())
    op = x.owner.op
    return draw_once(op(*op.dist_params(x.owner), size=(batch,), rng=rng()))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_weighted_choice_draws_in_the_order_of_successive_draws(dtype):
    # P(first i, then j) = p_i p_j / (1 - p_i), as NumPy's successive draws
    p = np.array([0.1, 0.2, 0.3, 0.4], dtype=dtype)
    sample = choose(4, 2, p, N_DRAWS)
    assert sample.shape == (N_DRAWS, 2)
    pairs = list(itertools.permutations(range(4), 2))
    expected = np.array([p[i] * p[j] / (1 - p[i]) for i, j in pairs], "float64")
    counts = ordered_counts(sample, 4)[ordered_codes(4, 2)]
    assert counts.sum() == N_DRAWS
    expected_counts = expected / expected.sum() * N_DRAWS
    assert stats.chisquare(counts, expected_counts).pvalue > MIN_P_VALUE


def test_uniform_choice_draws_every_ordered_subset_alike():
    sample = choose(5, 3, None, N_DRAWS)
    counts = ordered_counts(sample, 5)
    codes = ordered_codes(5, 3)
    assert counts.sum() == counts[codes].sum() == N_DRAWS
    assert stats.chisquare(counts[codes]).pvalue > MIN_P_VALUE


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_choice_of_rows_with_a_core_shape(dtype):
    items = np.arange(12, dtype=dtype).reshape(6, 2)
    x = pt.random.choice(items, size=(2, 2), replace=False, rng=rng())
    sample = draw_once(x)
    assert sample.shape == (2, 2, 2) and sample.dtype == dtype
    rows = sample.reshape(4, 2)
    assert len({tuple(row) for row in rows}) == 4
    assert all(row[1] == row[0] + 1 and row[0] % 2 == 0 for row in rows)


def choice_of(n_items, n_chosen, p=None):
    return lambda r: pt.random.choice(
        n_items,
        size=(n_chosen,),
        replace=False,
        p=None if p is None else np.array(p),
        rng=r,
    )


@pytest.mark.parametrize(
    "make, message",
    [
        (choice_of(3, 4), "Cannot take a larger sample than population"),
        (choice_of(3, 2, [0.5, 0.5, 0.0]), None),
        (choice_of(3, 3, [0.5, 0.5, 0.0]), "Fewer non-zero entries in p than size"),
        (choice_of(2, 1, [1.5, -0.5]), "Probabilities are not non-negative"),
        (choice_of(2, 1, [0.5, 0.6]), "Probabilities do not sum to 1"),
    ],
)
def test_choice_without_replacement_raises_like_numpy(make, message):
    x = make(rng())
    if message is None:
        assert sorted(draw_once(x)) == [0, 1]
        return
    for mode in ("ONNX", Mode(linker="py", optimizer=None)):
        with pytest.raises(ValueError, match=message):
            pytensor.function([], x, mode=mode)()


# PyMC's RandomVariables: name, PyMC distribution, parameters, SciPy's
PYMC_CASES = {
    "TruncatedNormal": (
        "TruncatedNormal",
        dict(mu=1.0, sigma=2.0, lower=0.0, upper=4.0),
        stats.truncnorm(-0.5, 1.5, loc=1, scale=2),
    ),
    "TruncatedNormal tail": (
        "TruncatedNormal",
        dict(mu=0.0, sigma=1.0, lower=5.0, upper=6.0),
        stats.truncnorm(5, 6),
    ),
    "TruncatedNormal one-sided": (
        "TruncatedNormal",
        dict(mu=0.0, sigma=1.0, upper=-3.0),
        stats.truncnorm(-np.inf, -3),
    ),
    "TruncatedNormal far tail": (
        "TruncatedNormal",
        dict(mu=1.0, sigma=2.0, lower=81.0, upper=83.0),
        stats.truncnorm(40, 41, loc=1, scale=2),
    ),
    "SkewNormal": (
        "SkewNormal",
        dict(mu=1.0, sigma=2.0, alpha=-3.0),
        stats.skewnorm(-3, 1, 2),
    ),
    "SkewStudentT": (
        "SkewStudentT",
        dict(a=3.0, b=5.0, mu=0.5, sigma=2.0),
        stats.jf_skew_t(3, 5, 0.5, 2),
    ),
    "Rice": ("Rice", dict(b=1.5, sigma=2.0), stats.rice(1.5, scale=2)),
    "Moyal": ("Moyal", dict(mu=1.0, sigma=2.0), stats.moyal(1, 2)),
    "Wald": ("Wald", dict(mu=2.0, lam=3.0, alpha=1.0), stats.invgauss(2 / 3, 1, 3)),
    "Beta": ("Beta", dict(alpha=2.0, beta=3.0), stats.beta(2, 3)),
    "DiscreteUniform": (
        "DiscreteUniform",
        dict(lower=-3, upper=7),
        stats.randint(-3, 8),
    ),
}


def pymc_draws(make, dtype):
    """Draws of the PyMC distribution ``make(pm)`` built with ``floatX = dtype``."""
    pm = pytest.importorskip("pymc", reason=PYMC_MISSING)
    with pytensor.config.change_flags(floatX=dtype), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        sample = draw_once(make(pm))
    if sample.dtype.kind == "f":
        assert sample.dtype == dtype
    return sample.astype("float64") if sample.dtype.kind == "f" else sample


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(PYMC_CASES))
def test_pymc_goodness_of_fit(name, dtype):
    distribution, params, dist = PYMC_CASES[name]
    sample = pymc_draws(
        lambda pm: getattr(pm, distribution).dist(**params, size=N_DRAWS), dtype
    )
    if sample.dtype.kind == "f":
        assert stats.kstest(sample, dist.cdf).pvalue > MIN_P_VALUE
    else:
        assert quantile_bins_p_value(sample, dist) > MIN_P_VALUE
    assert_moments(sample, dist)


def assert_normal(sample, mean, variance):
    dist = stats.norm(mean, np.sqrt(variance))
    assert stats.kstest(sample, dist.cdf).pvalue > MIN_P_VALUE
    assert_moments(sample, dist)


def numerics_draws(sampler, shape, *params):
    """Draws of ``shape`` of ``sampler(draws, *params)`` (numerics, float64)."""

    def draw(key, draw_shape, *params):
        return sampler(random_numerics.Draws(key, draw_shape), *params)

    arrays = [np.asarray(param, "float64") for param in params]
    return evaluate_numerics(
        draw, np.uint64(11), np.array(shape), *arrays, output_ndim=len(shape)
    )


# PyMC's samplers run through PyMC's RandomVariables (float64 and float32
# draws) and, without PyMC, through their numerics
SOURCES = pytest.mark.parametrize(
    "source, dtype",
    [("numerics", "float64"), ("pymc", "float64"), ("pymc", "float32")],
)


def sample_of(source, dtype, make_pymc, sampler, shape, *params):
    if source == "pymc":
        return pymc_draws(make_pymc, dtype)
    return numerics_draws(sampler, shape, *params)


ROW_COV = np.array([[2.0, 0.5], [0.5, 1.0]])
COLUMN_COV = np.array([[1.0, 0.3, 0.1], [0.3, 2.0, -0.4], [0.1, -0.4, 0.5]])
COMBINATIONS = np.array(
    [[1.0, -2.0, 0.5, 0.0, 1.5, 1.0], [0.0, 1.0, 0.0, -1.0, 0.0, 0.3]]
)


@SOURCES
def test_matrix_normal_linear_combinations_are_normal(source, dtype):
    # vec(X) ~ N(vec(mu), kron(row_cov, column_cov)) in row-major order
    mu = np.arange(6.0).reshape(2, 3)
    sample = sample_of(
        source,
        dtype,
        lambda pm: pm.MatrixNormal.dist(
            mu=mu, rowcov=ROW_COV, colcov=COLUMN_COV, size=N_DRAWS
        ),
        random_multivariate.matrix_normal,
        (N_DRAWS, 2, 3),
        mu,
        np.linalg.cholesky(ROW_COV),
        np.linalg.cholesky(COLUMN_COV),
    )
    assert sample.shape == (N_DRAWS, 2, 3)
    covariance = np.kron(ROW_COV, COLUMN_COV)
    for w in COMBINATIONS:
        assert_normal(
            sample.reshape(N_DRAWS, 6) @ w, w @ mu.ravel(), w @ covariance @ w
        )


@SOURCES
def test_wishart_quadratic_forms_are_chi_square(source, dtype):
    # a^T X a / a^T V a ~ chi-square(nu)
    nu = 5
    sample = sample_of(
        source,
        dtype,
        lambda pm: pm.Wishart.dist(nu=nu, V=COLUMN_COV, size=N_DRAWS),
        random_multivariate.wishart,
        (N_DRAWS, 3, 3),
        nu,
        COLUMN_COV,
    )
    assert sample.shape == (N_DRAWS, 3, 3)
    np.testing.assert_allclose(sample, sample.transpose(0, 2, 1), rtol=1e-5)
    for a in ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, -1.0, 2.0]):
        a = np.array(a)
        ratio = np.einsum("i,nij,j->n", a, sample, a) / (a @ COLUMN_COV @ a)
        dist = stats.chi2(nu)
        assert stats.kstest(ratio, dist.cdf).pvalue > MIN_P_VALUE
        assert_moments(ratio, dist)


def test_wishart_checks_its_degrees_of_freedom_like_scipy():
    pm = pytest.importorskip("pymc", reason=PYMC_MISSING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        x = pm.Wishart.dist(nu=1, V=COLUMN_COV)
    with pytest.raises(ValueError, match="Degrees of freedom must be greater"):
        draw_once(x)


ADJACENCY = np.array(
    [
        [0, 1, 0, 0, 1],
        [1, 0, 1, 0, 0],
        [0, 1, 0, 1, 1],
        [0, 0, 1, 0, 1],
        [1, 0, 1, 1, 0],
    ],
    dtype=float,
)


@SOURCES
def test_car_draws_have_the_precision_of_its_logp(source, dtype):
    # x ~ N(mu, Q^-1), Q = tau (D - alpha W): the density PyMC's logp gives
    # (PyMC 5.28's own rng_fn draws with covariance Q^-2)
    mu, alpha, tau = np.arange(5.0), 0.7, 2.0
    sample = sample_of(
        source,
        dtype,
        lambda pm: pm.CAR.dist(mu=mu, W=ADJACENCY, alpha=alpha, tau=tau, size=N_DRAWS),
        random_multivariate.conditional_autoregression,
        (N_DRAWS, 5),
        mu,
        ADJACENCY,
        alpha,
        tau,
    )
    assert sample.shape == (N_DRAWS, 5)
    precision = tau * (np.diag(ADJACENCY.sum(0)) - alpha * ADJACENCY)
    covariance = np.linalg.inv(precision)
    for w in np.array([[1.0, 0, 0, 0, 0], [0, 0, 0, 1, 0], [1, -1, 0.5, 2, 0]]):
        assert_normal(sample @ w, w @ mu, w @ covariance @ w)


def test_car_checks_its_parameters_like_pymc():
    pm = pytest.importorskip("pymc", reason=PYMC_MISSING)
    x = pm.CAR.dist(mu=np.zeros(5), W=ADJACENCY, alpha=1.0, tau=1.0)
    with pytest.raises(ValueError, match="the domain of alpha is: -1 < alpha < 1"):
        draw_once(x)


@SOURCES
def test_stick_breaking_weights_break_at_betas(source, dtype):
    alpha, k = 2.0, 4
    sample = sample_of(
        source,
        dtype,
        lambda pm: pm.StickBreakingWeights.dist(alpha=alpha, K=k, size=N_DRAWS),
        random_multivariate.stick_breaking_weights,
        (N_DRAWS, k + 1),
        alpha,
    )
    assert sample.shape == (N_DRAWS, k + 1)
    np.testing.assert_allclose(sample.sum(-1), 1.0, rtol=1e-5)
    rest = 1.0 - np.cumsum(sample, axis=-1)
    breaks = sample[:, 1:] / np.concatenate([np.ones((N_DRAWS, 1)), rest], -1)[:, 1:-1]
    for v in (sample[:, 0], breaks[:, 0], breaks[:, 2]):
        assert stats.kstest(v, stats.beta(1, alpha).cdf).pvalue > MIN_P_VALUE


def test_stick_breaking_weights_of_a_symbolic_number_of_sticks():
    pm = pytest.importorskip("pymc", reason=PYMC_MISSING)
    alpha, k = pt.dscalar("alpha"), pt.lscalar("k")
    x = pm.StickBreakingWeights.dist(alpha=alpha, K=k, size=3)
    fn = pytensor.function([alpha, k], x, mode="ONNX")
    for n_sticks in (0, 1, 6):
        weights = fn(2.0, n_sticks)
        assert weights.shape == (3, n_sticks + 1)
        np.testing.assert_allclose(weights.sum(-1), 1.0)
    with pytest.raises(ValueError, match="K needs to be positive"):
        fn(2.0, -1)


def trapezoid_areas(x_points, pdf_points):
    """The cumulative areas under the density through ``(x_points, pdf_points)``."""
    widths = np.diff(x_points)
    segments = (pdf_points[1:] + pdf_points[:-1]) / 2 * widths
    return np.concatenate([[0.0], np.cumsum(segments)])


def piecewise_linear_cdf(x_points, pdf_points):
    """The CDF of the density through ``(x_points, pdf_points)``, normalized."""
    widths = np.diff(x_points)
    slopes = np.diff(pdf_points) / widths
    areas = trapezoid_areas(x_points, pdf_points)

    def cdf(t):
        i = np.clip(np.searchsorted(x_points, t) - 1, 0, len(widths) - 1)
        d = np.clip(t - x_points[i], 0.0, widths[i])
        return (areas[i] + pdf_points[i] * d + slopes[i] * d * d / 2) / areas[-1]

    return cdf


@SOURCES
def test_interpolated_inverts_its_piecewise_linear_cdf(source, dtype):
    x_points = np.array([0.0, 0.5, 1.0, 2.0, 2.5, 4.0, 6.0])
    pdf_points = np.array([0.0, 0.4, 0.4, 0.1, 0.3, 0.05, 0.0])
    areas = trapezoid_areas(x_points, pdf_points)
    sample = sample_of(
        source,
        dtype,
        lambda pm: pm.Interpolated.dist(x_points, pdf_points, size=N_DRAWS),
        random_continuous.interpolated,
        (N_DRAWS,),
        x_points,
        pdf_points / areas[-1],
        areas / areas[-1],
    )
    assert sample.min() >= 0.0 and sample.max() <= 6.0
    cdf = piecewise_linear_cdf(x_points, pdf_points)
    assert stats.kstest(sample, cdf).pvalue > MIN_P_VALUE


@pytest.mark.parametrize(
    "lower, upper",
    [
        (40.0, 41.0),
        (-1e3, -999.0),
        (40.0, np.inf),
        (-np.inf, -50.0),
        (1000.0, 1000.001),
        (-6.0, -5.0),
        (-1.0, 4.0),
    ],
)
def test_truncated_normal_far_tails(lower, upper):
    # Phi underflows from -37.5 on: far tails are inverted from log Phi
    mu, sigma = 3.0, 0.5
    sample = numerics_draws(
        random_continuous.truncated_normal,
        (N_DRAWS,),
        mu,
        sigma,
        lower * sigma + mu,
        upper * sigma + mu,
    )
    dist = stats.truncnorm(lower, upper, loc=mu, scale=sigma)
    assert (sample >= lower * sigma + mu).all() and (sample <= upper * sigma + mu).all()
    assert stats.kstest(sample, dist.cdf).pvalue > MIN_P_VALUE
    assert_moments(sample, dist)


def polya_gamma_moments(h, z):
    """The mean and variance of PG(h, z), their limits at z = 0."""
    z = abs(z)
    if z == 0:
        return h / 4, h / 24
    mean = h / (2 * z) * np.tanh(z / 2)
    variance = (
        h
        / (4 * z**3)
        * (-np.expm1(-2 * z) - 2 * z * np.exp(-z))
        / (0.5 * (1 + np.exp(-z)) ** 2)
    )
    return mean, variance


def polya_gamma_reference(h, z, n_draws, n_terms=2000, seed=5):
    """PG(h, z) as its series ``sum_k g_k / (2 pi**2 ((k - 1/2)**2 + z**2 / (4
    pi**2)))`` of Gamma(h) variates, truncated to ``n_terms`` terms plus the
    mean of the rest."""
    rng = np.random.default_rng(seed)
    weights = 1 / (
        2 * np.pi**2 * ((np.arange(1, n_terms + 1) - 0.5) ** 2 + z**2 / (4 * np.pi**2))
    )
    tail_mean = polya_gamma_moments(h, z)[0] - h * weights.sum()
    sample = np.zeros(n_draws)
    for start in range(0, n_terms, 200):
        gammas = rng.gamma(h, size=(n_draws, 200))
        sample += gammas @ weights[start : start + 200]
    return sample + tail_mean


POLYA_GAMMA_CASES = [(1, 0.0), (1, 1.5), (1, 2.46), (1, -2.5), (3, 0.7), (2, 12.0)]


@pytest.mark.parametrize("h, z", POLYA_GAMMA_CASES)
def test_polya_gamma_matches_its_series_and_moments(h, z):
    sample = numerics_draws(random_continuous.polya_gamma, (N_DRAWS,), h, z)
    reference = polya_gamma_reference(h, z, N_DRAWS)
    assert stats.ks_2samp(sample, reference).pvalue > MIN_P_VALUE
    mean, variance = polya_gamma_moments(h, z)
    assert abs(sample.mean() - mean) < STANDARD_ERRORS * np.sqrt(variance / N_DRAWS)
    # the kurtosis of PG(h, z) is at most that of PG(1, 0), 7
    variance_error = variance * np.sqrt(8 / N_DRAWS)
    assert abs(sample.var() - variance) < STANDARD_ERRORS * variance_error


def test_polya_gamma_broadcasts_h_and_z_per_draw():
    h = np.array([1.0, 4.0, 2.0])
    z = np.array([[0.0], [3.0], [-100.0], [np.inf], [np.nan]])
    sample = numerics_draws(random_continuous.polya_gamma, (4000, 5, 3), h, z)
    assert sample.shape == (4000, 5, 3)
    for i, j in itertools.product(range(3), range(3)):
        mean, variance = polya_gamma_moments(h[j], z[i, 0])
        error = STANDARD_ERRORS * np.sqrt(variance / 4000)
        assert abs(sample[:, i, j].mean() - mean) < error
    np.testing.assert_array_equal(sample[:, 3], 0.0)
    assert np.isnan(sample[:, 4]).all()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pymc_polya_gamma(dtype):
    sample = pymc_draws(
        lambda pm: pm.PolyaGamma.dist(h=2.0, z=-1.5, size=N_DRAWS), dtype
    )
    reference = polya_gamma_reference(2, -1.5, N_DRAWS)
    assert stats.ks_2samp(sample, reference).pvalue > MIN_P_VALUE
    mean, variance = polya_gamma_moments(2, -1.5)
    assert abs(sample.mean() - mean) < STANDARD_ERRORS * np.sqrt(variance / N_DRAWS)


@pytest.mark.parametrize("h", [0.0, 2.5, -1.0, np.nan, 1025.0])
def test_pymc_polya_gamma_needs_an_integer_h(h):
    pm = pytest.importorskip("pymc", reason=PYMC_MISSING)
    h_var = pt.dscalar("h")
    x = pm.PolyaGamma.dist(h=h_var, z=1.0, size=3)
    fn = pytensor.function([h_var], x, mode="ONNX")
    assert fn(2.0).shape == (3,)
    with pytest.raises(ValueError, match="only for integer h from 1 to 1024"):
        fn(h)


def test_polya_gamma_of_unsupported_h_is_nan_without_checks():
    h = np.array([0.0, 2.5, np.nan, 1025.0, 1024.0])
    sample = numerics_draws(random_continuous.polya_gamma, (2, 5), h, 1.0)
    assert np.isnan(sample[:, :4]).all()
    assert (sample[:, 4] > 0).all()
