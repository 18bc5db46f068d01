#!/usr/bin/env bash
# Run the examples in .venv-<PyTensor version> (set up on first use):
#  1. train a logistic regression under mode="ONNX", export it, reload it in
#     onnxruntime;
#  2. the browser demo (examples/onnx_demo): install onnxruntime-web with
#     `npm ci` (first run only), train an MLP and a CNN on scikit-learn's
#     bundled digits under mode="ONNX", export them for onnxruntime-web, then
#     export the NUTS sampler of eight schools (schools.py), then serve the
#     page on http://127.0.0.1:${PORT:-8000}/ until Ctrl-C.
#
#   PORT=8080 bash scripts/run_example.sh   # another port
#   NO_SERVE=1 bash scripts/run_example.sh  # train and export, don't serve
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$REPO_ROOT"
python examples/logistic_regression.py

echo
echo "== Browser demo"
demo=examples/onnx_demo
# npm ci only when node_modules does not match the lock file: later runs work offline.
lock_digest="$(sha256sum "$demo/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$demo/node_modules/.lock-digest" 2>/dev/null)" != "$lock_digest" ]; then
    command -v npm >/dev/null || { echo "npm not found: install Node.js and npm" >&2; exit 1; }
    (cd "$demo" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$lock_digest" >"$demo/node_modules/.lock-digest"
fi
python examples/onnx_demo/train.py
python examples/onnx_demo/schools.py
if [ -z "${NO_SERVE:-}" ]; then
    exec python examples/onnx_demo/serve.py --port "${PORT:-8000}"
fi
