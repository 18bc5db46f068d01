# Sourced by run_tests.sh and run_example.sh. Creates (or reuses, when up to
# date) the virtualenv .venv-<PyTensor version> at the repository root with
# this package installed in editable mode, its test/docs/lint/demo/scale extras (and
# pymc next to PyTensor 2.38), the
# pinned PyTensor and the onnx/onnxruntime of constraints.txt, then puts the
# virtualenv first on PATH.
#
#   PYTENSOR_VERSION     PyTensor release to test against (default 3.0.7)
#   ONNXRUNTIME_VERSION  an onnxruntime release other than the pinned one, or
#                        "newest" (what pip picks today); its own virtualenv
#                        .venv-<PyTensor version>-onnxruntime-<version>
#   EXTRA_EXTRAS         extras installed on top of the test ones, e.g. "numpyro"
#                        (comma-separated); their own virtualenv
#                        .venv-<PyTensor version>-<extras>, so that the test
#                        virtualenvs never hold them
#   PYTHON               interpreter that creates the virtualenv (default python3)

PYTENSOR_VERSION="${PYTENSOR_VERSION:-3.0.7}"
ONNXRUNTIME_VERSION="${ONNXRUNTIME_VERSION:-}"
EXTRA_EXTRAS="${EXTRA_EXTRAS:-}"
PYTHON="${PYTHON:-python3}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO_ROOT/.venv-$PYTENSOR_VERSION${ONNXRUNTIME_VERSION:+-onnxruntime-$ONNXRUNTIME_VERSION}${EXTRA_EXTRAS:+-${EXTRA_EXTRAS//,/-}}"
CONSTRAINTS="$REPO_ROOT/scripts/constraints.txt"
ONNXRUNTIME_REQUIREMENT=()
if [ -n "$ONNXRUNTIME_VERSION" ]; then
    # The pinned onnx stays; onnxruntime is the one asked for
    CONSTRAINTS="$(mktemp)"
    grep -v '^onnxruntime==' "$REPO_ROOT/scripts/constraints.txt" >"$CONSTRAINTS"
    if [ "$ONNXRUNTIME_VERSION" = newest ]; then
        ONNXRUNTIME_REQUIREMENT=(--upgrade onnxruntime)
    else
        ONNXRUNTIME_REQUIREMENT=("onnxruntime==$ONNXRUNTIME_VERSION")
    fi
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

# PyMC 5.28.5 pins PyTensor 2.38.x: its tests run in the 2.38 virtualenvs only
EXTRAS="test,docs,lint,demo,scale"
case "$PYTENSOR_VERSION" in
    2.38.*) EXTRAS="$EXTRAS,pymc" ;;
esac
EXTRAS="$EXTRAS${EXTRA_EXTRAS:+,$EXTRA_EXTRAS}"

# Everything that changes what gets installed: when it differs from the stamp
# left by the last successful install, pip runs again.
install_inputs() {
    echo "pytensor==$PYTENSOR_VERSION onnxruntime=$ONNXRUNTIME_VERSION extras=$EXTRAS $REPO_ROOT"
    "$PYTHON" -c 'import sys; print(sys.version)'
    cat "$REPO_ROOT/pyproject.toml" "$REPO_ROOT/setup.py" \
        "$REPO_ROOT/scripts/constraints.txt" \
        "$REPO_ROOT/pytensor/link/onnx/_autoload.py"
}

# Two scripts started at once must not install into the same venv together.
mkdir -p "$VENV"
exec {venv_lock}<"$VENV"
if command -v flock >/dev/null; then
    flock "$venv_lock"
fi

stamp="$(install_inputs | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$VENV/.install-stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "Setting up $VENV (PyTensor $PYTENSOR_VERSION): about 2 minutes the first time"
    if ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version != sys.argv[1])' \
        "$("$PYTHON" -c 'import sys; print(sys.version)')" 2>/dev/null; then
        "$PYTHON" -m venv --clear "$VENV"
    fi
    # pip's full output goes to a log; one line per package shows progress
    pip_log="$VENV/pip-install.log"
    {
        "$VENV/bin/python" -m pip install --constraint "$CONSTRAINTS" \
            -e "$REPO_ROOT[$EXTRAS]" "pytensor==$PYTENSOR_VERSION" \
            "${ONNXRUNTIME_REQUIREMENT[@]}" 2>&1 || echo "pip install failed ($?)"
    } | tee "$pip_log" |
        { grep --line-buffered -E '^(Collecting|Installing collected|Successfully installed)' || true; } |
        cut -c1-100 | sed 's/^/  /'
    if grep -q '^pip install failed' "$pip_log"; then
        echo "pip install failed (full log: $pip_log):" >&2
        tail -n 30 "$pip_log" >&2
        exit 1
    fi
    echo "$stamp" >"$VENV/.install-stamp"
fi
exec {venv_lock}<&-

export VIRTUAL_ENV="$VENV"
export PATH="$VENV/bin:$PATH"
