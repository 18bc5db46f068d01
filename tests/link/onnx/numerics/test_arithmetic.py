"""The integer and rounding algorithms of ``numerics/`` on their own, and the
kernel tables they rely on."""

import numpy as np
import pytest

from pytensor.link.onnx.kernels import (
    WRONG_RESULTS,
    kernel_dtypes,
    measurements,
    moved_kernel_dtype,
    widened_kernel_dtype,
)
from pytensor.link.onnx.numerics.division import (
    float_floor_divide,
    float_remainder,
    integer_floor_divide,
    integer_remainder,
)
from pytensor.link.onnx.numerics.integer import (
    compare_signed_with_uint64,
    integer_power,
)
from pytensor.link.onnx.numerics.logarithm import log_base
from pytensor.link.onnx.numerics.rounding import round_half_away_from_zero, trunc
from pytensor.link.onnx.value import where
from tests.link.onnx.utils import assert_same_values, evaluate_numerics


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16"])
def test_integer_division_and_remainder_match_numpy(dtype):
    info = np.iinfo(dtype)
    x = np.array([7, -7, 0, info.min, info.max, 5, -5, 3]).astype(dtype)
    y = np.array([2, 2, 0, -1, 0, -3, -3, 1]).astype(dtype)
    with np.errstate(divide="ignore", over="ignore"):
        assert_same_values(
            evaluate_numerics(integer_floor_divide, x, y), np.floor_divide(x, y)
        )
        assert_same_values(evaluate_numerics(integer_remainder, x, y), x % y)


def test_float_division_and_remainder_keep_signed_zeros():
    x = np.array([7.5, -7.5, 0.0, -0.0, 1.0, -1e-300, 5.0])
    y = np.array([2.0, 2.0, -3.0, 3.0, 0.0, 1e300, -np.inf])
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs = [
            (evaluate_numerics(float_floor_divide, x, y), np.floor_divide(x, y)),
            (evaluate_numerics(float_remainder, x, y), np.remainder(x, y)),
        ]
    for result, expected in pairs:
        np.testing.assert_array_equal(result, expected)
        signed = ~np.isnan(expected)
        assert (np.signbit(result) == np.signbit(expected))[signed].all()


def test_rounding_toward_zero_and_half_away_from_zero():
    x = np.array([-2.5, -1.5, -0.5, -0.2, 0.5, 1.5, 2.5, 2.7], dtype="float32")
    assert_same_values(evaluate_numerics(trunc, x), np.trunc(x))
    np.testing.assert_array_equal(
        np.signbit(evaluate_numerics(trunc, x)), [1] * 4 + [0] * 4
    )
    expected = np.sign(x) * np.floor(np.abs(x) + 0.5)
    assert_same_values(evaluate_numerics(round_half_away_from_zero, x), expected)


def test_integer_power_is_exact_beyond_float64():
    base = np.array([3, -3, 2, 7], dtype="int64")
    exponent = np.array([39, 3, 62, 0], dtype="int64")
    result = evaluate_numerics(lambda b, e: integer_power(b, e, 6), base, exponent)
    assert_same_values(result, base**exponent)


@pytest.mark.parametrize("op_type, ufunc", [("Less", np.less), ("Equal", np.equal)])
def test_signed_against_uint64(op_type, ufunc):
    x = np.array([-1, 5, 2**62], dtype="int64")
    y = np.array([2**64 - 1, 5, 2**63], dtype="uint64")
    for a, b in ((x, y), (y, x)):
        result = evaluate_numerics(
            lambda a, b: compare_signed_with_uint64(op_type, a, b), a, b
        )
        assert_same_values(result, ufunc(a, b))


def test_log_base_is_exact_at_powers():
    x = np.array([8.0, 1024.0, 1e22, 3.0])
    assert_same_values(evaluate_numerics(lambda v: log_base(v, 2), x)[:2], [3.0, 10.0])
    assert evaluate_numerics(lambda v: log_base(v, 10), x)[2] == 22.0


@pytest.mark.parametrize("dtype", ["bool", "int16", "uint16", "uint64"])
def test_where_moves_dtypes_without_a_kernel(dtype):
    condition = np.array([True, False, True])
    a, b = np.array([1, 0, 1], dtype=dtype), np.array([0, 1, 0], dtype=dtype)
    result = evaluate_numerics(where, condition, a, b)
    assert_same_values(result, np.where(condition, a, b))


def test_kernel_tables_are_derived_from_the_measurements():
    assert (
        measurements()["onnxruntime-web"]["kernels"]["Abs"]
        == (measurements()["onnxruntime"]["kernels"]["Abs"])
    )
    assert "int64" not in kernel_dtypes("ReduceMax")
    assert "int64" in kernel_dtypes("ArgMax")
    assert all(reason for reason in WRONG_RESULTS.values())
    assert widened_kernel_dtype("Max", "uint16") == "uint32"
    assert widened_kernel_dtype("ReduceMax", "uint16") == "int32"
    assert widened_kernel_dtype("MatMul", "int8") == "int32"
    assert [moved_kernel_dtype("Where", d) for d in ("bool", "uint16", "uint64")] == [
        "uint8",
        "uint32",
        "int64",
    ]
    with pytest.raises(NotImplementedError, match="no ReduceSum kernel for int64"):
        widened_kernel_dtype("ReduceSum", "int64")
