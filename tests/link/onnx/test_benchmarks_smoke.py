"""The benchmark suite runs end to end at tiny sizes (``--quick``).

No timing is asserted: only that every workload reports, for every backend,
either numbers or the reason it could not run, so the suite keeps working
while converters land and an unsupported workload never crashes the run.
"""

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest


BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def workload_names():
    """The names of the workloads ``run.py`` runs, in its order."""
    names = []
    for module_name, table in [
        ("workloads", "WORKLOADS"),
        ("special_workloads", "SPECIAL_WORKLOADS"),
    ]:
        spec = importlib.util.spec_from_file_location(
            module_name, BENCHMARKS / f"{module_name}.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(module_name, module)
        spec.loader.exec_module(module)
        names += [w.name for w in getattr(module, table)]
    return names


def run_quick(out, *args):
    command = [sys.executable, str(BENCHMARKS / "run.py"), "--quick", "--out", str(out)]
    done = subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def assert_reported(result):
    if result["status"] == "ok":
        assert all(math.isfinite(s) and s > 0 for s in result["samples_s"])
        assert result["p10_s"] <= result["median_s"] <= result["p90_s"]
    else:
        assert result["status"] in ("unsupported", "error")
        assert result["reason"].strip()


@pytest.mark.slow
def test_every_workload_reports_numbers_or_a_reason(tmp_path):
    data = run_quick(tmp_path, "--backends", "onnxruntime")

    assert [w["name"] for w in data["workloads"]] == workload_names()
    assert data["backends"] == ["ONNX", "onnxruntime raw"]
    for workload in data["workloads"]:
        assert set(workload["results"]) == set(data["backends"]), workload["name"]
        for result in workload["results"].values():
            assert_reported(result)
    for key in ("cpu", "cores", "python", "date", "versions"):
        assert data["machine"][key]
    assert {"pytensor", "onnxruntime", "numpy"} <= set(data["machine"]["versions"])

    torch_comparison = data["torch_comparison"]
    if torch_comparison["status"] == "ok":
        networks = torch_comparison["networks"]
        assert set(networks) == {"MLP", "CNN"}
        for result in networks.values():
            assert result["outputs_agree"]
            assert set(result["models"]) == {"export_onnx", "torch.onnx.export"}
    else:
        assert torch_comparison["reason"].strip()

    text = (tmp_path / "results.txt").read_text(encoding="utf-8")
    assert all(name in text for name in workload_names())


@pytest.mark.slow
def test_baselines_agree_with_onnx_on_the_call_overhead_workload(tmp_path):
    data = run_quick(tmp_path, "--only", "overhead", "--no-torch")

    baselines = [b for b in data["backends"] if b != "ONNX"]
    assert any(b.startswith("default (") for b in baselines)
    assert "onnxruntime raw" in baselines
    for workload in data["workloads"]:
        for result in workload["results"].values():
            assert result["status"] == "ok", result
        for baseline in baselines:
            assert workload["results"][baseline]["check"] == "ok"
        assert set(workload["ratios"]) == set(baselines)
    assert "JAX" in data["backends"] or data["skipped_backends"]["JAX"]
