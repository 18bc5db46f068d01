# Sourced by run_tests.sh and run_example.sh. Creates (or reuses, when up to
# date) the virtualenv .venv-<PyTensor version> at the repository root with
# this package installed in editable mode, its test/docs/lint/demo extras, the
# pinned PyTensor and the onnx/onnxruntime of constraints.txt, then puts the
# virtualenv first on PATH.
#
#   PYTENSOR_VERSION  PyTensor release to test against (default 3.0.7)
#   PYTHON            interpreter that creates the virtualenv (default python3)

PYTENSOR_VERSION="${PYTENSOR_VERSION:-3.0.7}"
PYTHON="${PYTHON:-python3}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO_ROOT/.venv-$PYTENSOR_VERSION"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

# Everything that changes what gets installed: when it differs from the stamp
# left by the last successful install, pip runs again.
install_inputs() {
    echo "pytensor==$PYTENSOR_VERSION $REPO_ROOT"
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
    echo "Setting up $VENV (PyTensor $PYTENSOR_VERSION)..."
    if ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version != sys.argv[1])' \
        "$("$PYTHON" -c 'import sys; print(sys.version)')" 2>/dev/null; then
        "$PYTHON" -m venv --clear "$VENV"
    fi
    "$VENV/bin/python" -m pip install --quiet \
        --constraint "$REPO_ROOT/scripts/constraints.txt" \
        -e "$REPO_ROOT[test,docs,lint,demo]" "pytensor==$PYTENSOR_VERSION"
    echo "$stamp" >"$VENV/.install-stamp"
fi
exec {venv_lock}<&-

export VIRTUAL_ENV="$VENV"
export PATH="$VENV/bin:$PATH"
