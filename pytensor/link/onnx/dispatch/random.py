"""Converters for ``RandomVariable``: draws computed from a key, SplitMix64 style.

ONNX's ``RandomNormal`` and ``RandomUniform`` take their seed as an attribute
fixed when the model is built, so they cannot follow a generator's state.
Instead, mode="ONNX" feeds each random generator to the model as a uint64
*key* (see `pytensor.link.onnx.generator_keys`), and each ``RandomVariable``
computes its draws from its key alone with the counter-based generator of
`pytensor.link.onnx.numerics.random`; the key of the next generator (the
Op's first output) is the mixed key.

Draws are thus a function of the generator state, as in PyTensor: two
``RandomVariable`` nodes given the same generator use the same bits, and a
chain ``rng -> next_rng -> ...`` gives each node its own key.

Limits: normal draws stay within 8.6 standard deviations (``u >= 2**-53``),
exponential-type tails within 37 scales; ``integers`` is uniform up to a
relative bias below ``width / 2**64`` (no rejection step); a non-positive
definite covariance gives NaN draws where NumPy raises. Distributions whose
samplers need rejection (gamma, beta, poisson, binomial, dirichlet...) raise
``NotImplementedError``, as do generators inside inner graphs (``Scan``).
"""

from collections.abc import Callable

import numpy as np
import pytensor.tensor.random.basic as ptr
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.random.utils import custom_rng_deepcopy
from pytensor.tensor.type_other import NoneTypeT

from pytensor.link.onnx.dispatch.basic import (
    RANDOM_KEY_DTYPE,
    onnx_funcify,
    onnx_typify,
)
from pytensor.link.onnx.dispatch.special import expm1, log1p
from pytensor.link.onnx.numerics import random
from pytensor.link.onnx.numerics.linalg.decomposition.cholesky import (
    cholesky_of_triangle,
)
from pytensor.link.onnx.numerics.linalg.decomposition.eigen import jacobi_eigen
from pytensor.link.onnx.numerics.random import Draws, draw_key, mix
from pytensor.link.onnx.value import Value, concat, where


@onnx_typify.register(np.random.Generator)
def onnx_typify_Generator(rng, dtype=None, **kwargs):
    """The key of a generator: its next 64 random bits (``rng`` is unchanged)."""
    return np.asarray(draw_key(custom_rng_deepcopy(rng)), dtype=RANDOM_KEY_DTYPE)


def geometric(draws, p):
    # P(X > k) = (1 - p) ** k; p = 1 gives -0 trials before the floor at 1
    trials = (draws.open_uniform().log() / log1p(-p)).ceil()
    return where(trials < 1.0, 1.0, trials)


def truncated_exponential(draws, b, loc, scale):
    return loc - scale * log1p(draws.uniform() * expm1(-b))


SAMPLERS: dict[type, Callable[..., Value]] = {
    ptr.UniformRV: random.uniform,
    ptr.NormalRV: random.normal,
    ptr.HalfNormalRV: random.half_normal,
    ptr.LogNormalRV: random.lognormal,
    ptr.ExponentialRV: random.exponential,
    ptr.LaplaceRV: random.laplace,
    ptr.LogisticRV: random.logistic,
    ptr.GumbelRV: random.gumbel,
    ptr.CauchyRV: random.cauchy,
    ptr.HalfCauchyRV: random.half_cauchy,
    ptr.ParetoRV: random.pareto,
    ptr.WeibullRV: random.weibull,
    ptr.TriangularRV: random.triangular,
    ptr.TruncExponentialRV: truncated_exponential,
    ptr.WaldRV: random.wald,
    ptr.BernoulliRV: random.bernoulli,
    ptr.GeometricRV: geometric,
}


def param_values(builder, node, params, dtype=None):
    """The distribution parameters of ``node`` as values, cast to ``dtype`` if given."""
    return [
        builder.value(name, var.type.dtype).cast(dtype or var.type.dtype)
        for name, var in zip(params, node.op.dist_params(node), strict=True)
    ]


def sample_transformed(op, node, builder, draws, params) -> Value:
    return SAMPLERS[type(op)](draws, *param_values(builder, node, params, "float64"))


# Distributions computed on integers or on whole parameter vectors


def sample_integers(op, node, builder, draws, params) -> Value:
    low, high = param_values(builder, node, params)
    if builder.keep_checks:
        dtype = np.result_type(low.dtype, high.dtype).name
        builder.require(low.cast(dtype) < high.cast(dtype), ValueError, "low >= high")
    return random.integers(draws, low.cast("uint64"), high.cast("uint64"))


def sample_categorical(op, node, builder, draws, params) -> Value:
    return random.categorical(draws, *param_values(builder, node, params))


def sample_multivariate_normal(op, node, builder, draws, params) -> Value:
    # mean + A z with A A^T = cov: A is the Cholesky factor, or for "svd" and
    # "eigh" the eigenvectors scaled by the root of the eigenvalues (the
    # factorizations agree on the symmetric positive semi-definite cov).
    mean, cov = param_values(builder, node, params, "float64")
    batch = cov.shape(0, -2)
    n_matrices = batch.prod([0])
    stack = cov.reshape(concat([n_matrices, cov.shape(-2)], axis=0))
    if op.method == "cholesky":
        factor = cholesky_of_triangle(stack, lower=True)
    else:
        eigenvalues, eigenvectors = jacobi_eigen(stack)
        factor = eigenvectors * eigenvalues.sqrt()
    factor = factor.reshape(cov.shape())
    z = draws.standard_normal().unsqueeze([-1])
    return mean + (factor @ z).squeeze([-1])


NON_TRANSFORM_SAMPLERS = {
    ptr.IntegersRV: sample_integers,
    ptr.CategoricalRV: sample_categorical,
    ptr.MvNormalRV: sample_multivariate_normal,
}


# The converter


def params_batch_shape(builder, op, node, params) -> Value:
    """The int64 shape the batch dimensions of the parameters broadcast to."""
    n_batch = op.batch_ndim(node)
    shape = builder.value(builder.constant(np.ones(n_batch, "int64")), "int64")
    for value, var, n_core in zip(
        param_values(builder, node, params),
        op.dist_params(node),
        op.ndims_params,
        strict=True,
    ):
        n_param_batch = var.type.ndim - n_core
        if all(var.type.broadcastable[:n_param_batch]):
            continue
        own = value.shape(0, n_param_batch)
        if n_param_batch < n_batch:
            own = concat([own.indices(np.ones(n_batch - n_param_batch)), own], axis=0)
        shape = where(shape.eq(shape.indices([1])), own, shape)
    return shape


def draw_shape(builder, op, node, inputs) -> Value:
    """The int64 shape of the draws of the ``RandomVariable`` ``node``."""
    static_shape = node.outputs[1].type.shape
    if None not in static_shape:
        return builder.value(builder.constant(np.array(static_shape, "int64")), "int64")
    size_var = op.size_param(node)
    if isinstance(size_var.type, NoneTypeT):
        batch_shape = params_batch_shape(builder, op, node, inputs[2:])
    else:
        batch_shape = builder.value(inputs[1], size_var.type.dtype).cast("int64")
    if op.ndim_supp == 0:
        return batch_shape
    # multivariate_normal: the length of the mean
    core_shape = builder.value(inputs[2], node.inputs[2].type.dtype).shape(-1)
    return concat([batch_shape, core_shape], axis=0)


def supported_distributions() -> list[str]:
    return sorted(cls.name for cls in (*SAMPLERS, *NON_TRANSFORM_SAMPLERS))


@onnx_funcify.register(RandomVariable)
def onnx_funcify_RandomVariable(op, node, builder, inputs, **kwargs):
    sample = NON_TRANSFORM_SAMPLERS.get(type(op))
    if sample is None and type(op) in SAMPLERS:
        sample = sample_transformed
    if sample is None:
        raise NotImplementedError(
            f"the ONNX backend has no sampler for the {op.name} distribution "
            f"({type(op).__name__}). It samples {', '.join(supported_distributions())}; "
            "distributions whose samplers need rejection steps (gamma, beta, "
            "poisson, binomial, dirichlet...) are not supported."
        )
    key, _, *params = inputs
    key = builder.value(key, RANDOM_KEY_DTYPE)
    draws = Draws(key, draw_shape(builder, op, node, inputs))
    draw = sample(op, node, builder, draws, params)
    return [mix(key).name, draw.cast(node.outputs[1].type.dtype).name]
