import inspect
from functools import cache

import numpy as np
import onnx
import onnxruntime as ort
import pytensor.tensor as pt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pytensor.compile.mode import Mode
from pytensor.graph.basic import Constant
from pytensor.tensor.type_other import make_slice
from pytensor.typed_list import TypedListType, make_list

import pytensor
from pytensor.link.onnx.dispatch import onnx_funcify
from tests.link.onnx.utils import (
    ALL_DTYPES,
    assert_same_values,
    compare_onnx_and_py,
    no_rewrites,
    random_values,
)


py_fast_run = Mode(linker="py", optimizer="fast_run")
DTYPES = ("float64", "float32", "int64", "bool")
LENGTHS = (0, 1, 3)


def assert_same_lists(onnx_value, py_value):
    """Equal lists element by element (each element as `assert_same_values`), or equal tensors."""
    if not isinstance(py_value, list):
        assert_same_values(onnx_value, py_value)
        return
    assert isinstance(onnx_value, list), type(onnx_value)
    assert len(onnx_value) == len(py_value)
    for onnx_element, py_element in zip(onnx_value, py_value, strict=True):
        assert_same_values(onnx_element, py_element)


def compare(inputs, outputs, values, **kwargs):
    return compare_onnx_and_py(
        inputs, outputs, values, assert_fn=assert_same_lists, **kwargs
    )


def list_of(dtype, ndim=1, name="x"):
    return TypedListType(pt.TensorType(dtype, shape=(None,) * ndim))(name)


def vectors(dtype, n, seed=0):
    """``n`` vectors of ``dtype``, all of different lengths."""
    rng = np.random.default_rng(seed)
    return [random_values(rng, (k + 1,), dtype) for k in range(n)]


def graph_values(dtype, n):
    """Values for graph inputs named ``x`` (a list), ``y`` (another list), ``e``
    (an element of ``x``, when it is not empty) and ``i`` (an index)."""
    x = vectors(dtype, n)
    return {
        "x": x,
        "y": vectors(dtype, 2, seed=1),
        "e": x[-1].copy() if x else vectors(dtype, 1)[0],
        "i": np.int64(1),
    }


# Each case takes the graph inputs its parameters are named after
LIST_OPS = [
    pytest.param(lambda x: x.length(), id="length"),
    pytest.param(lambda x, e: x.append(e), id="append"),
    pytest.param(lambda x, i, e: x.insert(i, e), id="insert"),
    pytest.param(lambda x, y: x.extend(y), id="extend"),
    pytest.param(lambda x, y: y.extend(x), id="extend_by"),
    pytest.param(lambda x: x.extend(x), id="extend_itself"),
    pytest.param(lambda x: x.reverse(), id="reverse"),
    pytest.param(lambda x, e: x.count(e), id="count"),
    pytest.param(lambda x, e: x.remove(e), id="remove"),
    pytest.param(lambda x: x[1:], id="slice"),
    pytest.param(lambda x: x[::-1], id="reversed_slice"),
    pytest.param(lambda x, y: x.extend(y)[-1], id="last"),
    pytest.param(lambda e: make_list([e, e]), id="make_list"),
]


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("build", LIST_OPS)
def test_list_ops(build, dtype, n):
    names = list(inspect.signature(build).parameters)
    variables = {
        "x": list_of(dtype),
        "y": list_of(dtype, name="y"),
        "e": pt.tensor("e", dtype=dtype, shape=(None,)),
        "i": pt.lscalar("i"),
    }
    values = graph_values(dtype, n)
    inputs = [variables[name] for name in names]
    compare(inputs, build(*inputs), [values[name] for name in names])


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_dtype(dtype):
    x = list_of(dtype)
    e = pt.tensor("e", dtype=dtype, shape=(None,))
    values = vectors(dtype, 3)
    outputs = [
        x,
        x.count(e),
        x.ind(e),
        x.remove(e),
        x.insert(-1, e),
        x.extend(x)[::-2],
        x.reverse()[0],
    ]
    compare([x, e], outputs, [values, values[1].copy()])


def test_returned_lists_are_new_lists():
    x = list_of("float64")
    values = vectors("float64", 2)
    _, results = compare([x], [x, x[:], x.reverse()], [values])
    assert all(result is not values for result in results)


@pytest.mark.parametrize("index", [0, 1, 2, -1, -2, -3])
def test_getitem(index):
    x = list_of("float64")
    i = pt.lscalar("i")
    compare([x, i], [x[i], x[index]], [vectors("float64", 3), index])


@pytest.mark.parametrize("index", [3, -4, 10])
def test_getitem_out_of_range_raises_index_error(index):
    x = list_of("float64")
    i = pt.lscalar("i")
    fn = pytensor.function([x, i], x[i], mode="ONNX")
    with pytest.raises(IndexError, match="list index out of range"):
        fn(vectors("float64", 3), index)
    with pytest.raises(IndexError):
        fn([], 0)


@pytest.mark.parametrize("index", [-10, -3, -1, 0, 2, 3, 10])
def test_insert_clamps_positions_like_list_insert(index):
    x = list_of("float64")
    i = pt.lscalar("i")
    e = pt.dvector("e")
    compare([x, i, e], x.insert(i, e), [vectors("float64", 3), index, np.full(5, 7.0)])


SLICES = [
    slice(None),
    slice(1, None),
    slice(None, -1),
    slice(-2, None),
    slice(None, None, 2),
    slice(None, None, -1),
    slice(None, None, -2),
    slice(3, 0, -1),
    slice(-1, -10, -1),
    slice(-10, None, -1),
    slice(-10, 2),
    slice(2, 10),
    slice(10, None),
    slice(10, None, -1),
    slice(None, -10),
]


@pytest.mark.parametrize("n", [0, 1, 4])
@pytest.mark.parametrize("bounds", SLICES, ids=str)
def test_constant_slices(bounds, n):
    x = list_of("float64")
    compare([x], x[bounds], [vectors("float64", n)])


bound = st.integers(-7, 7)


@given(
    n=st.integers(0, 5),
    start=bound,
    stop=bound,
    step=bound.filter(lambda step: step != 0),
)
def test_symbolic_slices_select_like_python(n, start, stop, step):
    values = vectors("int64", n)
    expected = values[start:stop:step]
    result = symbolic_slice_fn()(*values_and_bounds(values, start, stop, step))
    assert_same_lists(result, expected)


def values_and_bounds(values, *bounds):
    return [values, *(np.asarray(b, dtype="int32") for b in bounds)]


@cache
def symbolic_slice_fn():
    x = list_of("int64")
    start, stop, step = (pt.iscalar(name) for name in ("start", "stop", "step"))
    return pytensor.function(
        [x, start, stop, step], x[make_slice(start, stop, step)], mode="ONNX"
    )


def test_symbolic_slice_with_default_bounds():
    x = list_of("float64")
    start, step = pt.lscalar("start"), pt.lscalar("step")
    sliced = x[make_slice(start, None, step)]
    for start_value, step_value in [(0, 1), (-1, -1), (1, 2), (-10, -1)]:
        compare(
            [x, start, step], sliced, [vectors("float64", 4), start_value, step_value]
        )


def test_symbolic_bounds_in_a_constant_slice_are_rejected():
    x = list_of("float64")
    start = pt.lscalar("start")
    with pytest.raises(NotImplementedError, match="make_slice"):
        pytensor.function([x], x[start:], mode="ONNX")


def test_slice_step_zero_raises_value_error():
    x = list_of("float64")
    fn = pytensor.function([x], x[::0], mode="ONNX")
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        fn(vectors("float64", 2))
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        symbolic_slice_fn()(*values_and_bounds(vectors("int64", 2), 0, 2, 0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_finds_the_first_equal_element(dtype):
    x = list_of(dtype)
    e = pt.tensor("e", dtype=dtype, shape=(None,))
    values = vectors(dtype, 3)
    for position in range(3):
        compare([x, e], x.ind(e), [[*values, values[position]], values[position]])


def test_index_of_an_absent_element_raises_value_error():
    # Python's list.index raises ValueError; PyTensor's perform leaves the
    # output unset (None) instead, which a compiled ONNX model cannot return.
    x = list_of("float64")
    e = pt.dvector("e")
    fn = pytensor.function([x, e], x.ind(e), mode="ONNX")
    with pytest.raises(ValueError, match="not in list"):
        fn(vectors("float64", 2), np.full(2, 9.0))
    with pytest.raises(ValueError, match="not in list"):
        fn([], np.full(2, 9.0))


def test_remove_takes_only_the_first_equal_element_or_none():
    x = list_of("float64")
    e = pt.dvector("e")
    first, second = vectors("float64", 2)
    for values, element in [
        ([first, second, first], first),
        ([second, first, first], first),
        ([first, second], np.full(1, 9.0)),
        ([], first),
    ]:
        compare([x, e], x.remove(e), [values, element])


def test_count_counts_equal_elements():
    x = list_of("int64")
    e = pt.lvector("e")
    a, b = np.array([1, 2]), np.array([1, 2, 3])
    for values, element in [([a, b, a, a], a), ([b, b], a), ([a[:1], b[:2]], a)]:
        compare([x, e], [x.count(e), x.ind(x[-1])], [values, element])


NAN_CASES = {
    "same_nan": ([np.nan, 1.0], [np.nan, 1.0]),
    "nan_elsewhere": ([np.nan, 1.0], [1.0, np.nan]),
    "nan_only_in_element": ([1.0, 2.0], [np.nan, 2.0]),
    # TensorType.values_eq, which perform uses, finds these equal
    "same_nan_other_values": ([np.nan, 1.0], [np.nan, 2.0]),
    "infinities": ([np.inf, -np.inf], [np.inf, -np.inf]),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("listed, searched", NAN_CASES.values(), ids=NAN_CASES)
def test_comparisons_treat_nan_like_perform(listed, searched, dtype):
    x = list_of(dtype)
    e = pt.tensor("e", dtype=dtype, shape=(None,))
    values = [np.asarray(listed, dtype=dtype), np.zeros(2, dtype=dtype)]
    compare(
        [x, e], [x.count(e), x.remove(e)], [values, np.asarray(searched, dtype=dtype)]
    )


def test_lists_of_matrices_of_different_shapes():
    x = list_of("float64", ndim=2)
    e = pt.dmatrix("e")
    i = pt.lscalar("i")
    rng = np.random.default_rng(2)
    values = [rng.normal(size=shape) for shape in [(2, 3), (3, 2), (0, 4), (1, 1)]]
    # Same elements in another shape are different elements
    reshaped = values[0].reshape(3, 2)
    for element in (values[1], reshaped, values[2]):
        compare(
            [x, e, i],
            [x.count(e), x.remove(e), x[i], x.insert(i, e), x[::-2], x.reverse()],
            [values, element, -2],
        )


def test_lists_of_scalars():
    x = TypedListType(pt.dscalar)("x")
    e = pt.dscalar("e")
    values = [np.asarray(v) for v in (1.0, np.nan, 2.0, 1.0)]
    for element in (1.0, np.nan, 3.0):
        compare(
            [x, e],
            [x.count(e), x.remove(e), x.append(e), x[1:3]],
            [values, np.asarray(element)],
        )


@pytest.mark.parametrize("dtype", DTYPES)
def test_make_list_of_computed_elements(dtype):
    a = pt.tensor("a", dtype=dtype, shape=(None, None))
    b = pt.tensor("b", dtype=dtype, shape=(None, None))
    rng = np.random.default_rng(3)
    made = make_list([a, b, a.T])
    compare(
        [a, b],
        [made, made.length(), made[-1]],
        [random_values(rng, (2, 3), dtype), random_values(rng, (4, 1), dtype)],
    )


def test_constant_lists_folded_by_rewrites():
    elements = [pt.constant(np.arange(3.0)), pt.constant(np.ones(3))]
    constant = make_list(elements)
    x = constant.type("x")
    empty = x[5:]
    values = [np.full(3, 2.0)]
    fn, _ = compare([x], [constant, x.extend(constant), empty.extend(empty)], [values])
    assert any(
        isinstance(var, Constant) and isinstance(var.type, TypedListType)
        for var in fn.maker.fgraph.variables
    )


def test_mixed_list_program():
    # Collect layers, drop one, and use the rest, as a small model might
    x = pt.dvector("x")
    w = list_of("float64", ndim=2, name="w")
    scale = pt.dscalar("scale")
    layers = w.append(w[0] * scale).reverse()
    layers = layers.remove(w[-1])
    n = layers.length()
    first = layers[0]
    kept = layers[1:].extend(make_list([first]))
    out = pt.tanh(kept[0] @ x).sum() + n * kept[-1].sum() + kept.count(first)
    rng = np.random.default_rng(4)
    weights = [rng.normal(size=(3, 3)) for _ in range(3)]
    compare(
        [x, w, scale],
        [out, kept, n],
        [rng.normal(size=3), weights, 0.5],
    )


def test_graph_as_default_rewrites_leave_it():
    x = list_of("float64")
    e = pt.dvector("e")
    grown = x.append(e).append(e * 2).insert(0, e).reverse().extend(x)
    outputs = [grown.remove(e), grown.length(), grown[-1] + 1]
    fn = pytensor.function([x, e], outputs, mode=py_fast_run)
    converted = onnx_funcify(fn.maker.fgraph)
    onnx.checker.check_model(converted.model, full_check=True)
    session = ort.InferenceSession(
        converted.model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    values = [vectors("float64", 2), np.arange(3.0)]
    feed = dict(zip((i.name for i in converted.model.graph.input), values, strict=True))
    results = session.run(None, feed)
    expected = fn(*values)
    # runtime checks (GetItem's index range) are extra boolean outputs
    assert all(results[len(expected) :])
    for result, value in zip(results[: len(expected)], expected, strict=True):
        assert_same_lists(result, value)


def test_without_rewrites():
    x = list_of("float32")
    e = pt.fvector("e")
    compare(
        [x, e],
        [x.append(e).reverse()[0], x.count(e)],
        [vectors("float32", 2), np.ones(1, "float32")],
        onnx_mode=no_rewrites,
    )


def test_sequence_inputs_and_outputs_are_declared_as_sequences():
    x = list_of("float32")
    fn = pytensor.function([x], [x.reverse(), x.length()], mode="ONNX")
    model = fn.maker.linker.onnx_model
    [inp] = model.graph.input
    element = inp.type.sequence_type.elem_type.tensor_type
    assert element.elem_type == onnx.TensorProto.FLOAT
    assert len(element.shape.dim) == 1
    assert model.graph.output[0].type.HasField("sequence_type")
    assert model.graph.output[1].type.HasField("tensor_type")


def test_list_output_that_is_also_read_by_a_loop():
    # The output is renamed after Loops and Ifs that read it were built
    x = list_of("float64")
    e = pt.dvector("e")
    grown = x.append(e)
    compare(
        [x, e],
        [grown, grown.reverse(), grown[1:], grown.count(e), grown[0]],
        [vectors("float64", 1), np.ones(1)],
    )


def test_nested_lists_are_rejected():
    x = TypedListType(pt.dvector, depth=1)("x")
    with pytest.raises(NotImplementedError, match="nested typed lists"):
        pytensor.function([x], x.length(), mode="ONNX")


def test_export_rejects_lists_clearly():
    from pytensor.link.onnx import export_onnx
    from pytensor.link.onnx.export import UnsupportedGraphError

    x = list_of("float64")
    with pytest.raises(UnsupportedGraphError, match="does not write sequence"):
        export_onnx(([x], [x.length()]))
