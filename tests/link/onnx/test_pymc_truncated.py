"""PyMC's ``Truncated`` under mode="ONNX", by each of its samplers.

A base distribution with neither a truncated sampler nor an inverse CDF is
drawn by rejection: a while-loop ``Scan`` that redraws the base
``RandomVariable`` until every draw is within the bounds or ``max_n_steps``
is reached. PyMC's own tests do this with subclasses of PyTensor's
``RandomVariable`` classes, which sample as their base classes.
"""

import numpy as np
import pytest
import scipy.stats as stats
from pytensor.tensor.random.basic import GeometricRV, NormalRV

from tests.link.onnx.utils import MIN_P_VALUE


pm = pytest.importorskip("pymc")
from pymc.distributions.truncated import _truncated  # noqa: E402
from pymc.exceptions import TruncationError  # noqa: E402
from pymc.logprob.abstract import _icdf  # noqa: E402


class RejectionNormalRV(NormalRV):
    """A normal without truncated sampler or inverse CDF."""


class RejectionGeometricRV(GeometricRV):
    """A geometric without truncated sampler or inverse CDF."""


@_truncated.register(RejectionNormalRV)
@_truncated.register(RejectionGeometricRV)
@_icdf.register(RejectionNormalRV)
@_icdf.register(RejectionGeometricRV)
def not_implemented(*args, **kwargs):
    raise NotImplementedError()


@pytest.mark.parametrize("lower, upper", [(-1.0, np.inf), (-1.0, 1.5)])
def test_rejection_sampled_normal(lower, upper):
    x = RejectionNormalRV()(0.15, 10.0, size=2000)
    draws = pm.draw(pm.Truncated.dist(x, lower, upper), mode="ONNX", random_seed=1)
    assert np.all((draws >= lower) & (draws <= upper))
    truncated = stats.truncnorm((lower - 0.15) / 10, (upper - 0.15) / 10, 0.15, 10)
    assert stats.kstest(draws, truncated.cdf).pvalue > MIN_P_VALUE


@pytest.mark.parametrize("lower, upper", [(2, np.inf), (-np.inf, 5)])
def test_rejection_sampled_geometric(lower, upper):
    x = RejectionGeometricRV()(0.2, size=5000)
    draws = pm.draw(pm.Truncated.dist(x, lower, upper), mode="ONNX", random_seed=1)
    support = np.arange(max(1, lower), min(upper, 60) + 1)
    probabilities = stats.geom(0.2).pmf(support)
    expected = probabilities / probabilities.sum() * draws.size
    observed = (draws[:, None] == support).sum(0)
    assert observed.sum() == draws.size
    kept = expected > 5
    if not kept.all():
        observed = [*observed[kept], observed[~kept].sum()]
        expected = [*expected[kept], expected[~kept].sum()]
    assert stats.chisquare(observed, expected).pvalue > MIN_P_VALUE


def test_rejection_that_does_not_converge_raises_truncation_error():
    x = RejectionNormalRV()(0.0, 1.0, size=100)
    truncated = pm.Truncated.dist(x, lower=3.0, max_n_steps=2)
    with pytest.raises(TruncationError, match=r"^Truncation did not converge in 2"):
        pm.draw(truncated, mode="ONNX", random_seed=1)


@pytest.mark.parametrize(
    "dist",
    [
        lambda: pm.Gamma.dist(2, 1),
        lambda: pm.Poisson.dist(3),
    ],
    ids=["gamma", "poisson"],
)
def test_truncated_distributions_draw_within_their_bounds(dist):
    draws = pm.draw(
        pm.Truncated.dist(dist(), lower=1, upper=4, size=1000),
        mode="ONNX",
        random_seed=2,
    )
    assert np.all((draws >= 1) & (draws <= 4)) and np.unique(draws).size > 1
