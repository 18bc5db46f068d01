import numpy as np
import pytensor.tensor as pt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pytensor
from pytensor.link.onnx import export_onnx
from tests.link.onnx.utils import (
    FLOAT_DTYPES,
    MODES,
    compare_onnx_and_py,
    onnx_mode,
    onnx_model_of,
    rng,
)


def max_pool(x, window):
    """Max-pooling of the trailing axes of ``x`` over ``window``, with a reshape."""
    split = [part for i, k in enumerate(window) for part in (x.shape[2 + i] // k, k)]
    pooled = x.reshape((x.shape[0], x.shape[1], *split))
    return pooled.max(axis=tuple(3 + 2 * i for i in range(len(window))))


def op_types(fn):
    return [node.op_type for node in onnx_model_of(fn).graph.node]


def with_specials(values, count):
    """``values`` with ``count`` of NaN, +inf and -inf at random places (a window
    may hold several, and an infinity of each sign)."""
    values = values.copy()
    flat = values.reshape(-1)
    for special in (np.nan, np.inf, -np.inf):
        flat[rng.integers(0, flat.size, count)] = special
    return values


# (x static shape, window, data shape)
POOLINGS = [
    ((None, 3, 8, 8), (2, 2), (5, 3, 8, 8)),
    ((2, 4, 6, 9), (3, 3), (2, 4, 6, 9)),
    ((None, 2, 6, 4), (3, 2), (3, 2, 6, 4)),
    ((None, 2, 12), (3,), (4, 2, 12)),
    ((None, 2, 4, 6, 4), (2, 3, 2), (2, 2, 4, 6, 4)),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("static_shape, window, data_shape", POOLINGS)
@pytest.mark.parametrize("mode", MODES)
def test_max_pooling_propagates_nan_and_keeps_infinities(
    static_shape, window, data_shape, dtype, mode
):
    x = pt.tensor("x", dtype=dtype, shape=static_shape)
    values = with_specials(rng.normal(size=data_shape).astype(dtype), 3)
    fn, _ = compare_onnx_and_py([x], [max_pool(x, window)], [values], onnx_mode=mode)
    if mode is onnx_mode:
        assert "MaxPool" in op_types(fn)


def test_windows_of_nans_and_infinities_in_every_position():
    # every 2x2 window of NaN, +inf, -inf, 1 and -0.0 in every order
    specials = np.array([np.nan, np.inf, -np.inf, 1.0, -0.0])
    windows = np.stack(np.meshgrid(*[specials] * 4, indexing="ij"), -1).reshape(
        -1, 2, 2
    )
    values = np.concatenate(windows, axis=1)[None, None]
    x = pt.tensor("x", shape=(None, *values.shape[1:]))
    fn, [pooled] = compare_onnx_and_py([x], [max_pool(x, (2, 2))], [values])
    assert "MaxPool" in op_types(fn)
    # a window of -0.0 and -inf pools to -0.0, as in NumPy
    expected = values.reshape(2, 625, 2).max(axis=(0, 2))
    zeros = expected == 0
    np.testing.assert_array_equal(
        np.signbit(pooled.ravel()[zeros]), np.signbit(expected[zeros])
    )


@settings(max_examples=20, deadline=None)
@given(
    window=st.lists(st.integers(1, 3), min_size=2, max_size=2),
    windows=st.lists(st.integers(1, 3), min_size=2, max_size=2),
    batch=st.integers(0, 3),
    n_specials=st.integers(0, 6),
    dtype=st.sampled_from(FLOAT_DTYPES),
)
def test_max_pooling_equals_numpy_max(window, windows, batch, n_specials, dtype):
    shape = (batch, 2, *(n * k for n, k in zip(windows, window, strict=True)))
    x = pt.tensor4("x", dtype=dtype, shape=(None, *shape[1:]))
    values = rng.normal(size=shape).astype(dtype)
    if values.size:
        values = with_specials(values, n_specials)
    compare_onnx_and_py([x], [max_pool(x, window)], [values])


def test_a_reshape_to_other_lengths_fails_as_before():
    x = pt.tensor4("x", shape=(None, 1, 4, 4))
    pooled = x.reshape((x.shape[0], 1, 2, 2, 1, 2)).max(axis=(3, 5))
    fn = pytensor.function([x], pooled, mode="ONNX")
    assert "MaxPool" in op_types(fn)
    with pytest.raises(ValueError, match="cannot reshape"):
        fn(np.zeros((1, 1, 4, 4)))


@pytest.mark.parametrize(
    "pooling",
    [
        lambda x: x.reshape((x.shape[0], 4, 2, 2, 2)).max(axis=(2, 4)),
        lambda x: x.reshape((x.shape[0], x.shape[1], 2, 2, 2, 2)).max(axis=(2, 4)),
        lambda x: x.reshape((x.shape[0], x.shape[1], 2, 2, 2, 2)).max(axis=3),
        lambda x: x.reshape((x.shape[0], x.shape[1], 2, 2, 2, 2)).min(axis=(3, 5)),
        lambda x: x.reshape((x.shape[0], x.shape[1], 4, 1, 2, 2)).max(axis=(3, 5)),
    ],
    ids=["fewer_axes", "count_axes", "one_axis", "min", "unaligned"],
)
def test_other_reshape_reductions_stay_reductions(pooling):
    x = pt.tensor4("x")
    values = with_specials(rng.normal(size=(3, 2, 4, 4)), 2)
    fn, _ = compare_onnx_and_py([x], [pooling(x)], [values])
    assert "MaxPool" not in op_types(fn)


@pytest.mark.parametrize("shape", [(3, 0, 4, 4), (3, 2, 0, 4), (3, 2, 4, 4)])
def test_pooling_of_lengths_known_at_run_time_only(shape):
    # onnxruntime's MaxPool refuses empty inputs unless the batch is empty
    x = pt.tensor4("x")
    values = (
        with_specials(rng.normal(size=shape), 2) if np.prod(shape) else np.zeros(shape)
    )
    compare_onnx_and_py([x], [max_pool(x, (2, 2))], [values])


def test_an_integer_max_stays_a_reduction():
    x = pt.tensor4("x", dtype="int32")
    values = rng.integers(-9, 9, (2, 2, 4, 4)).astype("int32")
    fn, _ = compare_onnx_and_py([x], [max_pool(x, (2, 2))], [values])
    assert "MaxPool" not in op_types(fn)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_exported_max_pooling_is_one_maxpool_with_its_nan_fixup(dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None, 3, 8, 8))
    fn = pytensor.function([x], max_pool(x, (2, 2)), mode="ONNX")
    model = export_onnx(fn, dims={"x": ("batch", 3, 8, 8)})
    assert sorted(node.op_type for node in model.graph.node) == sorted(
        ["MaxPool", "IsNaN", "Cast", "MaxPool", "Neg", "Sqrt", "Add"]
    )
    [output] = model.graph.output
    dims = output.type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == ["batch", 3, 4, 4]
