from functools import cache

import numpy as np
import pytensor.tensor as pt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pytensor
from tests.link.onnx.utils import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    compare_onnx_and_py,
    no_rewrites,
)


SHAPE = (3, 4, 5)

rng = np.random.default_rng(2024)


def values_with_ties(shape, dtype):
    """Few distinct values, so that most elements tie; NaN and infinities for floats."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    palette = np.array([info.min, info.max, 0, 1, 2], dtype=dtype)
    if np.dtype(dtype).kind == "f":
        palette = np.concatenate([palette, np.array([-0.0, np.nan, np.inf, -np.inf])])
    return rng.choice(palette.astype(dtype), size=shape)


def stable_outputs(x):
    return [pt.argsort(x, axis=axis, kind="stable") for axis in (0, 1, 2, -1, None)] + [
        pt.sort(x, axis=axis) for axis in (0, 1, -1, None)
    ]


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_stable_sort_and_argsort_along_every_axis(dtype, static):
    x = pt.tensor("x", dtype=dtype, shape=SHAPE if static else (None,) * 3)
    compare_onnx_and_py([x], stable_outputs(x), [values_with_ties(SHAPE, dtype)])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_nan_sort_last_in_their_original_order(dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None,))
    values = np.array([np.nan, np.inf, 1.0, np.nan, -np.inf, np.inf, -0.0, 0.0, np.nan])
    compare_onnx_and_py(
        [x],
        [pt.argsort(x, kind="stable"), pt.sort(x), pt.sort(x, kind="stable")],
        [values.astype(dtype)],
    )


@pytest.mark.parametrize("kind", ["quicksort", "mergesort", "heapsort"])
def test_every_kind_without_ties_matches_numpy(kind):
    x = pt.matrix("x")
    values = rng.permutation(200).reshape(10, 20).astype("float64")
    compare_onnx_and_py(
        [x], [pt.argsort(x, kind=kind), pt.sort(x, axis=0, kind=kind)], [values]
    )


def test_quicksort_ties_keep_their_order():
    # NumPy's quicksort (the default kind) orders ties in an unspecified,
    # CPU-dependent way (its SIMD sorts differ from the stable order even for
    # 10 elements). The ONNX backend returns the stable order, one valid answer.
    x = pt.vector("x", dtype="int64")
    values = rng.integers(0, 3, size=100)
    fn = pytensor.function([x], [pt.argsort(x), pt.sort(x)], mode="ONNX")
    order, sorted_values = fn(values)
    np.testing.assert_array_equal(order, np.argsort(values, kind="stable"))
    np.testing.assert_array_equal(sorted_values, np.sort(values))


@pytest.mark.parametrize("dtype", ["float64", "int8", "bool"])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
def test_empty_arrays(shape, dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None,) * len(shape))
    outputs = [pt.argsort(x, axis=0), pt.sort(x, axis=0), pt.sort(x, axis=-1)]
    compare_onnx_and_py([x], outputs, [np.zeros(shape, dtype=dtype)])


def test_rewrites_off():
    x = pt.matrix("x", dtype="float32")
    values = values_with_ties((6, 7), "float32")
    compare_onnx_and_py(
        [x],
        [pt.sort(x), pt.argsort(x, axis=0, kind="stable")],
        [values],
        onnx_mode=no_rewrites,
    )


def test_in_a_larger_graph_with_default_rewrites():
    x = pt.matrix("x")
    order = pt.argsort(x, axis=None, kind="stable")
    median_like = pt.sort(x, axis=1)[:, 2]
    values = values_with_ties((4, 5), "float64")
    compare_onnx_and_py([x], [order * 2 + 1, median_like + x.sum()], [values])


@pytest.mark.parametrize(
    "sort, numpy_sort", [(pt.sort, np.sort), (pt.argsort, np.argsort)]
)
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_axis_given_at_run_time(sort, numpy_sort, dtype):
    x = pt.tensor3("x", dtype=dtype)
    axis = pt.lscalar("axis")
    values = values_with_ties(SHAPE, dtype)
    sorted_x = sort(x, axis=axis, kind="stable")
    onnx_fn, _ = compare_onnx_and_py([x, axis], sorted_x, [values, -1])
    for axis_value in (0, 1, 2, -3):
        np.testing.assert_array_equal(
            onnx_fn(values, axis_value),
            numpy_sort(values, axis=axis_value, kind="stable"),
        )
    with pytest.raises(np.exceptions.AxisError):
        onnx_fn(values, 3)


@cache
def compiled_sort(dtype, ndim):
    x = pt.tensor("x", dtype=dtype, shape=(None,) * ndim)
    outputs = [pt.sort(x, axis=-1), pt.argsort(x, axis=0, kind="stable")]
    return pytensor.function([x], outputs, mode="ONNX")


PROPERTY_DTYPES = ["float64", "float32", "int64", "uint8", "uint64", "bool"]


@st.composite
def arrays_with_ties(draw):
    dtype = draw(st.sampled_from(PROPERTY_DTYPES))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=12))
    if dtype == "bool":
        elements = st.booleans()
    elif np.dtype(dtype).kind == "f":
        elements = st.sampled_from([np.nan, -np.inf, np.inf, -1.5, -0.0, 0.0, 3.0])
    else:
        info = np.iinfo(dtype)
        elements = st.sampled_from([info.min, info.max, 0, 1, 7])
    return draw(hnp.arrays(dtype, shape, elements=elements))


@given(arrays_with_ties())
def test_sort_and_stable_argsort_property(values):
    sorted_values, order = compiled_sort(values.dtype.name, values.ndim)(values)
    np.testing.assert_array_equal(sorted_values, np.sort(values, axis=-1))
    np.testing.assert_array_equal(order, np.argsort(values, axis=0, kind="stable"))
    assert order.dtype == np.int64 and sorted_values.dtype == values.dtype
