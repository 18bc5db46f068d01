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
Samplers are registered per ``RandomVariable`` class in `onnx_sample` and
found through the class hierarchy (`sampler_of`); those of PyMC's
distributions in `pytensor.link.onnx.pymc.random`. Parameters that NumPy (or
the distribution's own sampler) rejects raise the ``ValueError`` it raises
(the ``checks`` of `register_sampler`).

Limits: normal draws stay within 8.6 standard deviations (``u >= 2**-53``),
exponential-type tails within 37 scales; ``integers`` is uniform up to a
relative bias below ``width / 2**64`` (no rejection step); a non-positive
definite covariance gives NaN draws where NumPy raises. `register_unsupported`
records the distributions without a sampler and why.

In inner graphs keys are values like any other: a ``Scan`` carries them
through its ``Loop`` (see `pytensor.link.onnx.dispatch.scan`) and an
``OpFromGraph`` passes them to its inner graph.
"""

from collections.abc import Callable
from functools import singledispatch

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


@singledispatch
def onnx_sample(op, node, builder, draws: Draws, params) -> Value:
    """The float64 (or integer) draws of the ``RandomVariable`` ``op``.

    Registered per ``RandomVariable`` class and dispatched through the class
    hierarchy, as ``jax_sample_fn`` is: a subclass samples like its nearest
    registered base class unless it draws differently (see `sampler_of`).
    ``params`` are the ONNX values of the distribution parameters; `draws`
    gives the uniform bits of the draws' shape.
    """
    raise NotImplementedError(NO_SAMPLER_YET)


NO_SAMPLER_YET = "it has no ONNX sampler yet"


def register_sampler(rv_class: type, sampler: Callable[..., Value], checks=()):
    """Register ``sampler(draws, *params)`` for ``rv_class``, with float64 parameters.

    ``checks`` are ``(condition(*params), message)`` pairs: where a condition
    does not hold, the function raises ``ValueError(message)`` as NumPy's (or
    the distribution's own) sampler does.
    """

    def sample(op, node, builder, draws, params) -> Value:
        values = param_values(builder, node, params, "float64")
        for condition, message in checks:
            builder.require(condition(*values), ValueError, message)
        return sampler(draws, *values)

    onnx_sample.register(rv_class)(sample)


def register_unsupported(rv_class: type, reason: str):
    """Record that ``rv_class`` has no sampler, and why."""

    def refuse(op, node, builder, draws, params) -> Value:
        raise NotImplementedError(reason)

    refuse.unsupported_reason = reason
    onnx_sample.register(rv_class)(refuse)


@singledispatch
def onnx_core_shape(op, node, values) -> Value | None:
    """The int64 core shape of a draw of ``op``, if it is not that of a parameter."""
    return None


def geometric(draws, p):
    # P(X > k) = (1 - p) ** k; p = 1 gives -0 trials before the floor at 1
    trials = (draws.open_uniform().log() / log1p(-p)).ceil()
    return where(trials < 1.0, 1.0, trials)


def truncated_exponential(draws, b, loc, scale):
    return loc - scale * log1p(draws.uniform() * expm1(-b))


for rv_class, sampler in {
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
    ptr.GenGammaRV: random_gamma.generalized_gamma,
    ptr.DirichletRV: random_gamma.dirichlet,
}.items():
    register_sampler(rv_class, sampler)

# What NumPy's generator raises ValueError for, by distribution: a condition
# every parameter must meet (NaN parameters give NaN draws unless excluded).
for rv_class, sampler, checks in [
    (ptr.GammaRV, random_gamma.gamma, [(lambda a, s: ~(a < 0.0), "shape < 0")]),
    (
        ptr.InvGammaRV,
        random_gamma.inverse_gamma,
        [(lambda a, s: ~(a < 0.0), "shape < 0")],
    ),
    (
        ptr.BetaRV,
        random_gamma.beta,
        [(lambda a, b: ~(a <= 0.0), "a <= 0"), (lambda a, b: ~(b <= 0.0), "b <= 0")],
    ),
    (
        ptr.StudentTRV,
        random_gamma.student_t,
        [(lambda df, loc, scale: ~(df <= 0.0), "df <= 0")],
    ),
    (
        ptr.VonMisesRV,
        random_continuous.von_mises,
        [(lambda mu, kappa: ~(kappa < 0.0), "kappa < 0")],
    ),
    (
        ptr.PoissonRV,
        random_discrete.poisson,
        [
            (lambda lam: lam >= 0.0, "lam < 0 or lam is NaN"),
            (lambda lam: lam < 2.0**63 - 2.0**53, "lam value too large"),
        ],
    ),
    (
        ptr.BinomialRV,
        random_discrete.binomial,
        [
            (lambda n, p: n >= 0.0, "n < 0"),
            (lambda n, p: (p >= 0.0) & (p <= 1.0), "p < 0, p > 1 or p is NaN"),
        ],
    ),
    (
        ptr.NegBinomialRV,
        random_discrete.negative_binomial,
        [
            (lambda n, p: n > 0.0, "n <= 0"),
            (lambda n, p: (p > 0.0) & (p <= 1.0), "p <= 0, p > 1 or p contains NaNs"),
        ],
    ),
    (ptr.BetaBinomialRV, random_discrete.beta_binomial, []),
    (
        ptr.HyperGeometricRV,
        random_discrete.hypergeometric,
        [
            (lambda good, bad, sample: good >= 0.0, "ngood < 0"),
            (lambda good, bad, sample: bad >= 0.0, "nbad < 0"),
            (lambda good, bad, sample: sample >= 0.0, "nsample < 0"),
            (lambda good, bad, sample: good + bad >= sample, "ngood + nbad < nsample"),
        ],
    ),
]:
    register_sampler(rv_class, sampler, checks)

MULTINOMIAL_CHECKS = [
    (lambda n, p: n >= 0.0, "n < 0"),
    (
        lambda n, p: (p >= 0.0) & (p <= 1.0),
        "pvals < 0, pvals > 1 or pvals contains NaNs",
    ),
]


def param_values(builder, node, params, dtype=None):
    """The distribution parameters of ``node`` as values, cast to ``dtype`` if given."""
    return [
        builder.value(name, var.type.dtype).cast(dtype or var.type.dtype)
        for name, var in zip(params, node.op.dist_params(node), strict=True)
    ]


# Distributions computed on integers or on whole parameter vectors


@onnx_sample.register(ptr.IntegersRV)
def sample_integers(op, node, builder, draws, params) -> Value:
    low, high = param_values(builder, node, params)
    if builder.keep_checks:
        dtype = np.result_type(low.dtype, high.dtype).name
        builder.require(low.cast(dtype) < high.cast(dtype), ValueError, "low >= high")
    return random.integers(draws, low.cast("uint64"), high.cast("uint64"))


@onnx_sample.register(ptr.CategoricalRV)
def sample_categorical(op, node, builder, draws, params) -> Value:
    return random.categorical(draws, *param_values(builder, node, params))


@onnx_sample.register(ptr.MvNormalRV)
def sample_multivariate_normal(op, node, builder, draws, params) -> Value:
    mean, cov = param_values(builder, node, params, "float64")
    return random_multivariate.multivariate_normal(draws, mean, cov, op.method)


@onnx_sample.register(ptr.MultinomialRV)
def sample_multinomial(op, node, builder, draws, params) -> Value:
    n_categories = node.outputs[1].type.shape[-1]
    if n_categories is None:
        raise NotImplementedError(
            "the ONNX backend samples multinomial draws only for a number of "
            "categories known when the function is compiled (the static length "
            "of p's last axis)"
        )
    values = param_values(builder, node, params, "float64")
    for condition, message in MULTINOMIAL_CHECKS:
        builder.require(condition(*values), ValueError, message)
    return random_discrete.multinomial(draws, *values, n_categories)


@onnx_sample.register(ptr.ChoiceWithoutReplacement)
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


@onnx_sample.register(ptr.PermutationRV)
def sample_permutation(op, node, builder, draws, params) -> Value:
    [items] = param_values(builder, node, params)
    n_batch, n_core = op.batch_ndim(node), op.ndims_params[0]
    return random_order.permutation(draws, items, n_batch, n_core)


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


@onnx_core_shape.register(ptr.ChoiceWithoutReplacement)
def choice_core_shape(op, node, values) -> Value:
    items, *_, core_shape = values
    n_chosen = node.inputs[-1].type.shape[-1]
    counts = core_shape.reshape(core_shape.indices([-1])).slice(0, n_chosen)
    rest = [items.shape(1 - op.ndims_params[0])] if op.ndims_params[0] > 1 else []
    return concat([counts.cast("int64"), *rest], axis=0)


@onnx_core_shape.register(ptr.PermutationRV)
def permutation_core_shape(op, node, values) -> Value:
    return random_order.number_of_items(values[0], op.ndims_params[0])


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
    values = param_values(builder, node, inputs[2:])
    core_shape = onnx_core_shape(op, node, values)
    if core_shape is not None:
        return concat([batch_shape, core_shape], axis=0)
    # the core shape of the first parameter with as many core axes as a draw
    n_core = op.ndims_params.index(op.ndim_supp)
    param = node.inputs[2 + n_core]
    core_shape = builder.value(inputs[2 + n_core], param.type.dtype).shape(
        -op.ndim_supp
    )
    return concat([batch_shape, core_shape], axis=0)


DRAWING_METHODS = ("rng_fn", "rng_fn_scipy")


def sampler_of(rv_class: type):
    """The `onnx_sample` implementation for ``rv_class``: that of its nearest
    registered base class, unless a class in between draws differently.

    A subclass that only adds dispatch entries of its own (as PyMC's tests
    define subclasses of ``GeometricRV`` and ``NormalRV``) samples like its
    base class. One
    that overrides how NumPy draws (``rng_fn``, ``rng_fn_scipy``) may draw
    another distribution: it needs a sampler registered for itself.
    """
    registered = next(cls for cls in rv_class.__mro__ if cls in onnx_sample.registry)
    if registered is object:
        raise NotImplementedError(NO_SAMPLER_YET)
    for cls in rv_class.__mro__[: rv_class.__mro__.index(registered)]:
        if overridden := [name for name in DRAWING_METHODS if name in vars(cls)]:
            raise NotImplementedError(
                f"{cls.__name__} overrides {', '.join(overridden)} of "
                f"{registered.__name__}, so it may draw another distribution: "
                "register its ONNX sampler with "
                "pytensor.link.onnx.dispatch.random.onnx_sample.register"
            )
    sample = onnx_sample.registry[registered]
    if reason := getattr(sample, "unsupported_reason", None):
        raise NotImplementedError(reason)
    return sample


def supported_distributions() -> list[str]:
    return sorted(
        cls.name
        for cls, sample in onnx_sample.registry.items()
        if cls is not object and not hasattr(sample, "unsupported_reason")
    )


@onnx_funcify.register(RandomVariable)
def onnx_funcify_RandomVariable(op, node, builder, inputs, **kwargs):
    try:
        sample = sampler_of(type(op))
    except NotImplementedError as err:
        raise NotImplementedError(
            f"the ONNX backend has no sampler for the {op.name} distribution "
            f"({type(op).__name__}): {err}. It samples "
            f"{', '.join(supported_distributions())}."
        ) from err
    key, _, *params = inputs
    key = builder.value(key, RANDOM_KEY_DTYPE)
    draws = Draws(key, draw_shape(builder, op, node, inputs))
    draw = sample(op, node, builder, draws, params)
    return [mix(key).name, draw.cast(node.outputs[1].type.dtype).name]
