"""The NUTS sampler judged as a sampler: exact moments, calibration, diagnostics.

Every run has a fixed seed, so each test gives the same answer on every run;
the z-thresholds are wide enough that a correct sampler fails them with
probability well below 1e-4 (a wrong one, e.g. a sampler that drops the
momentum flip or the Jacobian, fails them by tens of standard errors).
"""

import numpy as np
import pytensor.tensor as pt
import pytest
from scipy import stats

from pytensor.link.onnx.sampling import sample_nuts
from tests.link.onnx.sampling.diagnostics import (
    effective_sample_size,
    split_chains,
    z_score,
)


Z_MAX = 4.5
SCALES = np.array([0.1, 1.0, 10.0])
CORRELATED_SDS = np.array([1.0, 2.0])
CORRELATION = 0.9
BANANA_CURVATURE = 0.5


def correlated_covariance():
    sds = CORRELATED_SDS
    return np.array(
        [
            [sds[0] ** 2, CORRELATION * sds[0] * sds[1]],
            [CORRELATION * sds[0] * sds[1], sds[1] ** 2],
        ]
    )


def product_target():
    """Three independent blocks in one density: scaled iid normals, a correlated
    Gaussian, a banana (``x2 | x1 ~ N(b (x1**2 - 1), 1)``)."""
    iid = pt.vector("iid", shape=(3,))
    correlated = pt.vector("correlated", shape=(2,))
    banana = pt.vector("banana", shape=(2,))
    precision = np.linalg.inv(correlated_covariance())
    logp = (
        -0.5 * ((iid / SCALES) ** 2).sum()
        - 0.5 * pt.dot(correlated, pt.dot(precision, correlated))
        - 0.5 * banana[0] ** 2
        - 0.5 * (banana[1] - BANANA_CURVATURE * (banana[0] ** 2 - 1)) ** 2
    )
    return logp, [iid, correlated, banana]


EXACT_MEANS = np.zeros(7)
EXACT_VARIANCES = np.concatenate(
    [SCALES**2, CORRELATED_SDS**2, [1.0, 1.0 + 2 * BANANA_CURVATURE**2]]
)


@pytest.fixture(scope="module")
def product_run():
    logp, values = product_target()
    rng = np.random.default_rng(0)
    initial = [rng.uniform(-1, 1, size=(4, *v.type.shape)) for v in values]
    return sample_nuts(logp, values, initial, draws=600, tune=400, random_seed=11)


def flat_draws(result):
    n_chains, n_draws = result.stats["lp"].shape
    return np.concatenate(
        [d.reshape(n_chains, n_draws, -1) for d in result.draws], axis=-1
    )


def test_means_and_variances_match_the_exact_values(product_run):
    draws = flat_draws(product_run)
    mean_z = [z_score(draws[..., i], EXACT_MEANS[i]) for i in range(7)]
    squared = (draws - EXACT_MEANS) ** 2
    variance_z = [z_score(squared[..., i], EXACT_VARIANCES[i]) for i in range(7)]
    assert np.abs(mean_z).max() < Z_MAX, mean_z
    assert np.abs(variance_z).max() < Z_MAX, variance_z


def test_adapted_inverse_mass_matrix_follows_the_variances(product_run):
    ratio = product_run.inverse_mass_matrix / EXACT_VARIANCES
    assert np.all((ratio > 0.5) & (ratio < 2.0)), ratio


def test_step_size_adapts_to_the_target_acceptance_rate(product_run):
    acceptance = product_run.stats["acceptance_rate"].mean()
    assert 0.7 < acceptance < 0.93
    step_sizes = product_run.stats["step_size"]
    np.testing.assert_allclose(
        step_sizes, np.broadcast_to(product_run.step_size[:, None], step_sizes.shape)
    )


def test_tree_depth_and_leapfrog_steps_agree(product_run):
    depth = product_run.stats["tree_depth"]
    steps = product_run.stats["n_steps"]
    assert np.all((depth >= 1) & (depth <= 10))
    assert np.all((steps >= 2 ** (depth - 1)) & (steps <= 2**depth - 1))
    assert not product_run.stats["diverging"].any()


def centred_eight_schools():
    y = np.array([28, 8, -3, 7, -1, 1, 18, 12.0])
    sigma = np.array([15, 10, 16, 11, 9, 11, 10, 18.0])
    mu = pt.scalar("mu")
    log_tau = pt.scalar("log_tau")
    theta = pt.vector("theta", shape=(8,))
    tau = pt.exp(log_tau)
    logp = (
        -0.5 * (mu / 5) ** 2
        - pt.log1p((tau / 5) ** 2)
        + log_tau
        - 8 * log_tau
        - 0.5 * (((theta - mu) / tau) ** 2).sum()
        - 0.5 * (((y - theta) / sigma) ** 2).sum()
    )
    return logp, [mu, log_tau, theta]


def test_divergences_are_reported_on_a_funnel():
    logp, values = centred_eight_schools()
    rng = np.random.default_rng(2)
    initial = [rng.uniform(-1, 1, size=(2, *v.type.shape)) for v in values]
    result = sample_nuts(logp, values, initial, draws=150, tune=150, random_seed=3)
    diverging = result.stats["diverging"]
    assert diverging.sum() > 0
    assert np.all(result.stats["max_energy_error"][diverging] >= 1000)
    assert np.all(np.isfinite(flat_draws(result)))


def test_simulation_based_calibration_of_a_normal_mean():
    """SBC (Talts et al. 2018) of ``mu ~ N(0, 1)``, ``y_i ~ N(mu, 1)``, 5 observations.

    The 200 replications are independent blocks of one density, sampled at
    once; each true ``mu`` is ranked among 19 thinned posterior draws of its
    block, and the ranks must be uniform.
    """
    n_replications, n_obs, n_ranked = 200, 5, 19
    rng = np.random.default_rng(42)
    true_mu = rng.normal(size=n_replications)
    y = true_mu[:, None] + rng.normal(size=(n_replications, n_obs))
    mu = pt.vector("mu", shape=(n_replications,))
    logp = -0.5 * (mu**2).sum() - 0.5 * ((y - mu[:, None]) ** 2).sum()
    result = sample_nuts(
        logp, [mu], [np.zeros((2, n_replications))], draws=380, tune=300, random_seed=5
    )
    posterior = result.draws[0]
    ess = min(effective_sample_size(split_chains(posterior[..., i])) for i in range(5))
    assert ess > 380
    thinned = posterior[:, ::40].reshape(-1, n_replications)[:n_ranked]
    ranks = (thinned < true_mu).sum(axis=0)
    counts = np.bincount(ranks // 4, minlength=5)
    assert stats.chisquare(counts).pvalue > 1e-3, counts
