#!/usr/bin/env bash
# Run the main example in .venv-<PyTensor version> (set up on first use):
# train a logistic regression under mode="ONNX", export it, reload it in
# onnxruntime.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$REPO_ROOT"
python examples/logistic_regression.py
