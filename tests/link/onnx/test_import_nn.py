"""Neural-network ops whose import has special cases: float16 softmax."""

import numpy as np
import pytest

from tests.link.onnx.import_helpers import assert_matches_reference, single_node_model


@pytest.mark.parametrize("op_type", ["Softmax", "LogSoftmax"])
def test_float16_softmax_runs_in_float16_arithmetic(op_type):
    x = np.random.default_rng(1).normal(size=(3, 5)).astype("float16")
    model = single_node_model(op_type, {"x": x}, opset=18, axis=1)
    assert_matches_reference(model, {"x": x}, rtol=1e-3, atol=1e-3)
