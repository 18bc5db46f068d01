"""Optimizer steps of ``ai.onnx.preview.training`` against ONNX's reference."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from tests.link.onnx.utils import make_model, reference_outputs, run_imported


rng = np.random.default_rng(3)
TRAINING = helper.make_opsetid("ai.onnx.preview.training", 1)
STATES = {"Adagrad": ["h"], "Momentum": ["v"], "Adam": ["v", "h"]}
ATTRIBUTES = [
    ("Adagrad", {"decay_factor": 0.1, "epsilon": 1e-5, "norm_coefficient": 0.01}),
    ("Adagrad", {}),
    ("Momentum", {"alpha": 0.9, "beta": 0.5, "mode": "standard", "norm_coefficient": 0.1}),
    ("Momentum", {"alpha": 0.9, "beta": 0.5, "mode": "nesterov", "norm_coefficient": 0.0}),
    ("Adam", {"alpha": 0.8, "beta": 0.9, "epsilon": 1e-4, "norm_coefficient": 0.1,
              "norm_coefficient_post": 0.05}),
    ("Adam", {}),
]  # fmt: skip


@pytest.mark.parametrize("count", [0, 3])
@pytest.mark.parametrize(("op_type", "attributes"), ATTRIBUTES)
def test_optimizer_steps_of_two_tensors(op_type, attributes, count):
    shapes = [(3,), (2, 2)]
    feeds = {"r": np.array(0.1), "t": np.array(count, dtype="int64")}
    groups = ["x", "g", *STATES[op_type]]
    for group in groups:
        for i, shape in enumerate(shapes):
            feeds[f"{group}{i}"] = np.abs(rng.normal(size=shape))
    inputs = [(name, TensorProto.DOUBLE, np.shape(v)) for name, v in feeds.items()]
    inputs[1] = ("t", TensorProto.INT64, [])
    outputs = [
        (f"{group}{i}_new", TensorProto.DOUBLE, shape)
        for group in ["x", *STATES[op_type]]
        for i, shape in enumerate(shapes)
    ]
    node = helper.make_node(
        op_type,
        list(feeds),
        [name for name, _, _ in outputs],
        domain="ai.onnx.preview.training",
        **attributes,
    )
    model = make_model(
        [node],
        inputs,
        outputs,
        domains=[TRAINING],
    )
    actual = run_imported(model, feeds)
    # ONNX's reference Adam returns float32 for float64 tensors; the spec
    # (and this importer) keeps the tensors' dtype.
    for a, e in zip(actual, reference_outputs(model, feeds), strict=True):
        assert a.dtype == np.float64
        np.testing.assert_allclose(a, e, rtol=1e-12 if e.dtype == a.dtype else 1e-5)
