"""Random draws computed from a key: a counter-based SplitMix64 generator.

A random generator enters a model as a uint64 *key*. Draws are functions of
the key alone, with wrapping uint64 arithmetic:

- ``bits(key, i) = mix(key + i * 0x9E3779B97F4A7C15)`` is output ``i`` of
  SplitMix64 seeded with ``key``; draws use the counters ``i >= 1``, one per
  uniform variate they need;
- the key of the next generator is ``bits(key, 0)``, `mix` of the key.

Samplers that need several independent streams (a rejection sampler's
rounds, the two gammas of a beta) take them from *derived keys*
``mix(key + (j + 1) * 0xD1B54A32D192ED03)``, each the key of a new
counter stream (see `Draws.derived`).

Uniform variates are made of the top bits: ``(bits >> 11) * 2**-53`` in
``[0, 1)``, or ``((bits >> 12) + 0.5) * 2**-52`` in ``(0, 1)`` where a
logarithm needs it. Every distribution here is an exact transformation of
them (inversion, Box-Muller) computed in float64; ``integers`` keeps the high
64 bits of the product of 64 random bits and the width of the range.

`draw_key` is the NumPy side: the key a ``numpy.random.Generator`` hands to
a model.
"""

import numpy as np

from pytensor.link.onnx.value import Value, arange, concat, either, where


GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX_STEPS = ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB))
LAST_SHIFT = 31
KEY_BOUND = 2**64
SPLIT_GAMMA = 0xD1B54A32D192ED03
# Rounds of a rejection sampler before it gives up. Each sampler accepts a
# proposal with probability above 1/2 (above 0.95 for most), so the chance
# that one of 10**9 draws is still pending after 200 rounds is below 1e-50.
MAX_ROUNDS = 200
# Inversion ends past the mode where the next probabilities fall below this
# fraction of the cumulative probability, below the resolution of the uniform
# variates (2**-53).
NEGLIGIBLE = 2.0**-60


def draw_key(rng: np.random.Generator) -> np.uint64:
    """Draw 64 random bits from ``rng``, advancing it."""
    return rng.integers(KEY_BOUND, dtype=np.uint64)


def derived_key(key: Value, index) -> Value:
    """The key of stream ``index`` derived from ``key`` (an int or a 0-d uint64 value)."""
    if isinstance(index, int):
        return mix(key + ((index + 1) * SPLIT_GAMMA) % KEY_BOUND)
    return mix(key + (index + 1) * SPLIT_GAMMA)


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
        self.key = key
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

    def derived(self, index, shape: Value | None = None) -> "Draws":
        """Draws of another stream, independent of these: from `derived_key`
        ``index`` (an int or a 0-d uint64 value), of ``shape`` (by default this one)."""
        return Draws(
            derived_key(self.key, index), self.shape if shape is None else shape
        )

    def shaped(self, flat: Value) -> Value:
        return flat.reshape(self.shape)

    def flat(self, value: Value) -> Value:
        """``value`` broadcast to the shape of the draws, flat.

        It is computed from the key, which onnxruntime cannot fold: folding
        the constant parameters of a draw of static shape into arrays of that
        shape makes creating the session slow (a minute for a million draws).
        """
        zero = self.key.bitwise_and(0).cast(value.dtype)
        unfoldable = value | zero if value.dtype == "bool" else value + zero
        return unfoldable.expand(self.shape).reshape(self.size.unsqueeze([0]))

    def unfoldable_zeros(self, shape: Value) -> Value:
        """float64 zeros of ``shape``, computed from the key (see `flat`)."""
        return self.key.bitwise_and(0).cast("float64").expand(shape)

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


def settle(step, fixed, state: dict, pending: Value, result: Value, max_rounds, hint):
    """Run ``step`` on the pending elements of ``result`` until none is left,
    in one ONNX ``Loop`` whose rounds cost what their pending elements do.

    Parameters
    ----------
    step
        ``step(round, *fixed, **state)`` on the pending elements (``round``
        counts from 0, int64) returns their next state (a dict), where they
        are finished and their values there.
    fixed
        float64 vectors the step reads, at the pending elements: they travel
        with them (compressing them with the state costs less than gathering
        them anew each round).
    state
        The initial state of the pending elements, float64 vectors by name.
    pending
        The int64 indices of the elements to compute.
    result
        The float64 vector of all elements, those not pending already final.
    max_rounds
        The most rounds the ``Loop`` runs.
    hint
        A name for the ``Loop``.

    Returns
    -------
    tuple of Value
        ``result`` with the values of the finished elements scattered in, and
        the indices of the elements still pending after ``max_rounds`` rounds.
    """
    carried = {**{f"fixed_{i}": value for i, value in enumerate(fixed)}, **state}
    body = result.builder.loop_body(f"{hint}_body")
    iteration = body.value(body.inputs[0].name, "int64")
    old_result = body.value(body.add_input("result", "float64", (None,)), "float64")
    old_pending = body.value(body.add_input("pending", "int64", (None,)), "int64")
    old = {
        name: body.value(body.add_input(name, "float64", (None,)), "float64")
        for name in carried
    }
    at_pending = [old[f"fixed_{i}"] for i in range(len(fixed))]
    new_state, finished, value = step(
        iteration, *at_pending, **{name: old[name] for name in state}
    )
    finished_at = old_pending.compress(finished).unsqueeze([-1])
    new_result = old_result.apply(
        "ScatterND", old_result, finished_at, value.compress(finished)
    )
    running = ~finished
    new_pending = old_pending.compress(running)
    body.add_output((new_pending.dim(0) > 0).name, "more", "bool", ())
    body.add_output(new_result.name, "result", "float64", (None,))
    body.add_output(new_pending.name, "pending", "int64", (None,))
    new = {**dict(zip(carried, at_pending, strict=False)), **new_state}
    for name in carried:
        body.add_output(new[name].compress(running).name, name, "float64", (None,))
    result, pending, *_ = result.apply_multi(
        "Loop",
        result.indices(max_rounds),
        pending.dim(0) > 0,
        result,
        pending,
        *carried.values(),
        dtypes=["float64", "int64"] + ["float64"] * len(carried),
        body=body.make_graph(),
        hint=hint,
    )
    return result, pending


def nonzero(condition: Value) -> Value:
    """The int64 indices where the bool vector ``condition`` holds."""
    return condition.apply("NonZero", condition).squeeze([0])


def until_accepted(propose, draws: Draws, *params: Value, skip: Value, name: str):
    """Rejection sampling of every draw at once, in one ONNX ``Loop`` whose
    rounds propose candidates for the pending draws only (see `settle`).

    Round ``r`` calls ``propose(round_draws, *flat_params)``, with the bits of
    the derived stream ``r`` and the parameters of the pending draws; it
    returns flat float64 candidates and where they are accepted. The function
    raises ``RuntimeError`` if some draw is still pending after `MAX_ROUNDS`
    rounds.

    Parameters
    ----------
    propose
        One round of the sampler, on flat float64 vectors.
    draws
        The draws to make, whose key derives the rounds' keys.
    params
        float64 parameters broadcasting to the shape of the draws.
    skip
        Where no draw is needed (a bool broadcasting to the shape of the
        draws): those elements are 0.
    name
        The distribution, for the ``Loop``'s name and the error message.
    """

    flat_params = [draws.flat(param) for param in params]
    needed = ~draws.flat(skip)
    first = Draws(derived_key(draws.key, 0), draws.size.unsqueeze([0]))
    candidate, accepted = propose(first, *flat_params)

    def step(iteration, *params):
        round_key = derived_key(
            draws.key.into(iteration.builder), (iteration + 1).cast("uint64")
        )
        candidate, accepted = propose(Draws(round_key, params[0].shape()), *params)
        return {}, accepted, candidate

    # few draws are pending after the first round: gather their parameters
    pending = nonzero(needed & ~accepted)
    draw, pending = settle(
        step,
        [param.take(pending, axis=0) for param in flat_params],
        {},
        pending,
        where(needed, candidate, 0.0),
        max(MAX_ROUNDS - 1, 0),
        f"{name}_rejection",
    )
    skipped = [draws.unfoldable_zeros(draws.size.unsqueeze([0])), needed.indices([])]
    draw, pending = either(needed.any(), [draw, pending], skipped)
    draws.key.builder.require(
        pending.dim(0).eq(0),
        RuntimeError,
        f"the {name} sampler did not accept every draw within {MAX_ROUNDS} "
        "rounds of rejection sampling",
        is_scalar=True,
    )
    return draws.shaped(draw)


def inverse_search(ratio, draws: Draws, *params, start_pmf, last=None, skip, name):
    """Discrete inversion: the first ``k`` whose cumulative probability reaches ``u``.

    A sequential search for all draws at once in one ONNX ``Loop`` over the
    draws still searching (see `settle`), from ``k = 0`` of probability
    ``start_pmf``, with ``pmf(k + 1) = pmf(k) ratio(k, *params)``. The search
    of a draw stops where the cumulative probability reaches its uniform
    variate, at ``last`` (the end of the support, if finite), or past the
    mode once the next probabilities are below the rounding of the
    cumulative one.

    Parameters
    ----------
    ratio
        ``ratio(k, *params)`` of flat float64 vectors.
    draws
        The draws; one uniform variate each.
    params, start_pmf, last
        float64 values broadcasting to the shape of the draws.
    skip
        Where no draw is needed (a bool): those give 0.
    name
        The distribution, for the ``Loop``'s name.
    """
    u = draws.flat(draws.uniform())
    pmf = draws.flat(start_pmf)
    ends = [] if last is None else [draws.flat(last)]
    done = draws.flat(skip) | (u <= pmf)
    if ends:
        done = done | (ends[0] <= 0.0)

    def step(iteration, u, *rest, pmf, cdf):
        last, params = rest[: len(ends)], rest[len(ends) :]
        k = iteration.cast("float64")  # where every searching draw is
        factor = ratio(k, *params)
        next_pmf = pmf * factor
        next_k = k + 1.0
        next_cdf = cdf + next_pmf
        ended = (factor < 1.0) & (next_pmf < NEGLIGIBLE * cdf)
        if last:
            ended = ended | (next_k >= last[0])
        state = {"pmf": next_pmf, "cdf": next_cdf}
        return state, (u <= next_cdf) | ended, next_k.expand(u.shape())

    # most draws search: select theirs by Compress, cheaper than Gather
    searching = ~done
    fixed = [u, *ends, *(draws.flat(param) for param in params)]
    k, _ = settle(
        step,
        [value.compress(searching) for value in fixed],
        {"pmf": pmf.compress(searching), "cdf": pmf.compress(searching)},
        nonzero(searching),
        u * 0.0,
        2**62,
        f"{name}_inversion",
    )
    [k] = either((~draws.flat(skip)).any(), [k], [u * 0.0])
    return draws.shaped(k)
