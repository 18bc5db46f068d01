"""PyMC's forward samplers that draw inside ``Scan`` loops, under mode="ONNX".

``pm.AR``, ``pm.GaussianRandomWalk``, a ``pm.CustomDist`` whose ``dist``
runs a ``pytensor.scan`` with ``collect_default_updates``, and ``pm.Truncated``
of a discrete distribution (a rejection loop: a while ``Scan``) are sampled with
``pm.sample_prior_predictive(compile_kwargs={"mode": "ONNX"})``. The draws
cannot equal those of PyMC's default mode, so these tests check their
distribution (at fixed seeds), that a seed reproduces them, and that the ONNX
mode computed them.
"""

import warnings

import numpy as np
import pytensor.tensor as pt
import pytest
import scipy.stats as stats

import pytensor
from tests.link.onnx.utils import MIN_P_VALUE, PYMC_MISSING


pm = pytest.importorskip("pymc", reason=PYMC_MISSING)
from pymc.pytensorf import collect_default_updates  # noqa: E402


# PyTensor 2.38 deprecates the Scan updates that PyMC's idiom returns
pytestmark = pytest.mark.filterwarnings(
    "ignore:Scan return signature:DeprecationWarning"
)


RHO = 0.7
N_STEPS = 30
N_DRAWS = 2000
STATIONARY_SD = 1 / np.sqrt(1 - RHO**2)


def ar_model():
    with pm.Model() as model:
        pm.AR(
            "x",
            rho=[RHO],
            sigma=1.0,
            init_dist=pm.Normal.dist(0.0, STATIONARY_SD),
            steps=N_STEPS,
        )
    return model


def random_walk_model():
    with pm.Model() as model:
        pm.GaussianRandomWalk(
            "x",
            mu=0.5,
            sigma=2.0,
            init_dist=pm.Normal.dist(0.5, 2.0),
            steps=N_STEPS,
        )
    return model


def custom_ar(initial, rho, n_steps, size):
    def step(previous, rho):
        x = rho * previous + pm.Normal.dist(0.0, 1.0)
        return x, collect_default_updates([x])

    xs, _ = pytensor.scan(
        step, outputs_info=[initial], non_sequences=[rho], n_steps=n_steps, strict=True
    )
    return xs


def custom_dist_model():
    with pm.Model() as model:
        initial = pm.Normal("initial", 0.0, STATIONARY_SD)
        pm.CustomDist(
            "x", initial, pt.constant(RHO), N_STEPS, dist=custom_ar, shape=(N_STEPS,)
        )
    return model


def truncated_poisson_model():
    with pm.Model() as model:
        pm.Truncated("x", pm.Poisson.dist(3.0), lower=1, upper=4, shape=(N_STEPS,))
    return model


def prior(model, seed, mode="ONNX", draws=N_DRAWS):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = pm.sample_prior_predictive(
            draws=draws,
            model=model,
            random_seed=seed,
            compile_kwargs={"mode": mode},
        )
    return idata.prior["x"].values[0]


def assert_stationary_ar(draws):
    """Every step of a stationary AR(1): N(0, STATIONARY_SD), lag-1 correlation RHO."""
    for t in (0, draws.shape[1] // 2, -1):
        p_value = stats.kstest(draws[:, t], stats.norm(0, STATIONARY_SD).cdf).pvalue
        assert p_value > MIN_P_VALUE
    correlation = np.corrcoef(draws[:, -1], draws[:, -2])[0, 1]
    assert abs(correlation - RHO) < 5 * (1 - RHO**2) / np.sqrt(N_DRAWS)


MODELS = {
    "ar": (ar_model, assert_stationary_ar),
    "custom_dist_scan": (custom_dist_model, assert_stationary_ar),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_autoregressions_are_stationary(name):
    build, check = MODELS[name]
    draws = prior(build(), seed=1)
    assert draws.shape == (N_DRAWS, N_STEPS + (name == "ar"))
    check(draws)


def test_random_walk_increments_are_iid_normal():
    draws = prior(random_walk_model(), seed=2)
    increments = np.diff(draws, axis=1, prepend=0.0)
    assert stats.kstest(increments.ravel(), stats.norm(0.5, 2.0).cdf).pvalue > (
        MIN_P_VALUE
    )
    lagged = np.corrcoef(increments[:, 1:-1].ravel(), increments[:, 2:].ravel())
    assert abs(lagged[0, 1]) < 5 / np.sqrt(increments.size)


def test_truncated_poisson_frequencies_and_reproduction():
    model = truncated_poisson_model()
    draws = prior(model, seed=5).ravel()
    again = prior(model, seed=5, draws=100).ravel()
    np.testing.assert_array_equal(again, draws[: again.size])
    assert not np.array_equal(prior(model, seed=6, draws=100).ravel(), again)
    support = np.arange(1, 5)
    expected = stats.poisson(3.0).pmf(support)
    expected *= draws.size / expected.sum()
    observed = (draws[:, None] == support).sum(axis=0)
    assert observed.sum() == draws.size
    assert stats.chisquare(observed, expected).pvalue > MIN_P_VALUE


@pytest.mark.parametrize(
    "build",
    [ar_model, random_walk_model, custom_dist_model],
    ids=lambda f: f.__name__,
)
def test_a_seed_reproduces_the_draws_which_are_the_onnx_modes(build):
    model = build()
    first = prior(model, seed=3, draws=20)
    np.testing.assert_array_equal(prior(model, seed=3, draws=20), first)
    assert not np.isin(prior(model, seed=4, draws=20), first).any()
    # the ONNX draws are not those of PyMC's default mode for the same seed
    default_mode = prior(model, seed=3, mode="FAST_COMPILE", draws=20)
    assert not np.isin(default_mode, first).any()
