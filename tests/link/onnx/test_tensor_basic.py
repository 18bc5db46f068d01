import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
from pytensor.tensor.basic import (
    Alloc,
    AllocEmpty,
    MakeVector,
    permute_row_elements,
    scalar_from_tensor,
    tensor_from_scalar,
)

import pytensor
from tests.link.onnx.utils import (
    compare_converted_graph,
    compare_onnx_and_py,
    exported_op_types,
    n_runtime_checks,
)


DTYPES = ["float64", "float32", "int8", "uint16", "int64", "uint64", "bool"]
rng = np.random.default_rng(5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_alloc_to_symbolic_shapes(dtype):
    value = pt.tensor("value", dtype=dtype, shape=(1, None))
    rows = pt.scalar("rows", dtype="int64")
    cols = pt.scalar("cols", dtype="int32")
    alloc = Alloc()
    outputs = [
        alloc(value, rows, cols),
        alloc(value, 2, rows, cols),
        alloc(value[0, 0], rows, 2),
        alloc(value[0, 0]),
        alloc(value, 0, cols),
    ]
    compare_onnx_and_py(
        [value, rows, cols],
        outputs,
        [np.array([[1, 0, 1]], dtype=dtype), np.array(4), np.array(3, dtype="int32")],
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_alloc_empty_has_the_right_dtype_and_shape(dtype):
    # Any content is valid: the ONNX backend fills zeros
    rows = pt.scalar("rows", dtype="int64")
    outputs = [
        AllocEmpty(dtype)(rows, 3),
        AllocEmpty(dtype)(),
        AllocEmpty(dtype)(0, rows),
    ]
    fn = pytensor.function([rows], outputs, mode="ONNX")
    for result, shape in zip(fn(np.array(2)), [(2, 3), (), (0, 2)], strict=True):
        assert result.dtype == dtype
        assert result.shape == shape


@pytest.mark.parametrize("dtype", DTYPES)
def test_make_vector(dtype):
    a = pt.scalar("a", dtype=dtype)
    b = pt.scalar("b", dtype="int8")
    outputs = [
        MakeVector(dtype)(a, a),
        MakeVector(dtype)(a),
        MakeVector(dtype)(),
        pt.stack([a, pt.cast(b, dtype), a]),
    ]
    compare_onnx_and_py(
        [a, b], outputs, [np.array(1, dtype=dtype), np.array(3, dtype="int8")]
    )


def test_make_vector_upcasts_mixed_dtypes():
    a = pt.scalar("a", dtype="int8")
    b = pt.scalar("b", dtype="float32")
    c = pt.scalar("c", dtype="uint16")
    vector = MakeVector("float64")(a, b, c)
    assert vector.dtype == "float64"
    compare_onnx_and_py(
        [a, b, c],
        [vector, MakeVector("int64")(a, c)],
        [np.array(-3, "int8"), np.array(0.5, "float32"), np.array(60000, "uint16")],
    )


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "bool"])
def test_scalar_tensor_conversions(dtype):
    x = pt.scalar("x", dtype=dtype)
    s = ps.get_scalar_type(dtype)("s")
    as_scalar = scalar_from_tensor(x)
    as_tensor = tensor_from_scalar(s)
    compare_onnx_and_py(
        [x, s],
        [as_scalar, as_tensor, tensor_from_scalar(as_scalar)],
        [np.array(1, dtype=dtype), np.array(0, dtype=dtype)],
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_join_and_split(dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None, 3))
    y = pt.tensor("y", dtype=dtype, shape=(2, 3))
    sizes = pt.vector("sizes", dtype="int32")
    outputs = [
        pt.concatenate([x, y, x], axis=0),
        pt.concatenate([y, x[:2]], axis=-1),
        pt.stack([y, y], axis=1),
        pt.concatenate([x]),
        *pt.split(x, sizes, n_splits=3, axis=0),
        *pt.split(y, [1, 0, 2], n_splits=3, axis=-1),
    ]
    values = np.arange(12).reshape(4, 3).astype(dtype)
    compare_onnx_and_py(
        [x, y, sizes],
        outputs,
        [values, values[:2], np.array([1, 0, 3], dtype="int32")],
    )


def test_join_upcasts_mixed_dtypes():
    a = pt.vector("a", dtype="int8")
    b = pt.vector("b", dtype="float32")
    c = pt.vector("c", dtype="uint16")
    compare_onnx_and_py(
        [a, b, c],
        [pt.concatenate([a, b, c]), pt.concatenate([a, c])],
        [
            np.array([-3], "int8"),
            np.array([0.5], "float32"),
            np.array([60000], "uint16"),
        ],
    )


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_join_along_an_axis_given_at_run_time(axis):
    x = pt.tensor3("x")
    y = pt.tensor3("y", dtype="int16")
    axis_var = pt.scalar("axis", dtype="int32")
    compare_onnx_and_py(
        [x, y, axis_var],
        pt.join(axis_var, x, y),
        [rng.normal(size=(2, 3, 4)), np.ones((2, 3, 4), "int16"), np.int32(axis)],
    )


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_split_along_an_axis_given_at_run_time(axis):
    x = pt.matrix("x")
    axis_var = pt.lscalar("axis")
    sizes = pt.lvector("sizes")
    parts = pt.split(x, sizes, n_splits=2, axis=axis_var)
    compare_onnx_and_py(
        [x, axis_var, sizes],
        parts,
        [rng.normal(size=(4, 4)), np.int64(axis), np.array([1, 3])],
    )


def test_join_along_an_axis_out_of_range_raises_numpys_error():
    x = pt.matrix("x")
    axis = pt.scalar("axis", dtype="int64")
    joined = pytensor.function([x, axis], pt.join(axis, x, x), mode="ONNX")
    with pytest.raises(np.exceptions.AxisError):
        joined(np.ones((2, 2)), 2)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@pytest.mark.parametrize(
    "a_shape, choices_shape",
    [((5,), (3, 5)), ((2, 4), (3, 2, 4)), ((2, 1), (3, 4)), ((4,), (3, 2, 1))],
)
def test_choose(mode, a_shape, choices_shape):
    a = pt.tensor("a", dtype="int32", shape=(None,) * len(a_shape))
    choices = pt.tensor("choices", shape=(None,) * len(choices_shape))
    low, high = (0, 3) if mode == "raise" else (-4, 7)
    compare_onnx_and_py(
        [a, choices],
        pt.choose(a, choices, mode=mode),
        [
            rng.integers(low, high, a_shape).astype("int32"),
            rng.normal(size=choices_shape),
        ],
    )


@pytest.mark.parametrize("as_sequence", [list, tuple])
def test_choose_from_a_list_of_arrays_that_broadcast(as_sequence):
    a = pt.tensor3("a", dtype="int32")
    b = pt.tensor3("b")
    c = pt.tensor3("c")
    compare_onnx_and_py(
        [a, b, c],
        pt.choose(a, as_sequence([b, c])),
        [
            rng.integers(0, 2, (2, 1, 1)).astype("int32"),
            rng.normal(size=(1, 6, 1)),
            rng.normal(size=(1, 1, 5)),
        ],
    )


def test_choose_out_of_range_raises_numpys_error():
    a = pt.lvector("a")
    choices = pt.matrix("choices")
    chosen = pytensor.function([a, choices], pt.choose(a, choices), mode="ONNX")
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        chosen(np.array([0, 3]), np.ones((3, 2)))


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize(
    "x_shape, y_shape",
    [((5,), (5,)), ((3, 5), (3, 5)), ((3, 5), (5,)), ((1, 5), (4, 5))],
)
def test_permute_row_elements(inverse, x_shape, y_shape):
    x = pt.tensor("x", shape=tuple(1 if d == 1 else None for d in x_shape))
    y = pt.tensor(
        "y", dtype="int64", shape=tuple(1 if d == 1 else None for d in y_shape)
    )
    permutations = np.stack(
        [rng.permutation(y_shape[-1]) for _ in range(int(np.prod(y_shape[:-1])))]
    ).reshape(y_shape)
    permutations[..., 0] -= y_shape[-1]  # negative indices count from the end
    compare_onnx_and_py(
        [x, y],
        permute_row_elements(x, y, inverse=inverse),
        [rng.normal(size=x_shape), permutations],
    )


def test_permute_row_elements_refuses_runtime_broadcasting():
    x = pt.matrix("x")
    y = pt.lmatrix("y")
    permuted = pytensor.function([x, y], permute_row_elements(x, y), mode="ONNX")
    with pytest.raises(ValueError, match="Dimension mismatch"):
        permuted(np.ones((3, 2)), np.zeros((1, 2), "int64"))


@pytest.mark.parametrize(
    "dtype, start, stop, step",
    [
        ("int64", 0, 5, 1),
        ("int64", 7, -3, -2),
        ("int32", 3, 3, 1),
        ("uint8", 2, 250, 3),
        ("int8", 5, 0, 1),
        ("float64", 0.1, 1.0, 0.2),
        ("float64", 1.0, -1.0, -0.3),
        ("float32", 0.0, 1.0, 0.1),
    ],
)
def test_arange_with_symbolic_bounds(dtype, start, stop, step):
    kind = "float64" if dtype.startswith("float") else "int64"
    bounds = [pt.scalar(name, dtype=kind) for name in ("start", "stop", "step")]
    compare_onnx_and_py(
        bounds,
        pt.arange(*bounds, dtype=dtype),
        [np.array(value, dtype=kind) for value in (start, stop, step)],
    )


def test_graph_as_default_c_mode_leaves_it():
    x = pt.matrix("x")
    n = pt.scalar("n", dtype="int64")
    outputs = [
        pt.zeros((n, x.shape[1])),
        pt.ones_like(x) * 2,
        pt.stack([x.shape[0], n]),
        pt.full((2, n), x[0, 0]),
        pt.arange(n) * 2,
        pt.concatenate([x, x * 2], axis=1),
        pytensor.grad(pt.concatenate([x, x[:1]]).sum(), x),
    ]
    fn = pytensor.function([x, n], outputs, mode="FAST_RUN")
    compare_converted_graph(fn, [rng.normal(size=(3, 2)), np.array(4)])


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "bool"])
@pytest.mark.parametrize(
    "n, m, k", [(3, 3, 0), (2, 4, 1), (4, 2, -1), (3, 5, 7), (0, 3, 0)]
)
def test_eye(n, m, k, dtype):
    n_var, m_var, k_var = pt.lscalar("n"), pt.lscalar("m"), pt.lscalar("k")
    compare_onnx_and_py(
        [n_var, m_var, k_var],
        [pt.eye(n_var, m_var, k_var, dtype=dtype)],
        [np.int64(n), np.int64(m), np.int64(k)],
    )


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
@pytest.mark.parametrize(
    "shape, offset, axis1, axis2",
    [
        ((3, 3), 0, 0, 1),
        ((3, 5), 2, 0, 1),
        ((5, 3), -2, 0, 1),
        ((3, 4), 9, 0, 1),
        ((2, 3, 4), 1, 2, 0),
        ((2, 3, 4), -1, 1, 2),
        ((0, 3, 4), 0, 1, 2),
        ((3, 0), 0, 0, 1),
    ],
)
@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
def test_extract_diag(shape, offset, axis1, axis2, dtype, static):
    x = pt.tensor("x", shape=shape if static else (None,) * len(shape), dtype=dtype)
    value = (np.arange(np.prod(shape)).reshape(shape) % 7).astype(dtype)
    compare_onnx_and_py(
        [x], [pt.diagonal(x, offset=offset, axis1=axis1, axis2=axis2)], [value]
    )


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "uint64", "bool"])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 0, 3), (2, 3, 2)])
def test_nonzero(shape, dtype):
    x = pt.tensor("x", shape=(None,) * len(shape), dtype=dtype)
    rng = np.random.default_rng(4)
    value = np.where(rng.random(shape) < 0.5, 0, rng.integers(1, 5, shape)).astype(
        dtype
    )
    if dtype.startswith("float") and value.size:
        value.flat[0] = np.nan
    compare_onnx_and_py([x], list(pt.nonzero(x)), [value])


def test_alloc_runtime_broadcast():
    v, n = pt.vector("v"), pt.lscalar("n")
    fn = pytensor.function([v, n], pt.alloc(v, 2, n), mode="ONNX")
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        fn(np.ones(1), 3)
    with pytest.raises(ValueError):
        fn(np.ones(3), 4)
    compare_onnx_and_py([v, n], pt.alloc(v, 2, n), [np.arange(3.0), 3])
    compare_onnx_and_py([v, n], pt.alloc(v, 2, n), [np.ones(1), 1])


def test_alloc_of_known_lengths_has_no_check():
    v, x = pt.tensor("v", shape=(3,)), pt.matrix("x")
    fn = pytensor.function([v], pt.alloc(v, 2, 3), mode="ONNX")
    assert n_runtime_checks(fn) == 0
    row = pt.tensor("row", shape=(1, None))
    fn = pytensor.function([row, x], pt.alloc(row, x.shape[0], x.shape[1]), mode="ONNX")
    assert n_runtime_checks(fn) == 1
    assert exported_op_types(fn).count("Equal") == 0


def mismatched_join(axis_given_at_run_time):
    x, y = pt.matrix("x"), pt.matrix("y")
    axis = pt.lscalar("axis") if axis_given_at_run_time else 1
    inputs = [x, y, axis] if axis_given_at_run_time else [x, y]
    return inputs, pt.join(axis, x, y)


@pytest.mark.parametrize("axis_given_at_run_time", [False, True])
@pytest.mark.parametrize(
    "x_shape, y_shape, raises",
    [((2, 3), (2, 1), False), ((2, 3), (3, 3), True), ((1, 2), (2, 2), True)],
)
def test_join_of_mismatched_lengths_raises_numpys_error(
    axis_given_at_run_time, x_shape, y_shape, raises
):
    inputs, joined = mismatched_join(axis_given_at_run_time)
    values = [np.ones(x_shape), np.ones(y_shape)] + [1] * axis_given_at_run_time
    for mode in ("FAST_COMPILE", "ONNX"):
        fn = pytensor.function(inputs, joined, mode=mode)
        if raises:
            with pytest.raises(ValueError):
                fn(*values)
        else:
            assert fn(*values).shape == (2, 4)


def test_join_of_static_lengths_makes_no_runtime_check():
    x, y = pt.tensor("x", shape=(2, None)), pt.tensor("y", shape=(2, 3))
    fn = pytensor.function([x, y], pt.join(1, x, y), mode="ONNX")
    assert n_runtime_checks(fn) == 0


@pytest.mark.parametrize(
    "sizes, message",
    [
        ([5, -1], "negative"),
        ([1, 2], "sum"),
        ([1, 1, 2], "n_splits"),
    ],
)
@pytest.mark.parametrize("sizes_are_constant", [False, True])
def test_split_of_invalid_sizes_raises_pytensors_error(
    sizes, message, sizes_are_constant
):
    x = pt.matrix("x")
    sizes_var = pt.as_tensor(np.array(sizes)) if sizes_are_constant else pt.lvector("s")
    inputs = [x] if sizes_are_constant else [x, sizes_var]
    values = [np.ones((4, 2))] + ([] if sizes_are_constant else [np.array(sizes)])
    for mode in ("FAST_COMPILE", "ONNX"):
        fn = pytensor.function(
            inputs, pt.split(x, sizes_var, n_splits=2, axis=0), mode=mode
        )
        with pytest.raises(ValueError, match=message):
            fn(*values)


def test_split_of_constant_sizes_and_static_length_makes_no_runtime_check():
    x = pt.tensor("x", shape=(4, None))
    fn = pytensor.function([x], pt.split(x, [1, 3], n_splits=2, axis=0), mode="ONNX")
    assert n_runtime_checks(fn) == 0


@pytest.mark.skipif(
    not hasattr(pytensor.tensor.basic, "Default"),
    reason="Default is gone in PyTensor 3",
)
def test_default_of_a_tensor_is_the_tensor():
    x, fallback = pt.vector("x"), pt.vector("fallback")
    compare_onnx_and_py(
        [x, fallback],
        [pytensor.tensor.basic.Default()(x, fallback) * 2],
        [np.arange(3.0), np.ones(3)],
    )
