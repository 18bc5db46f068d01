"""Random draws computed from a key: a counter-based SplitMix64 generator.

A random generator enters a model as a uint64 *key*. Draws are functions of
the key alone, with wrapping uint64 arithmetic:

- ``bits(key, i) = mix(key + i * 0x9E3779B97F4A7C15)`` is output ``i`` of
  SplitMix64 seeded with ``key``; draws use the counters ``i >= 1``, one per
  uniform variate they need;
- the key of the next generator is ``bits(key, 0)``, `mix` of the key.

Uniform variates are made of the top bits: ``(bits >> 11) * 2**-53`` in
``[0, 1)``, or ``((bits >> 12) + 0.5) * 2**-52`` in ``(0, 1)`` where a
logarithm needs it. Every distribution here is an exact transformation of
them (inversion, Box-Muller) computed in float64; ``integers`` keeps the high
64 bits of the product of 64 random bits and the width of the range.

`draw_key` is the NumPy side: the key a ``numpy.random.Generator`` hands to
a model.
"""

import numpy as np

from pytensor.link.onnx.value import Value, arange, concat, where


GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX_STEPS = ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB))
LAST_SHIFT = 31
KEY_BOUND = 2**64


def draw_key(rng: np.random.Generator) -> np.uint64:
    """Draw 64 random bits from ``rng``, advancing it."""
    return rng.integers(KEY_BOUND, dtype=np.uint64)


def mix(z: Value) -> Value:
    """SplitMix64's output function of uint64 values."""
    for shift, multiplier in MIX_STEPS:
        z = z.bitwise_xor(z.shift_right(shift)) * multiplier
    return z.bitwise_xor(z.shift_right(LAST_SHIFT))


def multiply_high(a: Value, b: Value) -> Value:
    """The high 64 bits of the 128-bit product of the uint64 values ``a`` and ``b``."""

    def high(x):
        return x.shift_right(32)

    def low(x):
        return x.bitwise_and(2**32 - 1)

    low_low = low(a) * low(b)
    high_low = high(a) * low(b)
    low_high = low(a) * high(b)
    high_high = high(a) * high(b)
    # below 2**64: 2 * (2**32 - 1) + (2**32 - 1) ** 2
    middle = high(low_low) + low(high_low) + low_high
    return high_high + high(high_low) + high(middle)


class Draws:
    """The random bits of one set of draws.

    Parameters
    ----------
    key
        The key, a 0-d uint64 value.
    shape
        The int64 shape of the draws.
    """

    def __init__(self, key: Value, shape: Value):
        self.shape = shape
        self.size = shape.apply("ReduceProd", shape, keepdims=0)
        self.state = key + arange(self.size).cast("uint64") * GOLDEN_GAMMA
        self.stream_step = self.size.cast("uint64") * GOLDEN_GAMMA
        self.streams = 0

    def bits(self, length: Value | None = None) -> Value:
        """A flat vector of random uint64 bits, one per draw or ``length`` of them.

        The ``j``-th call uses the counters ``1 + j * size + i``, so that calls
        never share counters (``length``, an int64 vector of one element, is
        at most ``size``).
        """
        offset = self.stream_step * self.streams + GOLDEN_GAMMA
        self.streams += 1
        state = self.state
        if length is not None:
            state = state.apply("Slice", state, state.indices([0]), length)
        return mix(state + offset)

    def shaped(self, flat: Value) -> Value:
        return flat.apply("Reshape", flat, self.shape)

    def top_bits(self, n_bits: int, length: Value | None = None) -> Value:
        """The top ``n_bits`` of `bits` as float64 integers, flat."""
        return self.bits(length).shift_right(64 - n_bits).cast("float64")

    def flat_uniform(self, length: Value | None = None) -> Value:
        """Uniform variates in ``[0, 1)``: multiples of ``2**-53``."""
        return self.top_bits(53, length) * 2.0**-53

    def flat_open_uniform(self, length: Value | None = None) -> Value:
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
        n_pairs = ((self.size + 1) / 2).unsqueeze([0])
        radius = (self.flat_open_uniform(n_pairs).log() * -2.0).sqrt()
        angle = self.flat_uniform(n_pairs) * (2.0 * np.pi)
        both = concat([radius * angle.cos(), radius * angle.sin()], axis=0)
        flat = both.apply("Slice", both, both.indices([0]), self.size.unsqueeze([0]))
        return self.shaped(flat)

    def standard_cauchy(self) -> Value:
        """``tan(pi (u - 1/2))``, distributed as the ratio of two standard normals."""
        angle = (self.open_uniform() - 0.5) * np.pi
        return angle.sin() / angle.cos()


# Distributions of float64 parameters, by inversion unless noted


def uniform(draws, low, high):
    return low + (high - low) * draws.uniform()


def normal(draws, loc, scale):
    return loc + scale * draws.standard_normal()


def half_normal(draws, loc, scale):
    return loc + scale * abs(draws.standard_normal())


def lognormal(draws, mean, sigma):
    return (mean + sigma * draws.standard_normal()).exp()


def exponential(draws, scale):
    return -scale * draws.open_uniform().log()


def gumbel(draws, loc, scale):
    return loc - scale * (-draws.open_uniform().log()).log()


def cauchy(draws, loc, scale):
    return loc + scale * draws.standard_cauchy()


def half_cauchy(draws, loc, scale):
    return loc + scale * abs(draws.standard_cauchy())


def pareto(draws, b, scale):
    return scale * draws.open_uniform() ** (-1.0 / b)


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


def bernoulli(draws, p):
    return draws.uniform() < p


def integers(draws, low: Value, high: Value) -> Value:
    """Uniform integers in ``[low, high)``, uint64 (Lemire's multiply-high).

    Without the rejection step, each value of a range of width ``w`` has
    probability ``floor(2**64 / w) / 2**64`` or ``ceil(2**64 / w) / 2**64``:
    within ``w / 2**64`` of ``1 / w`` relatively.
    """
    offset = multiply_high(draws.bits(), high - low)
    return draws.shaped(low + offset)


def categorical(draws, p: Value) -> Value:
    """Category indices (int64) drawn with the probabilities ``p`` (last axis).

    ``numpy.searchsorted(p.cumsum(-1), u)``: how many cumulative sums are below ``u``.
    """
    cumulative = p.apply("CumSum", p, p.constant(-1, "int64")).cast("float64")
    below = (cumulative < draws.uniform().unsqueeze([-1])).cast("int64")
    return below.apply("ReduceSum", below, below.indices([-1]), keepdims=0)
