#!/usr/bin/env bash
# Lint with ruff, then run the test suite, in .venv-<PyTensor version>
# (set up on first use). Fails if either fails; pytest finding no test fails.
#
#   bash scripts/run_tests.sh                           # PyTensor 3.0.7
#   PYTENSOR_VERSION=2.38.3 bash scripts/run_tests.sh   # the version PyMC 5 pins
#   bash scripts/run_tests.sh -k export -x              # arguments go to pytest
#   bash scripts/run_tests.sh --no-lint -n 0 --pdb      # in one process
#   bash scripts/run_tests.sh --lint-only               # only ruff
#   bash scripts/run_tests.sh --no-lint [pytest args]   # only pytest
set -euo pipefail
lint=true tests=true
case "${1:-}" in
    --lint-only) tests=false && shift ;;
    --no-lint) lint=false && shift ;;
esac

source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$REPO_ROOT"

lint_status=0
if $lint; then
    echo "== ruff"
    ruff check . || lint_status=1
    ruff format --check . || lint_status=1
fi

test_status=0
if $tests; then
    echo "== pytest, PyTensor $PYTENSOR_VERSION"
    # One process per core (pytest-xdist; `-n 0` in the arguments runs one);
    # the tests of one file run on one process, which builds its module fixtures once.
    # The 10 slowest tests are listed at the end, here as in CI.
    python -m pytest -n auto --dist loadfile --no-loadscope-reorder --durations=10 "$@" ||
        test_status=$? # testpaths = ["tests"] in pyproject.toml
    if [ "$test_status" -eq 5 ]; then
        echo "pytest collected no tests: counting that as a failure" >&2
    fi
fi

if [ "$lint_status" -ne 0 ]; then
    echo "ruff found problems (see above)" >&2
fi
[ "$lint_status" -eq 0 ] && [ "$test_status" -eq 0 ]
