"""Elementwise ops, comparisons and logic imported with ONNX's semantics."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.link.onnx.utils import assert_matches_reference, single_node_model


rng = np.random.default_rng(42)
FLOATS = ("float32", "float64")
SIGNED = ("int8", "int32", "int64")
UNSIGNED = ("uint8", "uint32", "uint64")


def floats(shape, dtype, low=-3, high=3):
    return rng.uniform(low, high, shape).astype(dtype)


def ints(shape, dtype, low=-20, high=20):
    return rng.integers(max(low, np.iinfo(dtype).min), high, shape).astype(dtype)


UNARY_FLOAT = [
    "Neg", "Abs", "Floor", "Ceil", "Sqrt", "Exp", "Log", "Sin", "Cos", "Tan",
    "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh",
    "Erf", "Sign", "Sigmoid", "Softplus", "Relu", "Reciprocal", "Round", "Identity",
    "Elu", "Selu", "Celu", "Softsign", "HardSigmoid", "HardSwish", "Mish",
    "ThresholdedRelu", "Shrink", "LeakyRelu", "IsNaN", "IsInf", "Gelu",
]  # fmt: skip
DOMAIN_LIMITS = {"Sqrt": (0, 5), "Log": (0.1, 5), "Acosh": (1, 5), "Asin": (-1, 1),
                 "Acos": (-1, 1), "Atanh": (-0.9, 0.9)}  # fmt: skip


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op_type", UNARY_FLOAT)
def test_unary_float_ops(op_type, dtype):
    x = floats((3, 4), dtype, *DOMAIN_LIMITS.get(op_type, (-3, 3)))
    if op_type not in DOMAIN_LIMITS:
        x[0, :2] = [0.5, -2.5]
    model = single_node_model(op_type, {"x": x}, opset=20)
    assert_matches_reference(model, {"x": x}, rtol=1e-5, atol=1e-7)


def test_round_is_half_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, 2.6], dtype="float64")
    assert_matches_reference(single_node_model("Round", {"x": x}), {"x": x})


@pytest.mark.parametrize("op_type", ["Add", "Sub", "Mul", "Div", "Max", "Min", "Pow"])
@pytest.mark.parametrize("dtype", [*FLOATS, *SIGNED])
def test_binary_ops_broadcast_and_keep_the_dtype(op_type, dtype):
    make = floats if dtype in FLOATS else ints
    x, y = make((2, 3, 4), dtype), make((3, 1), dtype)
    if op_type == "Div" and dtype not in FLOATS:
        y[y == 0] = 3
    if op_type == "Pow":
        x, y = np.abs(x) + 1, (np.abs(y) % 3).astype(dtype)
    model = single_node_model(op_type, {"x": x, "y": y})
    assert_matches_reference(model, {"x": x, "y": y}, rtol=1e-6)


@pytest.mark.parametrize("dtype", [*SIGNED, *UNSIGNED])
def test_integer_div_truncates_toward_zero(dtype):
    x = np.array([7, -7, 7, -7, 6, -6, 0], dtype="int64")
    y = np.array([2, 2, -2, -2, 3, 3, 5], dtype="int64")
    if dtype in UNSIGNED:
        x, y = np.abs(x), np.abs(y)
    x, y = x.astype(dtype), y.astype(dtype)
    assert_matches_reference(
        single_node_model("Div", {"x": x, "y": y}), {"x": x, "y": y}
    )


@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_mod_follows_the_divisor_or_the_dividend(fmod, dtype):
    if dtype.startswith("int") and fmod == 0:
        x, y = ints((12,), dtype), ints((12,), dtype)
        y[y == 0] = 7
    else:
        x, y = floats((12,), dtype) * 4, floats((12,), dtype) + 4
        x, y = x.astype(dtype), y.astype(dtype)
        if dtype.startswith("int"):
            y[y == 0] = 3
    model = single_node_model("Mod", {"x": x, "y": y}, fmod=fmod)
    assert_matches_reference(model, {"x": x, "y": y})


@pytest.mark.parametrize(
    "op_type", ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]
)
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8"])
def test_comparisons(op_type, dtype):
    x, y = (
        ints((3, 4), "int8", 0, 5).astype(dtype),
        ints((4,), "int8", 0, 5).astype(dtype),
    )
    assert_matches_reference(
        single_node_model(op_type, {"x": x, "y": y}), {"x": x, "y": y}
    )


@pytest.mark.parametrize("op_type", ["And", "Or", "Xor"])
def test_boolean_logic(op_type):
    x, y = rng.random((3, 4)) < 0.5, rng.random((1, 4)) < 0.5
    assert_matches_reference(
        single_node_model(op_type, {"x": x, "y": y}), {"x": x, "y": y}
    )


def test_where_broadcasts_three_ways():
    c = rng.random((2, 1, 4)) < 0.5
    x, y = floats((3, 1), "float64"), floats((4,), "float64")
    model = single_node_model("Where", {"c": c, "x": x, "y": y})
    assert_matches_reference(model, {"c": c, "x": x, "y": y})


def test_clip_with_omitted_min():
    from onnx import helper

    from tests.link.onnx.utils import make_model

    node = helper.make_node("Clip", ["x", "", "hi"], ["y"])
    model = make_model([node], [("x", 11, [5]), ("hi", 11, [])], [("y", 11, [5])])
    feeds = {"x": np.linspace(-3, 3, 5), "hi": np.array(1.0)}
    assert_matches_reference(model, feeds)


def test_runtime_broadcasting_of_dims_unknown_to_pytensor():
    from onnx import helper

    from tests.link.onnx.utils import make_model

    node = helper.make_node("Add", ["x", "y"], ["z"])
    model = make_model(
        [node], [("x", 11, ["a", "b"]), ("y", 11, ["c", "d"])], [("z", 11, ["e", "f"])]
    )
    feeds = {"x": np.ones((1, 3)), "y": np.arange(8.0).reshape(4, 2)[:, :1]}
    assert_matches_reference(model, feeds)


@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(max_dims=3, max_side=4),
        elements=st.floats(allow_nan=True, allow_infinity=True),
    )
)
def test_float_ops_propagate_nan_and_infinities_like_onnx(x):
    for op_type in ["Relu", "Abs", "Sign", "Floor", "Round", "Neg", "IsNaN", "IsInf"]:
        assert_matches_reference(single_node_model(op_type, {"x": x}), {"x": x})
