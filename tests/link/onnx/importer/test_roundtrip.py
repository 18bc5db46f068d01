"""Round trip with the exporter: every model the exporter's tests export is
imported back and agrees with onnxruntime, and re-exported it still agrees."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper
from pytensor.compile.mode import Mode

import pytensor
from pytensor.link.onnx import export_onnx, import_onnx
from pytensor.link.onnx.importer import UnsupportedONNXError


REPO_ROOT = Path(__file__).resolve().parents[4]
# Without graph rewrites: PyTensor's scan rewrites fail on the im2col Loop the
# exporter writes for convolutions (an outer input of the scan changes type).
UNREWRITTEN = Mode(linker="py", optimizer=None)


@pytest.fixture(scope="module")
def exported_models(tmp_path_factory):
    """The models written while the exporter's tests run."""
    folder = tmp_path_factory.mktemp("exported")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "tests/link/onnx/test_export.py",
            "-q",
            "-p",
            "tests.link.onnx.export_recorder",
            "-p",
            "no:cacheprovider",
        ],
        cwd=REPO_ROOT,
        env=os.environ | {"EXPORT_RECORDER_DIR": str(folder)},
        capture_output=True,
        check=False,
    )
    models = [
        onnx.load(p, load_external_data=False) for p in sorted(folder.glob("*.onnx"))
    ]
    return [m for m in models if not uses_external_data(m)]


def uses_external_data(model):
    return any(
        t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer
    )


def random_feeds(model, seed=0):
    rng = np.random.default_rng(seed)
    initializers = {t.name for t in model.graph.initializer}
    feeds = {}
    for info in model.graph.input:
        if info.name in initializers:
            continue
        tensor = info.type.tensor_type
        shape = [
            d.dim_value if d.HasField("dim_value") else 3 for d in tensor.shape.dim
        ]
        dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        if dtype.kind == "b":
            feeds[info.name] = rng.random(shape) < 0.5
        elif dtype.kind in "iu":
            feeds[info.name] = rng.integers(0, 3, shape).astype(dtype)
        else:
            feeds[info.name] = rng.normal(size=shape).astype(dtype)
    return feeds


def run_onnxruntime(model, feeds):
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def agree(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return False
    if expected.dtype.kind == "f":
        rtol = 1e-4 if expected.dtype == np.float32 else 1e-9
        return np.allclose(actual, expected, rtol=rtol, atol=rtol, equal_nan=True)
    return np.array_equal(actual, expected)


def round_trip_problems(model):
    """What goes wrong importing ``model`` and exporting the import again."""
    feeds = random_feeds(model)
    try:
        expected = run_onnxruntime(model, feeds)
    except Exception:
        return []  # inputs this model cannot take (random indices...)
    imported = import_onnx(model)
    function = pytensor.function(
        imported.inputs, imported.outputs, mode=UNREWRITTEN, on_unused_input="ignore"
    )
    actual = function(*(feeds[name] for name in imported.input_names))
    problems = []
    if not all(agree(a, e) for a, e in zip(actual, expected, strict=True)):
        problems.append("imported graph disagrees with onnxruntime")
    again = export_onnx(
        (imported.inputs, imported.outputs), input_names=imported.input_names
    )
    if not all(
        agree(a, e)
        for a, e in zip(run_onnxruntime(again, feeds), expected, strict=True)
    ):
        problems.append("re-exported model disagrees with the original")
    return problems


@pytest.mark.slow
def test_exported_models_import_back_and_re_export(exported_models):
    assert len(exported_models) > 20
    failures = {}
    for index, model in enumerate(exported_models):
        try:
            problems = round_trip_problems(model)
        except UnsupportedONNXError as error:
            problems = [str(error)]
        except Exception as error:
            problems = [f"{type(error).__name__}: {error}"]
        if problems:
            failures[f"model {index} ({model.graph.name})"] = problems
    assert not failures, "\n".join(f"{k}: {v}" for k, v in failures.items())
