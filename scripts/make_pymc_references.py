"""Store the posteriors PyMC's own NUTS gives for the models of the agreement tests.

    nice -n 10 .venv-2.38.3/bin/python scripts/make_pymc_references.py
    nice -n 10 .venv-2.38.3/bin/python scripts/make_pymc_references.py --only ar1

For each model of ``tests/link/onnx/pymc_models.py`` it runs ``pm.sample``
with the default backend (4 chains of 1,000 tuning steps and 2,000 draws, one
chain after the other) and writes, for each scalar of the posterior, the mean,
the standard deviation, their Monte Carlo standard errors, the bulk effective
sample size and that size per gradient evaluation (the bulk ESS divided by the
leapfrog steps of all the draws kept), and for each model the divergences,
into ``tests/link/onnx/fixtures/pymc_reference_posteriors.json``. It takes
about ten minutes on two cores. The fixture is committed: the tests need
neither the time nor PyMC's sampler.
"""

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import arviz as az
import numpy as np
import pymc as pm

import pytensor


REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from tests.link.onnx.pymc_models import MODELS  # noqa: E402


FIXTURE = REPO_ROOT / "tests/link/onnx/fixtures/pymc_reference_posteriors.json"
SETTINGS = {"chains": 4, "tune": 1000, "draws": 2000, "random_seed": 20261206}


def reference(build_model):
    model = build_model()
    start = time.perf_counter()
    idata = pm.sample(
        **SETTINGS,
        cores=1,
        model=model,
        progressbar=False,
        compute_convergence_checks=False,
    )
    seconds = time.perf_counter() - start
    gradients = int(idata.sample_stats["n_steps"].sum())
    summary = az.summary(idata, round_to="none")
    scalars = {
        name: {
            "mean": row["mean"],
            "sd": row["sd"],
            "mcse_mean": row["mcse_mean"],
            "mcse_sd": row["mcse_sd"],
            "ess_bulk": row["ess_bulk"],
            "ess_bulk_per_gradient": row["ess_bulk"] / gradients,
            "r_hat": row["r_hat"],
        }
        for name, row in summary.iterrows()
    }
    return {
        "divergences": int(idata.sample_stats["diverging"].sum()),
        "gradients": gradients,
        "seconds": round(seconds, 1),
        "scalars": scalars,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="a model name (repeatable)")
    args = parser.parse_args()
    names = args.only or list(MODELS)
    unknown = set(names) - set(MODELS)
    if unknown:
        parser.error(f"no such model: {sorted(unknown)}")

    stored = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else {"models": {}}
    for name in names:
        print(f"{name}...", flush=True)
        stored["models"][name] = reference(MODELS[name])
        print(f"  {stored['models'][name]['seconds']} s", flush=True)
    stored["settings"] = {
        **SETTINGS,
        "cores": 1,
        "backend": "pm.sample, default (C) backend",
        "pymc": pm.__version__,
        "pytensor": pytensor.__version__,
        "arviz": az.__version__,
        "numpy": np.__version__,
        "machine": platform.machine(),
    }
    stored["models"] = dict(sorted(stored["models"].items()))
    FIXTURE.write_text(json.dumps(stored, indent=1) + "\n")
    print(f"wrote {FIXTURE.relative_to(REPO_ROOT)}")


if __name__ == "__main__":
    main()
