"""SpaceToDepth in both channel orders against ONNX's reference."""

import numpy as np
import pytest

from tests.link.onnx.utils import assert_matches_reference, single_node_model


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_space_to_depth_modes(mode):
    x = np.arange(2 * 3 * 4 * 6, dtype="float32").reshape(2, 3, 4, 6)
    model = single_node_model(
        "SpaceToDepth", {"x": x}, opset=28, blocksize=2, mode=mode
    )
    assert_matches_reference(model, {"x": x})
