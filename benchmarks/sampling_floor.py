"""What onnxruntime allows an in-graph sampler per gradient, per PyMC workload.

For each PyMC workload of ``pymc_workloads.py`` (those ``sampling.py`` runs),
in one process, pinned to one core and one thread per library:

- ``C``: ``pm.sample`` with the default backend, 1 chain, ``cores=1``,
  300 warm-up iterations and 300 draws: its reported sampling time over its
  leapfrog steps (warm-up included), PyMC's cost per gradient evaluation
  with its Python NUTS;
- ``sampler``: the chunk function of ``pytensor.link.onnx.sampling`` for 4
  chains (``nuts_chunk_function``, from the jittered initial points
  ``pytensor.link.onnx.pymc.sample`` starts from), warmed up by 300 warm-up
  draws as the sampler runs them (step size and mass-matrix windows), then one
  chunk of 100 draws timed (from the same state each time): its time over the
  leapfrog steps of all chains. ``chains`` is how many of the 4 chains a
  batched leapfrog iteration advances on average (a draw runs as many
  iterations as its chain with the most steps);
- ``floor``: a loop of 2,000 bare leapfrog steps of the same batched
  log-density for 4 chains (``p += h g; q += h M^-1 p; logp, g = f(q)``, a
  tiny fixed step), compiled with ``mode="ONNX"``, its time over 2,000 x 4
  gradients: what any in-graph HMC or NUTS pays per gradient on
  onnxruntime at best (every chain active, no bookkeeping).

The three runs alternate, 3 rounds (other load on the machine then slows them
all alike), and each keeps its fastest round.

Node counts: the one-point log-density and gradient (``sampling.py``'s
count), the sampler's leapfrog loop body and the floor's loop body (ONNX
nodes, ``If`` branches included). ``C/sampler`` and ``C/floor`` divide the
C time per gradient by the others: how much faster per gradient than
``pm.sample`` the sampler is, and the most any in-graph sampler on onnxruntime
could be, before compilation and before any difference in effective samples
per gradient.

PyMC pins PyTensor 2.38.x, so it runs in that environment; pin it to one CPU::

    taskset -c 1 .venv-2.38.3/bin/python benchmarks/sampling_floor.py [--only "eight schools"]
    .venv-2.38.3/bin/python benchmarks/sampling_floor.py --quick   # seconds, the smoke test
"""

import argparse
import copy
import logging
import platform
import time
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime

from sampling import QUICK_WORKLOAD, SEED, leapfrog_steps, limit_cores, step_node_count


CHAINS = 4


@dataclass(frozen=True)
class Settings:
    tune: int
    draws: int
    floor_steps: int
    repeats: int


FULL = Settings(tune=300, draws=100, floor_steps=2000, repeats=3)
QUICK = Settings(tune=10, draws=5, floor_steps=20, repeats=1)
PM_SAMPLE_DRAWS = 300
QUICK_PM_SAMPLE_DRAWS = 10
FLOOR_STEP_SIZE = 1e-4


def pm_sample_run(model, tune, draws):
    """A run of ``pm.sample`` (default backend, 1 chain): its sampling time
    per leapfrog step."""
    import pymc as pm

    def run():
        idata = pm.sample(
            model=model,
            chains=1,
            cores=1,
            tune=tune,
            draws=draws,
            random_seed=SEED,
            progressbar=False,
            discard_tuned_samples=False,
            compute_convergence_checks=False,
        )
        return idata.posterior.attrs["sampling_time"] / leapfrog_steps(idata)

    return run


def warmed_up_chunk(model, tune):
    """The sampler's compiled chunk of 4 chains and its state after ``tune``
    warm-up draws, ready for the draws."""
    from pytensor.link.onnx.pymc.sampling import (
        jittered_initial_points,
        model_logp,
        seeds_per_chain,
    )
    from pytensor.link.onnx.sampling import nuts_chunk_function
    from pytensor.link.onnx.sampling.driver import run_group, schedule

    logp = model_logp(model)
    init_seeds, sampler_rng = seeds_per_chain(SEED, CHAINS)
    points = jittered_initial_points(model, logp, init_seeds, "ONNX")
    chunk, state = nuts_chunk_function(
        logp, model.value_vars, points, random_seed=sampler_rng
    )
    segments = schedule(tune, 0, chunk.max_treedepth)
    _, _, state = run_group(chunk, state, segments, tune, lambda *_: None)
    da = state.dual_averaging
    state.dual_averaging = da._replace(log_step=da.log_step_bar)
    return chunk, state


def timed(run):
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def sampler_run(chunk, state, draws):
    """A run of ``draws`` draws of the chunk from ``state`` (the same draws
    each time): seconds per leapfrog step of one chain, and the chains a
    batched iteration advances on average."""
    import numpy as np

    def run():
        seconds, (_, stats, _) = timed(
            lambda: chunk(
                copy.deepcopy(state),
                np.int64(draws),
                np.bool_(False),
                np.bool_(False),
                np.int64(chunk.max_treedepth),
            )
        )
        steps = int(stats["n_steps"].sum())
        # A doubling runs as many iterations as its longest chain, so a draw
        # as many as its chain with the most steps (the deepest tree)
        iterations = int(stats["n_steps"].max(axis=1).sum())
        return seconds / steps, steps / iterations

    return run


def floor_function(log_density, n_chains):
    """A loop of bare leapfrog steps of ``log_density`` for ``n_chains`` chains,
    compiled with ``mode="ONNX"``: ``f(q, p, inverse_mass, step, n_steps)``."""
    import pytensor.tensor as pt

    import pytensor
    from pytensor.link.onnx.sampling.loops import loop

    n = log_density.size
    dtype = log_density.position.type.dtype
    q0, p0, inverse_mass = (
        pt.matrix(name, shape=(n_chains, n), dtype=dtype)
        for name in ("q", "p", "inverse_mass")
    )
    step = pt.scalar("step", dtype=dtype)
    n_steps = pt.scalar("n_steps", dtype="int64")
    logp0, grad0 = log_density.batched(q0)

    def leapfrog(q, p, grad, logp, step, step_velocity):
        p = p + step * grad
        q = q + step_velocity * p
        logp, grad = log_density.batched(q)
        return q, p, grad, logp

    # The step times the inverse mass is computed once, as the sampler does
    outputs = loop(
        leapfrog,
        outputs_info=[q0, p0, grad0, logp0],
        n_steps=n_steps,
        non_sequences=[step, step * inverse_mass],
        mode="ONNX",
    )
    return pytensor.function(
        [q0, p0, inverse_mass, step, n_steps], outputs, mode="ONNX"
    )


def floor_run(chunk, state, n_steps):
    """A run of the bare leapfrog loop from the chunk's ``state``: seconds
    per gradient of one chain; and the nodes of the loop's body."""
    import numpy as np

    from pytensor.link.onnx.passes.graphs import nodes_per_loop_depth

    function = floor_function(chunk.log_density, CHAINS)
    dtype = state.position.dtype
    inputs = (
        state.position,
        np.zeros_like(state.position),
        state.inverse_mass,
        np.asarray(FLOOR_STEP_SIZE, dtype=dtype),
    )

    def run():
        seconds, (_, _, _, logp) = timed(lambda: function(*inputs, np.int64(n_steps)))
        if not np.isfinite(logp).all():
            raise FloatingPointError(
                f"the floor's leapfrog reached log-densities {logp}"
            )
        return seconds / (n_steps * CHAINS)

    function(*inputs, np.int64(1))
    return run, nodes_per_loop_depth(function.maker.linker.onnx_model.graph)[1]


def measure(build_model, settings, quick):
    """One workload's row, or why it could not be measured.

    The three runs alternate within each repeat, so that other load on the
    machine spreads over all of them; each keeps its best repeat.
    """
    from pytensor.link.onnx.passes.graphs import nodes_per_loop_depth

    pm_draws = QUICK_PM_SAMPLE_DRAWS if quick else PM_SAMPLE_DRAWS
    try:
        c_run = pm_sample_run(build_model(quick), pm_draws, pm_draws)
        chunk, state = warmed_up_chunk(build_model(quick), settings.tune)
        run_sampler = sampler_run(chunk, state, settings.draws)
        run_floor, floor_nodes = floor_run(chunk, state, settings.floor_steps)
        c, sampler, floor = float("inf"), float("inf"), float("inf")
        for _ in range(settings.repeats):
            c = min(c, c_run())
            sampler_step, chains = run_sampler()
            sampler = min(sampler, sampler_step)
            floor = min(floor, run_floor())
    except Exception as err:  # a workload that fails is reported, the others run
        return {"error": f"{type(err).__name__}: {str(err).splitlines()[0]}"}
    graph = chunk.function.maker.linker.onnx_model.graph
    return {
        "log_density_nodes": step_node_count(build_model(quick)),
        "leapfrog_nodes": nodes_per_loop_depth(graph)[3],
        "floor_nodes": floor_nodes,
        "chains": chains,
        "c_us": c * 1e6,
        "sampler_us": sampler * 1e6,
        "floor_us": floor * 1e6,
    }


def header(settings, pm_draws, cpus):
    import onnxruntime
    import pymc as pm
    from report import cpu_model

    import pytensor

    print(
        f"benchmarks/sampling_floor.py, {datetime.now(UTC):%Y-%m-%d}: "
        f"CPU {cpu_model()} ({platform.machine()}), one thread, CPUs {cpus}; "
        f"PyTensor {pytensor.__version__}, PyMC {pm.__version__}, "
        f"onnxruntime {onnxruntime.__version__}; "
        f"pm.sample C: 1 chain x {pm_draws} warm-up + {pm_draws} draws; "
        f"sampler: {CHAINS} chains, {settings.tune} warm-up draws, then "
        f"{settings.draws} draws timed; floor: {settings.floor_steps} leapfrog "
        f"steps x {CHAINS} chains; the three alternate, best of {settings.repeats}\n"
    )
    print("nodes: ONNX nodes of the log-density and gradient / leapfrog body / floor")
    print("body; chains: chains a batched leapfrog iteration advances (of 4);")
    print("us per gradient of one chain: pm.sample C, this sampler, the floor\n")


COLUMNS = (
    f"{'workload':22} {'nodes':>15} {'chains':>6} {'C us':>7} {'sampler':>8} "
    f"{'floor':>7} {'C/sampler':>9} {'C/floor':>7}"
)


def row(name, result):
    if "error" in result:
        return f"{name:22} failed: {result['error']}"
    nodes = "/".join(
        str(result[k]) for k in ("log_density_nodes", "leapfrog_nodes", "floor_nodes")
    )
    return (
        f"{name:22} {nodes:>15} {result['chains']:6.2f} {result['c_us']:7.1f} "
        f"{result['sampler_us']:8.1f} {result['floor_us']:7.1f} "
        f"{result['c_us'] / result['sampler_us']:9.2f} "
        f"{result['c_us'] / result['floor_us']:7.2f}"
    )


def main(quick, only, cpus):
    from pymc_workloads import MODEL_BUILDERS, PYMC_WORKLOADS, pymc_missing_reason

    if reason := pymc_missing_reason():
        print(f"skipped: {reason}")
        return
    import pymc  # noqa: F401  (PyMC sets its logger to INFO on import)

    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    settings = QUICK if quick else FULL
    header(settings, QUICK_PM_SAMPLE_DRAWS if quick else PM_SAMPLE_DRAWS, cpus)
    workloads = [
        w.name
        for w in PYMC_WORKLOADS
        if (
            w.name == QUICK_WORKLOAD
            if quick
            else not only or any(o in w.name for o in only)
        )
    ]
    print(COLUMNS)
    for name in workloads:
        result = measure(MODEL_BUILDERS[name], settings, quick)
        print(row(name.removeprefix("pymc "), result), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="eight schools only, small data, a few draws and steps (the smoke test)",
    )
    parser.add_argument(
        "--only", action="append", help="substring of a workload name (repeatable)"
    )
    args = parser.parse_args()
    cpus = limit_cores(1)  # before NumPy loads
    main(args.quick, args.only, cpus)
