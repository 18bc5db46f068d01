"""Samplers of the ``RandomVariable`` classes PyMC defines.

Registered in `pytensor.link.onnx.dispatch.random.onnx_sample` like
PyTensor's own; the algorithms are in ``numerics/random_*.py``.
"""

import numpy as np
from pymc.distributions.continuous import (
    BetaClippedRV,
    FlatRV,
    HalfFlatRV,
    InterpolatedRV,
    MoyalRV,
    PolyaGammaRV,
    RiceRV,
    SkewNormalRV,
    SkewStudentTRV,
    TruncatedNormalRV,
    WaldRV,
)
from pymc.distributions.custom import CustomDistRV
from pymc.distributions.discrete import DiscreteUniformRV
from pymc.distributions.multivariate import (
    CARRV,
    ICARRV,
    MatrixNormalRV,
    StickBreakingWeightsRV,
    WishartRV,
)
from pymc.distributions.simulator import SimulatorRV

from pytensor.link.onnx.dispatch.random import (
    onnx_core_shape,
    onnx_sample,
    param_values,
    register_sampler,
    register_unsupported,
)
from pytensor.link.onnx.numerics import (
    random,
    random_continuous,
    random_gamma,
    random_multivariate,
    random_order,
)
from pytensor.link.onnx.value import Value, where


def wald(draws, mu, lam, alpha):
    return random.wald(draws, mu, lam) + alpha


def conditional_autoregression(draws, mu, w, alpha, tau, w_is_valid):
    return random_multivariate.conditional_autoregression(draws, mu, w, alpha, tau)


def stick_breaking_weights(draws, alpha, k):
    return random_multivariate.stick_breaking_weights(draws, alpha)


for rv_class, sampler in {
    TruncatedNormalRV: random_continuous.truncated_normal,
    SkewNormalRV: random_continuous.skew_normal,
    SkewStudentTRV: random_gamma.skew_student_t,
    RiceRV: random_continuous.rice,
    MoyalRV: random_continuous.moyal,
    WaldRV: wald,
    InterpolatedRV: random_continuous.interpolated,
    MatrixNormalRV: random_multivariate.matrix_normal,
}.items():
    register_sampler(rv_class, sampler)

# The errors of PyMC's rng_fn (or SciPy's)
register_sampler(
    WishartRV,
    random_multivariate.wishart,
    [
        (
            lambda nu, v: nu > v.shape(-1).cast("float64") - 1.0,
            "Degrees of freedom must be greater than the dimension of scale "
            "matrix minus 1.",
        )
    ],
)
register_sampler(
    CARRV,
    conditional_autoregression,
    [
        (lambda *params: params[-1] > 0.0, "W must be a valid adjacency matrix"),
        (
            lambda mu, w, alpha, tau, valid: (alpha < 1.0) & (alpha > -1.0),
            "the domain of alpha is: -1 < alpha < 1",
        ),
    ],
)
register_sampler(
    StickBreakingWeightsRV,
    stick_breaking_weights,
    [(lambda alpha, k: k >= 0.0, "K needs to be positive.")],
)
register_sampler(
    PolyaGammaRV,
    random_continuous.polya_gamma,
    [
        (
            lambda h, z: random_continuous.polya_gamma_draws(h),
            "the ONNX backend draws PolyaGamma(h, z) only for integer h from 1 to "
            f"{random_continuous.MAX_POLYA_GAMMA_SHAPE} (sums of h PG(1, z) "
            "draws); PyMC's polyagamma package also draws non-integer h",
        )
    ],
)

IMPROPER = "an improper distribution: PyMC cannot draw from it either"
PYTHON_FUNCTION = "it draws with a user's Python function, which ONNX cannot run"
for rv_class, reason in {
    FlatRV: IMPROPER,
    HalfFlatRV: IMPROPER,
    CustomDistRV: PYTHON_FUNCTION,
    SimulatorRV: PYTHON_FUNCTION,
    ICARRV: "an improper distribution (its precision matrix is singular): "
    "PyMC cannot draw from it either",
}.items():
    register_unsupported(rv_class, reason)


@onnx_sample.register(DiscreteUniformRV)
def sample_discrete_uniform(op, node, builder, draws, params) -> Value:
    low, high = param_values(builder, node, params, "int64")
    builder.require(low <= high, ValueError, "low > high")
    return random.integers(draws, low.cast("uint64"), (high + 1).cast("uint64"))


@onnx_sample.register(BetaClippedRV)
def sample_clipped_beta(op, node, builder, draws, params) -> Value:
    # PyMC clips its beta draws to [eps, 1 - eps] of their dtype
    eps = float(np.finfo(node.outputs[1].type.dtype).eps)
    x = random_gamma.beta(draws, *param_values(builder, node, params, "float64"))
    return where(x < eps, eps, where(x > 1.0 - eps, 1.0 - eps, x))


@onnx_core_shape.register(StickBreakingWeightsRV)
def stick_breaking_core_shape(op, node, values) -> Value:
    return random_order.number_of_items(values[1], 0) + 1
