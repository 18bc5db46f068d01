"""The mismatches the differential fuzzer (``test_fuzz.py``) found, each reduced
to a tiny graph.

Open bugs are strict xfails and are listed in ``test_fuzz.KNOWN_BUGS``, which
keeps the fuzzer away from them: when a test here starts passing, remove its
xfail mark and its `KNOWN_BUGS` entry.
"""

import numpy as np
import pytensor.tensor as pt
import pytest

import pytensor
from tests.link.onnx.utils import compare_onnx_and_py, onnx_mode, py_mode


def assert_both_raise(graph_inputs, graph_output, test_inputs, exception):
    """The Python linker raises ``exception`` and so does the ONNX function."""
    py_fn = pytensor.function(graph_inputs, graph_output, mode=py_mode)
    with pytest.raises(exception):
        py_fn(*test_inputs)
    onnx_fn = pytensor.function(graph_inputs, graph_output, mode=onnx_mode)
    with pytest.raises(exception):
        onnx_fn(*test_inputs)


def test_runtime_broadcast_of_unknown_length_one_dim_raises():
    x, y = pt.vector("x"), pt.vector("y")
    assert_both_raise([x, y], x + y, [np.ones(1), np.ones(3)], ValueError)


def test_elemwise_of_mismatched_lengths_raises_value_error():
    x, y = pt.vector("x"), pt.vector("y")
    assert_both_raise([x, y], x + y, [np.ones(2), np.ones(3)], ValueError)


@pytest.mark.parametrize("position", [3, -4])
def test_out_of_range_index_raises_index_error(position):
    x, i = pt.vector("x"), pt.scalar("i", dtype="int64")
    assert_both_raise([x, i], x[i], [np.ones(3), np.int64(position)], IndexError)


def test_specify_shape_of_too_short_slice_raises_assertion_error():
    x = pt.vector("x")
    assert_both_raise([x], pt.specify_shape(x[3:4], (1,)), [np.ones(3)], AssertionError)


def test_set_subtensor_of_zero_size_slice():
    x = pt.tensor("x", dtype="int32", shape=(1,))
    y = pt.vector("y", dtype="uint8")
    compare_onnx_and_py(
        [x, y],
        pt.set_subtensor(x[1:], y),
        [np.ones(1, dtype="int32"), np.ones(1, dtype="uint8")],
    )


def test_int_pow_negative_exponent_raises_value_error():
    x, y = pt.vector("x", dtype="int32"), pt.vector("y", dtype="int32")
    test_inputs = [np.array([2], dtype="int32"), np.array([-1], dtype="int32")]
    assert_both_raise([x, y], x**y, test_inputs, ValueError)


@pytest.mark.parametrize("shape", [(2, 0), (0, 0)])
@pytest.mark.parametrize("reduction", [pt.argmax, pt.argmin])
def test_argmax_over_empty_axis_raises_value_error(reduction, shape):
    x = pt.matrix("x")
    assert_both_raise([x], reduction(x, axis=1), [np.zeros(shape)], ValueError)


@pytest.mark.parametrize("reduction", [pt.max, pt.min])
def test_int64_max_over_empty_axis_raises_value_error(reduction):
    x = pt.vector("x", dtype="int64")
    assert_both_raise([x], reduction(x), [np.zeros(0, dtype="int64")], ValueError)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("shapes", [((0,), (0,)), ((2, 0), (0, 4)), ((0, 3), (3,))])
def test_dot_of_unsigned_operands_with_an_empty_dimension(dtype, shapes):
    # onnxruntime's uint32/uint64 MatMul fails when the summed dimension is empty
    x_shape, y_shape = shapes
    x = pt.tensor("x", dtype=dtype, shape=(None,) * len(x_shape))
    y = pt.tensor("y", dtype=dtype, shape=(None,) * len(y_shape))
    values = [np.ones(x_shape, dtype), np.ones(y_shape, dtype)]
    compare_onnx_and_py([x, y], [pt.dot(x, y)], values)
