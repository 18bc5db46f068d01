"""``pytensor.link.onnx.pymc.sample`` draws the posteriors PyMC's NUTS draws.

For each model of ``pymc_models.py``, our sampler (a fixed seed, 4 chains of
500 warm-up iterations and 500 draws) is compared with the reference
posterior of ``pm.sample`` (default backend, 4 x 2,000 draws), stored by
``scripts/make_pymc_references.py`` in ``fixtures/pymc_reference_posteriors.json``:

- **means and standard deviations** of every scalar of the posterior agree
  within Monte Carlo error: ``|ours - reference| <= z * sqrt(mcse_ours**2 +
  mcse_reference**2)``, with ArviZ's MCSEs and ``z`` the Bonferroni bound for
  a family-wise false-alarm rate of 1e-3 over all the comparisons of all the
  models (about 4.6 standard errors);
- **efficiency**: per model, the median over its scalars of the bulk ESS per
  gradient evaluation (leapfrog steps of the kept draws) is at least 0.8x the
  reference's;
- on the **funnel** (centred eight schools), our sampler reports divergences,
  as PyMC's does, and marks the draws where they happen: at the neck of the
  funnel, where ``tau`` is small.

PyMC 5.28.5 pins PyTensor 2.38, so these tests run in .venv-2.38.3. By
default they compare a fixed share of the models (`DEFAULT_MODELS`, about a
minute and a half on two cores); the others are marked ``sampling_full``::

    PYTENSOR_VERSION=2.38.3 bash scripts/run_tests.sh --no-lint \
        tests/link/onnx/test_pymc_sampling_agreement.py -m "slow or sampling_full"
"""

import json
from pathlib import Path

import numpy as np
import pytest


pm = pytest.importorskip(
    "pymc",
    reason="needs PyMC: PYTENSOR_VERSION=2.38.3 bash scripts/run_tests.sh "
    "tests/link/onnx/test_pymc_sampling_agreement.py",
)
az = pytest.importorskip("arviz")
pytest.importorskip(
    "pytensor.link.onnx.sampling", reason="the in-graph NUTS sampler is missing"
)
from scipy.stats import norm  # noqa: E402

from pytensor.link.onnx.pymc import sample  # noqa: E402
from tests.link.onnx.pymc_models import FUNNEL_MODELS, MODELS  # noqa: E402


pytestmark = pytest.mark.slow
FULL_RUN_ONLY = pytest.mark.sampling_full

FIXTURE = Path(__file__).parent / "fixtures" / "pymc_reference_posteriors.json"
REFERENCES = json.loads(FIXTURE.read_text())["models"]
SEED = 20261207
CHAINS, TUNE, DRAWS = 4, 500, 500
FAMILY_WISE_FALSE_ALARM_RATE = 1e-3
MIN_ESS_PER_GRADIENT_RATIO = 0.8
COMPARED = sorted(set(MODELS) - FUNNEL_MODELS)
# A hierarchical model, a GLM and a mixture (with the funnel's divergence test:
# four samplers); they fail for a sampler that mishandles the momentum, the
# Jacobian of a transform, the step size or multinomial sampling as the
# others do, and each compiles fast.
DEFAULT_MODELS = {"eight_schools_non_centred", "logistic_regression", "normal_mixture"}
COMPARISONS = 2 * sum(len(REFERENCES[name]["scalars"]) for name in COMPARED)
Z = norm.isf(FAMILY_WISE_FALSE_ALARM_RATE / (2 * COMPARISONS))


def test_every_model_has_a_reference():
    assert set(REFERENCES) == set(MODELS)


def ours(name):
    idata = sample(
        model=MODELS[name](),
        draws=DRAWS,
        tune=TUNE,
        chains=CHAINS,
        random_seed=SEED,
        progressbar=False,
    )
    return idata, az.summary(idata, round_to="none")


def disagreements(summary, reference):
    """The scalars whose mean or sd differ by more than Z Monte Carlo errors."""
    found = []
    for scalar, expected in reference["scalars"].items():
        row = summary.loc[scalar]
        for statistic in ("mean", "sd"):
            error = np.hypot(row[f"mcse_{statistic}"], expected[f"mcse_{statistic}"])
            difference = row[statistic] - expected[statistic]
            if not abs(difference) <= Z * error:
                found.append(
                    f"{scalar} {statistic}: ours {row[statistic]:.4g}, "
                    f"PyMC {expected[statistic]:.4g}, {difference / error:+.1f} "
                    f"standard errors (limit {Z:.1f})"
                )
    return found


@pytest.mark.parametrize(
    "name",
    [
        name if name in DEFAULT_MODELS else pytest.param(name, marks=FULL_RUN_ONLY)
        for name in COMPARED
    ],
)
def test_posterior_and_efficiency_agree_with_pymc_nuts(name):
    reference = REFERENCES[name]
    idata, summary = ours(name)

    assert set(summary.index) == set(reference["scalars"])
    assert not disagreements(summary, reference)
    gradients = int(idata.sample_stats["n_steps"].sum())
    ratios = [
        summary.loc[scalar, "ess_bulk"] / gradients / expected["ess_bulk_per_gradient"]
        for scalar, expected in reference["scalars"].items()
    ]
    assert np.median(ratios) >= MIN_ESS_PER_GRADIENT_RATIO, sorted(ratios)


def test_divergences_on_the_funnel_are_reported_where_they_happen():
    reference = REFERENCES["eight_schools_centred"]
    idata, _ = ours("eight_schools_centred")
    diverging = idata.sample_stats["diverging"].values
    log_tau = np.log(idata.posterior["tau"].values)

    assert reference["divergences"] > 0
    assert diverging.sum() > 0
    assert np.median(log_tau[diverging]) < np.median(log_tau)
