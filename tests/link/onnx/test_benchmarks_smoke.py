"""The benchmark suite runs end to end at tiny sizes (``--quick``).

No timing is asserted: only that every workload reports, for every backend,
either numbers or the reason it could not run, so the suite keeps working
while converters land and an unsupported workload never crashes the run.
The PyMC workloads and the cold start run when PyMC is installed (the
``bench`` extra, next to PyTensor 2.38.3).
"""

import importlib.util
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.link.onnx.utils import PYMC_MISSING


BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
PYMC_INSTALLED = importlib.util.find_spec("pymc") is not None


def benchmark_module(name):
    """A module of benchmarks/, which import each other by their plain names."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


def workload_names():
    names = [w.name for w in benchmark_module("workloads").WORKLOADS]
    names += [w.name for w in benchmark_module("special_workloads").SPECIAL_WORKLOADS]
    names += [w.name for w in benchmark_module("linalg_workloads").LINALG_WORKLOADS]
    names += [w.name for w in benchmark_module("import_workloads").IMPORT_WORKLOADS]
    if PYMC_INSTALLED:
        names += [w.name for w in benchmark_module("pymc_workloads").PYMC_WORKLOADS]
    return names


def run_quick(out, *args):
    command = [sys.executable, str(BENCHMARKS / "run.py"), "--quick", "--out", str(out)]
    done = subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def run_script_quick(script):
    """The output of a script of benchmarks/ run with ``--quick``, which succeeded."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def assert_reported(result):
    if result["status"] == "ok":
        assert all(math.isfinite(s) and s > 0 for s in result["samples_s"])
        assert result["p10_s"] <= result["median_s"] <= result["p90_s"]
    else:
        assert result["status"] in ("unsupported", "error")
        assert result["reason"].strip()


# By default every third workload runs (a fixed share: each family of
# workloads is represented); `-m benchmarks_full` runs them all
SHARE_STEP = 3
COLD_START_NAME = "pymc cold start"


def selected_names(selection):
    return [n for n in workload_names() if any(s in n for s in selection)]


@pytest.fixture(
    scope="module",
    params=[
        pytest.param(SHARE_STEP, id="share"),
        pytest.param(1, id="all", marks=pytest.mark.benchmarks_full),
    ],
)
def quick_run(tmp_path_factory, request):
    """The selected workloads (and, with PyMC, the cold start) in ONNX and
    raw onnxruntime, and their names."""
    selection = workload_names()[:: request.param]
    out = tmp_path_factory.mktemp("quick")
    only = [arg for name in [*selection, COLD_START_NAME] for arg in ("--only", name)]
    return out, run_quick(out, "--backends", "onnxruntime", *only), selection


@pytest.mark.slow
def test_every_workload_reports_numbers_or_a_reason(quick_run):
    tmp_path, data, selection = quick_run

    assert [w["name"] for w in data["workloads"]] == selected_names(selection)
    assert data["backends"] == ["ONNX", "onnxruntime raw", "SciPy/NumPy"]
    compared = {"ONNX", "onnxruntime raw"}
    for workload in data["workloads"]:
        names = set(workload["results"])
        assert compared <= names <= set(data["backends"]), workload["name"]
        for result in workload["results"].values():
            assert_reported(result)
    for workload in data["workloads"]:
        onnx = workload["results"]["ONNX"]
        if onnx["status"] == "ok" and workload["kind"] == "runtime":
            assert onnx["onnx_nodes"] > 0, workload["name"]
    for key in ("cpu", "cpu flags", "cores", "python", "date", "versions"):
        assert data["machine"][key]
    assert {"pytensor", "onnxruntime", "numpy"} <= set(data["machine"]["versions"])

    torch_comparison = data["torch_comparison"]
    if torch_comparison["status"] == "ok":
        networks = torch_comparison["networks"]
        # without torch, the CNN is compared with torch's committed export
        assert set(networks) in ({"MLP", "CNN"}, {"CNN"})
        for result in networks.values():
            assert result["outputs_agree"]
            assert set(result["models"]) == {"export_onnx", "torch.onnx.export"}
    else:
        assert torch_comparison["reason"].strip()

    text = (tmp_path / "results.txt").read_text(encoding="utf-8")
    assert all(name in text for name in selected_names(selection))


@pytest.mark.slow
@pytest.mark.skipif(not PYMC_INSTALLED, reason=PYMC_MISSING)
def test_pymc_cold_start_reports_seconds_to_the_first_gradient(quick_run):
    tmp_path, data, _ = quick_run

    cold_start = data["cold_start"]
    assert cold_start["backends"] == ["ONNX"]
    onnx = cold_start["results"]["ONNX"]
    if onnx["status"] == "ok":
        launch, model = onnx["from_launch_s"], onnx["from_model_s"]
        assert 0 < model["median"] < launch["median"]
        assert onnx["random_variables"] >= 20
        assert onnx["onnx_nodes"] > 0
        assert math.isfinite(onnx["logp"])
    else:
        assert onnx["reason"].strip()
    text = (tmp_path / "results.txt").read_text(encoding="utf-8")
    assert "Cold start: a fresh process with empty compile caches" in text


@pytest.mark.slow
@pytest.mark.skipif(not PYMC_INSTALLED, reason=PYMC_MISSING)
def test_shared_shapes_benchmark_times_every_variant():
    done = run_script_quick("shared_shapes.py")
    for model in ("GP", "radon-like GLM"):
        for variant in ("ONNX", "ONNX, any shape", "ONNX, shape="):
            row = rf"^{model} +{re.escape(variant)} +\d+\.\d +\d+\.\d\d$"
            assert re.search(row, done.stdout, flags=re.MULTILINE), (model, variant)


def test_node_cost_benchmark_prints_costs_and_a_budget_per_pymc_workload():
    done = run_script_quick("node_cost.py")
    # a slope fitted to timings on a busy machine can come out negative
    per_node = r"^per node +-?\d+\.\d+ us +-?\d+\.\d+ us$"
    assert re.search(per_node, done.stdout, re.MULTILINE)
    latest = json.loads(
        (BENCHMARKS / "latest" / "pymc" / "results.json").read_text(encoding="utf-8")
    )
    for workload in latest["workloads"]:
        row = rf"^{re.escape(workload['name'])} +\d+\.\dus +\d+\.\dus +\d+ +\d+ +\d+$"
        assert re.search(row, done.stdout, re.MULTILINE), workload["name"]


def test_startup_hook_benchmark_prints_the_cost_against_the_budget():
    done = run_script_quick("startup_hook.py")
    pattern = (
        r"^pytensor_onnx\.pth: median \d+\.\d+ ms per run \((within|OVER) the 5 ms"
    )
    assert re.search(pattern, done.stdout, re.MULTILINE), done.stdout


@pytest.mark.slow
@pytest.mark.skipif(PYMC_INSTALLED, reason="PyMC is installed: its workloads run")
def test_without_pymc_its_workloads_are_skipped_with_the_reason(tmp_path):
    data = run_quick(tmp_path, "--only", "pymc", "--no-torch")

    assert data["workloads"] == []
    assert "cold_start" not in data
    [reason] = data["skipped_workloads"].values()
    assert "pymc is not installed" in reason
    assert reason in (tmp_path / "results.txt").read_text(encoding="utf-8")


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
    engines = set(data["engines"].values())
    assert "C" in engines
    assert "Numba" in engines or data["skipped_backends"]["Numba"]


@pytest.mark.slow
@pytest.mark.skipif(
    not PYMC_INSTALLED, reason="PyMC is not installed (the bench extra, PyTensor 2.38)"
)
def test_sampling_benchmark_reports_every_sampler_or_why_not():
    done = run_script_quick("sampling.py")
    assert re.search(r"^benchmarks/sampling.py, .*: CPU .+", done.stdout, re.MULTILINE)
    assert "1 core per sampler (one thread, pm.sample cores=1" in done.stdout
    assert re.search(r"log-density and gradient: \d+ ONNX nodes", done.stdout)
    numbers = r"( +\d+\.\d){2}( +\d+){2} +\d+\.\d +\d+\.\d\d +\d+ +\d+"
    for sampler in ("ONNX NUTS", "pm.sample C", "pm.sample Numba", "pm.sample ONNX"):
        row = rf"^{re.escape(sampler)}{numbers}$"
        assert re.search(row, done.stdout, re.MULTILINE), sampler
    numpyro = r"^numpyro( .+|: skipped, .+ not installed .+)$"
    assert re.search(numpyro, done.stdout, re.MULTILINE)


@pytest.mark.slow
@pytest.mark.skipif(not PYMC_INSTALLED, reason=PYMC_MISSING)
def test_sampling_floor_benchmark_prints_the_costs_per_gradient():
    done = run_script_quick("sampling_floor.py")
    assert re.search(r"^benchmarks/sampling_floor.py, .*: CPU .+", done.stdout, re.M)
    nodes, chains, costs = r"\d+/\d+/\d+", r"[1-4]\.\d\d", r"( +\d+\.\d+){5}"
    row = rf"^eight schools +{nodes} +{chains}{costs}$"
    assert re.search(row, done.stdout, re.MULTILINE), done.stdout


@pytest.mark.parametrize("cores", ["0", "-1", "two"])
def test_sampling_benchmark_rejects_cores_that_are_not_a_positive_integer(cores):
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "sampling.py"), "--cores", cores],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "--cores" in done.stderr


@pytest.mark.slow
def test_quantization_benchmark_times_every_variant_and_the_cluster():
    done = run_script_quick("quantization.py")
    for model in ("mlp", "cnn"):
        for variant in ("float32", "int8 static", "int8 dynamic", "float16"):
            row = (
                rf"^{model} +{re.escape(variant)} +\d+ +\d+\.\d% +"
                r"\d+\.\dus +\d+\.\d\dx +\d+\.\dus +\d+\.\d\dx$"
            )
            assert re.search(row, done.stdout, flags=re.MULTILINE), (model, variant)
    if importlib.util.find_spec("distributed") is None:
        assert "pip install -e '.[scale]'" in done.stdout
    else:
        for workers in (1, 2):
            row = rf"^{workers} worker\(s\) +[\d,]+ rows/s$"
            assert re.search(row, done.stdout, flags=re.MULTILINE), workers
