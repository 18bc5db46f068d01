"""Time to a posterior: ``pytensor.link.onnx.pymc.sample`` against ``pm.sample``.

For each PyMC workload of ``pymc_workloads.py``, side by side in one process,
each sampler takes the model to an ``InferenceData`` (compilation included) with
4 chains of 1,000 warm-up iterations and 1,000 draws:

- ``ONNX NUTS``: ``pytensor.link.onnx.pymc.sample``, the whole NUTS sampler
  as one ONNX graph, the chains on an axis;
- ``pm.sample C``: ``pm.sample`` with the default backend (C, in PyTensor 2.38);
- ``pm.sample Numba``: ``compile_kwargs={"mode": "NUMBA"}``;
- ``pm.sample ONNX``: ``compile_kwargs={"mode": "ONNX"}`` (PyMC's Python NUTS
  calling an ONNX log-density);
- ``numpyro``: ``pm.sample(nuts_sampler="numpyro")``, when JAX and numpyro
  are installed (otherwise the column is skipped, with the reason).

By default each sampler has one core: ``pm.sample`` runs its chains one after
the other (``cores=1``), numpyro too (``chain_method="sequential"``), and
every library gets one thread (BLAS, OpenMP, onnxruntime, XLA). With
``--cores N`` each sampler gets N: ``pm.sample(cores=N)`` (N processes),
``sample(..., cores=N)`` (chain groups in N threads), numpyro
``chain_method="parallel"`` (a chain per XLA CPU device: PyMC makes 100), N
threads per library; on a machine with more than N CPUs the process (and the
processes it starts) is bound to N of them. Compilation is included in every
sampler's wall time. Printed per sampler: the
wall time from the model to the ``InferenceData``, the sampling time the
sampler reports, the smallest and the median bulk ESS over the posterior's
scalars, the smallest bulk ESS per second of wall time (and its ratio to
``pm.sample C``), leapfrog steps (gradient evaluations, warm-up included) per
second of sampling (``nan`` for numpyro: PyMC keeps none of its warm-up
statistics), and the divergences. Per workload: the ONNX node count of
the log-density and gradient (what one leapfrog step evaluates).

PyMC pins PyTensor 2.38.x, so it runs in that environment. The numpyro
column needs JAX, which the test environments never hold:
``scripts/run_benchmarks.sh`` runs a script in ``.venv-2.38.3-numpyro`` (the
``numpyro`` extra, set up on first use)::

    bash scripts/run_benchmarks.sh benchmarks/sampling.py   # all workloads: long
    bash scripts/run_benchmarks.sh benchmarks/sampling.py --only "eight schools"
    bash scripts/run_benchmarks.sh benchmarks/sampling.py --cores 2
    .venv-2.38.3/bin/python benchmarks/sampling.py --sampler "ONNX NUTS"  # against C only
    .venv-2.38.3/bin/python benchmarks/sampling.py --quick   # seconds, the smoke test
"""

import argparse
import importlib.metadata
import importlib.util
import logging
import os
import platform
import time
import warnings
from datetime import UTC, datetime

from run import thread_environment


CHAINS, TUNE, DRAWS = 4, 1000, 1000
QUICK_CHAINS, QUICK_TUNE, QUICK_DRAWS = 2, 30, 30
QUICK_WORKLOAD = "pymc eight schools"
SEED = 2024
BASELINE = "pm.sample C"


def numpyro_missing_reason():
    missing = [m for m in ("jax", "numpyro") if importlib.util.find_spec(m) is None]
    if missing:
        return (
            f"{' and '.join(missing)} not installed "
            "(bash scripts/run_benchmarks.sh benchmarks/sampling.py)"
        )
    return None


def limit_cores(cores):
    """Give every sampler ``cores`` cores; must run before NumPy and JAX load.

    Threads of every library, and the CPUs the process and its children may
    use when the machine has more than ``cores``. Returns those CPUs. (PyMC
    gives JAX 100 CPU devices, so numpyro's parallel chains have a device each.)
    """
    os.environ.update(thread_environment(cores))
    if not hasattr(os, "sched_setaffinity"):  # macOS, Windows: threads only
        return "any"
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) > cores:
        cpus = cpus[:cores]
        os.sched_setaffinity(0, cpus)
    return cpus


def samplers(cores=1):
    """``{name: sample(model, chains, tune, draws) -> InferenceData}``, and the
    reasons of the samplers that cannot run here."""
    import pymc as pm

    from pytensor.link.onnx.pymc import sample

    logging.getLogger("pymc").setLevel(logging.ERROR)  # PyMC sets INFO on import
    warnings.filterwarnings("ignore", message="Only .* samples per chain")

    # cores=1 is not passed: the script runs with samplers that lack the argument
    onnx_cores = {"cores": cores} if cores > 1 else {}

    def onnx_nuts(model, chains, tune, draws):
        return sample(
            model=model,
            chains=chains,
            tune=tune,
            draws=draws,
            random_seed=SEED,
            progressbar=False,
            idata_kwargs={"save_warmup": True},
            **onnx_cores,
        )

    def pymc_sampler(**kwargs):
        def run(model, chains, tune, draws):
            return pm.sample(
                model=model,
                chains=chains,
                tune=tune,
                draws=draws,
                cores=cores,
                random_seed=SEED,
                progressbar=False,
                discard_tuned_samples=False,
                **kwargs,
            )

        return run

    found = {
        "ONNX NUTS": onnx_nuts,
        BASELINE: pymc_sampler(),
        "pm.sample Numba": pymc_sampler(compile_kwargs={"mode": "NUMBA"}),
        "pm.sample ONNX": pymc_sampler(compile_kwargs={"mode": "ONNX"}),
    }
    skipped = {}
    if reason := numpyro_missing_reason():
        skipped["numpyro"] = reason
    else:
        chain_method = "parallel" if cores > 1 else "sequential"
        found["numpyro"] = pymc_sampler(
            nuts_sampler="numpyro", nuts_sampler_kwargs={"chain_method": chain_method}
        )
    return found, skipped


def leapfrog_steps(idata):
    """The leapfrog steps (gradient evaluations) of all chains, warm-up
    included; None without the warm-up's statistics."""
    if "warmup_sample_stats" not in idata.groups():
        return None
    return int(idata.sample_stats["n_steps"].sum()) + int(
        idata.warmup_sample_stats["n_steps"].sum()
    )


def measure(run, model, chains, tune, draws):
    """What one sampler achieves on ``model``, or why it failed."""
    import arviz as az
    import numpy as np

    start = time.perf_counter()
    try:
        idata = run(model, chains, tune, draws)
    except Exception as err:  # a sampler that fails on one model is reported
        return {"error": f"{type(err).__name__}: {str(err).splitlines()[0]}"}
    wall = time.perf_counter() - start
    ess = az.ess(idata, method="bulk")
    ess = np.concatenate([ess[name].values.ravel() for name in ess.data_vars])
    sampling = idata.posterior.attrs.get("sampling_time", float("nan"))
    steps = leapfrog_steps(idata)
    steps_per_s = float("nan") if steps is None else steps / sampling
    return {
        "wall_s": wall,
        "sampling_s": sampling,
        "ess_min": float(ess.min()),
        "ess_median": float(np.median(ess)),
        "ess_per_s": float(ess.min()) / wall,
        "steps_per_s": steps_per_s,
        "divergences": int(idata.sample_stats["diverging"].sum()),
    }


def step_node_count(model):
    """ONNX nodes of the log-density and gradient, what a leapfrog step evaluates."""
    from pymc_workloads import logp_dlogp_case
    from runner import onnx_node_count

    try:
        return onnx_node_count(logp_dlogp_case(model).compile_function("ONNX"))
    except Exception as err:
        return f"n/a ({type(err).__name__})"


def header(chains, tune, draws, cores, cpus):
    import arviz as az
    import onnxruntime
    import pymc as pm
    from report import cpu_model

    import pytensor

    print(
        f"benchmarks/sampling.py, {datetime.now(UTC):%Y-%m-%d}: CPU {cpu_model()} "
        f"({platform.machine()}), {cores_text(cores, cpus)}; "
        f"PyTensor {pytensor.__version__}, PyMC {pm.__version__}, "
        f"onnxruntime {onnxruntime.__version__}, ArviZ {az.__version__}"
        f"{numpyro_versions()}; "
        f"{chains} chains x {tune} warm-up + {draws} draws\n"
    )


def numpyro_versions():
    if numpyro_missing_reason():
        return ""
    return "".join(
        f", {name} {importlib.metadata.version(name)}" for name in ("jax", "numpyro")
    )


def cores_text(cores, cpus):
    threads = "one thread" if cores == 1 else f"{cores} threads or processes"
    return (
        f"{cores} core{'s' if cores > 1 else ''} per sampler ({threads}, "
        f"pm.sample cores={cores}, CPUs {cpus})"
    )


COLUMNS = (
    f"{'sampler':16} {'wall s':>8} {'sampling s':>10} {'ESS min':>8} "
    f"{'ESS med':>8} {'ESS/s':>8} {'/ C':>6} {'steps/s':>9} {'diverg.':>7}"
)


def row(name, result, baseline):
    if "error" in result:
        return f"{name:16} failed: {result['error']}"
    ratio = result["ess_per_s"] / baseline["ess_per_s"] if baseline else float("nan")
    return (
        f"{name:16} {result['wall_s']:8.1f} {result['sampling_s']:10.1f} "
        f"{result['ess_min']:8.0f} {result['ess_median']:8.0f} "
        f"{result['ess_per_s']:8.1f} {ratio:6.2f} {result['steps_per_s']:9.0f} "
        f"{result['divergences']:7d}"
    )


def main(quick, only, only_samplers=None, cores=1, cpus="any"):
    from pymc_workloads import MODEL_BUILDERS, PYMC_WORKLOADS, pymc_missing_reason

    if reason := pymc_missing_reason():
        print(f"skipped: {reason}")
        return
    chains, tune, draws = (
        (QUICK_CHAINS, QUICK_TUNE, QUICK_DRAWS) if quick else (CHAINS, TUNE, DRAWS)
    )
    header(chains, tune, draws, cores, cpus)
    found, skipped = samplers(cores)
    if only_samplers:
        unknown = set(only_samplers) - found.keys() - skipped.keys()
        if unknown:
            raise SystemExit(
                f"unknown samplers {sorted(unknown)}; known: {sorted(found)}"
            )
        found = {
            name: run
            for name, run in found.items()
            if name in only_samplers or name == BASELINE
        }
    for name, reason in skipped.items():
        print(f"{name}: skipped, {reason}")
    workloads = [
        w
        for w in PYMC_WORKLOADS
        if (
            w.name == QUICK_WORKLOAD
            if quick
            else not only or any(o in w.name for o in only)
        )
    ]
    for workload in workloads:
        build_model = MODEL_BUILDERS[workload.name]
        print(
            f"\n{workload.name}: {workload.description}; log-density and gradient: "
            f"{step_node_count(build_model(quick))} ONNX nodes"
        )
        print(COLUMNS)
        results = {
            name: measure(run, build_model(quick), chains, tune, draws)
            for name, run in found.items()
        }
        baseline = results[BASELINE] if "error" not in results[BASELINE] else None
        for name, result in results.items():
            print(row(name, result, baseline), flush=True)


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"eight schools only, {QUICK_CHAINS} chains x {QUICK_TUNE} + {QUICK_DRAWS}",
    )
    parser.add_argument(
        "--only", action="append", help="substring of a workload name (repeatable)"
    )
    parser.add_argument(
        "--sampler",
        action="append",
        dest="samplers",
        help=f"a sampler to run (repeatable; {BASELINE!r}, the baseline, always runs)",
    )
    parser.add_argument(
        "--cores",
        type=positive_int,
        default=1,
        help="cores of each sampler: its threads, processes or parallel chains "
        "(default 1)",
    )
    args = parser.parse_args()
    cpus = limit_cores(args.cores)  # before NumPy and JAX load
    main(args.quick, args.only, args.samplers, args.cores, cpus)
