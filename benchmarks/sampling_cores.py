"""Chains in one batch or in parallel groups: ``pytensor.link.onnx.pymc.sample``
with ``cores=1, 2, 4``.

For each PyMC workload below, 4 chains x 1,000 warm-up + 1,000 draws, with the
chains in one batch of 4 (``cores=1``), two batches of 2 in two threads
(``cores=2``) or four single chains in four threads (``cores=4``). Each run
samples a freshly built model, so its wall time (model to ``InferenceData``)
includes compiling the sampler of each group size, and so does the CPU time
of the process (all threads) during the run; the sampling time is the one the
sampler reports. On a machine whose CPUs other processes keep busy, threads
cannot run at once and the CPU time tells more than the wall time. The settings alternate within each round, and the
rounds repeat, so that other load on the machine spreads over all of them;
printed are the ranges over the rounds, and the leapfrog steps (gradient
evaluations, warm-up included) of all chains per second of sampling.

PyMC pins PyTensor 2.38.x, so it runs in that environment::

    .venv-2.38.3/bin/python benchmarks/sampling_cores.py [--rounds 3] [--only "eight schools"]

``--again`` samples each model twice and times the second call, whose
sampler is compiled already: its wall and CPU times are the sampling's (and
the ``InferenceData``'s), without compiling.
"""

import argparse
import logging
import os
import platform
import time
import warnings
from datetime import UTC, datetime

from run import limit_threads
from sampling import leapfrog_steps


CHAINS, TUNE, DRAWS = 4, 1000, 1000
CORES = (1, 2, 4)
SEED = 2024
WORKLOADS = (
    "pymc eight schools",
    "pymc truncated",
    "pymc censored",
    "pymc negative binomial",
)


def measure(build_model, cores, again):
    from pytensor.link.onnx.pymc import sample

    model = build_model(False)
    for _ in range(2 if again else 1):
        start, cpu_start = time.perf_counter(), time.process_time()
        idata = sample(
            model=model,
            chains=CHAINS,
            tune=TUNE,
            draws=DRAWS,
            cores=cores,
            random_seed=SEED,
            progressbar=False,
            idata_kwargs={"save_warmup": True},
        )
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    sampling = idata.posterior.attrs["sampling_time"]
    return wall, cpu, sampling, leapfrog_steps(idata) / sampling


def span(values, digits=1):
    low, high = min(values), max(values)
    return f"{low:.{digits}f}-{high:.{digits}f}"


def main(rounds, only, again):
    import onnxruntime
    import pymc as pm
    from pymc_workloads import MODEL_BUILDERS
    from report import cpu_model

    import pytensor

    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message="Only .* samples per chain")
    print(
        f"benchmarks/sampling_cores.py, {datetime.now(UTC):%Y-%m-%d}: CPU "
        f"{cpu_model()} ({platform.machine()}, {os.cpu_count()} CPUs); PyTensor "
        f"{pytensor.__version__}, PyMC {pm.__version__}, onnxruntime "
        f"{onnxruntime.__version__}; {CHAINS} chains x {TUNE} + {DRAWS}, "
        f"{rounds} rounds, ranges over the rounds"
        + (", each model sampled twice: the second call" if again else "")
    )
    for name in WORKLOADS:
        if only and not any(o in name for o in only):
            continue
        results = {cores: [] for cores in CORES}
        for round_ in range(rounds):
            order = CORES[round_ % len(CORES) :] + CORES[: round_ % len(CORES)]
            for cores in order:
                results[cores].append(measure(MODEL_BUILDERS[name], cores, again))
        print(f"\n{name}")
        print(
            f"{'cores':>5} {'wall s':>12} {'CPU s':>12} {'sampling s':>12} "
            f"{'steps/s':>12}"
        )
        for cores, runs in results.items():
            walls, cpus, samplings, rates = zip(*runs, strict=True)
            print(
                f"{cores:5d} {span(walls):>12} {span(cpus):>12} "
                f"{span(samplings):>12} {span(rates, 0):>12}",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--only", action="append", help="substring of a workload name (repeatable)"
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="sample each model twice and time the second call (sampler compiled)",
    )
    args = parser.parse_args()
    limit_threads(1)  # before NumPy loads
    main(args.rounds, args.only, args.again)
