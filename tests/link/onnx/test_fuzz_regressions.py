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


# Products whose value depends on the order of the factors: NumPy multiplies
# in sequence, so a partial product out of range stays inf or 0 (or turns NaN)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_cumprod_of_float32_whose_product_of_two_factors_overflows():
    # a fresh fuzz seed found it: the doubling steps formed 1e30 * -1e30 (inf)
    # where NumPy's partial product was -0.43 * -1e30 (finite)
    x = pt.tensor("x", dtype="float32", shape=(None, None, None))
    values = np.array(
        [0.5, 1e-30, -0.405, 2.11, 1e30, -1e30, 1e-30, np.nan], dtype="float32"
    ).reshape(2, 4, 1)
    compare_onnx_and_py([x], [pt.cumprod(x), pt.cumprod(x, axis=1)], [values])


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("static", [True, False], ids=["static", "unknown_length"])
@pytest.mark.parametrize(
    "dtype, values",
    [
        ("float64", [1e200, 1e200, 1e-200, 1e-200, -3.0]),  # inf stays inf
        ("float64", [1e-200, 1e-200, 1e200, 1e200, 2.0]),  # 0 stays 0
        ("float64", [1e200, 1e200, 0.0, 1e-200, 2.0]),  # inf * 0 is NaN
        ("float64", [1e-200, 1e-200, -np.inf, 1e200]),  # 0 * -inf is NaN
        ("float64", [-1e-300, 1e-100, 1e300, 1e300, 1e-300]),  # tree overflows
        ("float32", [1e30, 1e30, 1e-30, -1e-30, 4.0]),
        ("float32", [1e-30, -1e-30, 1e30, 1e30, 0.5]),
        ("float32", [-1e-30, 1e20, 1e30, 1e10, 1e-30]),
    ],
)
def test_products_stay_out_of_range_as_numpy_sequence_leaves_them(
    dtype, values, static
):
    values = np.array(values, dtype=dtype)
    x = pt.tensor("x", dtype=dtype, shape=values.shape if static else (None,))
    matrix = pt.stack([x, -x[::-1]], axis=1)
    compare_onnx_and_py(
        [x],
        [pt.cumprod(x), pt.prod(x), pt.prod(matrix, axis=0), pt.cumprod(matrix, 0)],
        [values],
    )


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_cumprod_of_thousands_of_factors_whose_mantissas_grow():
    # 2**1040 as a product of mantissas, 1 as the product itself: the
    # mantissas are renormalized between the doubling steps
    x = pt.vector("x")
    values = np.resize([1.41, 0.705], 2_600)
    values[-1] = 1e300
    compare_onnx_and_py([x], [pt.cumprod(x), pt.prod(x)], [values])


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_products_of_signed_zeros_keep_numpy_signs():
    x = pt.vector("x")
    values = np.array([-1e-200, 1e-200, -0.0, 3.0, -2.0, -np.inf])
    onnx_fn = pytensor.function([x], [pt.cumprod(x), pt.prod(x)], mode=onnx_mode)
    py_fn = pytensor.function([x], [pt.cumprod(x), pt.prod(x)], mode=py_mode)
    for onnx_value, py_value in zip(onnx_fn(values), py_fn(values), strict=True):
        np.testing.assert_array_equal(np.signbit(onnx_value), np.signbit(py_value))
        np.testing.assert_array_equal(onnx_value, py_value)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "row", [[0.0, 0.0, np.nan, 0.0], [np.inf, 1.0], [-np.inf, 0.0], [1e30, -1e30]]
)
def test_log_softmax_of_rows_with_nan_or_inf(row, dtype):
    # onnxruntime's LogSoftmax gave 46.05 beside a NaN, -inf beside an inf
    x = pt.matrix("x", dtype=dtype)
    values = np.array([row, np.zeros(len(row))], dtype=dtype)
    compare_onnx_and_py(
        [x],
        [pt.special.log_softmax(x, axis=-1), pt.special.softmax(x, axis=-1)],
        [values],
    )
