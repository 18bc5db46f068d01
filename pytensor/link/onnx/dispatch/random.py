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

Samplers that need rejection (gamma, Poisson, binomial, von Mises,
Pólya-Gamma) run all draws at once, then the pending ones in an ONNX ``Loop``
until every draw is accepted (see `pytensor.link.onnx.numerics.random.until_accepted`).
Parameters that NumPy (or PyMC) rejects raise the ``ValueError`` it raises
(`PARAMETER_CHECKS`, `PYMC_PARAMETER_CHECKS`).

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
    random_multivariate,
    random_order,
)
from pytensor.link.onnx.numerics.elementary import expm1, log1p
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
    "InterpolatedRV": random_continuous.interpolated,
    "PolyaGammaRV": random_continuous.polya_gamma,
    "MatrixNormalRV": random_multivariate.matrix_normal,
    "WishartRV": random_multivariate.wishart,
    "CARRV": lambda draws, mu, w, alpha, tau, w_is_valid: (
        random_multivariate.conditional_autoregression(draws, mu, w, alpha, tau)
    ),
    "StickBreakingWeightsRV": lambda draws, alpha, k: (
        random_multivariate.stick_breaking_weights(draws, alpha)
    ),
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

# PyMC's, by class name: the errors of its rng_fn (or SciPy's)
PYMC_PARAMETER_CHECKS: dict[str, list[tuple[Callable[..., Value], str]]] = {
    "WishartRV": [
        (
            lambda nu, v: nu > v.shape(-1).cast("float64") - 1.0,
            "Degrees of freedom must be greater than the dimension of scale "
            "matrix minus 1.",
        )
    ],
    "CARRV": [
        (lambda *params: params[-1] > 0.0, "W must be a valid adjacency matrix"),
        (
            lambda mu, w, alpha, tau, valid: (alpha < 1.0) & (alpha > -1.0),
            "the domain of alpha is: -1 < alpha < 1",
        ),
    ],
    "StickBreakingWeightsRV": [(lambda alpha, k: k >= 0.0, "K needs to be positive.")],
    "PolyaGammaRV": [
        (
            lambda h, z: random_continuous.polya_gamma_draws(h),
            "the ONNX backend draws PolyaGamma(h, z) only for integer h from 1 to "
            f"{random_continuous.MAX_POLYA_GAMMA_SHAPE} (sums of h PG(1, z) "
            "draws); PyMC's polyagamma package also draws non-integer h",
        )
    ],
}

# Distributions without a sampler, by class name, and why
UNSUPPORTED: dict[str, str] = {
    "FlatRV": "an improper distribution: PyMC cannot draw from it either",
    "HalfFlatRV": "an improper distribution: PyMC cannot draw from it either",
    "CustomDistRV": "it draws with a user's Python function, which ONNX cannot run",
    "SimulatorRV": "it draws with a user's Python function, which ONNX cannot run",
    "ICARRV": "an improper distribution (its precision matrix is singular): "
    "PyMC cannot draw from it either",
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
    if type(op).__module__.split(".")[0] == "pymc":
        checks = PYMC_PARAMETER_CHECKS.get(type(op).__name__, ())
    else:
        checks = PARAMETER_CHECKS.get(type(op), ())
    for condition, message in checks:
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
    mean, cov = param_values(builder, node, params, "float64")
    return random_multivariate.multivariate_normal(draws, mean, cov, op.method)


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


def sample_choice_without_replacement(op, node, builder, draws, params) -> Value:
    items, *p, _ = param_values(builder, node, params)
    return random_order.choice_without_replacement(
        draws,
        items,
        p[0] if p else None,
        op.batch_ndim(node),
        op.ndims_params[0],
        n_chosen=node.inputs[-1].type.shape[-1],
    )


def sample_permutation(op, node, builder, draws, params) -> Value:
    [items] = param_values(builder, node, params)
    n_batch, n_core = op.batch_ndim(node), op.ndims_params[0]
    return random_order.permutation(draws, items, n_batch, n_core)


NON_TRANSFORM_SAMPLERS = {
    ptr.ChoiceWithoutReplacement: sample_choice_without_replacement,
    ptr.PermutationRV: sample_permutation,
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


def choice_core_shape(op, node, values) -> Value:
    items, *_, core_shape = values
    n_chosen = node.inputs[-1].type.shape[-1]
    counts = core_shape.reshape(core_shape.indices([-1])).slice(0, n_chosen)
    rest = [items.shape(1 - op.ndims_params[0])] if op.ndims_params[0] > 1 else []
    return concat([counts.cast("int64"), *rest], axis=0)


def permutation_core_shape(op, node, values) -> Value:
    return random_order.number_of_items(values[0], op.ndims_params[0])


def stick_breaking_core_shape(op, node, values) -> Value:
    return random_order.number_of_items(values[1], 0) + 1


# Core shapes that are not the core shape of a parameter
CORE_SHAPES = {
    ptr.ChoiceWithoutReplacement: choice_core_shape,
    ptr.PermutationRV: permutation_core_shape,
    "StickBreakingWeightsRV": stick_breaking_core_shape,
}


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
    core_shape = CORE_SHAPES.get(type(op), CORE_SHAPES.get(type(op).__name__))
    if core_shape is not None:
        values = param_values(builder, node, inputs[2:])
        return concat([batch_shape, core_shape(op, node, values)], axis=0)
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
