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

Samplers that need rejection (gamma, Poisson, binomial, von Mises) run all
draws at once in an ONNX ``Loop`` until every draw is accepted (see
`pytensor.link.onnx.numerics.random.until_accepted`). Parameters that NumPy
rejects raise the ``ValueError`` NumPy raises (`PARAMETER_CHECKS`).

Limits: normal draws stay within 8.6 standard deviations (``u >= 2**-53``),
exponential-type tails within 37 scales; ``integers`` is uniform up to a
relative bias below ``width / 2**64`` (no rejection step); a non-positive
definite covariance gives NaN draws where NumPy raises. `UNSUPPORTED` lists
the distributions without a sampler and why.

In inner graphs keys are values like any other: a ``Scan`` carries them
through its ``Loop`` (see `pytensor.link.onnx.dispatch.scan`) and an
``OpFromGraph`` passes them to its inner graph.
"""

from collections.abc import Callable

import numpy as np
import pytensor.tensor.random.basic as ptr
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.random.utils import custom_rng_deepcopy
from pytensor.tensor.type_other import NoneTypeT

from pytensor.link.onnx.dispatch.basic import onnx_funcify, onnx_typify
from pytensor.link.onnx.dispatch.variables import RANDOM_KEY_DTYPE
from pytensor.link.onnx.numerics import (
    random,
    random_continuous,
    random_discrete,
    random_gamma,
)
from pytensor.link.onnx.numerics.elementary import expm1, log1p
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
    ptr.GammaRV: random_gamma.gamma,
    ptr.InvGammaRV: random_gamma.inverse_gamma,
    ptr.GenGammaRV: random_gamma.generalized_gamma,
    ptr.BetaRV: random_gamma.beta,
    ptr.DirichletRV: random_gamma.dirichlet,
    ptr.StudentTRV: random_gamma.student_t,
    ptr.PoissonRV: random_discrete.poisson,
    ptr.BinomialRV: random_discrete.binomial,
    ptr.NegBinomialRV: random_discrete.negative_binomial,
    ptr.BetaBinomialRV: random_discrete.beta_binomial,
    ptr.HyperGeometricRV: random_discrete.hypergeometric,
    ptr.VonMisesRV: random_continuous.von_mises,
}


def pymc_wald(draws, mu, lam, alpha):
    return random.wald(draws, mu, lam) + alpha


# PyMC's RandomVariables, by class name (PyMC is not imported here)
PYMC_SAMPLERS: dict[str, Callable[..., Value]] = {
    "TruncatedNormalRV": random_continuous.truncated_normal,
    "SkewNormalRV": random_continuous.skew_normal,
    "SkewStudentTRV": random_gamma.skew_student_t,
    "RiceRV": random_continuous.rice,
    "MoyalRV": random_continuous.moyal,
    "WaldRV": pymc_wald,
}

# What NumPy's generator raises ValueError for, by distribution: a condition
# every parameter must meet (NaN parameters give NaN draws unless excluded).
PARAMETER_CHECKS: dict[type, list[tuple[Callable[..., Value], str]]] = {
    ptr.GammaRV: [(lambda shape, scale: ~(shape < 0.0), "shape < 0")],
    ptr.InvGammaRV: [(lambda shape, scale: ~(shape < 0.0), "shape < 0")],
    ptr.BetaRV: [
        (lambda a, b: ~(a <= 0.0), "a <= 0"),
        (lambda a, b: ~(b <= 0.0), "b <= 0"),
    ],
    ptr.StudentTRV: [(lambda df, loc, scale: ~(df <= 0.0), "df <= 0")],
    ptr.VonMisesRV: [(lambda mu, kappa: ~(kappa < 0.0), "kappa < 0")],
    ptr.PoissonRV: [
        (lambda lam: lam >= 0.0, "lam < 0 or lam is NaN"),
        (lambda lam: lam < 2.0**63 - 2.0**53, "lam value too large"),
    ],
    ptr.BinomialRV: [
        (lambda n, p: n >= 0.0, "n < 0"),
        (lambda n, p: (p >= 0.0) & (p <= 1.0), "p < 0, p > 1 or p is NaN"),
    ],
    ptr.NegBinomialRV: [
        (lambda n, p: n > 0.0, "n <= 0"),
        (lambda n, p: (p > 0.0) & (p <= 1.0), "p <= 0, p > 1 or p contains NaNs"),
    ],
    ptr.HyperGeometricRV: [
        (lambda good, bad, sample: good >= 0.0, "ngood < 0"),
        (lambda good, bad, sample: bad >= 0.0, "nbad < 0"),
        (lambda good, bad, sample: sample >= 0.0, "nsample < 0"),
        (lambda good, bad, sample: good + bad >= sample, "ngood + nbad < nsample"),
    ],
    ptr.MultinomialRV: [
        (lambda n, p: n >= 0.0, "n < 0"),
        (
            lambda n, p: (p >= 0.0) & (p <= 1.0),
            "pvals < 0, pvals > 1 or pvals contains NaNs",
        ),
    ],
}

# Distributions without a sampler, by class name, and why
NOT_YET = "no ONNX sampler yet"
UNSUPPORTED: dict[str, str] = {
    "ChoiceWithoutReplacement": f"{NOT_YET} (a Gumbel top-k per batch)",
    "PermutationRV": f"{NOT_YET} (a sort of random keys per batch)",
    "FlatRV": "an improper distribution: PyMC cannot draw from it either",
    "HalfFlatRV": "an improper distribution: PyMC cannot draw from it either",
    "CustomDistRV": "it draws with a user's Python function, which ONNX cannot run",
    "SimulatorRV": "it draws with a user's Python function, which ONNX cannot run",
    "PolyaGammaRV": f"{NOT_YET} (PyMC draws with the polyagamma package)",
    "InterpolatedRV": f"{NOT_YET} (inversion of a tabulated CDF)",
    "StickBreakingWeightsRV": f"{NOT_YET} (its number of weights is a parameter)",
    "MatrixNormalRV": f"{NOT_YET} (two Cholesky factors)",
    "WishartRV": f"{NOT_YET} (Bartlett decomposition)",
    "CARRV": f"{NOT_YET} (a sparse precision matrix)",
    "ICARRV": f"{NOT_YET} (a singular precision matrix)",
}


def param_values(builder, node, params, dtype=None):
    """The distribution parameters of ``node`` as values, cast to ``dtype`` if given."""
    return [
        builder.value(name, var.type.dtype).cast(dtype or var.type.dtype)
        for name, var in zip(params, node.op.dist_params(node), strict=True)
    ]


def sampler_of(op):
    if type(op).__module__.split(".")[0] == "pymc":
        return PYMC_SAMPLERS.get(type(op).__name__)
    return SAMPLERS.get(type(op))


def check_parameters(op, builder, values):
    for condition, message in PARAMETER_CHECKS.get(type(op), ()):
        builder.require(condition(*values), ValueError, message)


def sample_transformed(op, node, builder, draws, params) -> Value:
    values = param_values(builder, node, params, "float64")
    check_parameters(op, builder, values)
    return sampler_of(op)(draws, *values)


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


def sample_multinomial(op, node, builder, draws, params) -> Value:
    n_categories = node.outputs[1].type.shape[-1]
    if n_categories is None:
        raise NotImplementedError(
            "the ONNX backend samples multinomial draws only for a number of "
            "categories known when the function is compiled (the static length "
            "of p's last axis)"
        )
    values = param_values(builder, node, params, "float64")
    check_parameters(op, builder, values)
    return random_discrete.multinomial(draws, *values, n_categories)


def sample_discrete_uniform(op, node, builder, draws, params) -> Value:
    low, high = param_values(builder, node, params, "int64")
    builder.require(low <= high, ValueError, "low > high")
    return random.integers(draws, low.cast("uint64"), (high + 1).cast("uint64"))


NON_TRANSFORM_SAMPLERS = {
    ptr.MultinomialRV: sample_multinomial,
    ptr.IntegersRV: sample_integers,
    ptr.CategoricalRV: sample_categorical,
    ptr.MvNormalRV: sample_multivariate_normal,
}


def sample_clipped_beta(op, node, builder, draws, params) -> Value:
    # PyMC clips its beta draws to [eps, 1 - eps] of their dtype
    eps = float(np.finfo(node.outputs[1].type.dtype).eps)
    x = random_gamma.beta(draws, *param_values(builder, node, params, "float64"))
    return where(x < eps, eps, where(x > 1.0 - eps, 1.0 - eps, x))


PYMC_NON_TRANSFORM_SAMPLERS = {
    "DiscreteUniformRV": sample_discrete_uniform,
    "BetaClippedRV": sample_clipped_beta,
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
    # the core shape of the first parameter with as many core axes as a draw
    n_core = op.ndims_params.index(op.ndim_supp)
    param = node.inputs[2 + n_core]
    core_shape = builder.value(inputs[2 + n_core], param.type.dtype).shape(
        -op.ndim_supp
    )
    return concat([batch_shape, core_shape], axis=0)


def converter_of(rv_class: type):
    """The function sampling a ``RandomVariable`` class, ``None`` if there is none."""
    if rv_class.__module__.split(".")[0] == "pymc":
        name = rv_class.__name__
        if name in PYMC_SAMPLERS:
            return sample_transformed
        return PYMC_NON_TRANSFORM_SAMPLERS.get(name)
    if rv_class in SAMPLERS:
        return sample_transformed
    return NON_TRANSFORM_SAMPLERS.get(rv_class)


def supported_distributions() -> list[str]:
    return sorted(
        [cls.name for cls in (*SAMPLERS, *NON_TRANSFORM_SAMPLERS)]
        + [*PYMC_SAMPLERS, *PYMC_NON_TRANSFORM_SAMPLERS]
    )


@onnx_funcify.register(RandomVariable)
def onnx_funcify_RandomVariable(op, node, builder, inputs, **kwargs):
    sample = converter_of(type(op))
    if sample is None:
        reason = UNSUPPORTED.get(type(op).__name__, "it has no ONNX sampler yet")
        raise NotImplementedError(
            f"the ONNX backend has no sampler for the {op.name} distribution "
            f"({type(op).__name__}): {reason}. It samples "
            f"{', '.join(supported_distributions())}."
        )
    key, _, *params = inputs
    key = builder.value(key, RANDOM_KEY_DTYPE)
    draws = Draws(key, draw_shape(builder, op, node, inputs))
    draw = sample(op, node, builder, draws, params)
    return [mix(key).name, draw.cast(node.outputs[1].type.dtype).name]
