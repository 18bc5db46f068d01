import sys
from functools import cache

import numpy as np
import onnxruntime as ort
import pytensor.tensor as pt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pytensor.compile.mode import Mode, get_mode
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.traversal import graph_inputs
from pytensor.tensor.subtensor import AdvancedIncSubtensor1, advanced_inc_subtensor

import pytensor
from pytensor.link.onnx import ONNXLinker
from pytensor.link.onnx.dispatch import onnx_funcify
from pytensor.link.onnx.dispatch.variables import ONNXConversionError
from pytensor.link.onnx.passes.graphs import count_nodes
from tests.link.onnx.utils import (
    compare_onnx_and_py,
    n_runtime_checks,
    no_rewrites,
    onnx_model_of,
    py_mode,
)


MODES = pytest.mark.parametrize(
    "mode", ["ONNX", no_rewrites], ids=["rewritten", "as_built"]
)
STATIC = pytest.mark.parametrize(
    "static_shape", [True, False], ids=["static", "symbolic"]
)
DTYPES = ["float64", "float32", "int64", "uint8", "bool"]
SHAPE = (5, 4, 3)
MASK_2D = np.array(
    [[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0], [1, 0, 0, 1]], bool
)


def random_values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def tensor_input(dtype, static_shape):
    return pt.tensor("x", dtype=dtype, shape=SHAPE if static_shape else (None,) * 3)


def static_and_symbolic_inputs(dtype):
    """Inputs for the same data, one of static and one of symbolic shape."""
    return (
        pt.tensor("x", dtype=dtype, shape=SHAPE),
        pt.tensor("x_symbolic", dtype=dtype, shape=(None,) * 3),
    )


class IndexInputs:
    """Create index inputs for a test case and remember their test values."""

    def __init__(self):
        self.variables, self.values = [], []

    def __call__(self, values, dtype="int64"):
        values = np.asarray(values, dtype=dtype)
        var = pt.tensor(
            f"index_{len(self.variables)}", dtype=dtype, shape=(None,) * values.ndim
        )
        self.variables.append(var)
        self.values.append(values)
        return var


BASIC_INDICES = {
    "int": lambda x: x[1],
    "negative_ints": lambda x: x[-1, -4],
    "all_ints": lambda x: x[2, 0, -1],
    "reversed": lambda x: x[::-1],
    "reversed_step_2": lambda x: x[5:1:-2],
    "reversed_from_last": lambda x: x[-1::-3],
    "steps": lambda x: x[::3, 1::2],
    "empty": lambda x: x[5:2],
    "out_of_range_bounds": lambda x: x[-10:10, :100],
    "reversed_start_before_first": lambda x: x[-10::-1],
    "reversed_through_everything": lambda x: x[10:-10:-1],
    "reversed_huge_stop": lambda x: x[1 : sys.maxsize : -1],
    "mixed": lambda x: x[1:, -1, ::-2],
    "ellipsis": lambda x: x[..., 1],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", BASIC_INDICES.values(), ids=BASIC_INDICES.keys())
def test_basic_indexing(index, dtype):
    xs = static_and_symbolic_inputs(dtype)
    values = random_values(SHAPE, dtype)
    compare_onnx_and_py(xs, [index(x) for x in xs], [values, values])


def test_basic_indexing_as_built():
    x = tensor_input("float64", False)
    compare_onnx_and_py(
        [x],
        [index(x) for index in BASIC_INDICES.values()],
        [random_values(SHAPE, "float64")],
        onnx_mode=no_rewrites,
    )


def test_basic_indexing_of_empty_tensor():
    x = pt.matrix("x")
    compare_onnx_and_py([x], [x[::-1], x[1:], x[:, -1], x[-2::-2]], [np.zeros((0, 3))])


SLICE_BOUNDS = [*range(-7, 8), -sys.maxsize - 1, sys.maxsize]


def test_symbolic_slice_bounds_match_numpy():
    x = pt.vector("x")
    start, stop, step = pt.lscalars("start", "stop", "step")
    fn = pytensor.function(
        [x, start, stop, step],
        [x[start:stop:step], x[start::step], x[:stop:step]],
        mode="ONNX",
    )
    for length in (0, 1, 5):
        data = np.arange(float(length))
        for step_value in (-3, -1, 1, 2):
            for start_value in SLICE_BOUNDS:
                for stop_value in SLICE_BOUNDS:
                    results = fn(data, start_value, stop_value, step_value)
                    expected = [
                        data[start_value:stop_value:step_value],
                        data[start_value::step_value],
                        data[:stop_value:step_value],
                    ]
                    for result, value in zip(results, expected, strict=True):
                        np.testing.assert_array_equal(result, value)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8", "uint32"])
def test_index_dtypes(dtype):
    x = pt.matrix("x")
    i, j = pt.scalar("i", dtype=dtype), pt.scalar("j", dtype=dtype)
    signed = np.dtype(dtype).kind == "i"
    compare_onnx_and_py(
        [x, i, j],
        [x[i], x[j:i], x[:, i::j] if signed else x[:, i:j]],
        [
            random_values((5, 4), "float64"),
            np.asarray(-2 if signed else 3, dtype=dtype),
            np.asarray(1, dtype=dtype),
        ],
    )


def test_out_of_bounds_index_raises():
    x, i, v = pt.vector("x"), pt.lscalar("i"), pt.lvector("v")
    fn = pytensor.function([x, i, v], [x[i], x[v]], mode="ONNX")
    assert fn(np.arange(3.0), -3, np.array([-3]))[0] == 0.0
    with pytest.raises(Exception, match="out of"):
        fn(np.arange(3.0), 3, np.array([0]))
    with pytest.raises(Exception, match="out of"):
        fn(np.arange(3.0), 0, np.array([-4]))


def bounds():
    return st.one_of(
        st.integers(-8, 8), st.sampled_from([-sys.maxsize - 1, sys.maxsize])
    )


@cache
def basic_indexing_functions():
    x, y = pt.tensor3("x"), pt.scalar("y")
    a0, b0, c0, a1, b1, c1, a2, b2, c2, i0, i1 = pt.lscalars(11)
    inputs = [x, y, a0, b0, c0, a1, b1, c1, a2, b2, c2, i0, i1]
    outputs = [
        x[a0:b0:c0, a1:b1:c1, a2:b2:c2],
        x[i0, :b1:c1, a2::c2],
        x[a0::c0, i1],
        pt.set_subtensor(x[a0:b0:c0, i1], y),
        pt.inc_subtensor(x[:, a1:b1:c1, ::c2], y),
    ]
    return (
        pytensor.function(inputs, outputs, mode="ONNX"),
        pytensor.function(inputs, outputs, mode=py_mode),
    )


@given(
    shape=st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(0, 6)),
    starts_and_stops=st.lists(bounds(), min_size=6, max_size=6),
    steps=st.lists(st.integers(-4, 4).filter(bool), min_size=3, max_size=3),
    data=st.data(),
)
def test_random_basic_indexing_matches_python(shape, starts_and_stops, steps, data):
    onnx_fn, py_fn = basic_indexing_functions()
    a0, b0, a1, b1, a2, b2 = starts_and_stops
    c0, c1, c2 = steps
    i0 = data.draw(st.integers(-shape[0], shape[0] - 1))
    i1 = data.draw(st.integers(-shape[1], shape[1] - 1))
    args = [random_values(shape, "float64"), 1.5, a0, b0, c0, a1, b1, c1, a2, b2, c2]
    args += [i0, i1]
    for result, expected in zip(onnx_fn(*args), py_fn(*args), strict=True):
        np.testing.assert_array_equal(result, expected)


# Each case indexes x of shape SHAPE, creating its index inputs with `i`
ADVANCED_INDICES = {
    "vector_with_repeats": lambda x, i: x[i([3, -1, 0, 3])],
    "empty_vector": lambda x, i: x[i([])],
    "matrix_index": lambda x, i: x[i([[0, 1], [-1, 2]])],
    "broadcast_arrays": lambda x, i: x[i([[0], [4]]), i([0, -1, 2])],
    "arrays_after_slice": lambda x, i: x[:, i([0, 3]), i([1, -1])],
    "arrays_separated_by_slice": lambda x, i: x[i([0, 3]), :, i([1, -1])],
    "int_and_array_separated": lambda x, i: x[1, :, i([2, 0, -1])],
    "array_between_slices": lambda x, i: x[1:, i([0, -1, 0]), ::-1],
    "array_and_symbolic_slice": lambda x, i: x[i([0, 2]), i(-1) :: i(-2)],
    "int8_index": lambda x, i: x[:, i([-1, 2], "int8")],
    "uint16_index": lambda x, i: x[i([4, 2], "uint16")],
    "full_mask": lambda x, i: x[i(random_values(SHAPE, "bool"), "bool")],
    "leading_mask": lambda x, i: x[i(MASK_2D, "bool")],
    "mask_after_slice": lambda x, i: x[::2, i([1, 0, 0, 1], "bool")],
    "mask_and_array": lambda x, i: x[i([0, 1, 0, 0, 1], "bool"), :, i([2, -1])],
    "constant_mask": lambda x, i: x[np.array([True, False, True, True, False])],
    "newaxis_between_arrays": lambda x, i: x[i([0, -1]), None, i([3, 1])],
    "newaxis_then_slice_and_array": lambda x, i: x[None, 1:, i([2, 0, 2])],
    "array_on_last_axis": lambda x, i: x[:, :, i([2, -1, 2, 0])],
    "matrix_index_on_middle_axis": lambda x, i: x[:, i([[0, 1], [-1, 3]])],
}


@MODES
@STATIC
@pytest.mark.parametrize(
    "index", ADVANCED_INDICES.values(), ids=ADVANCED_INDICES.keys()
)
def test_advanced_indexing(index, static_shape, mode):
    x = tensor_input("float64", static_shape)
    indices = IndexInputs()
    out = index(x, indices)
    compare_onnx_and_py(
        [x, *indices.variables],
        out,
        [random_values(SHAPE, "float64"), *indices.values],
        onnx_mode=mode,
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_advanced_indexing_dtypes(dtype):
    x = tensor_input(dtype, False)
    i = IndexInputs()
    outputs = [x[i([[1, -1]])], x[:, i([0, 2]), i([-1, 0])], x[i(MASK_2D, "bool")]]
    compare_onnx_and_py(
        [x, *i.variables], outputs, [random_values(SHAPE, dtype), *i.values]
    )


WRONG_MASKS = {
    "symbolic mask": (
        (None, None),
        lambda x, m: x[m],
        [pt.matrix("m", dtype="bool")],
        [np.ones((2, 3), dtype=bool)],
    ),
    "constant mask, increment": (
        (None, None),
        lambda x: pt.inc_subtensor(x[np.array([True, False, True, True])], 1.0),
        [],
        [],
    ),
    # x[mask] of this x is refused when the graph is built, its increment not
    "constant mask, static shape, increment": (
        (3, 3),
        lambda x: advanced_inc_subtensor(x, 1.0, pt.as_tensor([True, False])),
        [],
        [],
    ),
}


@pytest.mark.parametrize(
    "static_shape, index, mask_inputs, mask_values",
    WRONG_MASKS.values(),
    ids=WRONG_MASKS.keys(),
)
def test_mask_of_wrong_shape_raises_index_error(
    static_shape, index, mask_inputs, mask_values
):
    x = pt.tensor("x", shape=static_shape)
    for mode in ("ONNX", py_mode):
        fn = pytensor.function([x, *mask_inputs], index(x, *mask_inputs), mode=mode)
        with pytest.raises(IndexError):
            fn(np.zeros((3, 3)), *mask_values)


BASIC_UPDATES = {
    "int": lambda x: x[1],
    "negative_int_reversed": lambda x: x[-1, ::-1],
    "reversed_step_and_int": lambda x: x[5:1:-2, 1],
    "step_and_last": lambda x: x[::2, :, -1],
    "empty": lambda x: x[5:2],
    "ellipsis": lambda x: x[..., 0],
    "everything": lambda x: x[:],
    "int_on_middle_axis": lambda x: x[:, 2],
    "slice_on_last_axis": lambda x: x[:, :, 1:],
    "reversed_step_on_middle_axis": lambda x: x[:, ::-2],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", BASIC_UPDATES.values(), ids=BASIC_UPDATES.keys())
def test_basic_set_and_increment(index, dtype):
    xs = static_and_symbolic_inputs(dtype)
    region_shape = index(xs[0]).type.shape
    y = pt.tensor("y", dtype=dtype, shape=(None,) * len(region_shape))
    one = np.asarray(1, dtype=dtype)
    outputs = [
        update(index(x), value)
        for x in xs
        for update in (pt.set_subtensor, pt.inc_subtensor)
        for value in (y, one)
    ]
    values = random_values(SHAPE, dtype)
    compare_onnx_and_py(
        [*xs, y], outputs, [values, values, random_values(region_shape, dtype, seed=1)]
    )


@cache
def row_update_functions():
    """Updates of one scalar or slice index on axis 0, the cheapest to convert."""
    v, m = pt.vector("v"), pt.matrix("m")
    scalar, row = pt.scalar("scalar"), pt.vector("row")
    start, stop, step, i = pt.lscalars("start", "stop", "step", "i")
    outputs = [
        pt.set_subtensor(v[start:stop:step], scalar),
        pt.inc_subtensor(v[start:stop:step], scalar),
        pt.inc_subtensor(v[i], scalar),
        pt.set_subtensor(v[i], scalar),
        pt.set_subtensor(m[start:stop:step], row),
        pt.inc_subtensor(m[start:stop:step, :], row),
        pt.inc_subtensor(m[i], row),
        pt.set_subtensor(m[i, :], row),
    ]
    inputs = [v, m, scalar, row, start, stop, step, i]
    return (
        pytensor.function(inputs, outputs, mode="ONNX"),
        pytensor.function(inputs, outputs, mode=py_mode),
    )


@given(
    n_rows=st.integers(1, 6),
    start=bounds(),
    stop=bounds(),
    step=st.integers(-3, 3).filter(bool),
    data=st.data(),
)
def test_random_row_updates_match_python(n_rows, start, stop, step, data):
    onnx_fn, py_fn = row_update_functions()
    i = data.draw(st.integers(-n_rows, n_rows - 1))
    args = [
        random_values(n_rows, "float64"),
        random_values((n_rows, 3), "float64", seed=1),
        2.5,
        np.arange(3.0),
        start,
        stop,
        step,
        i,
    ]
    for result, expected in zip(onnx_fn(*args), py_fn(*args), strict=True):
        np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("static_shape", [True, False], ids=["static", "symbolic"])
def test_row_updates_of_static_and_symbolic_shapes(static_shape):
    shape = (5, 3) if static_shape else (None, None)
    x, y = pt.tensor("x", shape=shape), pt.vector("y")
    rows = pt.lvector("rows")
    compare_onnx_and_py(
        [x, y, rows],
        [
            pt.inc_subtensor(x[-2], y),
            pt.set_subtensor(x[1:4], y),
            pt.inc_subtensor(x[::-2], y),
            pt.inc_subtensor(x[rows], y),
            pt.inc_subtensor(x[:, -1][rows], y[0]),
        ],
        [random_values((5, 3), "float64"), np.arange(3.0), np.array([4, -1, 0, 4])],
    )


def test_increment_wraps_like_numpy():
    x = pt.vector("x", dtype="uint8")
    compare_onnx_and_py(
        [x],
        pt.inc_subtensor(x[1:], np.uint8(200)),
        [np.array([1, 100, 255], "uint8")],
    )


def test_update_with_symbolic_bounds_and_broadcast_value():
    x, y = pt.matrix("x"), pt.vector("y")
    start, stop, step, i = pt.lscalars("start", "stop", "step", "i")
    compare_onnx_and_py(
        [x, y, start, stop, step, i],
        [
            pt.set_subtensor(x[start:stop:step], y),
            pt.inc_subtensor(x[start::step, i], y[0]),
        ],
        [random_values((6, 3), "float64"), np.arange(3.0), -1, -5, -2, -3],
    )


def set_tail(x, v, y):
    x[2:] = y


def add_at(x, v, y):
    np.add.at(x, v, y)


@pytest.mark.parametrize(
    "update, numpy_update",
    [
        (lambda x, v, y: pt.set_subtensor(x[2:], y, inplace=True), set_tail),
        (lambda x, v, y: pt.inc_subtensor(x[v], y, inplace=True), add_at),
        (lambda x, v, y: AdvancedIncSubtensor1(inplace=True)(x, y, v), add_at),
    ],
    ids=["IncSubtensor", "AdvancedIncSubtensor", "AdvancedIncSubtensor1"],
)
def test_inplace_updates_convert(update, numpy_update):
    # PyTensor only compiles graphs with in-place Ops through its own
    # rewrites, so convert the graph directly.
    x, v, y = pt.vector("x"), pt.lvector("v"), pt.vector("y")
    out = update(x, v, y)
    assert out.owner.op.destroy_map
    session = ort.InferenceSession(
        onnx_funcify(FunctionGraph([x, v, y], [out])).model.SerializeToString(),
        providers=["CPUExecutionProvider"],
    )
    values = [np.arange(4.0), np.array([1, 1]), np.array([10.0, 20.0])]
    result = session.run(None, dict(zip(["x", "v", "y"], values, strict=True)))[0]
    numpy_update(values[0], *values[1:])
    np.testing.assert_array_equal(result, values[0])


ADVANCED_UPDATES = {
    "vector_with_repeats": lambda x, i: x[i([3, -1, 0, 3, 4])],
    "empty_vector": lambda x, i: x[i([])],
    "broadcast_arrays_with_repeats": lambda x, i: x[i([[0], [-5], [2]]), i([1, 1])],
    "arrays_separated_by_slice": lambda x, i: x[i([0, 0, 3]), 1:, i([1, 1, 2])],
    "arrays_separated_by_symbolic_slice": lambda x, i: x[
        i([4, 4]), i(-3) : i(3), i([0, -3])
    ],
    "mask": lambda x, i: x[i(MASK_2D, "bool")],
    "mask_after_slice": lambda x, i: x[:, i([1, 0, 0, 1], "bool")],
    "vector_with_repeats_on_middle_axis": lambda x, i: x[:, i([1, -1, 1, 0])],
    "vector_on_last_axis": lambda x, i: x[:, :, i([2, 0, -3])],
}


@MODES
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool"])
@pytest.mark.parametrize(
    "index", ADVANCED_UPDATES.values(), ids=ADVANCED_UPDATES.keys()
)
def test_advanced_set_and_increment(index, dtype, mode):
    x = tensor_input(dtype, False)
    indices = IndexInputs()
    region = index(x, indices)
    region_shape = region.shape.eval(
        {
            x: np.zeros(SHAPE, dtype),
            **dict(zip(indices.variables, indices.values, strict=True)),
        },
        mode=py_mode,
        on_unused_input="ignore",
    )
    y = pt.tensor("y", dtype=dtype, shape=(None,) * len(region_shape))
    compare_onnx_and_py(
        [x, y, *indices.variables],
        [
            pt.set_subtensor(region, y),
            pt.inc_subtensor(region, y),
            pt.inc_subtensor(region, y, ignore_duplicates=True),
        ],
        [
            random_values(SHAPE, dtype),
            random_values(tuple(region_shape), dtype, seed=1),
            *indices.values,
        ],
        onnx_mode=mode,
    )


@cache
def advanced_update_functions():
    x, y, z = pt.matrix("x"), pt.matrix("y"), pt.vector("z")
    rows, columns = pt.lvector("rows"), pt.lvector("columns")
    outputs = [
        pt.inc_subtensor(x[rows], y),
        pt.set_subtensor(x[rows], y),
        pt.inc_subtensor(x[rows, columns], z),
        pt.set_subtensor(x[rows, columns], z),
    ]
    inputs = [x, y, z, rows, columns]
    return (
        pytensor.function(inputs, outputs, mode="ONNX"),
        pytensor.function(inputs, outputs, mode=py_mode),
    )


@given(n_rows=st.integers(1, 5), n_indices=st.integers(0, 12), data=st.data())
def test_repeated_indices_accumulate_or_keep_last(n_rows, n_indices, data):
    onnx_fn, py_fn = advanced_update_functions()

    def indices(size):
        values = st.lists(
            st.integers(-size, size - 1), min_size=n_indices, max_size=n_indices
        )
        return np.array(data.draw(values), dtype="int64")

    args = [
        random_values((n_rows, 3), "float64"),
        random_values((n_indices, 3), "float64", seed=1),
        random_values((n_indices,), "float64", seed=2),
        indices(n_rows),
        indices(3),
    ]
    for result, expected in zip(onnx_fn(*args), py_fn(*args), strict=True):
        np.testing.assert_allclose(result, expected, rtol=1e-12)


def test_repeated_increments_are_exact_on_several_threads():
    options = ort.SessionOptions()
    options.intra_op_num_threads = 4
    x, v, y = pt.vector("x"), pt.lvector("v"), pt.vector("y")
    fn = pytensor.function(
        [x, v, y],
        pt.inc_subtensor(x[v], y),
        mode=Mode(ONNXLinker(session_options=options), "fast_run"),
    )
    rng = np.random.default_rng(0)
    indices = rng.integers(0, 50, size=2_000_000)
    updates = rng.random(indices.size)
    expected = np.zeros(50)
    np.add.at(expected, indices, updates)
    np.testing.assert_allclose(fn(np.zeros(50), indices, updates), expected, rtol=1e-9)


def test_runtime_broadcast_of_value_raises_like_other_backends():
    x, y, v = pt.matrix("x"), pt.matrix("y"), pt.lvector("v")
    fn = pytensor.function([x, y, v], pt.inc_subtensor(x[v], y), mode="ONNX")
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        fn(np.zeros((3, 2)), np.ones((1, 2)), np.array([0, 1]))
    # A unit dimension that matches the indexed region is not broadcast (the
    # C backend agrees; AdvancedIncSubtensor1.perform compares it with x.shape)
    np.testing.assert_array_equal(
        fn(np.zeros((3, 2)), np.ones((1, 2)), np.array([2])), [[0, 0], [0, 0], [1, 1]]
    )
    broadcastable_y = pt.tensor("y", shape=(1, None))
    compare_onnx_and_py(
        [x, broadcastable_y, v],
        pt.inc_subtensor(x[v], broadcastable_y),
        [np.zeros((3, 2)), np.ones((1, 2)), np.array([0, 1])],
    )


def test_gradient_of_indexing():
    x, v = pt.matrix("x"), pt.lvector("v")
    cost = (x[v, 1:] ** 2).sum() + x[::-1, -1].sum() + x[x > 0].sum()
    compare_onnx_and_py(
        [x, v],
        pytensor.grad(cost, x),
        [random_values((4, 3), "float64"), np.array([0, -1, 0])],
    )


OUT_OF_BOUNDS = {
    "scalar": lambda x, i, v, y: x[i],
    "scalar_after_slice": lambda x, i, v, y: x[1:, i],
    "vector": lambda x, i, v, y: x[v],
    "advanced": lambda x, i, v, y: x[v, 1:, v[::-1]],
    "set_scalar": lambda x, i, v, y: pt.set_subtensor(x[i], y),
    "inc_scalar": lambda x, i, v, y: pt.inc_subtensor(x[i, 1:], y),
    "set_vector": lambda x, i, v, y: pt.set_subtensor(x[v], y),
    "inc_vector": lambda x, i, v, y: pt.inc_subtensor(x[v], y),
    "inc_advanced": lambda x, i, v, y: pt.inc_subtensor(x[:, v, v], y),
    "vector_after_slice": lambda x, i, v, y: x[:, v],
    "vector_on_last_axis": lambda x, i, v, y: x[:, :, v],
    "inc_vector_after_slice": lambda x, i, v, y: pt.inc_subtensor(x[:, v], y),
    "inc_scalar_on_last_axis": lambda x, i, v, y: pt.inc_subtensor(x[:, :, i], y),
}


@STATIC
@pytest.mark.parametrize("index", OUT_OF_BOUNDS.values(), ids=OUT_OF_BOUNDS.keys())
def test_out_of_bounds_indices_raise_index_error(index, static_shape, capfd):
    # onnxruntime evaluates the checks only if the run succeeds: the graph
    # must not fail on the index first (nor log the failure to stderr)
    x = tensor_input("float64", static_shape)
    i, v, y = pt.lscalar("i"), pt.lvector("v"), pt.scalar("y")
    fn, expected = (
        pytensor.function(
            [x, i, v, y], index(x, i, v, y), mode=mode, on_unused_input="ignore"
        )
        for mode in ("ONNX", py_mode)
    )
    values = random_values(SHAPE, "float64")
    np.testing.assert_array_equal(
        fn(values, -3, np.array([-3, 2]), 1.0),
        expected(values, -3, np.array([-3, 2]), 1.0),
    )
    for i_value, v_value in ((5, np.array([0, 5])), (-6, np.array([2, -6]))):
        with pytest.raises(IndexError, match=r"out of bounds for axis [0-2]"):
            fn(values, i_value, v_value, 1.0)
    assert "onnxruntime" not in capfd.readouterr().err


# A log-density evaluated for several chains indexes and updates one axis
# past the chains (x[:, idx] of a hierarchical model, its gradient): along
# that axis, not through the flat positions of every element, which took 9,
# 15, 14 and 15 nodes (measured)
CHAIN_AXIS_INDEXING = {
    "read_vector": (lambda x, v, y, z, w: x[:, v], 1),
    "inc_vector": (lambda x, v, y, z, w: pt.inc_subtensor(x[:, v], y), 4),
    "inc_int": (lambda x, v, y, z, w: pt.inc_subtensor(x[:, 3], z), 5),
    "inc_slice": (lambda x, v, y, z, w: pt.inc_subtensor(x[:, 1:], w), 6),
}


@pytest.mark.parametrize(
    "index, budget", CHAIN_AXIS_INDEXING.values(), ids=CHAIN_AXIS_INDEXING.keys()
)
def test_indexing_along_one_axis_past_the_chains_costs_few_nodes(index, budget):
    rng = np.random.default_rng(2)
    inputs = {
        pt.dmatrix("x", shape=(4, 85)): rng.normal(size=(4, 85)),
        pt.lvector("v", shape=(919,)): rng.integers(-85, 85, 919),
        pt.dmatrix("y", shape=(4, 919)): rng.normal(size=(4, 919)),
        pt.dvector("z", shape=(4,)): rng.normal(size=4),
        pt.dmatrix("w", shape=(4, 84)): rng.normal(size=(4, 84)),
    }
    output = index(*inputs)
    used = [var for var in inputs if var in graph_inputs([output])]
    fn, _ = compare_onnx_and_py(
        used, [output], [inputs[var] for var in used], onnx_mode=no_rewrites
    )
    assert count_nodes(onnx_model_of(fn).graph) <= budget


# Values of fewer axes than the region they update broadcast along its
# leading axes (SHAPE is (5, 4, 3))
FEWER_AXES_UPDATES = {
    "slice_on_middle_axis": (lambda x: x[:, 1:3], (2, 3)),
    "slice_on_middle_axis_row": (lambda x: x[:, 1:3], (3,)),
    "slice_on_last_axis": (lambda x: x[:, :, 1:3], (2,)),
    "slice_on_last_axis_rows": (lambda x: x[:, :, 1:3], (4, 2)),
    "int_on_middle_axis": (lambda x: x[:, 2], (3,)),
    "int_on_last_axis": (lambda x: x[:, :, 1], (4,)),
    "int_on_last_axis_column": (lambda x: x[:, :, -1], (5, 1)),
}


@STATIC
@pytest.mark.parametrize("update", [pt.set_subtensor, pt.inc_subtensor])
@pytest.mark.parametrize(
    "index, y_shape", FEWER_AXES_UPDATES.values(), ids=FEWER_AXES_UPDATES.keys()
)
def test_values_of_fewer_axes_broadcast_along_one_indexed_axis(
    index, y_shape, update, static_shape
):
    x = tensor_input("float64", static_shape)
    y = pt.tensor("y", dtype="float64", shape=y_shape)
    values = [random_values(SHAPE, "float64"), random_values(y_shape, "float64", 1)]
    compare_onnx_and_py([x, y], [update(index(x), y)], values)


CONSTANT_INDEX_ARRAYS = {
    "in bounds": np.array([0, 2, -3, 1]),
    "too large": np.array([0, 3]),
    "too negative": np.array([-4, 1]),
}


@pytest.mark.parametrize("static_shape", [(3,), (None,)], ids=["static", "symbolic"])
@pytest.mark.parametrize(
    "index", CONSTANT_INDEX_ARRAYS.values(), ids=CONSTANT_INDEX_ARRAYS.keys()
)
@pytest.mark.parametrize(
    "read",
    [lambda x, index: x[index], lambda x, index: pt.inc_subtensor(x[index], 1.0)],
    ids=["read", "increment"],
)
def test_constant_index_arrays_are_checked_like_numpy(read, index, static_shape):
    # PyTensor's shape_unsafe rewrites turn some reads into slices, which
    # fail on a SpecifyShape instead, in every mode
    onnx_mode = get_mode("ONNX").excluding("shape_unsafe")
    x = pt.tensor("x", shape=static_shape)
    functions = [
        pytensor.function([x], read(x, index), mode=mode)
        for mode in (onnx_mode, py_mode)
    ]
    if np.all((-3 <= index) & (index < 3)):
        np.testing.assert_array_equal(*(fn(np.arange(3.0)) for fn in functions))
        return
    for fn in functions:
        with pytest.raises(IndexError):
            fn(np.arange(3.0))


def test_out_of_bounds_constant_index_raises_numpys_message():
    x = pt.tensor("x", shape=(3,))
    fn = pytensor.function([x], x[5], mode="ONNX")
    with pytest.raises(
        IndexError, match="index 5 is out of bounds for axis 0 with size 3"
    ):
        fn(np.zeros(3))


EMPTY_INDICES = {
    "reversed_slice": lambda x: x[-5:-5:3],
    "empty_slice_0": lambda x: x[2:1],
    "empty_slice_1": lambda x: x[:, 2:1],
    "empty_slice_2": lambda x: x[:, :, 5:],
    "no_rows": lambda x: x[np.array([], dtype="int64")],
    "no_columns": lambda x: x[:, np.array([], dtype="int64")],
    "none_on_last_axis": lambda x: x[:, :, np.array([], dtype="int64")],
}


@STATIC
@pytest.mark.parametrize("update", [pt.set_subtensor, pt.inc_subtensor])
@pytest.mark.parametrize("index", EMPTY_INDICES.values(), ids=EMPTY_INDICES.keys())
@pytest.mark.parametrize("shape", [(4, 1, 0), (0, 3, 2), (3, 0, 2), (4, 3, 2)])
def test_zero_size_updates(shape, index, update, static_shape):
    x = pt.tensor("x", shape=shape if static_shape else (None,) * 3)
    compare_onnx_and_py([x], update(index(x), 2.5), [np.zeros(shape)])


def test_a_slice_given_as_an_input_is_refused_clearly():
    from pytensor.tensor.type_other import slicetype

    x, bounds = pt.matrix("x"), slicetype()
    try:
        rows = x[bounds]
    except TypeError:
        pytest.skip("PyTensor 3 does not index with slice variables")
    with pytest.raises(ONNXConversionError, match="cannot take the input"):
        pytensor.function([x, bounds], rows, mode="ONNX")


# name: (region of x given i, shape of x, value of i, shapes of values that
# fit the region, shapes that do not)
UPDATED_REGIONS = {
    "slice": (lambda x, i: x[:2], (5,), None, [(2,), (1,), ()], [(3,), (0,)]),
    "empty slice": (lambda x, i: x[:0], (5,), None, [(0,), (1,)], [(3,)]),
    "row": (lambda x, i: x[2], (5, 3), None, [(3,), (1,)], [(4,), (2,)]),
    "rows": (lambda x, i: x[2:4], (5, 3), None, [(3,), (2, 3), (2, 1)], [(4,), (3, 3)]),
    "columns": (lambda x, i: x[:, 1:], (5, 3), None, [(5, 2), (1, 2)], [(5, 3)]),
    "index array": (lambda x, i: x[i], (5,), [0, 3], [(2,), (1,)], [(3,), (0,)]),
    "one index": (lambda x, i: x[i], (5,), [3], [(1,)], [(3,), (0,)]),
    "rows by index": (lambda x, i: x[i], (5, 3), [0, 3], [(2, 3), (3,)], [(2, 4)]),
    "slice and index": (lambda x, i: x[1:3, i], (5, 3), [0, 2], [(2, 2)], [(2, 3)]),
    "index pairs": (lambda x, i: x[i, i], (5, 3), [0, 2], [(2,)], [(3,)]),
    "mask": (lambda x, i: x[x > 0], (5, 3), None, [(1,)], [(4,), (0,)]),
}
UPDATE_CASES = [
    pytest.param(region, y_shape, fits, id=f"{region}-{y_shape}-{label}")
    for region, (_, _, _, fitting, not_fitting) in UPDATED_REGIONS.items()
    for fits, label, shapes in ((True, "fits", fitting), (False, "wrong", not_fitting))
    for y_shape in shapes
]


@pytest.mark.parametrize("update", [pt.set_subtensor, pt.inc_subtensor])
@pytest.mark.parametrize("region, y_shape, fits", UPDATE_CASES)
def test_a_value_that_does_not_fit_the_region_raises_valueerror(
    region, y_shape, fits, update
):
    index, x_shape, i_value, *_ = UPDATED_REGIONS[region]
    x = pt.tensor("x", shape=(None,) * len(x_shape))
    # lengths of 1 broadcast only where the type says so
    y = pt.tensor("y", shape=tuple(1 if dim == 1 else None for dim in y_shape))
    inputs = [x, y]
    values = [
        np.arange(np.prod(shape)).reshape(shape) - 2.0 for shape in (x_shape, y_shape)
    ]
    if i_value is not None:
        inputs.append(pt.lvector("i"))
        values.append(np.array(i_value))
    updated = update(index(x, inputs[-1]), y)
    if fits:
        compare_onnx_and_py(inputs, updated, values)
        return
    for mode in (py_mode, "ONNX"):
        fn = pytensor.function(inputs, updated, mode=mode)
        with pytest.raises(ValueError):
            fn(*values)


def test_the_fit_of_an_updating_value_is_checked_only_after_a_failed_run():
    x, y = pt.vector("x"), pt.vector("y")
    fn = pytensor.function([x, y], pt.set_subtensor(x[:2], y), mode="ONNX")
    assert n_runtime_checks(fn) == 0


@pytest.mark.xfail(
    strict=True,
    reason="an empty region with an axis of length 1 takes a value of any "
    "length there: onnxruntime does not fail, and the check runs only after "
    "it fails (docs/usage.rst)",
)
def test_a_value_that_does_not_fit_an_empty_region_raises_valueerror():
    x, y = pt.matrix("x"), pt.vector("y")
    fn = pytensor.function([x, y], pt.set_subtensor(x[:0, 1:2], y), mode="ONNX")
    with pytest.raises(ValueError):
        fn(np.zeros((5, 3)), np.ones(3))
