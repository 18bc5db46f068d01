"""Scan-8 (batched states and scan inputs) imported with ONNX's semantics."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from tests.link.onnx.utils import make_model, run_imported


FLOAT = TensorProto.FLOAT


@pytest.mark.parametrize("reverse", [0, 1])
def test_scan8_runs_each_batch_entry_over_its_sequence(reverse):
    body = helper.make_graph(
        [
            helper.make_node("Add", ["sum_in", "next"], ["sum_out"]),
            helper.make_node("Identity", ["sum_out"], ["scan_out"]),
        ],
        "body",
        [helper.make_tensor_value_info(n, FLOAT, [2]) for n in ("sum_in", "next")],
        [helper.make_tensor_value_info(n, FLOAT, [2]) for n in ("sum_out", "scan_out")],
    )
    node = helper.make_node(
        "Scan",
        ["", "initial", "x"],
        ["y", "z"],
        num_scan_inputs=1,
        directions=[reverse],
        body=body,
    )
    model = make_model(
        [node],
        [("initial", FLOAT, [2, 2]), ("x", FLOAT, [2, 3, 2])],
        [("y", FLOAT, [2, 2]), ("z", FLOAT, [2, 3, 2])],
        opset=8,
    )
    initial = np.array([[0.0, 1.0], [10.0, 20.0]], dtype="float32")
    x = np.arange(12, dtype="float32").reshape(2, 3, 2)
    y, z = run_imported(model, {"initial": initial, "x": x})
    steps = x[:, ::-1] if reverse else x
    expected_z = initial[:, None] + np.cumsum(steps, axis=1)
    np.testing.assert_array_equal(z, expected_z)
    np.testing.assert_array_equal(y, expected_z[:, -1])
