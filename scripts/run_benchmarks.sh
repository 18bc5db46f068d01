#!/usr/bin/env bash
# Run a script of benchmarks/ in its own virtualenv: PyTensor 2.38.3, PyMC and
# the numpyro extra (JAX and numpyro, the numpyro column of
# benchmarks/sampling.py), .venv-2.38.3-numpyro, set up on first use. The test
# virtualenvs never hold JAX: PyTensor's own JAX tests would run in the suite.
#
#   bash scripts/run_benchmarks.sh benchmarks/sampling.py --only "eight schools"
#   bash scripts/run_benchmarks.sh benchmarks/sampling.py --cores 2
#   EXTRA_EXTRAS= bash scripts/run_benchmarks.sh benchmarks/run.py  # without JAX
set -euo pipefail
export PYTENSOR_VERSION="${PYTENSOR_VERSION:-2.38.3}"
export EXTRA_EXTRAS="${EXTRA_EXTRAS-numpyro}"
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$REPO_ROOT"
exec python "$@"
