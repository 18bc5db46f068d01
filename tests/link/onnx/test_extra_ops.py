from functools import cache

import numpy as np
import pytensor.tensor as pt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from pytensor.compile.mode import Mode
from pytensor.tensor import extra_ops

import pytensor
from tests.link.onnx.utils import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    assert_same_values,
    compare_onnx_and_py,
    no_rewrites,
)


SHAPE = (3, 4, 5)

rng = np.random.default_rng(7)


def random_values(shape, dtype, low=-3, high=4):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(low, high, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "u":
        low = 0
    return rng.integers(low, high, size=shape).astype(dtype)


def symbolic(name, dtype, shape, static):
    return pt.tensor(name, dtype=dtype, shape=shape if static else (None,) * len(shape))


def in_declared_dtype(onnx_value, py_value):
    """Compare with PyTensor's result cast to the Op's declared output dtype.

    ``CumOp`` declares its input's dtype, but its ``perform`` returns what
    NumPy's cumsum/cumprod return: int64 for bool and integers narrower than
    int64. The C backend computes in the declared dtype, wrapping; so does
    the ONNX backend (for bool: a cumulative or/and).
    """
    assert_same_values(onnx_value, np.asarray(py_value).astype(onnx_value.dtype))


# CumOp


CUMULATIVE = {"cumsum": extra_ops.cumsum, "cumprod": extra_ops.cumprod}


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("operation", CUMULATIVE)
def test_cumulative_ops_along_every_axis(operation, dtype, static):
    x = symbolic("x", dtype, SHAPE, static)
    outputs = [CUMULATIVE[operation](x, axis=axis) for axis in (0, 1, -1, None)]
    values = random_values(SHAPE, dtype, low=-2, high=3)
    compare_onnx_and_py([x], outputs, [values], assert_fn=in_declared_dtype)


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("length", [0, 1, 2, 3, 5, 8, 33, 1000])
def test_cumprod_of_any_length(length, static):
    # Doubling steps are unrolled for static lengths, in a Loop otherwise
    x = symbolic("x", "float64", (2, length), static)
    n = symbolic("n", "int64", (length,), static)
    values = rng.uniform(0.5, 1.5, size=(2, length))
    ints = rng.integers(-(2**40), 2**40, size=length)
    compare_onnx_and_py(
        [x, n],
        [pt.cumprod(x, axis=1), pt.cumprod(x, axis=0), pt.cumprod(n)],
        [values, ints],
    )


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_cumulative_ops_with_special_values(dtype):
    x = pt.vector("x", dtype=dtype)
    values = np.array([2.0, -3.0, 0.0, np.inf, -1.0, np.nan, 5.0, -0.0], dtype=dtype)
    compare_onnx_and_py([x], [pt.cumsum(x), pt.cumprod(x)], [values])


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_cumprod_with_overflowing_partial_products():
    x = pt.vector("x")
    values = np.array([1e300, 1e300, 1e-300, 1e-300])
    compare_onnx_and_py([x], [pt.cumprod(x)], [values])


@pytest.mark.parametrize(
    "dtype, values",
    [
        ("int64", [2**62, 2**62, 3, -(2**61), 2**53 + 1]),
        ("uint64", [2**64 - 1, 2**63 + 5, 3, 2, 7]),
        ("int8", [100, 100, -128, 3, -7]),
        ("uint32", [2**31, 3, 2**31 + 1, 5, 2]),
    ],
)
def test_integer_cumulative_ops_wrap_exactly(dtype, values):
    x = pt.vector("x", dtype=dtype)
    compare_onnx_and_py(
        [x],
        [pt.cumsum(x), pt.cumprod(x)],
        [np.array(values, dtype=dtype)],
        assert_fn=in_declared_dtype,
    )


def test_cumulative_ops_rewrites_off():
    x = pt.matrix("x", dtype="float32")
    compare_onnx_and_py(
        [x],
        [pt.cumsum(x, axis=0), pt.cumprod(x, axis=1), pt.cumsum(x)],
        [random_values((4, 6), "float32")],
        onnx_mode=no_rewrites,
    )


@cache
def compiled_cumulative(dtype, ndim, axis):
    x = pt.tensor("x", dtype=dtype, shape=(None,) * ndim)
    outputs = [pt.cumsum(x, axis=axis), pt.cumprod(x, axis=axis)]
    return pytensor.function([x], outputs, mode="ONNX")


@st.composite
def cumulative_cases(draw):
    dtype = draw(st.sampled_from(["float64", "float32", "int64", "int16", "uint8"]))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=40))
    axis = draw(st.integers(0, len(shape) - 1))
    if np.dtype(dtype).kind == "f":
        # magnitudes that neither overflow nor underflow in 40 products
        width = np.dtype(dtype).itemsize * 8
        elements = st.one_of(
            st.just(0.0),
            st.floats(0.25, 2.0, width=width),
            st.floats(-2.0, -0.25, width=width),
        )
    else:
        elements = hnp.from_dtype(np.dtype(dtype))
    return draw(hnp.arrays(dtype, shape, elements=elements)), axis


@given(cumulative_cases())
def test_cumulative_ops_property(case):
    values, axis = case
    cumsum, cumprod = compiled_cumulative(values.dtype.name, values.ndim, axis)(values)
    with np.errstate(over="ignore"):
        expected = [
            np.cumsum(values, axis=axis, dtype=values.dtype),
            np.cumprod(values, axis=axis, dtype=values.dtype),
        ]
    for result, reference in zip([cumsum, cumprod], expected, strict=True):
        assert_same_values(result, reference)


# Repeat


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint64", "bool"])
def test_repeat_with_a_count_per_element(dtype, static):
    x = symbolic("x", dtype, (2, 3, 4), static)
    counts = [pt.lvector(f"counts_{axis}") for axis in range(3)]
    outputs = [pt.repeat(x, c, axis=axis) for axis, c in enumerate(counts)]
    count_values = [np.array([2, 0]), np.array([0, 3, 1]), np.array([1, 0, 0, 4])]
    compare_onnx_and_py(
        [x, *counts], outputs, [random_values((2, 3, 4), dtype), *count_values]
    )


@pytest.mark.parametrize(
    "shape, counts",
    [
        ((4,), [0, 0, 0, 0]),
        ((4,), [3]),
        ((0,), []),
        ((0,), [2]),
        ((5,), [1, 1, 1, 1, 1]),
        ((3,), [1000, 1, 0]),
    ],
)
def test_repeat_edge_cases(shape, counts):
    x = pt.vector("x", dtype="float32")
    c = pt.vector("c", dtype="int32")
    compare_onnx_and_py(
        [x, c],
        [pt.repeat(x, c)],
        [random_values(shape, "float32"), np.array(counts, dtype="int32")],
    )


def test_repeat_with_a_scalar_count_and_flattening():
    x = pt.matrix("x", dtype="int32")
    k = pt.lscalar("k")
    c = pt.lvector("c")
    outputs = [pt.repeat(x, k, axis=0), pt.repeat(x, 2, axis=1), pt.repeat(x, c)]
    compare_onnx_and_py(
        [x, k, c],
        outputs,
        [random_values((2, 3), "int32"), 3, np.array([1, 0, 2, 1, 1, 3])],
    )


@pytest.mark.parametrize(
    "counts, message",
    [
        ([1, -1, 2], "negative"),
        ([1, 2], "one element or one per element"),
        ([1, 2, 3, 4], "one element or one per element"),
    ],
)
def test_repeat_invalid_counts_raise(counts, message):
    x = pt.vector("x")
    c = pt.lvector("c")
    fn = pytensor.function([x, c], pt.repeat(x, c), mode="ONNX")
    with pytest.raises(ValueError, match=message):
        fn(np.ones(3), np.array(counts))


def test_repeat_rewrites_off():
    x = pt.matrix("x")
    c = pt.lvector("c")
    compare_onnx_and_py(
        [x, c],
        [pt.repeat(x, c, axis=1)],
        [random_values((2, 3), "float64"), np.array([2, 0, 1])],
        onnx_mode=no_rewrites,
    )


# Unique

FLAGS = [
    dict(),
    dict(return_index=True),
    dict(return_inverse=True),
    dict(return_counts=True),
    dict(return_index=True, return_inverse=True, return_counts=True),
]


def unique_outputs(x, axis, flags):
    result = extra_ops.unique(x, axis=axis, **flags)
    return list(result) if isinstance(result, list | tuple) else [result]


def values_with_duplicates(shape, dtype):
    values = random_values(shape, dtype, low=0, high=3)
    if np.dtype(dtype).kind == "f":
        flat = values.reshape(-1)
        flat[::4] = np.nan
        flat[1::7] = -0.0
        flat[2::9] = np.inf
    return values


@pytest.mark.parametrize("flags", FLAGS, ids=lambda flags: "-".join(flags) or "values")
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_unique_every_output(axis, flags):
    x = pt.matrix("x")
    values = values_with_duplicates((6, 4), "float64")
    values[3] = values[1]
    values[:, 2] = values[:, 0]
    compare_onnx_and_py([x], unique_outputs(x, axis, flags), [values])


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_unique_dtypes(dtype, static):
    x = symbolic("x", dtype, (5, 3), static)
    all_flags = FLAGS[-1]
    outputs = unique_outputs(x, None, all_flags) + unique_outputs(x, 0, all_flags)
    values = values_with_duplicates((5, 3), dtype)
    values[4] = values[0]
    compare_onnx_and_py([x], outputs, [values])


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 2)])
def test_unique_of_empty_arrays(shape):
    x = pt.tensor("x", dtype="float32", shape=(None,) * len(shape))
    outputs = unique_outputs(x, None, FLAGS[-1])
    if len(shape) > 1:
        outputs += unique_outputs(x, 0, FLAGS[-1]) + unique_outputs(x, 1, FLAGS[-1])
    compare_onnx_and_py([x], outputs, [np.zeros(shape, dtype="float32")])


def test_unique_rows_of_a_3d_tensor():
    x = pt.tensor3("x", dtype="int8")
    values = random_values((3, 4, 2), "int8", low=0, high=2)
    outputs = [out for axis in (0, 1, 2) for out in unique_outputs(x, axis, FLAGS[-1])]
    compare_onnx_and_py([x], outputs, [values])


def test_unique_rewrites_off():
    x = pt.vector("x")
    compare_onnx_and_py(
        [x],
        unique_outputs(x, None, FLAGS[-1]),
        [values_with_duplicates((20,), "float64")],
        onnx_mode=no_rewrites,
    )


# SearchsortedOp


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize(
    "x_dtype, v_dtype",
    [
        ("float64", "float64"),
        ("float32", "float32"),
        ("int64", "float64"),
        ("int8", "int16"),
        ("uint64", "uint64"),
        ("float32", "int32"),
        ("bool", "bool"),
    ],
)
def test_searchsorted_dtypes(x_dtype, v_dtype, side):
    x = pt.vector("x", dtype=x_dtype)
    v = pt.matrix("v", dtype=v_dtype)
    sorted_values = np.sort(random_values((9,), x_dtype, low=-3, high=4))
    queries = random_values((4, 5), v_dtype, low=-5, high=6)
    compare_onnx_and_py(
        [x, v], [extra_ops.searchsorted(x, v, side=side)], [sorted_values, queries]
    )


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_with_nan_ties_sorter_and_empty(side):
    x = pt.vector("x")
    v = pt.vector("v")
    sorter = pt.lvector("sorter")
    s = pt.scalar("s")
    outputs = [
        extra_ops.searchsorted(x, v, side=side),
        extra_ops.searchsorted(x[sorter], v, side=side),
        extra_ops.searchsorted(x, s, side=side),
        extra_ops.searchsorted(x, v[:0], side=side),
        extra_ops.searchsorted(x[:0], v, side=side),
    ]
    sorted_x = np.array([-np.inf, 1.0, 2.0, 2.0, 2.0, np.inf, np.nan, np.nan])
    queries = np.array([np.nan, -np.inf, 0.0, 2.0, 2.5, np.inf, 9.0, -0.0])
    compare_onnx_and_py(
        [x, v, sorter, s],
        outputs,
        [sorted_x, queries, np.arange(8), 2.0],
    )


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_with_sorter_input(side):
    x = pt.vector("x")
    v = pt.vector("v")
    sorter = pt.ivector("sorter")
    values = rng.permutation(np.repeat(np.arange(6.0), 2))
    compare_onnx_and_py(
        [x, v, sorter],
        [extra_ops.searchsorted(x, v, side=side, sorter=sorter)],
        [
            values,
            np.array([-1.0, 0.0, 2.5, 3.0, 7.0]),
            np.argsort(values).astype("int32"),
        ],
        onnx_mode=no_rewrites,
    )


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("length", [1, 2, 3, 1000])
def test_searchsorted_lengths(length, static):
    x = symbolic("x", "int64", (length,), static)
    v = symbolic("v", "int64", (50,), static)
    sorted_values = np.sort(rng.integers(0, length, size=length))
    queries = rng.integers(-1, length + 1, size=50)
    compare_onnx_and_py(
        [x, v],
        [extra_ops.searchsorted(x, v), extra_ops.searchsorted(x, v, side="right")],
        [sorted_values, queries],
    )


# FillDiagonal, FillDiagonalOffset


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint64", "bool"])
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (0, 2), (3, 3, 3)])
def test_fill_diagonal(shape, dtype):
    a = pt.tensor("a", dtype=dtype, shape=(None,) * len(shape))
    value = pt.scalar("value", dtype=dtype)
    compare_onnx_and_py(
        [a, value],
        [extra_ops.fill_diagonal(a, value)],
        [random_values(shape, dtype), np.array(1, dtype=dtype)],
    )


def test_fill_diagonal_upcasts_the_value_and_checks_the_shape():
    a = pt.tensor3("a")
    value = pt.iscalar("value")
    compare_onnx_and_py(
        [a, value],
        [extra_ops.fill_diagonal(a, value)],
        [random_values((2, 2, 2), "float64"), 7],
        onnx_mode=no_rewrites,
    )
    fn = pytensor.function([a, value], extra_ops.fill_diagonal(a, value), mode="ONNX")
    with pytest.raises(ValueError, match="equal length"):
        fn(np.zeros((2, 3, 2)), 1)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "bool"])
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (1, 6), (0, 3), (3, 0)])
def test_fill_diagonal_offset_for_every_offset(shape, dtype):
    # Offsets beyond the matrix make PyTensor's `a.flat[start:end:step]` wrap
    # around in odd ways: the ONNX backend does the same.
    a = pt.tensor("a", dtype=dtype, shape=(None, None))
    value = pt.scalar("value", dtype=dtype)
    offset = pt.iscalar("offset")
    out = extra_ops.fill_diagonal_offset(a, value, offset)
    fn, _ = compare_onnx_and_py(
        [a, value, offset],
        out,
        [random_values(shape, dtype), np.array(1, dtype=dtype), 0],
    )
    py_fn = pytensor.function([a, value, offset], out, mode=Mode("py", None))
    a_values = random_values(shape, dtype)
    for offset_value in range(-8, 9):
        args = (a_values, np.array(1, dtype=dtype), offset_value)
        assert_same_values(fn(*args), py_fn(*args))


# Bartlett


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint32"])
def test_bartlett(dtype):
    m = pt.scalar("m", dtype=dtype)
    fn, _ = compare_onnx_and_py([m], extra_ops.bartlett(m), [np.array(5, dtype)])
    for size in [0, 1, 2, 3, 4, 10, 101]:
        assert_same_values(fn(np.array(size, dtype)), np.bartlett(size))
    if dtype != "uint32":
        assert_same_values(fn(np.array(-3, dtype)), np.bartlett(-3))


def test_bartlett_and_fill_diagonal_offset_rewrites_off():
    m = pt.lscalar("m")
    a = pt.matrix("a", dtype="int64")
    offset = pt.iscalar("offset")
    compare_onnx_and_py(
        [m, a, offset],
        [extra_ops.bartlett(m), extra_ops.fill_diagonal_offset(a, m, offset)],
        [7, random_values((3, 4), "int64"), -1],
        onnx_mode=no_rewrites,
    )


# RavelMultiIndex, UnravelIndex


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_ravel_multi_index(mode, order):
    i = pt.lvector("i")
    j = pt.ivector("j")
    k = pt.bscalar("k")
    dims = pt.lvector("dims")
    out = extra_ops.ravel_multi_index((i, j, k), dims, mode=mode, order=order)
    if mode == "raise":
        index_values = [np.array([0, 2, 1]), np.array([3, 0, 2], "int32")]
    else:
        index_values = [np.array([0, -1, 7, -9]), np.array([4, -5, 11, 0], "int32")]
    compare_onnx_and_py(
        [i, j, k, dims],
        [out],
        [*index_values, np.array(1, "int8"), np.array([3, 4, 2])],
    )


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_ravel_multi_index_errors(mode):
    i = pt.lvector("i")
    dims = pt.lvector("dims")
    out = extra_ops.ravel_multi_index((i, i), dims, mode=mode)
    fn = pytensor.function([i, dims], out, mode="ONNX")
    if mode == "raise":
        with pytest.raises(ValueError, match="invalid entry"):
            fn(np.array([0, 3]), np.array([3, 4]))
    with pytest.raises(ValueError):
        fn(np.array([0, 1]), np.array([3, 0]))


@pytest.mark.parametrize("order", ["C", "F"])
def test_unravel_index(order):
    indices = pt.tensor("indices", dtype="int32", shape=(None, None))
    scalar_index = pt.lscalar("scalar_index")
    dims = pt.tensor("dims", dtype="int64", shape=(3,))
    outputs = [
        *extra_ops.unravel_index(indices, dims, order=order),
        *extra_ops.unravel_index(scalar_index, (4, 3), order=order),
    ]
    compare_onnx_and_py(
        [indices, scalar_index, dims],
        outputs,
        [np.array([[0, 5, 23], [17, 12, 1]], "int32"), 11, np.array([3, 4, 2])],
    )


def test_unravel_index_out_of_bounds_raises():
    indices = pt.lvector("indices")
    fn = pytensor.function(
        [indices], extra_ops.unravel_index(indices, (2, 3)), mode="ONNX"
    )
    with pytest.raises(ValueError, match="out of bounds"):
        fn(np.array([1, 6]))
    with pytest.raises(ValueError, match="out of bounds"):
        fn(np.array([-1]))


def test_ravel_and_unravel_rewrites_off():
    i = pt.lvector("i")
    j = pt.lvector("j")
    flat = extra_ops.ravel_multi_index((i, j), (3, 5), mode="clip")
    compare_onnx_and_py(
        [i, j],
        [flat, *extra_ops.unravel_index(flat, (3, 5), order="F")],
        [np.array([0, 2, 5]), np.array([-1, 4, 3])],
        onnx_mode=no_rewrites,
    )


def test_exported_without_runtime_checks():
    import onnxruntime as ort

    from pytensor.link.onnx.export import export_onnx

    x = pt.vector("x")
    counts = pt.lvector("counts")
    i = pt.lvector("i")
    outputs = [
        pt.repeat(x, counts),
        extra_ops.ravel_multi_index((i, i), (3, 4)),
        *extra_ops.unravel_index(i, (3, 4)),
        extra_ops.fill_diagonal(pt.outer(x, x), 0.0),
    ]
    fn = pytensor.function([x, counts, i], outputs, mode=Mode("py", None))
    model = export_onnx(fn)
    session = ort.InferenceSession(model.SerializeToString())
    values = [np.array([3.0, 1.0, 2.0]), np.array([1, 0, 2]), np.array([0, 2])]
    results = session.run(None, dict(zip(["x", "counts", "i"], values, strict=True)))
    for result, expected in zip(results, fn(*values), strict=True):
        assert_same_values(result, expected)


# CpuContiguous and Ops built from other Ops


def test_cpu_contiguous_is_the_identity():
    x = pt.matrix("x")
    compare_onnx_and_py(
        [x],
        [extra_ops.cpu_contiguous(x.T) * 2],
        [random_values((2, 3), "float64")],
        onnx_mode=no_rewrites,
    )


@pytest.mark.parametrize("n", [1, 2, 3])
def test_diff(n):
    x = pt.matrix("x", dtype="int32")
    outputs = [extra_ops.diff(x, n=n, axis=axis) for axis in (0, 1)]
    compare_onnx_and_py([x], outputs, [random_values((4, 5), "int32")])
