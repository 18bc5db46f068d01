"""Time to the first logp and gradient of a PyMC model in a fresh process.

    python benchmarks/cold_start.py [--quick] [--repeats N] [--backends default,Numba]

For every backend and repeat a new Python process starts with empty compile
caches (its own empty ``base_compiledir``, which holds PyTensor's compiledir
and its Numba cache, and its own empty ``NUMBA_CACHE_DIR``), imports PyMC,
builds the model of ``pymc_workloads.COLD_START_MODEL`` (at least 20 random
variables), compiles ``model.logp_dlogp_function(ravel_inputs=True, mode=...)``
and calls it once at the jittered initial point, as ``pm.sample`` does before
the first NUTS step. Two times are reported:

- from launch: from just before the process is started to the first value
  (interpreter start, imports, model, compilation, first call), what a user
  waits for;
- from model: from the start of the model definition to the first value
  (without interpreter start and imports, which all backends share).

``run.py`` calls :func:`run_cold_start` when PyMC is importable; run on its
own, this script prints the same table and writes ``cold_start.json``.
Python's bytecode caches and the OS file cache stay warm, as they are for a
user who has run Python before.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path


BENCHMARKS = Path(__file__).resolve().parent
COLD_START_NAME = "pymc cold start"
FULL_REPEATS, QUICK_REPEATS = 3, 1
CHILD_TIMEOUT_SECONDS = 1800


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="small data, one repeat (smoke test)"
    )
    parser.add_argument("--repeats", type=int, help="fresh processes per backend")
    parser.add_argument(
        "--backends",
        help="comma-separated name prefixes of the baselines, e.g. 'default,Numba' "
        "(ONNX always runs)",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="threads for every backend (0: default)"
    )
    parser.add_argument("--out", type=Path, default=BENCHMARKS / "results")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def time_first_gradient(backend_name, quick, threads):
    """In a fresh process: build the model, compile, return the first values.

    Prints one JSON line: the wall-clock time of the first value, the seconds
    from model definition to it, logp, the gradient's norm and (ONNX) the
    node count.
    """
    import numpy as np
    import runner
    from pymc_workloads import COLD_START_MODEL, nuts_start

    backends, _ = runner.available_backends(None, threads)
    backend = next(b for b in backends if b.name == backend_name)
    model_started = time.perf_counter()
    model = COLD_START_MODEL(quick)
    value_and_gradient = model.logp_dlogp_function(ravel_inputs=True, mode=backend.mode)
    value_and_gradient.set_extra_values({})
    logp, gradient = value_and_gradient(nuts_start(model))
    first_value_wall = time.time()
    from_model = time.perf_counter() - model_started
    function = value_and_gradient._pytensor_function
    print(
        json.dumps(
            {
                "first_value_wall": first_value_wall,
                "from_model_s": from_model,
                "logp": float(logp),
                "gradient_norm": float(np.linalg.norm(gradient)),
                "random_variables": len(model.free_RVs),
                "onnx_nodes": runner.onnx_node_count(function)
                if backend.engine == runner.ONNX
                else None,
            }
        )
    )


def fresh_cache_environment(cache_root, threads):
    """The environment of a child: empty compile caches under ``cache_root``."""
    from run import thread_environment

    env = dict(os.environ, **thread_environment(threads))
    flags = [os.environ.get("PYTENSOR_FLAGS", ""), f"base_compiledir={cache_root}"]
    env["PYTENSOR_FLAGS"] = ",".join(f for f in flags if f)
    env["NUMBA_CACHE_DIR"] = str(Path(cache_root) / "numba_cache_dir")
    return env


def children_cpu_seconds():
    """User + system CPU seconds of this process's finished children so far.

    Counts their own children too (the compilers C and Numba start), and
    unlike wall time it hardly moves when other processes load the machine.
    """
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def files_under(path):
    return sum(len(files) for _, _, files in os.walk(path))


def launch(backend_name, quick, threads):
    """One fresh process for ``backend_name``; its measurements or its failure."""
    with tempfile.TemporaryDirectory(prefix="cold-start-") as cache_root:
        command = [sys.executable, str(Path(__file__).resolve()), "--child"]
        command += [backend_name, "--threads", str(threads)]
        cpu_before = children_cpu_seconds()
        launched = time.time()
        done = subprocess.run(
            [*command, *(["--quick"] if quick else [])],
            capture_output=True,
            text=True,
            env=fresh_cache_environment(cache_root, threads),
            timeout=CHILD_TIMEOUT_SECONDS,
            check=False,
            cwd=BENCHMARKS,
        )
        cpu_seconds = children_cpu_seconds() - cpu_before
        cache_files = files_under(cache_root)
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        reason = lines[-1] if lines else f"exit status {done.returncode}"
        return {"status": "error", "reason": reason, "detail": done.stderr[-4000:]}
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    measured["from_launch_s"] = measured.pop("first_value_wall") - launched
    measured["cpu_s"] = cpu_seconds
    measured["cache_files"] = cache_files
    return {"status": "ok", **measured}


def summarize_runs(runs):
    """Median, min and max of the repeats of one backend (or its first failure)."""
    import numpy as np

    failures = [r for r in runs if r["status"] != "ok"]
    if failures:
        return failures[0]
    summary = {"status": "ok"}
    for key in ("from_launch_s", "from_model_s", "cpu_s"):
        values = [r[key] for r in runs]
        summary[key] = {
            "median": float(np.median(values)),
            "min": min(values),
            "max": max(values),
            "samples": values,
        }
    first = runs[0]
    for key in ("logp", "gradient_norm", "random_variables", "onnx_nodes"):
        summary[key] = first[key]
    summary["cache_files"] = max(r["cache_files"] for r in runs)
    return summary


def speedups(results, onnx_name):
    """Baseline time over ONNX time, for each measure (above 1: ONNX is faster)."""
    onnx = results.get(onnx_name, {})
    if onnx.get("status") != "ok":
        return {}
    return {
        name: {
            key: result[key]["median"] / onnx[key]["median"]
            for key in ("from_launch_s", "from_model_s", "cpu_s")
        }
        for name, result in results.items()
        if name != onnx_name and result.get("status") == "ok"
    }


def values_agree(results, onnx_name):
    """Each backend's first logp and gradient norm against ONNX's (rtol 1e-6)."""
    import numpy as np

    onnx = results.get(onnx_name, {})
    if onnx.get("status") != "ok":
        return {}
    return {
        name: bool(
            np.allclose(
                [result["logp"], result["gradient_norm"]],
                [onnx["logp"], onnx["gradient_norm"]],
                rtol=1e-6,
            )
        )
        for name, result in results.items()
        if name != onnx_name and result.get("status") == "ok"
    }


def run_cold_start(quick, repeats=None, selection=None, threads=1):
    """Time to the first logp and gradient of every backend, fresh processes.

    Parameters
    ----------
    quick : bool
        Small data (the model keeps its random variables) and one repeat.
    repeats : int, optional
        Fresh processes per backend (default 3, or 1 with ``quick``).
    selection : list of str, optional
        Name prefixes of the baselines to keep, as ``run.py --backends``.
    threads : int
        Thread budget of every backend (0: each library's default).

    Returns
    -------
    dict
        Per backend (by the suite's column names) the median, min and max of
        both times over the repeats, the first logp and gradient norm, the
        files the run left in its caches and, for ONNX, the model's node
        count; the speed-ups of ONNX over each baseline; whether the values
        agree with ONNX's.
    """
    import runner
    from pymc_workloads import COLD_START_MODEL

    backends, skipped = runner.available_backends(selection, threads)
    names = [b.name for b in backends if not b.raw_onnxruntime]
    repeats = repeats or (QUICK_REPEATS if quick else FULL_REPEATS)
    runs = {name: [] for name in names}
    for repeat in range(repeats):
        for name in runner.rotated(names, repeat):
            print(f"  cold start {name} ({repeat + 1}/{repeats})", file=sys.stderr)
            if not runs[name] or runs[name][-1]["status"] == "ok":
                runs[name].append(launch(name, quick, threads))
    results = {name: summarize_runs(r) for name, r in runs.items()}
    return {
        "status": "ok",
        "model": COLD_START_MODEL.__doc__.splitlines()[0].rstrip("."),
        "quick": quick,
        "repeats": repeats,
        "backends": names,
        "engines": {b.name: b.engine for b in backends if b.name in names},
        "skipped_backends": skipped,
        "results": results,
        "speedups": speedups(results, runner.ONNX),
        "values_agree": values_agree(results, runner.ONNX),
    }


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        time_first_gradient(args.child, args.quick, args.threads)
        return
    import report
    from pymc_workloads import pymc_missing_reason

    missing = pymc_missing_reason()
    if missing:
        sys.exit(f"cold start skipped: {missing}")
    selection = args.backends and args.backends.split(",")
    data = {
        "machine": report.machine_info(args.threads),
        "cold_start": run_cold_start(args.quick, args.repeats, selection, args.threads),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    report.write_json(data, args.out / "cold_start.json")
    print(
        "\n".join(
            [
                *report.machine_lines(data["machine"]),
                *report.cold_start_lines(data["cold_start"]),
            ]
        )
    )
    print(f"Wrote {args.out}/cold_start.json")


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    main()
