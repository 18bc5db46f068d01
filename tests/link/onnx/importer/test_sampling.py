"""GridSample and AffineGrid against ONNX's reference evaluator."""

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference.ops.op_affine_grid import AffineGrid

from tests.link.onnx.utils import (
    assert_matches_reference,
    assert_same_imported,
    make_model,
    reference_outputs,
    run_imported,
    single_node_model,
    verify_imported_grad,
)


rng = np.random.default_rng(7)
# ONNX's reference GridSample computes coordinates in float32 whatever the dtype.
REFERENCE_TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}


def grid_feeds(spatial, dtype="float64"):
    x = rng.normal(size=(2, 3, *[4, 5, 3][:spatial])).astype(dtype)
    grid = rng.uniform(-1.3, 1.3, size=(2, *[3, 2, 4][:spatial], spatial))
    grid.reshape(-1)[:4] = [-1.0, 1.0, 0.0, 1.25]
    return {"x": x, "grid": grid.astype(dtype)}


@pytest.mark.parametrize(
    "mode, padding_mode, align_corners",
    list(
        itertools.product(
            ["nearest", "linear", "cubic"], ["zeros", "border", "reflection"], [0, 1]
        )
    ),
)
def test_grid_sample_2d(mode, padding_mode, align_corners):
    feeds = grid_feeds(2)
    model = single_node_model(
        "GridSample",
        feeds,
        opset=22,
        mode=mode,
        padding_mode=padding_mode,
        align_corners=align_corners,
    )
    assert_matches_reference(model, feeds, **REFERENCE_TOLERANCE)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_3d(mode, padding_mode):
    feeds = grid_feeds(3, "float32")
    model = single_node_model(
        "GridSample", feeds, opset=22, mode=mode, padding_mode=padding_mode
    )
    assert_matches_reference(model, feeds, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("old, new", [("bilinear", "linear"), ("bicubic", "cubic")])
def test_grid_sample_opset_16_mode_names(old, new):
    feeds = grid_feeds(2)
    expected = reference_outputs(
        single_node_model("GridSample", feeds, opset=22, mode=new), feeds
    )[0]
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode=old)
    inputs = [(n, TensorProto.DOUBLE, v.shape) for n, v in feeds.items()]
    model = make_model(
        [node], inputs, [("y", TensorProto.DOUBLE, expected.shape)], opset=16
    )
    assert_same_imported(run_imported(model, feeds)[0], expected, **REFERENCE_TOLERANCE)


def test_grid_sample_nearest_reads_integers_exactly():
    feeds = grid_feeds(2)
    feeds["x"] = rng.integers(-100, 100, feeds["x"].shape).astype("int32")
    model = single_node_model("GridSample", feeds, opset=22, mode="nearest")
    assert_matches_reference(model, feeds)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_grid_sample_is_differentiable_in_the_input_and_the_grid(mode):
    feeds = grid_feeds(2)
    model = single_node_model("GridSample", feeds, opset=22, mode=mode)
    verify_imported_grad(model, list(feeds.values()), rng)


def affine_grid_model(feeds, size_is_constant, **attributes):
    """An AffineGrid of float64 ``theta`` (ONNX's reference always gives float32)."""
    node = helper.make_node("AffineGrid", ["theta", "size"], ["grid"], **attributes)
    size = numpy_helper.from_array(feeds["size"], "size")
    n, _, *spatial = feeds["size"].tolist()
    inputs = [("theta", TensorProto.DOUBLE, feeds["theta"].shape)]
    if not size_is_constant:
        inputs.append(("size", TensorProto.INT64, feeds["size"].shape))
    return make_model(
        [node],
        inputs,
        [("grid", TensorProto.DOUBLE, [n, *spatial, len(spatial)])],
        opset=20,
        initializers=[size] if size_is_constant else [],
    )


@pytest.mark.parametrize("size_is_constant", [True, False])
@pytest.mark.parametrize("align_corners", [0, 1])
@pytest.mark.parametrize("size", [[2, 3, 4, 5], [2, 3, 1, 5], [2, 1, 3, 4, 2]])
def test_affine_grid(size, align_corners, size_is_constant):
    spatial = len(size) - 2
    feeds = {
        "theta": rng.normal(size=(2, spatial, spatial + 1)),
        "size": np.array(size, dtype="int64"),
    }
    model = affine_grid_model(feeds, size_is_constant, align_corners=align_corners)
    expected = AffineGrid.eval(*feeds.values(), align_corners=align_corners)
    used = {"theta": feeds["theta"]} if size_is_constant else feeds
    [grid] = run_imported(model, used)
    assert_same_imported(grid, expected.astype("float64"), rtol=1e-6, atol=1e-6)


def test_affine_grid_is_differentiable_in_theta():
    feeds = {"theta": rng.normal(size=(2, 2, 3)), "size": np.array([2, 1, 3, 4])}
    model = affine_grid_model(feeds, size_is_constant=True)
    verify_imported_grad(model, [feeds["theta"]], rng)
