"""examples/score_at_scale.py: a million rows scored in chunks on a local Dask cluster.

Two worker processes on 127.0.0.1, one onnxruntime session each (a worker
plugin); the result must equal scoring the same chunks in this process.
Needs the ``scale`` extra (Dask distributed), which the test environment
installs.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest


pytest.importorskip(
    "distributed", reason="needs Dask distributed: pip install -e '.[scale]'"
)

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).parents[3] / "examples" / "score_at_scale.py"
ROWS = 1_000_000


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("score_at_scale", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def test_a_million_rows_scored_on_two_workers_equal_one_process(example):
    from distributed import Client

    model_bytes = example.export_classifier()
    features = example.table(ROWS)
    assert features.numblocks[0] > 2

    with example.local_cluster(2) as cluster, Client(cluster) as client:
        scores = example.score_on_cluster(client, model_bytes, features)
        sessions = client.run(
            lambda dask_worker: hasattr(dask_worker, example.SESSION_ATTRIBUTE)
        )

    assert list(sessions.values()) == [True, True]
    assert scores.shape == (ROWS, example.N_CLASSES)
    np.testing.assert_array_equal(
        scores, example.score_in_process(model_bytes, features)
    )
    np.testing.assert_allclose(scores.sum(axis=1), 1, rtol=1e-5)


def test_triton_repository_serves_the_file_with_a_dynamic_batch(example, tmp_path):
    model_bytes = example.export_classifier()

    model_dir = example.write_triton_repository(tmp_path, model_bytes)

    assert (model_dir / "1" / "model.onnx").read_bytes() == model_bytes
    config = (model_dir / "config.pbtxt").read_text()
    model = onnx.load_model_from_string(model_bytes)
    [features] = model.graph.input
    assert features.type.tensor_type.shape.dim[0].dim_param == "batch"
    assert 'backend: "onnxruntime"' in config
    assert "max_batch_size: 4096" in config
    assert '{ name: "features" data_type: TYPE_FP32 dims: [8] }' in config
    assert '{ name: "probabilities" data_type: TYPE_FP32 dims: [3] }' in config
    assert "dynamic_batching" in config
