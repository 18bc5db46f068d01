"""Converters for ``RandomVariable``: draws computed from a key, SplitMix64 style.

ONNX's ``RandomNormal`` and ``RandomUniform`` take their seed as an attribute
fixed when the model is built, so they cannot follow a generator's state.
Instead, mode="ONNX" feeds each random generator to the model as a uint64
*key* (see `GeneratorKeys`), and each ``RandomVariable`` computes its draws
from its key alone, with wrapping uint64 arithmetic:

- ``bits(key, i) = mix(key + i * 0x9E3779B97F4A7C15)`` is output ``i`` of
  SplitMix64 seeded with ``key``; the draws use the counters ``i >= 1``, one
  per uniform variate they need;
- the key of the next generator (the Op's first output) is ``bits(key, 0)``.

Draws are thus a function of the generator state, as in PyTensor: two
``RandomVariable`` nodes given the same generator use the same bits, and a
chain ``rng -> next_rng -> ...`` gives each node its own key.

Uniform variates are made of the top bits: ``(bits >> 11) * 2**-53`` in
``[0, 1)``, or ``((bits >> 12) + 0.5) * 2**-52`` in ``(0, 1)`` where a
logarithm needs it. Every distribution is an exact transformation of them
(inversion, Box-Muller), computed in float64 and rounded once to the output
dtype. ``integers`` keeps the high 64 bits of the product of 64 random bits
and the width of the range.

Limits: normal draws stay within 8.6 standard deviations (``u >= 2**-53``),
exponential-type tails within 37 scales; ``integers`` is uniform up to a
relative bias below ``width / 2**64`` (no rejection step); a non-positive
definite covariance gives NaN draws where NumPy raises. Distributions whose
samplers need rejection (gamma, beta, poisson, binomial, dirichlet...) raise
``NotImplementedError``, as do generators inside inner graphs (``Scan``).
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytensor.tensor.random.basic as ptr
from pytensor.compile.ops import DeepCopyOp, ViewOp
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.random.type import RandomType
from pytensor.tensor.random.utils import custom_rng_deepcopy
from pytensor.tensor.type_other import NoneTypeT

from pytensor.link.onnx.dispatch.basic import (
    RANDOM_KEY_DTYPE,
    onnx_funcify,
    onnx_typify,
)
from pytensor.link.onnx.dispatch.shape import add_runtime_check
from pytensor.link.onnx.numerics.elementary import expm1, log1p
from pytensor.link.onnx.value import Value, where


GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX_STEPS = ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB))
LAST_SHIFT = 31
KEY_BOUND = 2**64


# Random generators in and out of the model


def draw_key(rng: np.random.Generator) -> np.uint64:
    """Draw 64 random bits from ``rng``, advancing it."""
    return rng.integers(KEY_BOUND, dtype=np.uint64)


@onnx_typify.register(np.random.Generator)
def onnx_typify_Generator(rng, dtype=None, **kwargs):
    """The key of a generator: its next 64 random bits (``rng`` is unchanged)."""
    return np.asarray(draw_key(custom_rng_deepcopy(rng)), dtype=RANDOM_KEY_DTYPE)


def generator_origin(var, inputs) -> tuple[int, int] | None:
    """Which input generator ``var`` is, advanced by how many ``RandomVariable`` nodes.

    ``None`` if ``var`` comes from anything else.
    """
    advances = 0
    while var.owner is not None:
        node = var.owner
        if isinstance(node.op, RandomVariable) and var is node.outputs[0]:
            advances += 1
        elif not isinstance(node.op, DeepCopyOp | ViewOp):
            return None
        var = node.inputs[0]
    return (inputs.index(var), advances) if var in inputs else None


@dataclass(frozen=True)
class GeneratorKeys:
    """How a function compiled with mode="ONNX" takes and returns random generators.

    The model takes each random generator input as a key: the next 64 random
    bits of a copy of the generator, which itself stays unchanged (so, as in
    PyTensor, a generator that no update replaces gives the same draws at
    every call).

    A random generator output that is an input generator advanced by ``n``
    ``RandomVariable`` nodes is returned as a copy of that generator advanced
    by ``n`` keys, the first of which is the key the model got: with
    ``updates={rng: next_rng}``, successive calls take successive keys of the
    generator's own stream. Any other generator output is a new PCG64
    generator seeded with the key the model computed for it.

    Attributes
    ----------
    inputs
        Positions of the random generator inputs.
    outputs
        Position of each random generator output and its `generator_origin`.
    """

    inputs: tuple[int, ...]
    outputs: tuple[tuple[int, tuple[int, int] | None], ...]

    @classmethod
    def of(cls, fgraph) -> "GeneratorKeys | None":
        """The `GeneratorKeys` of ``fgraph``, ``None`` if it has no random generators."""
        inputs = tuple(
            i for i, var in enumerate(fgraph.inputs) if isinstance(var.type, RandomType)
        )
        outputs = tuple(
            (i, generator_origin(var, fgraph.inputs))
            for i, var in enumerate(fgraph.outputs)
            if isinstance(var.type, RandomType)
        )
        return cls(inputs, outputs) if inputs or outputs else None

    def keys(self, values):
        """``values`` with keys in place of generators, and what was drawn.

        The second result maps each generator input's position to the
        generator and the copy of it that its key was drawn from.
        """
        values = list(values)
        drawn = {}
        for i in self.inputs:
            advanced = custom_rng_deepcopy(values[i])
            drawn[i] = (values[i], advanced)
            values[i] = np.asarray(draw_key(advanced))
        return values, drawn

    def replace_keys(self, outputs, drawn):
        """Replace the keys of the generator outputs by generators, in place."""
        handed_out = set()
        for position, origin in self.outputs:
            if origin is None:
                outputs[position] = np.random.default_rng(int(outputs[position]))
                continue
            i, advances = origin
            generator, advanced = drawn[i]
            if advances == 0:
                outputs[position] = custom_rng_deepcopy(generator)
                continue
            if i in handed_out:
                advanced = custom_rng_deepcopy(generator)
                draw_key(advanced)
            handed_out.add(i)
            for _ in range(advances - 1):
                draw_key(advanced)
            outputs[position] = advanced


# Random bits


def shift_xor(builder, z: str, shift: int) -> str:
    shifted = builder.add(
        "BitShift", [z, builder.constant(shift, "uint64")], direction="RIGHT"
    )
    return builder.add("BitwiseXor", [z, shifted])


def mix(builder, z: str) -> str:
    """SplitMix64's output function of uint64 values."""
    for shift, multiplier in MIX_STEPS:
        scrambled = shift_xor(builder, z, shift)
        z = builder.add("Mul", [scrambled, builder.constant(multiplier, "uint64")])
    return shift_xor(builder, z, LAST_SHIFT)


def multiply_high(builder, a: str, b: str) -> str:
    """The high 64 bits of the 128-bit product of the uint64 values ``a`` and ``b``."""
    low_mask = builder.constant(2**32 - 1, "uint64")
    thirty_two = builder.constant(32, "uint64")

    def high(x):
        return builder.add("BitShift", [x, thirty_two], direction="RIGHT")

    def low(x):
        return builder.add("BitwiseAnd", [x, low_mask])

    def add(*terms):
        total, *rest = terms
        for term in rest:
            total = builder.add("Add", [total, term])
        return total

    low_low = builder.add("Mul", [low(a), low(b)])
    high_low = builder.add("Mul", [high(a), low(b)])
    low_high = builder.add("Mul", [low(a), high(b)])
    high_high = builder.add("Mul", [high(a), high(b)])
    # below 2**64: 2 * (2**32 - 1) + (2**32 - 1) ** 2
    middle = add(high(low_low), low(high_low), low_high)
    return add(high_high, high(high_low), high(middle))


class Draws:
    """The random bits of one ``RandomVariable`` node.

    Parameters
    ----------
    builder
        The graph builder.
    key
        The node's key, a 0-d uint64 value.
    shape
        The int64 shape of the node's draws.
    """

    def __init__(self, builder, key: str, shape: str):
        self.builder = builder
        self.shape = shape
        self.size = builder.add("ReduceProd", [shape], keepdims=0, hint="n_draws")
        zero, one = (builder.constant(value, "int64") for value in (0, 1))
        positions = builder.add("Range", [zero, self.size, one])
        steps = builder.add(
            "Mul",
            [
                builder.cast(positions, "int64", "uint64"),
                builder.constant(GOLDEN_GAMMA, "uint64"),
            ],
        )
        self.state = builder.add("Add", [key, steps], hint="state")
        self.stream_step = builder.add(
            "Mul",
            [
                builder.cast(self.size, "int64", "uint64"),
                builder.constant(GOLDEN_GAMMA, "uint64"),
            ],
        )
        self.streams = 0

    def bits(self, length: str | None = None) -> str:
        """A flat vector of random uint64 bits, one per draw or ``length`` of them.

        The ``j``-th call uses the counters ``1 + j * size + i``, so that calls
        never share counters (``length`` is at most ``size``).
        """
        builder = self.builder
        streams_before = builder.add(
            "Mul", [self.stream_step, builder.constant(self.streams, "uint64")]
        )
        offset = builder.add(
            "Add", [streams_before, builder.constant(GOLDEN_GAMMA, "uint64")]
        )
        self.streams += 1
        state = self.state
        if length is not None:
            state = builder.add(
                "Slice", [state, builder.constant([0], "int64"), length]
            )
        return mix(builder, builder.add("Add", [state, offset]))

    def shaped(self, flat: Value) -> Value:
        draws = self.builder.add("Reshape", [flat.name, self.shape], hint="draws")
        return Value(self.builder, draws, flat.dtype)

    def top_bits(self, n_bits: int, length: str | None = None) -> Value:
        """The top ``n_bits`` of `bits` as float64 integers, flat."""
        shift = self.builder.constant(64 - n_bits, "uint64")
        top = self.builder.add(
            "BitShift", [self.bits(length), shift], direction="RIGHT"
        )
        return Value(
            self.builder, self.builder.cast(top, "uint64", "float64"), "float64"
        )

    def flat_uniform(self, length: str | None = None) -> Value:
        """Uniform variates in ``[0, 1)``: multiples of ``2**-53``."""
        return self.top_bits(53, length) * 2.0**-53

    def flat_open_uniform(self, length: str | None = None) -> Value:
        """Uniform variates in ``(0, 1)``: odd multiples of ``2**-53``."""
        return (self.top_bits(52, length) + 0.5) * 2.0**-52

    def uniform(self) -> Value:
        return self.shaped(self.flat_uniform())

    def open_uniform(self) -> Value:
        return self.shaped(self.flat_open_uniform())

    def standard_normal(self) -> Value:
        """Box-Muller: ``r cos(t)`` and ``r sin(t)`` from each pair of uniforms.

        With ``r = sqrt(-2 log u)`` for ``u`` in ``(0, 1)``, every ``|z| < 8.6``.
        """
        builder = self.builder
        n_pairs = builder.add(
            "Div",
            [
                builder.add("Add", [self.size, builder.constant(1, "int64")]),
                builder.constant(2, "int64"),
            ],
        )
        n_pairs = builder.add("Unsqueeze", [n_pairs, builder.constant([0], "int64")])
        radius = (self.flat_open_uniform(n_pairs).log() * -2.0).sqrt()
        angle = self.flat_uniform(n_pairs) * (2.0 * np.pi)
        both = builder.add(
            "Concat", [(radius * angle.cos()).name, (radius * angle.sin()).name], axis=0
        )
        size = builder.add("Unsqueeze", [self.size, builder.constant([0], "int64")])
        flat = builder.add("Slice", [both, builder.constant([0], "int64"), size])
        return self.shaped(Value(builder, flat, "float64"))

    def standard_cauchy(self) -> Value:
        """``tan(pi (u - 1/2))``, distributed as the ratio of two standard normals."""
        angle = (self.open_uniform() - 0.5) * np.pi
        return angle.sin() / angle.cos()


# Distributions: samplers of float64 parameters, by inversion unless noted


def logistic(draws, loc, scale):
    u = draws.open_uniform()
    return loc + scale * (u / (1.0 - u)).log()


def laplace(draws, loc, scale):
    u = draws.open_uniform()
    below = loc + scale * (u * 2.0).log()
    return where(u < 0.5, below, loc - scale * (2.0 - u * 2.0).log())


def triangular(draws, left, mode, right):
    u = draws.uniform()
    width = right - left
    rising = left + (u * width * (mode - left)).sqrt()
    falling = right - ((1.0 - u) * width * (right - mode)).sqrt()
    return where(u <= (mode - left) / width, rising, falling)


def wald(draws, mean, scale):
    # Michael, Schucany and Haas (1976), like numpy
    z = draws.standard_normal()
    y = mean * z * z
    x = mean + mean / (2.0 * scale) * (y - (4.0 * scale * y + y * y).sqrt())
    return where(draws.uniform() <= mean / (mean + x), x, mean * mean / x)


def weibull(draws, shape):
    draw = (-draws.open_uniform().log()) ** (1.0 / shape)
    return where(shape.eq(0.0), 0.0, draw)


def geometric(draws, p):
    # P(X > k) = (1 - p) ** k; p = 1 gives -0 trials before the floor at 1
    trials = (draws.open_uniform().log() / log1p(-p)).ceil()
    return where(trials < 1.0, 1.0, trials)


def bernoulli(draws, p):
    return Value(draws.builder, (draws.uniform() < p).name, "bool")


SAMPLERS: dict[type, Callable[..., Value]] = {
    ptr.UniformRV: lambda draws, low, high: low + (high - low) * draws.uniform(),
    ptr.NormalRV: lambda draws, loc, scale: loc + scale * draws.standard_normal(),
    ptr.HalfNormalRV: (
        lambda draws, loc, scale: loc + scale * abs(draws.standard_normal())
    ),
    ptr.LogNormalRV: (
        lambda draws, mean, sigma: (mean + sigma * draws.standard_normal()).exp()
    ),
    ptr.ExponentialRV: lambda draws, scale: -scale * draws.open_uniform().log(),
    ptr.LaplaceRV: laplace,
    ptr.LogisticRV: logistic,
    ptr.GumbelRV: (
        lambda draws, loc, scale: loc - scale * (-draws.open_uniform().log()).log()
    ),
    ptr.CauchyRV: lambda draws, loc, scale: loc + scale * draws.standard_cauchy(),
    ptr.HalfCauchyRV: (
        lambda draws, loc, scale: loc + scale * abs(draws.standard_cauchy())
    ),
    ptr.ParetoRV: lambda draws, b, scale: scale * draws.open_uniform() ** (-1.0 / b),
    ptr.WeibullRV: weibull,
    ptr.TriangularRV: triangular,
    ptr.TruncExponentialRV: (
        lambda draws, b, loc, scale: loc - scale * log1p(draws.uniform() * expm1(-b))
    ),
    ptr.WaldRV: wald,
    ptr.BernoulliRV: bernoulli,
    ptr.GeometricRV: geometric,
}


def as_float64(builder, name, var) -> Value:
    return Value(builder, builder.cast(name, var.type.dtype, "float64"), "float64")


def sample_transformed(op, node, builder, draws, params) -> str:
    floats = [
        as_float64(builder, name, var)
        for name, var in zip(params, op.dist_params(node), strict=True)
    ]
    draw = SAMPLERS[type(op)](draws, *floats)
    return builder.cast(draw.name, draw.dtype, node.outputs[1].type.dtype)


# Distributions computed on integers or on whole parameter vectors


def sample_integers(op, node, builder, draws, params) -> str:
    # Lemire's multiply-high without its rejection step: each value of a range
    # of width w has probability floor(2**64 / w) / 2**64 or ceil(2**64 / w) / 2**64,
    # within w / 2**64 of 1 / w relatively.
    low_var, high_var = op.dist_params(node)
    if builder.keep_checks:
        dtype = np.result_type(low_var.type.dtype, high_var.type.dtype).name
        low, high = (
            builder.cast(name, var.type.dtype, dtype)
            for name, var in zip(params, (low_var, high_var), strict=True)
        )
        valid = builder.add("Less", [low, high])
        add_runtime_check(builder, valid, ValueError, "low >= high")
    low, high = (
        builder.cast(name, var.type.dtype, "uint64")
        for name, var in zip(params, (low_var, high_var), strict=True)
    )
    width = builder.add("Sub", [high, low])
    offset = multiply_high(builder, draws.bits(), width)
    draw = builder.add("Reshape", [builder.add("Add", [low, offset]), draws.shape])
    return builder.cast(draw, "uint64", node.outputs[1].type.dtype)


def sample_categorical(op, node, builder, draws, params) -> str:
    # numpy.searchsorted(p.cumsum(-1), u): how many cumulative sums are below u
    [p] = params
    [p_var] = op.dist_params(node)
    last_axis = builder.constant(np.array([-1], dtype="int64"), "int64")
    cumulative = builder.add("CumSum", [p, builder.constant(-1, "int64")])
    cumulative = builder.cast(cumulative, p_var.type.dtype, "float64")
    u = builder.add("Unsqueeze", [draws.uniform().name, last_axis])
    below = builder.cast(builder.add("Less", [cumulative, u]), "bool", "int64")
    count = builder.add("ReduceSum", [below, last_axis], keepdims=0)
    return builder.cast(count, "int64", node.outputs[1].type.dtype)


def sample_multivariate_normal(op, node, builder, draws, params) -> str:
    # mean + A z with A A^T = cov: A is the Cholesky factor, or for "svd" and
    # "eigh" the eigenvectors scaled by the root of the eigenvalues (the
    # factorizations agree on the symmetric positive semi-definite cov).
    from pytensor.link.onnx.dispatch.slinalg import (
        Value,
        cholesky_of_triangle,
        jacobi_eigen,
    )

    mean_var, cov_var = op.dist_params(node)
    mean = as_float64(builder, params[0], mean_var)
    cov = Value(builder, as_float64(builder, params[1], cov_var).name, "float64")
    batch = cov.shape(0, -2)
    n_matrices = batch.apply("ReduceProd", batch, keepdims=1)
    stack = cov.reshape(n_matrices.apply("Concat", n_matrices, cov.shape(-2), axis=0))
    if op.method == "cholesky":
        factor = cholesky_of_triangle(stack, lower=True)
    else:
        eigenvalues, eigenvectors = jacobi_eigen(stack)
        factor = eigenvectors * eigenvalues.sqrt()
    factor = factor.reshape(cov.shape())
    last_axis = builder.constant(np.array([-1], dtype="int64"), "int64")
    z = builder.add("Unsqueeze", [draws.standard_normal().name, last_axis])
    correlated = builder.add(
        "Squeeze", [builder.add("MatMul", [factor.name, z]), last_axis]
    )
    draw = mean + Value(builder, correlated, "float64")
    return builder.cast(draw.name, "float64", node.outputs[1].type.dtype)


NON_TRANSFORM_SAMPLERS = {
    ptr.IntegersRV: sample_integers,
    ptr.CategoricalRV: sample_categorical,
    ptr.MvNormalRV: sample_multivariate_normal,
}


# The converter


def params_batch_shape(builder, op, node, params) -> str:
    """The int64 shape the batch dimensions of the parameters broadcast to."""
    n_batch = op.batch_ndim(node)
    one = builder.constant(np.array([1], dtype="int64"), "int64")
    shape = builder.constant(np.ones(n_batch, dtype="int64"), "int64")
    for name, var, n_core in zip(
        params, op.dist_params(node), op.ndims_params, strict=True
    ):
        n_param_batch = var.type.ndim - n_core
        if all(var.type.broadcastable[:n_param_batch]):
            continue
        own = builder.add("Shape", [name], end=n_param_batch)
        if n_param_batch < n_batch:
            ones = np.ones(n_batch - n_param_batch, dtype="int64")
            own = builder.add("Concat", [builder.constant(ones, "int64"), own], axis=0)
        is_one = builder.add("Equal", [shape, one])
        shape = builder.add("Where", [is_one, own, shape], hint="batch_shape")
    return shape


def draw_shape(builder, op, node, inputs) -> str:
    """The int64 shape of the draws of the ``RandomVariable`` ``node``."""
    static_shape = node.outputs[1].type.shape
    if None not in static_shape:
        return builder.constant(np.array(static_shape, dtype="int64"), "int64")
    size_var = op.size_param(node)
    if isinstance(size_var.type, NoneTypeT):
        batch_shape = params_batch_shape(builder, op, node, inputs[2:])
    else:
        batch_shape = builder.cast(inputs[1], size_var.type.dtype, "int64")
    if op.ndim_supp == 0:
        return batch_shape
    # multivariate_normal: the length of the mean
    core_shape = builder.add("Shape", [inputs[2]], start=-1)
    return builder.add("Concat", [batch_shape, core_shape], axis=0, hint="shape")


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
    draws = Draws(builder, key, draw_shape(builder, op, node, inputs))
    draw = sample(op, node, builder, draws, params)
    return [mix(builder, key), draw]
