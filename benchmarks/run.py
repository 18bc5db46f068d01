"""Run the pytensor-onnx benchmark suite.

    python benchmarks/run.py [--quick] [--out benchmarks/results] [--only NAME]

Writes ``results.txt``, ``results.json`` and (with matplotlib) ``ratios.png``
into the output directory and prints the text report. With PyMC installed it
also times the PyMC workloads (``pymc_workloads.py``) and the cold start
(``cold_start.py``).
"""

import argparse
import os
import sys
import time
import warnings
from pathlib import Path


FULL = {"repeats": 15, "compile_repeats": 7, "target_seconds": 0.25}
QUICK = {"repeats": 2, "compile_repeats": 1, "target_seconds": 0.002}
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes, 2 repeats (smoke test)"
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--repeats", type=int, help="override the number of repeats")
    parser.add_argument(
        "--only",
        action="append",
        help="run the workloads whose name contains this (repeatable)",
    )
    parser.add_argument(
        "--backends",
        help="comma-separated name prefixes of the baselines to run, "
        "e.g. 'default,onnxruntime' (ONNX always runs)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads for every backend: BLAS/OpenMP and onnxruntime intra-op "
        "(default 1; 0 leaves each library at its own default)",
    )
    parser.add_argument(
        "--no-torch", action="store_true", help="skip the torch.onnx.export comparison"
    )
    parser.add_argument(
        "--no-cold-start",
        action="store_true",
        help="skip the cold-start benchmark (fresh processes, empty caches)",
    )
    return parser.parse_args(argv)


def thread_environment(threads):
    """Environment variables that give every backend ``threads`` threads.

    Parameters
    ----------
    threads : int
        Threads per backend; 0 leaves every library at its default (no variable).

    Returns
    -------
    dict
        The variables to set, before NumPy is imported.
    """
    if not threads:
        return {}
    xla_flags = os.environ.get("XLA_FLAGS", "")
    if "--xla_cpu_multi_thread_eigen=false" not in xla_flags:
        xla_flags = (xla_flags + " --xla_cpu_multi_thread_eigen=false").strip()
    return {**dict.fromkeys(THREAD_VARIABLES, str(threads)), "XLA_FLAGS": xla_flags}


def limit_threads(threads):
    """Give every backend the same thread budget; must run before NumPy loads."""
    os.environ.update(thread_environment(threads))


def selected(name, only):
    return not only or any(o in name for o in only)


def selected_workloads(only):
    """The workloads to run and, when PyMC is missing, why its ones are skipped."""
    from import_workloads import IMPORT_WORKLOADS
    from linalg_workloads import LINALG_WORKLOADS
    from pymc_workloads import PYMC_WORKLOADS, pymc_missing_reason
    from special_workloads import SPECIAL_WORKLOADS
    from workloads import WORKLOADS

    missing = pymc_missing_reason()
    workloads = [
        *WORKLOADS,
        *SPECIAL_WORKLOADS,
        *LINALG_WORKLOADS,
        *IMPORT_WORKLOADS,
        *([] if missing else PYMC_WORKLOADS),
    ]
    skipped = {}
    if missing and any(selected(w.name, only) for w in PYMC_WORKLOADS):
        skipped["PyMC workloads and cold start"] = missing
    return [w for w in workloads if selected(w.name, only)], skipped


def main(argv=None):
    args = parse_args(argv)
    limit_threads(args.threads)
    import report
    import runner
    from cold_start import COLD_START_NAME, run_cold_start
    from pymc_workloads import pymc_missing_reason
    from versus_torch import compare_with_torch

    settings = dict(QUICK if args.quick else FULL, threads=args.threads or "default")
    if args.repeats:
        settings["repeats"] = settings["compile_repeats"] = args.repeats
    workloads, skipped_workloads = selected_workloads(args.only)
    selection = args.backends and args.backends.split(",")
    backends, skipped = runner.available_backends(selection, args.threads)

    data = {
        "machine": report.machine_info(args.threads),
        "settings": {"quick": args.quick, **settings},
        "backends": [b.name for b in backends],
        "engines": {b.name: b.engine for b in backends},
        "skipped_backends": skipped,
        "skipped_workloads": skipped_workloads,
        "workloads": [],
    }
    started = time.perf_counter()
    for workload in workloads:
        print(f"{workload.name} ...", file=sys.stderr, flush=True)
        try:
            if workload.kind == "compile":
                results = runner.run_compile_workload(
                    workload, backends, args.quick, settings["compile_repeats"]
                )
            else:
                results = runner.run_runtime_workload(
                    workload,
                    backends,
                    args.quick,
                    settings["repeats"],
                    settings["target_seconds"],
                )
        except Exception as err:
            results = {b.name: runner.failure(err) for b in backends}
        data["workloads"].append(
            {
                "name": workload.name,
                "description": workload.description,
                "kind": workload.kind,
                "results": results,
                "ratios": runner.ratios(results),
            }
        )
    if any(runner.DIRECT in w["results"] for w in data["workloads"]):
        # Workloads with the same work called directly (SciPy, NumPy) report it too
        data["backends"].append(runner.DIRECT)
    if (
        not args.no_cold_start
        and selected(COLD_START_NAME, args.only)
        and not pymc_missing_reason()
    ):
        print(f"{COLD_START_NAME} ...", file=sys.stderr, flush=True)
        data["cold_start"] = run_cold_start(
            args.quick, args.repeats, selection, args.threads
        )
    if not args.no_torch:
        print("torch.onnx.export comparison ...", file=sys.stderr, flush=True)
        data["torch_comparison"] = compare_with_torch(
            args.quick, settings["repeats"], settings["target_seconds"], args.threads
        )
    data["settings"]["wall_seconds"] = round(time.perf_counter() - started, 1)

    args.out.mkdir(parents=True, exist_ok=True)
    data["chart"] = report.write_chart(data, args.out / "ratios.png")
    text = report.text_report(data)
    (args.out / "results.txt").write_text(text, encoding="utf-8")
    report.write_json(data, args.out / "results.json")
    print(text)
    print(f"Wrote {args.out}/results.txt and results.json")


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    main()
