"""PyMC's prior and posterior predictive sampling under mode="ONNX".

Each model draws with one distribution family; its samples under mode="ONNX"
must have the means and variances of the default mode's within Monte Carlo
error (6 standard errors of the difference, estimated from the samples:
with fixed seeds the comparison is deterministic). PyMC 5.28.5 pins PyTensor
2.38, so these tests run in .venv-2.38.3 (the ``pymc`` extra).
"""

import numpy as np
import pytest

from tests.link.onnx.utils import PYMC_MISSING


pm = pytest.importorskip("pymc", reason=PYMC_MISSING)
az = pytest.importorskip("arviz", reason=PYMC_MISSING)

import pytensor.link.onnx  # noqa: E402, F401  (registers mode="ONNX")


pytestmark = pytest.mark.slow


DRAWS = 400
SEED = 20261124
STANDARD_ERRORS = 6
ONNX = {"mode": "ONNX"}
COV = np.array([[1.0, 0.5], [0.5, 2.0]])
PROBABILITIES = np.array([0.2, 0.3, 0.5])


def normal():
    mu = pm.Normal("mu", 1.0, 2.0)
    pm.Normal("y", mu, 1.5, observed=np.zeros(4))


def half_normal():
    sigma = pm.HalfNormal("sigma", 2.0)
    pm.HalfNormal("y", sigma, observed=np.ones(4))


def gamma():
    alpha = pm.Gamma("alpha", 2.0, 1.0)
    pm.Gamma("y", alpha=alpha + 0.5, beta=2.0, observed=np.ones(4))


def beta():
    a = pm.HalfNormal("a", 2.0)
    pm.Beta("y", a + 0.2, 2.0, observed=np.full(4, 0.5))


def poisson():
    rate = pm.Gamma("rate", 3.0, 1.0)
    pm.Poisson("y", rate, observed=np.ones(4, dtype="int64"))


def negative_binomial():
    mu = pm.Gamma("mu", 3.0, 1.0)
    pm.NegativeBinomial("y", mu=mu, alpha=2.0, observed=np.ones(4, dtype="int64"))


def student_t():
    mu = pm.Normal("mu", 0.0, 1.0)
    pm.StudentT("y", nu=5.0, mu=mu, sigma=2.0, observed=np.zeros(4))


def dirichlet():
    concentration = pm.Gamma("concentration", 2.0, 1.0)
    pm.Dirichlet(
        "y", concentration * np.array([1.0, 2.0, 3.0]), observed=[PROBABILITIES]
    )


def multinomial():
    p = pm.Dirichlet("p", np.ones(3))
    pm.Multinomial("y", 10, p, observed=[[2, 3, 5], [4, 4, 2]])


def categorical():
    p = pm.Dirichlet("p", np.ones(3))
    pm.Categorical("y", p, observed=np.array([0, 1, 2, 2]))


def binomial():
    p = pm.Beta("p", 2.0, 2.0)
    pm.Binomial("y", 10, p, observed=np.array([3, 5, 7, 2]))


def truncated_normal():
    mu = pm.Normal("mu", 0.0, 1.0)
    pm.TruncatedNormal("y", mu, 1.0, lower=-1.0, upper=2.0, observed=np.zeros(4))


def truncated_gamma():
    alpha = pm.Gamma("alpha", 3.0, 1.0)
    pm.Truncated("y", pm.Gamma.dist(alpha, 1.0), upper=3.0, observed=np.ones(4))


def truncated_poisson():
    rate = pm.Gamma("rate", 3.0, 1.0)
    pm.Truncated("y", pm.Poisson.dist(rate), lower=1, upper=6, observed=np.ones(4))


def censored():
    mu = pm.Normal("mu", 0.0, 1.0)
    pm.Censored(
        "y", pm.Normal.dist(mu, 1.0), lower=-1.0, upper=1.0, observed=np.zeros(4)
    )


def normal_mixture():
    w = pm.Dirichlet("w", np.ones(2))
    pm.NormalMixture("y", w=w, mu=[-2.0, 2.0], sigma=[1.0, 0.5], observed=np.zeros(4))


def zero_inflated_poisson():
    psi = pm.Beta("psi", 3.0, 2.0)
    pm.ZeroInflatedPoisson("y", psi=psi, mu=3.0, observed=np.ones(4, dtype="int64"))


def mv_normal():
    mu = pm.Normal("mu", 0.0, 1.0, shape=2)
    pm.MvNormal("y", mu, COV, observed=np.zeros((3, 2)))


def lkj_cholesky():
    chol, _, _ = pm.LKJCholeskyCov(
        "chol", n=2, eta=2.0, sd_dist=pm.Exponential.dist(1.0), compute_corr=True
    )
    pm.MvNormal("y", np.zeros(2), chol=chol, observed=np.zeros((3, 2)))


def autoregressive():
    rho = pm.Normal("rho", 0.0, 0.3)
    pm.AR("y", rho=[rho], sigma=1.0, init_dist=pm.Normal.dist(), observed=np.zeros(5))


MODELS = [
    normal,
    half_normal,
    gamma,
    beta,
    poisson,
    negative_binomial,
    student_t,
    dirichlet,
    multinomial,
    categorical,
    binomial,
    truncated_normal,
    truncated_gamma,
    truncated_poisson,
    censored,
    normal_mixture,
    zero_inflated_poisson,
    mv_normal,
    lkj_cholesky,
    autoregressive,
]


def build(define) -> "pm.Model":
    with pm.Model() as model:
        define()
    return model


def moments(samples):
    """Mean and variance along the first axis, each with its standard error."""
    samples = np.asarray(samples, dtype="float64")
    root_n = np.sqrt(len(samples))
    squared_deviations = (samples - samples.mean(0)) ** 2
    return (
        (samples.mean(0), samples.std(0) / root_n),
        (squared_deviations.mean(0), squared_deviations.std(0) / root_n),
    )


def assert_same_distribution(onnx_samples, default_samples):
    """Equal means and variances, element by element, within `STANDARD_ERRORS`
    standard errors of their difference (``(draws, ...)`` arrays)."""
    assert onnx_samples.shape == default_samples.shape
    assert onnx_samples.dtype.kind == default_samples.dtype.kind
    assert not np.array_equal(onnx_samples, default_samples), (
        "mode='ONNX' drew NumPy's numbers: was it used?"
    )
    for (onnx, onnx_error), (default, default_error) in zip(
        moments(onnx_samples), moments(default_samples), strict=True
    ):
        # + 1e-12: elements that never vary must be equal
        bound = STANDARD_ERRORS * np.hypot(onnx_error, default_error) + 1e-12
        np.testing.assert_array_less(np.abs(onnx - default), bound)


def samples_of(group, name) -> np.ndarray:
    """The samples of ``name``, draws first (chains merged)."""
    values = group[name].values
    return values.reshape(-1, *values.shape[2:])


@pytest.mark.parametrize("define", MODELS)
def test_prior_predictive_matches_the_default_mode(define):
    model = build(define)
    with model:
        onnx = pm.sample_prior_predictive(DRAWS, random_seed=SEED, compile_kwargs=ONNX)
        default = pm.sample_prior_predictive(DRAWS, random_seed=SEED)

    for group in ("prior", "prior_predictive"):
        assert set(onnx[group].data_vars) == set(default[group].data_vars)
        for name in onnx[group].data_vars:
            assert_same_distribution(
                samples_of(onnx[group], name), samples_of(default[group], name)
            )


@pytest.mark.parametrize("define", MODELS)
def test_posterior_predictive_matches_the_default_mode(define):
    model = build(define)
    with model:
        prior = pm.sample_prior_predictive(DRAWS, random_seed=SEED).prior
    free = [rv.name for rv in model.free_RVs]
    posterior = az.from_dict(posterior={name: prior[name].values for name in free})

    with model:
        onnx = pm.sample_posterior_predictive(
            posterior, random_seed=SEED, compile_kwargs=ONNX, progressbar=False
        )
        default = pm.sample_posterior_predictive(
            posterior, random_seed=SEED, progressbar=False
        )

    assert_same_distribution(
        samples_of(onnx.posterior_predictive, "y"),
        samples_of(default.posterior_predictive, "y"),
    )
