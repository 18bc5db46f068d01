"""PyTensor's own tests with mode="ONNX" as the default mode.

`scripts/pytensor_suite.py` runs the copy of PyTensor's suite in
``third_party/pytensor_tests/`` for the installed release; the tests listed in
``pytensor_suite_exceptions.toml`` (beside this module) are the ones expected
to fail, each with its reason.
"""

import subprocess
import sys
from pathlib import Path

import pytest


SCRIPT = Path(__file__).parents[3] / "scripts" / "pytensor_suite.py"


def run_suite(*arguments):
    result = subprocess.run(
        [sys.executable, SCRIPT, "run", *arguments],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]


@pytest.mark.slow
def test_a_share_of_pytensor_own_tests_passes_under_mode_onnx():
    run_suite("--share")


@pytest.mark.pytensor_suite_full
def test_pytensor_own_tests_pass_under_mode_onnx():
    run_suite()
