"""Compile the sampler once, run it in chunks of draws, adapt between chunks."""

import functools
import itertools
import time
import weakref
from dataclasses import dataclass, field

import numpy as np
import pytensor.tensor as pt
from pytensor.compile.mode import get_mode
from pytensor.graph.rewriting.db import RewriteDatabaseQuery
from pytensor.scalar import upcast
from pytensor.tensor.random.type import random_generator_type

import pytensor
from pytensor.link.onnx.sampling.adaptation import (
    TARGET_ACCEPT,
    DualAveraging,
    Welford,
    dual_averaging_update,
    empty_welford,
    initial_dual_averaging,
    regularized_variance,
    slow_windows,
    welford_update,
)
from pytensor.link.onnx.sampling.groups import (
    Progress,
    chain_groups,
    group_generators,
    run_in_threads,
    thread_copies,
)
from pytensor.link.onnx.sampling.logdensity import (
    RaveledLogDensity,
    check_log_density,
    converts_to_onnx,
    excluding_under_onnx,
    raveled_log_density,
)
from pytensor.link.onnx.sampling.loops import loop
from pytensor.link.onnx.sampling.nuts import nuts_transition


STAT_NAMES = (
    "diverging",
    "tree_depth",
    "n_steps",
    "step_size",
    "energy",
    "lp",
    "acceptance_rate",
    "energy_error",
    "max_energy_error",
)
EARLY_MAX_TREEDEPTH, EARLY_DRAWS = 8, 200
DRAWS_PER_CHUNK = 100
# The depth the sampler is compiled for; smaller maximum depths are a runtime
# input, so that one compiled sampler serves them all.
COMPILED_TREEDEPTH = 10
# The rewrites the draw loop (besides the Scan rewrites every loop skips, see
# `loop`) and the chunk's outer graph skip under an ONNX mode (measured in the
# sampling documentation): the shape rewrites spent most of their time
# inferring the shapes of the loops inside and changed no loop body.
DRAW_LOOP_EXCLUDED = ("ShapeOpt",)
OUTER_GRAPH_EXCLUDED = ("ShapeOpt",)


@dataclass
class NUTSResult:
    """The draws and statistics of `sample_nuts`.

    Attributes
    ----------
    draws
        One array per value, ``(chains, draws, *value.shape)``, the draws after
        the warm-up.
    stats
        Each ``(chains, draws)``: ``diverging``, ``tree_depth``, ``n_steps``
        (leapfrog steps, i.e. gradient evaluations), ``step_size``,
        ``energy``, ``lp``, ``acceptance_rate``, ``energy_error``,
        ``max_energy_error``.
    warmup_stats
        The same statistics for the warm-up draws, ``(chains, tune)``.
    step_size, inverse_mass_matrix
        The adapted step size ``(chains,)`` and diagonal inverse mass matrix
        ``(chains, n)`` of the raveled values.
    compile_seconds, sampling_seconds
        Wall time spent compiling the sampler (0 when `sample_nuts` reuses the
        sampler it compiled for the same ``logp`` and settings) and running it.
    """

    draws: list[np.ndarray]
    stats: dict[str, np.ndarray]
    warmup_stats: dict[str, np.ndarray]
    step_size: np.ndarray
    inverse_mass_matrix: np.ndarray
    compile_seconds: float = 0.0
    sampling_seconds: float = 0.0


@dataclass
class ChainState:
    """What the sampler carries from one chunk of draws to the next."""

    position: np.ndarray
    inverse_mass: np.ndarray
    dual_averaging: DualAveraging
    welford: Welford
    rng: np.random.Generator

    def inputs(self):
        return [
            self.position,
            self.inverse_mass,
            *self.dual_averaging,
            *self.welford,
            self.rng,
        ]


@dataclass
class ChunkFunction:
    """A compiled chunk of the sampler.

    ``function(*state.inputs(), n_draws, tuning, accumulate, depth_limit)``
    runs ``n_draws`` transitions of every chain and returns the positions
    drawn ``(n_draws, chains, n)``, the statistics (`STAT_NAMES`, each
    ``(n_draws, chains)``) and the next state, in the order of
    `ChainState.inputs`.
    """

    function: object
    log_density: RaveledLogDensity
    max_treedepth: int
    stat_names: tuple[str, ...] = field(default=STAT_NAMES)
    copies: list["ChunkFunction"] = field(default_factory=list, repr=False)

    def copy(self) -> "ChunkFunction":
        """The same chunk in a function of its own, to run in another thread."""
        return ChunkFunction(
            self.function.copy(), self.log_density, self.max_treedepth, self.stat_names
        )

    def __call__(self, state: ChainState, n_draws, tuning, accumulate, depth_limit):
        outputs = self.function(
            *state.inputs(), n_draws, tuning, accumulate, depth_limit
        )
        draws, *rest = outputs
        stats = dict(zip(self.stat_names, rest[: len(self.stat_names)], strict=True))
        position, inverse_mass, *rest = rest[len(self.stat_names) :]
        dual_averaging = DualAveraging(*rest[:5])
        welford = Welford(*rest[5:8])
        next_state = ChainState(
            position, inverse_mass, dual_averaging, welford, rest[8]
        )
        return draws, stats, next_state


def chunk_graph(
    log_density: RaveledLogDensity, n_chains: int, *, target_accept, max_treedepth, mode
):
    """The inputs and outputs of a chunk of draws (see `ChunkFunction`)."""
    n = log_density.size
    dtype = log_density.position.type.dtype
    position = pt.matrix("position", shape=(n_chains, n), dtype=dtype)
    inverse_mass = pt.matrix("inverse_mass", shape=(n_chains, n), dtype=dtype)
    dual_averaging = DualAveraging(
        *(
            pt.vector(name, shape=(n_chains,), dtype=dtype)
            for name in DualAveraging._fields
        )
    )
    welford = Welford(
        pt.scalar("welford_count", dtype=dtype),
        pt.matrix("welford_mean", shape=(n_chains, n), dtype=dtype),
        pt.matrix("welford_m2", shape=(n_chains, n), dtype=dtype),
    )
    rng = random_generator_type("rng")
    n_draws = pt.scalar("n_draws", dtype="int64")
    tuning = pt.scalar("tuning", dtype="bool")
    accumulate = pt.scalar("accumulate", dtype="bool")
    depth_limit = pt.scalar("depth_limit", dtype="int64")
    draw_mode = excluding_under_onnx(mode, DRAW_LOOP_EXCLUDED)

    def draw(q, logp, grad, *state):
        da_state, welford_state, rng = (
            DualAveraging(*state[:5]),
            Welford(*state[5:8]),
            state[8],
        )
        step_size = pt.exp(da_state.log_step)
        transition = nuts_transition(
            log_density.batched,
            q,
            logp,
            grad,
            step_size,
            inverse_mass,
            rng,
            depth_limit,
            max_treedepth,
            mode,
        )
        da_state = dual_averaging_update(
            da_state, transition.acceptance_rate, target_accept, tuning
        )
        welford_state = welford_update(welford_state, transition.q, accumulate)
        stats = (
            transition.diverging,
            transition.tree_depth,
            transition.n_steps,
            step_size,
            transition.energy,
            transition.logp,
            transition.acceptance_rate,
            transition.energy_error,
            transition.max_energy_error,
        )
        return (
            transition.q,
            transition.logp,
            transition.grad,
            *da_state,
            *welford_state,
            transition.rng,
            *stats,
            transition.q,
        )

    logp, grad = log_density.batched(position)
    outputs = loop(
        draw,
        mode=draw_mode,
        outputs_info=[position, logp, grad, *dual_averaging, *welford, rng]
        + [None] * (len(STAT_NAMES) + 1),
        n_steps=n_draws,
    )
    last_position, _, _, *rest = outputs
    next_states, stats, draws = rest[:9], rest[9:-1], rest[-1]
    inputs = [
        position,
        inverse_mass,
        *dual_averaging,
        *welford,
        rng,
        n_draws,
        tuning,
        accumulate,
        depth_limit,
    ]
    outputs = [draws, *stats, last_position, inverse_mass, *next_states]
    names = ["draws", *STAT_NAMES] + [f"next_{var.name}" for var in inputs[:11]]
    for var, name in zip(outputs, names, strict=True):
        if var not in inputs:
            var.name = name
    return inputs, outputs


def compile_chunk_function(
    log_density: RaveledLogDensity, n_chains: int, *, target_accept, max_treedepth, mode
) -> ChunkFunction:
    inputs, outputs = chunk_graph(
        log_density,
        n_chains,
        target_accept=target_accept,
        max_treedepth=max_treedepth,
        mode=mode,
    )
    outer_mode = excluding_under_onnx(mode, OUTER_GRAPH_EXCLUDED)
    function = pytensor.function(inputs, outputs, mode=outer_mode)
    return ChunkFunction(function, log_density, max_treedepth)


COMPILED = weakref.WeakKeyDictionary()
LOG_DENSITIES = weakref.WeakKeyDictionary()
POINT_LOGPS = weakref.WeakKeyDictionary()


def cached(cache, logp, key, mode, build):
    """What ``build()`` returns, built once per ``logp``, ``key`` and ``mode``
    and kept as long as ``logp`` lives, and whether it was built now.

    A mode is keyed by its name, or by its identity while the entry keeps it
    alive.
    """
    per_logp = cache.setdefault(logp, {})
    key = (*key, mode if isinstance(mode, str) else id(mode))
    built = key not in per_logp
    if built:
        per_logp[key] = (build(), mode)
    return per_logp[key][0], built


def cached_log_density(logp, values, shapes, dtype, mode) -> RaveledLogDensity:
    """`raveled_log_density`, built (and rewritten) once per ``logp``, values,
    shapes, dtype and mode: the sampler and `compiled_point_logp` share it."""
    log_density, _ = cached(
        LOG_DENSITIES,
        logp,
        (tuple(values), tuple(shapes), dtype),
        mode,
        lambda: raveled_log_density(logp, values, shapes, dtype, mode),
    )
    return log_density


def compiled_point_logp(logp, values, shapes, mode):
    """``logp`` of ``values`` (of ``shapes``) compiled in ``mode`` for a few
    calls, once per ``logp``, values, shapes and mode.

    Under an ONNX mode the graph compiled is the log-density the sampler
    rewrote before vectorizing it, so it is not rewritten again: checking
    initial points costs a conversion, and a log-density that does not
    convert fails here as it would when the sampler compiles.
    """
    values = list(values)
    shapes = [tuple(int(d) for d in shape) for shape in shapes]
    point_logp, _ = cached(
        POINT_LOGPS,
        logp,
        (tuple(values), tuple(shapes)),
        mode,
        lambda: compile_point_logp(logp, values, shapes, mode),
    )
    return point_logp


def compile_point_logp(logp, values, shapes, mode):
    dtype = upcast(*(value.type.dtype for value in values))
    log_density = cached_log_density(logp, values, shapes, dtype, mode)
    if converts_to_onnx(mode):
        mode = get_mode(mode).clone(optimizer=RewriteDatabaseQuery(include=[]))
    function = pytensor.function([log_density.position], log_density.logp, mode=mode)

    def point_logp(*point):
        return function(np.concatenate([np.ravel(x) for x in point]).astype(dtype))

    return point_logp


def cached_chunk_function(logp, values, shapes, n_chains, dtype, **settings):
    """The chunk function of ``logp``, compiled once per values, shapes and
    settings, and the seconds compiling it took now (0 if compiled before).

    Kept as long as ``logp`` lives, so that sampling the same graph again (other
    seeds, other data in shared variables) does not compile it again.
    """
    mode = settings["mode"]
    start = time.perf_counter()
    chunk, built = cached(
        COMPILED,
        logp,
        (
            tuple(values),
            tuple(shapes),
            n_chains,
            dtype,
            settings["target_accept"],
            settings["max_treedepth"],
        ),
        mode,
        lambda: compile_chunk_function(
            cached_log_density(logp, values, shapes, dtype, mode), n_chains, **settings
        ),
    )
    return chunk, time.perf_counter() - start if built else 0.0


def initial_state(
    log_density: RaveledLogDensity, initial_points, random_seed
) -> ChainState:
    """The state before the warm-up: PyMC's initial step size, a unit mass matrix."""
    n = log_density.size
    dtype = log_density.position.type.dtype
    n_chains = np.shape(initial_points[0])[0]
    position = np.concatenate(
        [np.asarray(p, dtype=dtype).reshape(n_chains, -1) for p in initial_points],
        axis=1,
    )
    step_size = np.full(n_chains, 0.25 / n**0.25)
    return ChainState(
        position=position,
        inverse_mass=np.ones((n_chains, n), dtype=dtype),
        dual_averaging=DualAveraging(
            *(x.astype(dtype) for x in initial_dual_averaging(step_size))
        ),
        welford=empty_welford(n_chains, n, dtype),
        rng=np.random.default_rng(random_seed),
    )


def nuts_chunk_function(
    logp,
    values,
    initial_points,
    *,
    random_seed=None,
    target_accept=TARGET_ACCEPT,
    max_treedepth=10,
    mode="ONNX",
) -> tuple[ChunkFunction, ChainState]:
    """The compiled chunk of draws `sample_nuts` runs, and its initial state.

    ``chunk.function`` takes the state (``ChainState.inputs()``: positions,
    inverse mass matrix, dual-averaging and Welford accumulators, the random
    generator) and ``n_draws``, ``tuning``, ``accumulate``, ``depth_limit``;
    it returns the draws, the statistics and the next state. Under
    ``mode="ONNX"``, ``export_onnx(chunk.function, path)`` writes it as a
    model that takes the generator as a uint64 key.
    """
    chunk, _ = compiled_chunk(
        logp, values, initial_points, target_accept, max_treedepth, mode
    )
    return chunk, initial_state(chunk.log_density, initial_points, random_seed)


def compiled_chunk(logp, values, initial_points, target_accept, max_treedepth, mode):
    """The (cached) compiled chunk of ``logp`` of ``values`` for chains started
    at ``initial_points``, and the seconds compiling it took."""
    values = list(values)
    check_log_density(logp, values)
    n_chains, shapes = value_shapes(values, initial_points)
    return cached_chunk_function(
        logp,
        values,
        shapes,
        n_chains,
        upcast(*(value.type.dtype for value in values)),
        target_accept=target_accept,
        max_treedepth=max_treedepth,
        mode=mode,
    )


def value_shapes(values, initial_points) -> tuple[int, list[tuple[int, ...]]]:
    """The number of chains and the shapes of the values, from the initial points."""
    if len(initial_points) != len(values):
        raise ValueError(
            f"Got {len(initial_points)} initial points for {len(values)} values: "
            "give one array (chains, *value.shape) per value."
        )
    points = [np.asarray(point) for point in initial_points]
    n_chains = points[0].shape[0] if points[0].ndim else None
    shapes = []
    for value, point in zip(values, points, strict=True):
        static = value.type.shape
        shape = point.shape[1:]
        if (
            point.ndim != value.type.ndim + 1
            or point.shape[0] != n_chains
            or any(s is not None and s != d for s, d in zip(static, shape, strict=True))
        ):
            raise ValueError(
                f"The initial point of {value} has shape {point.shape}; expected "
                f"(chains, *{static}) with the same number of chains for every value"
                + (f" ({n_chains})." if n_chains is not None else ".")
            )
        shapes.append(tuple(int(d) for d in shape))
    return n_chains, shapes


@dataclass(frozen=True)
class Segment:
    """Consecutive draws run with the same settings."""

    start: int
    stop: int
    tuning: bool
    accumulate: bool
    depth_limit: int
    closes_window: bool


def schedule(tune: int, draws: int, max_treedepth: int) -> list[Segment]:
    """The chunks of draws: warm-up windows, the early depth limit, then the draws."""
    windows = slow_windows(tune)
    early = min(EARLY_DRAWS, tune) if max_treedepth > EARLY_MAX_TREEDEPTH else 0
    cuts = {0, tune, tune + draws, early}
    cuts.update(edge for window in windows for edge in window)
    cuts.update(range(0, tune + draws, DRAWS_PER_CHUNK))
    edges = sorted(cut for cut in cuts if 0 <= cut <= tune + draws)
    ends = {end for _, end in windows}
    return [
        Segment(
            start,
            stop,
            tuning=start < tune,
            accumulate=any(a <= start < b for a, b in windows),
            depth_limit=EARLY_MAX_TREEDEPTH if stop <= early else max_treedepth,
            closes_window=stop in ends,
        )
        for start, stop in itertools.pairwise(edges)
        if stop > start
    ]


def sample_nuts(
    logp,
    values,
    initial_points,
    *,
    draws=1000,
    tune=1000,
    random_seed=None,
    target_accept=TARGET_ACCEPT,
    max_treedepth=10,
    mode="ONNX",
    progressbar=False,
    cores=1,
) -> NUTSResult:
    """Draw from the density ``exp(logp)`` of ``values`` with NUTS, chains in one graph.

    The whole transition (tree doublings, leapfrog steps, U-turn checks,
    step-size adaptation) is one PyTensor graph over all chains at once,
    compiled once in ``mode``: under ``mode="ONNX"`` one onnxruntime model.
    The sampler runs it for chunks of draws and adapts the mass matrix
    between chunks. With ``cores > 1`` the chains are split into groups, each
    run by its own compiled sampler in its own thread.

    Parameters
    ----------
    logp
        Scalar log-density (up to a constant) of ``values``. It may use shared
        variables and constants, but no other root input.
    values
        Root float variables of ``logp``, of any number of dimensions.
    initial_points
        One array ``(chains, *value.shape)`` per value.
    draws, tune
        Draws kept after, and warm-up draws before, adaptation ends.
    random_seed
        ``None``, an integer or a ``numpy.random.Generator``.
    target_accept
        The acceptance rate the step size is tuned to.
    max_treedepth
        At most ``2**max_treedepth - 1`` leapfrog steps per draw. Like PyMC,
        the first 200 warm-up draws stop at depth 8.
    mode
        Any PyTensor mode.
    progressbar
        Print progress to standard error after each chunk of draws.
    cores
        The number of groups the chains are split into (as evenly as possible,
        at most one per chain), each sampled in its own thread with its own
        random stream spawned from ``random_seed``; the results are in chain
        order. ``cores=1`` samples all chains as one batch in this thread. The
        draws of a seed depend on the number of chains and on ``cores``, which
        is why it defaults to 1 rather than the machine's CPU count. Groups
        run at once where CPUs are free (onnxruntime releases the GIL), but a
        leapfrog step costs about as much for one chain as for a batch, so
        ``cores=1`` does the least work; see "Many chains" in the
        documentation's sampling page for when more cores pay.

    Returns
    -------
    NUTSResult

    Examples
    --------
    >>> import numpy as np
    >>> import pytensor.tensor as pt
    >>> from pytensor.link.onnx.sampling import sample_nuts
    >>> x = pt.vector("x", shape=(2,))
    >>> logp = -0.5 * (x**2).sum()
    >>> result = sample_nuts(logp, [x], [np.zeros((2, 2))], draws=50, tune=50, random_seed=1)
    >>> result.draws[0].shape, result.stats["tree_depth"].shape
    ((2, 50, 2), (2, 50))
    """
    values = list(values)
    check_log_density(logp, values)
    n_chains, _ = value_shapes(values, initial_points)
    groups = chain_groups(n_chains, cores)
    chunks, compile_seconds = group_chunks(
        logp,
        values,
        initial_points,
        groups,
        target_accept,
        max(max_treedepth, COMPILED_TREEDEPTH),
        mode,
    )
    log_density = chunks[0].log_density
    segments = schedule(tune, draws, max_treedepth)
    progress = Progress(len(groups), tune, draws, progressbar)
    tasks = [
        functools.partial(
            run_group,
            chunk,
            initial_state(
                log_density, [np.asarray(p)[group] for p in initial_points], rng
            ),
            segments,
            tune,
            functools.partial(progress.update, index),
        )
        for index, (chunk, group, rng) in enumerate(
            zip(chunks, groups, group_generators(random_seed, len(groups)), strict=True)
        )
    ]
    start_time = time.perf_counter()
    runs = run_in_threads(tasks)
    sampling_seconds = time.perf_counter() - start_time
    progress.close()

    all_draws = np.concatenate([run[0] for run in runs], axis=1).swapaxes(0, 1)
    all_stats = {
        name: np.concatenate([run[1][name] for run in runs], axis=1).swapaxes(0, 1)
        for name in STAT_NAMES
    }
    states = [run[2] for run in runs]
    log_step = "log_step" if tune == 0 else "log_step_bar"
    step_size = np.exp(
        np.concatenate([getattr(s.dual_averaging, log_step) for s in states])
    )
    return NUTSResult(
        draws=log_density.split(all_draws[:, tune:], [v.type.dtype for v in values]),
        stats={name: stat[:, tune:] for name, stat in all_stats.items()},
        warmup_stats={name: stat[:, :tune] for name, stat in all_stats.items()},
        step_size=step_size,
        inverse_mass_matrix=np.concatenate([s.inverse_mass for s in states]),
        compile_seconds=compile_seconds,
        sampling_seconds=sampling_seconds,
    )


def group_chunks(
    logp, values, initial_points, groups, target_accept, max_treedepth, mode
):
    """A compiled chunk per group of chains, that can all run at once: groups
    of the same size share one compilation, in copies of its function; and the
    seconds compiling and copying took now."""
    sizes = [group.stop - group.start for group in groups]
    compiled, seconds = {}, 0.0
    for group, size in zip(groups, sizes, strict=True):
        if size not in compiled:
            points = [np.asarray(p)[group] for p in initial_points]
            compiled[size], took = compiled_chunk(
                logp, values, points, target_accept, max_treedepth, mode
            )
            seconds += took
    copies = {}
    for size, chunk in compiled.items():
        copies[size], took = thread_copies(chunk, sizes.count(size))
        seconds += took
    return [copies[size].pop(0) for size in sizes], seconds


def run_group(chunk, state, segments, tune, on_segment):
    """Run the chains of ``state`` through ``segments``: their draws
    ``(tune + draws, chains, n)``, statistics and last state."""
    log_density = chunk.log_density
    dtype = log_density.position.type.dtype
    n_chains = state.position.shape[0]
    draw_chunks, stat_chunks = [], []
    for segment in segments:
        if segment.start == tune and tune > 0:
            da = state.dual_averaging
            state.dual_averaging = da._replace(log_step=da.log_step_bar)
        chunk_draws, stats, state = chunk(
            state,
            np.int64(segment.stop - segment.start),
            np.bool_(segment.tuning),
            np.bool_(segment.accumulate),
            np.int64(segment.depth_limit),
        )
        draw_chunks.append(chunk_draws)
        stat_chunks.append(stats)
        if segment.closes_window:
            state.inverse_mass = regularized_variance(state.welford).astype(dtype)
            state.welford = empty_welford(n_chains, log_density.size, dtype)
        on_segment(segment.stop, stats)
    stats = {
        name: np.concatenate([s[name] for s in stat_chunks], axis=0)
        for name in STAT_NAMES
    }
    return np.concatenate(draw_chunks, axis=0), stats, state
