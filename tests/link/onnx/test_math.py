from collections import Counter

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from pytensor.graph.traversal import graph_inputs
from pytensor.tensor.elemwise import CAReduce
from pytensor.tensor.math import MulWithoutZeros, ProdWithoutZeros

import pytensor
from tests.link.onnx.utils import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    compare_converted_graph,
    compare_onnx_and_py,
    exported_op_types,
    n_runtime_checks,
    py_mode,
)


AXES = [None, 0, 1, -1, (0, 2), (2, 1), ()]
SHAPE = (2, 3, 4)

rng = np.random.default_rng(1234)


def random_values(shape, dtype, low=-3, high=4):
    """Values of ``dtype``, small enough that products of 24 of them fit in int64."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-2, 2, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "u":
        low = 0
    return rng.integers(low, high, size=shape).astype(dtype)


REDUCTIONS = {
    "sum": pt.sum,
    "prod": pt.prod,
    "max": pt.max,
    "min": pt.min,
    "all": pt.all,
    "any": pt.any,
    "prod_without_zeros": lambda x, axis: ProdWithoutZeros(axis=axis)(x),
    "careduce_add": lambda x, axis: CAReduce(ps.add, axis=axis)(x),
    "careduce_maximum": lambda x, axis: CAReduce(ps.maximum, axis=axis)(x),
}


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_reductions_over_every_axis_combination(reduction, dtype, static):
    x = pt.tensor("x", dtype=dtype, shape=SHAPE if static else (None,) * 3)
    outputs = [REDUCTIONS[reduction](x, axis=axis) for axis in AXES]
    compare_onnx_and_py([x], outputs, [random_values(SHAPE, dtype)])


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("length", [0, 1, 2, 3, 5, 8, 33, 1000])
def test_integer_products_of_any_length(length, static):
    # The exact pairwise product is unrolled for static lengths, a Loop otherwise
    x = pt.tensor("x", dtype="int64", shape=(2, length) if static else (None, None))
    values = rng.integers(-(2**40), 2**40, size=(2, length))
    values[1, ::3] = 1
    compare_onnx_and_py(
        [x], [pt.prod(x, axis=1), pt.prod(x), pt.prod(x, axis=0)], [values]
    )


@pytest.mark.parametrize(
    "dtype, values",
    [
        # onnxruntime's own integer ReduceSum/ReduceProd round through float64
        ("int64", [2**62, 2**62, 2**62, 5]),
        ("int64", [2**53 + 1, 2, -(2**60) + 3, 1]),
        ("int64", [3**20, 3**20, 5, -7]),
        ("uint64", [2**64 - 1, 2**63 + 11, 3, 2]),
        ("int32", [2**31 - 1, 2**31 - 1, 5, -3]),
    ],
)
def test_integer_sums_and_products_wrap_exactly(dtype, values):
    x = pt.tensor("x", dtype=dtype, shape=(4,))
    outputs = [pt.sum(x), pt.prod(x)]
    if dtype not in ("int64", "uint64"):
        outputs += [pt.sum(x, dtype=dtype), pt.prod(x, dtype=dtype)]
    compare_onnx_and_py([x], outputs, [np.array(values, dtype=dtype)])


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(dtype="int8"),
        dict(dtype="float32"),
        dict(acc_dtype="float64"),
        dict(dtype="float64", acc_dtype="float64"),
        dict(dtype="uint8", acc_dtype="int64"),
    ],
)
@pytest.mark.parametrize("reduction", [pt.sum, pt.prod])
def test_sum_and_prod_dtype_and_acc_dtype(reduction, kwargs):
    x = pt.tensor("x", dtype="int16", shape=(3, 5))
    # products of 15 of these values fit in int64
    values = rng.integers(-12, 12, size=(3, 5)).astype("int16")
    outputs = [reduction(x, axis=axis, **kwargs) for axis in (None, 0, 1)]
    compare_onnx_and_py([x], outputs, [values])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_max_min_argmax_with_nan_like_numpy(dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None, None))
    values = np.array(
        [
            [1.0, np.nan, 3.0, np.nan],
            [np.inf, 2.0, 5.0, 5.0],
            [-np.inf, -np.inf, -np.inf, -np.inf],
            [np.nan, np.nan, np.nan, np.nan],
        ],
        dtype=dtype,
    )
    outputs = [
        pt.max(x, axis=1),
        pt.min(x, axis=1),
        pt.max(x, axis=0),
        pt.max(x),
        pt.argmax(x, axis=1),
        pt.argmax(x, axis=0),
        pt.argmax(x),
        pt.argmin(x, axis=1),
    ]
    compare_onnx_and_py([x], outputs, [values])


def extrema_inputs(dtype):
    """Symbolic ``x, y, i, b`` and values: ``x`` and ``y`` hold NaN, inf and
    -inf, and ``x + y`` is ``inf + -inf`` somewhere. No NaN comes first in
    what a reduction reads, where onnxruntime's ``ReduceMax`` would keep it."""
    x, y = (pt.matrix(name, dtype=dtype) for name in "xy")
    i, b = pt.lmatrix("i"), pt.matrix("b", dtype="bool")
    nan, inf = np.nan, np.inf
    x_values = [[1.0, nan, -inf, 2.0], [inf, -1.0, 3.0, nan], [-2.0, 0.5, 4.0, inf]]
    y_values = [[0.0, 1.0, inf, -3.0], [-4.0, 2.0, -1.0, 5.0], [nan, -inf, 1.0, 0.0]]
    values = [
        np.array(x_values, dtype=dtype),
        np.array(y_values, dtype=dtype),
        rng.integers(-9, 9, size=(3, 4)),
        np.array([[True, False, True, True]] * 3),
    ]
    return [x, y, i, b], values


def used_inputs(e, inputs, values):
    """The ``inputs`` that ``e`` reads, and their values."""
    used = set(graph_inputs([e]))
    kept = [position for position, v in enumerate(inputs) if v in used]
    return [inputs[k] for k in kept], [values[k] for k in kept]


def nan_replaced(x, by=-np.inf):
    return pt.where(pt.isnan(x), by, x)


def extrema_along_several_axes(e):
    return [e.max(axis=0), e.max(axis=1), e.max(), e.min(axis=0), e.min()]


NAN_FREE_EXPRESSIONS = {
    "where isnan": lambda x, y, i, b: nan_replaced(x),
    "where not isnan": lambda x, y, i, b: pt.where(~pt.isnan(x), x, 0.0),
    "masked, negated": lambda x, y, i, b: pt.where(b, -nan_replaced(x), 0.0),
    "masked with -inf": lambda x, y, i, b: pt.where(b, nan_replaced(y), -np.inf),
    "exp, abs": lambda x, y, i, b: pt.exp(pt.abs(nan_replaced(x, 1.0))),
    "maximum, minimum": lambda x, y, i, b: pt.minimum(
        pt.maximum(nan_replaced(x), nan_replaced(y, np.inf)), 2.0
    ),
    "cast integers": lambda x, y, i, b: pt.maximum(
        pt.cast(i, x.dtype), pt.cast(b, x.dtype)
    ),
    "transposed, reshaped": lambda x, y, i, b: nan_replaced(x).T.reshape((3, 4)),
    "joined": lambda x, y, i, b: pt.join(0, nan_replaced(x), nan_replaced(y, 0.0)),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("expression", NAN_FREE_EXPRESSIONS)
def test_extrema_of_nan_free_values_are_single_reductions(expression, dtype):
    inputs, values = extrema_inputs(dtype)
    e = NAN_FREE_EXPRESSIONS[expression](*inputs)
    inputs, values = used_inputs(e, inputs, values)
    outputs = [e, *extrema_along_several_axes(e), pt.argmax(e, axis=0)]
    fn, _ = compare_onnx_and_py(inputs, outputs, values)
    only_e = pytensor.function(inputs, e, mode="ONNX")
    added = Counter(exported_op_types(fn)) - Counter(exported_op_types(only_e))
    # No NaN check (IsNaN, Cast, ReduceMax, Cast, Where each); PyTensor
    # writes some minima as -max(-e)
    assert added["IsNaN"] == 0
    assert added["ReduceMax"] + added["ReduceMin"] + added["ArgMax"] == 6
    assert added.total() <= 2 * 6


MAYBE_NAN_EXPRESSIONS = {
    "input": lambda x, y, i, b: x,
    "log of negatives": lambda x, y, i, b: pt.log(nan_replaced(x, 1.0)),
    "inf + -inf": lambda x, y, i, b: nan_replaced(x, 0.0) + nan_replaced(y, 0.0),
    "inf * 0": lambda x, y, i, b: nan_replaced(x, 0.0) * pt.cast(i > 9, x.dtype),
    "sum of inf and -inf": lambda x, y, i, b: pt.join(
        0, nan_replaced(x, 0.0), nan_replaced(y, 0.0)
    ).sum(axis=0, keepdims=True),
    "other value replaced": lambda x, y, i, b: pt.where(pt.isnan(x), 0.0, y),
    "kept where NaN": lambda x, y, i, b: pt.where(~pt.isnan(x), 0.0, x),
    "NaN replacement": lambda x, y, i, b: nan_replaced(x, np.nan),
    "exp, maximum": lambda x, y, i, b: pt.maximum(pt.exp(y), 0.0),
}


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("expression", MAYBE_NAN_EXPRESSIONS)
def test_extrema_of_values_that_may_be_nan_propagate_it(expression, dtype):
    inputs, values = extrema_inputs(dtype)
    e = MAYBE_NAN_EXPRESSIONS[expression](*inputs)
    inputs, values = used_inputs(e, inputs, values)
    outputs = [*extrema_along_several_axes(e), pt.argmax(e, axis=1)]
    _, results = compare_onnx_and_py(inputs, outputs, values)
    assert np.isnan(results[2])


@pytest.mark.parametrize("type_shape", [(None, None), (0, None), (0, 3)], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "int64", "uint8", "bool"])
def test_reductions_over_empty_axes(dtype, type_shape):
    x = pt.tensor("x", dtype=dtype, shape=type_shape)
    outputs = [
        pt.sum(x, axis=0),
        pt.sum(x),
        pt.prod(x, axis=0),
        pt.prod(x),
        ProdWithoutZeros(axis=(0,))(x),
        pt.all(x, axis=0),
        pt.any(x, axis=0),
        pt.max(x, axis=1),
        pt.argmax(x, axis=1),
    ]
    compare_onnx_and_py([x], outputs, [np.zeros((0, 3), dtype=dtype)])


@pytest.mark.parametrize(
    "reduction", [pt.max, pt.min, lambda x, axis: CAReduce(ps.maximum, axis)(x)]
)
def test_max_of_empty_raises_like_numpy(reduction):
    x = pt.matrix("x")
    fn = pytensor.function([x], reduction(x, axis=0), mode="ONNX")
    np.testing.assert_array_equal(fn(np.ones((2, 3))), np.ones(3))
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        fn(np.zeros((0, 3)))


@pytest.mark.parametrize("axis", [0, None])
def test_argmax_of_empty_raises_like_numpy(axis):
    x = pt.matrix("x")
    fn = pytensor.function([x], pt.argmax(x, axis=axis), mode="ONNX")
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        fn(np.zeros((0, 3)))


def test_argmax_along_a_non_empty_axis_of_an_empty_array():
    x = pt.matrix("x")
    fn = pytensor.function([x], pt.argmax(x, axis=0), mode="ONNX")
    assert fn(np.zeros((3, 0))).shape == (0,)


def test_reductions_over_static_non_empty_axes_have_no_check():
    x = pt.tensor("x", shape=(None, 3))
    fn = pytensor.function([x], [pt.argmax(x, axis=1), pt.max(x, axis=1)], mode="ONNX")
    assert n_runtime_checks(fn) == 0


@pytest.mark.parametrize("dtype", ["int64", "uint64", "uint32", "int16", "uint16"])
def test_max_min_argmax_of_wide_and_unsupported_integers(dtype):
    info = np.iinfo(dtype)
    # PyTensor rewrites -max(-x) into min(x), which differs at the most negative int
    lowest = info.min + 1 if info.min else 0
    x = pt.tensor("x", dtype=dtype, shape=(2, 3))
    values = np.array(
        [[info.max, lowest, info.max - 1], [info.max // 2 + 1, info.max // 2, 1]],
        dtype=dtype,
    )
    outputs = [
        pt.max(x, axis=1),
        pt.min(x, axis=1),
        pt.max(x, axis=0),
        pt.min(x),
        pt.argmax(x, axis=1),
        pt.argmax(x),
    ]
    compare_onnx_and_py([x], outputs, [values])


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
def test_int64_extrema_differing_only_in_low_bits(static):
    # onnxruntime's int64 ReduceMax/ReduceMin compare the low 32 bits as signed
    x = pt.tensor("x", dtype="int64", shape=(3, 5) if static else (None, None))
    row = [0, 2**32 - 1, 1, 2**31 - 1, 2**31]
    values = np.array([row, row[::-1], [-v for v in row]], dtype="int64")
    outputs = [
        pt.max(x, axis=1),
        pt.min(x, axis=1),
        pt.max(x, axis=0),
        pt.max(x),
        pt.min(x),
        pt.argmax(x, axis=1),
        pt.argmin(x, axis=1),
    ]
    compare_onnx_and_py([x], outputs, [values])


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_argmax_over_any_axes(dtype, static):
    x = pt.tensor("x", dtype=dtype, shape=SHAPE if static else (None,) * 3)
    outputs = [pt.argmax(x, axis=axis) for axis in AXES]
    # values with many ties: the first occurrence wins
    compare_onnx_and_py([x], outputs, [random_values(SHAPE, dtype, -1, 2)])


def test_argmax_of_scalar_and_empty_kept_axes():
    s = pt.scalar("s")
    m = pt.matrix("m")
    compare_onnx_and_py(
        [s, m],
        [pt.argmax(s), pt.argmax(m, axis=1), pt.max(m, axis=1)],
        [np.array(2.0), np.zeros((0, 3))],
    )


DOT_DTYPES = [
    ("float64", "float64"),
    ("float32", "float32"),
    ("float32", "int64"),
    ("int8", "int8"),
    ("int16", "uint8"),
    ("uint64", "uint64"),
    ("int32", "int32"),
    ("bool", "bool"),
]


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("x_dtype, y_dtype", DOT_DTYPES)
def test_dot(x_dtype, y_dtype, static):
    def operand(name, dtype, shape):
        return pt.tensor(
            name, dtype=dtype, shape=shape if static else (None,) * len(shape)
        )

    a = operand("a", x_dtype, (3, 4))
    b = operand("b", y_dtype, (4, 2))
    u = operand("u", x_dtype, (4,))
    v = operand("v", y_dtype, (4,))
    outputs = [pt.dot(a, b), pt.dot(u, b), pt.dot(a, v), pt.dot(u, v)]
    values = [
        random_values((3, 4), x_dtype, -100, 100),
        random_values((4, 2), y_dtype, -100, 100),
        random_values((4,), x_dtype, -100, 100),
        random_values((4,), y_dtype, -100, 100),
    ]
    compare_onnx_and_py([a, b, u, v], outputs, values)


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((2, 0), (0, 3)), ((0, 3), (3, 2)), ((0, 3), (3,)), ((3,), (3, 0)), ((0,), (0,))],
)
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_dot_of_empty_operands(a_shape, b_shape, dtype):
    a = pt.tensor("a", dtype=dtype, shape=(None,) * len(a_shape))
    b = pt.tensor("b", dtype=dtype, shape=(None,) * len(b_shape))
    compare_onnx_and_py(
        [a, b], pt.dot(a, b), [np.ones(a_shape, dtype), np.ones(b_shape, dtype)]
    )


@given(
    data=st.data(),
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3),
    dtype=st.sampled_from(["float64", "float32", "int64", "uint8", "bool"]),
    reduction=st.sampled_from(["sum", "prod", "max", "min", "all", "any", "argmax"]),
)
def test_reductions_match_numpy_for_any_shape_and_axes(data, shape, dtype, reduction):
    ndim = len(shape)
    axis = data.draw(
        st.none()
        | st.lists(st.integers(0, max(ndim - 1, 0)), unique=True, max_size=ndim).map(
            tuple
        ),
        label="axis",
    )
    reduced_length = np.prod([shape[a] for a in axis] if axis is not None else shape)
    # NumPy raises for extrema of nothing: tested above
    assume(reduction not in ("max", "min", "argmax") or reduced_length > 0)
    static = data.draw(st.booleans(), label="static")
    fn = pt.argmax if reduction == "argmax" else REDUCTIONS[reduction]
    x = pt.tensor("x", dtype=dtype, shape=shape if static else (None,) * ndim)
    compare_onnx_and_py([x], fn(x, axis=axis), [random_values(shape, dtype)])


def test_graph_as_default_c_mode_leaves_it():
    x = pt.matrix("x")
    y = pt.matrix("y", dtype="int8")
    fn = pytensor.function(
        [x, y],
        [
            x.sum(axis=0),
            pt.max(x, axis=1),
            pt.argmax(x, axis=1),
            pt.prod(y, axis=None, no_zeros_in_input=False),
            pt.dot(x, x.T),
            y.sum(axis=1),
        ],
        mode="FAST_RUN",
    )
    compare_converted_graph(
        fn, [rng.normal(size=(3, 3)), random_values((3, 3), "int8", -100, 100)]
    )


def op_types(fn):
    return [node.op_type for node in fn.maker.linker.onnx_model.graph.node]


# Each reads x @ w and adds a bias
DENSE_LAYERS = {
    "vector_bias": lambda x, w, b, m: x @ w + b,
    "bias_first": lambda x, w, b, m: b + x @ w,
    "row_bias": lambda x, w, b, m: x @ w + b[None, :],
    "matrix_bias": lambda x, w, b, m: x @ w + m,
    "scalar_bias": lambda x, w, b, m: x @ w + b[0],
    "product_read_twice": lambda x, w, b, m: (x @ w + b) * (x @ w),
    "bias_read_twice": lambda x, w, b, m: (x @ w + b) + b,
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
def test_dense_layers(static, dtype):
    def operand(name, shape):
        return pt.tensor(
            name, dtype=dtype, shape=shape if static else (None,) * len(shape)
        )

    x, w, b = operand("x", (5, 4)), operand("w", (4, 3)), operand("b", (3,))
    m = operand("m", (5, 3))
    compare_onnx_and_py(
        [x, w, b, m],
        [layer(x, w, b, m) for layer in DENSE_LAYERS.values()],
        [random_values(s, dtype) for s in ((5, 4), (4, 3), (3,), (5, 3))],
    )


def test_a_bias_that_broadcasts_the_product_is_added_after_it():
    # Gemm only broadcasts its third input: (1, 3) + (5, 3) stays an Add
    x, w, c = pt.tensor("x", shape=(1, 4)), pt.matrix("w"), pt.matrix("c")
    fn, _ = compare_onnx_and_py(
        [x, w, c],
        x @ w + c,
        [random_values(shape, "float64") for shape in ((1, 4), (4, 3), (5, 3))],
    )
    assert "Gemm" not in op_types(fn)


def test_a_dense_layer_is_one_gemm():
    x, w, b = pt.matrix("x"), pt.matrix("w"), pt.vector("b")
    fn = pytensor.function([x, w, b], pt.tanh(x @ w + b), mode="ONNX")
    # Besides the runtime check that b has as many elements as w has columns
    # (onnxruntime checks that x has as many columns as w has rows)
    check = ["Shape", "Shape", "Equal", "Squeeze"]
    assert sorted(op_types(fn)) == sorted(["Gemm", "Tanh", *check])
    assert exported_op_types(fn) == ["Gemm", "Tanh"]
    integer = pytensor.function(
        [x, w, b],
        x.astype("int64") @ w.astype("int64") + b.astype("int64"),
        mode="ONNX",
    )
    assert "Gemm" not in op_types(integer)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
def test_transposed_matrix_times_vector_or_column(static, dtype):
    a = pt.tensor("a", dtype=dtype, shape=(5, 3) if static else (None, None))
    v = pt.tensor("v", dtype=dtype, shape=(5,) if static else (None,))
    column = pt.tensor("column", dtype=dtype, shape=(5, 1) if static else (None, 1))
    empty = np.zeros((0, 3), dtype)
    for a_value, v_value in [
        (random_values((5, 3), dtype), random_values((5,), dtype)),
        (empty, np.zeros(0, dtype)),
    ]:
        if static and not len(a_value):
            continue
        compare_onnx_and_py(
            [a, v, column],
            [a.T @ v, a.T @ column, pt.dot(a.T, v) * 2],
            [a_value, v_value, v_value[:, None]],
        )


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint8", "bool"])
def test_mul_without_zeros_elementwise(dtype):
    from pytensor.tensor.elemwise import Elemwise

    x, y = pt.vector("x", dtype=dtype), pt.vector("y", dtype=dtype)
    values = np.array([0, 0, 1, 3, 0, 2], dtype)
    others = np.array([0, 5, 0, 2, 1, 7], dtype)
    compare_onnx_and_py(
        [x, y], Elemwise(MulWithoutZeros(ps.upcast_out))(x, y), [values, others]
    )


@pytest.mark.parametrize("scalar_op", [ps.maximum, ps.minimum])
def test_max_and_min_of_empty_raise_the_reference_message(scalar_op):
    # pt.min(x) is -max(-x) until rewritten: build the same node for both modes
    reduction = CAReduce(scalar_op, axis=(1,))
    x = pt.matrix("x")
    messages = []
    for mode in ("ONNX", py_mode):
        fn = pytensor.function([x], reduction(x), mode=mode)
        with pytest.raises(ValueError) as raised:
            fn(np.zeros((2, 0)))
        messages.append(str(raised.value).split("\n")[0])
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    "x_shape, y_shape",
    [((3, 2), (3, 2)), ((3,), (2,)), ((2, 3), (2,)), ((4,), (3, 4))],
)
def test_dot_of_unaligned_shapes_raises_numpys_error(x_shape, y_shape):
    x = pt.tensor("x", shape=(None,) * len(x_shape))
    y = pt.tensor("y", shape=(None,) * len(y_shape))
    for mode in (py_mode, "ONNX"):
        fn = pytensor.function([x, y], pt.dot(x, y), mode=mode)
        with pytest.raises(ValueError):
            fn(np.ones(x_shape), np.ones(y_shape))


def test_a_check_after_a_failed_node_does_not_hide_the_check_before_it():
    # the second Dot's check needs the first Dot's result, which fails
    a = pt.matrix("a")
    fn = pytensor.function([a], pt.dot(pt.dot(a, a), a), mode="ONNX")
    with pytest.raises(ValueError, match="not aligned"):
        fn(np.ones((3, 2)))


@pytest.mark.parametrize(
    "x_shape, y_shape", [((None, 3), (3, None)), ((None, None), (None, None))]
)
def test_dot_checks_alignment_only_after_a_failed_run(x_shape, y_shape):
    x, y = pt.tensor("x", shape=x_shape), pt.tensor("y", shape=y_shape)
    fn = pytensor.function([x, y], pt.dot(x, y), mode="ONNX")
    assert n_runtime_checks(fn) == 0
    assert op_types(fn) == ["MatMul"]
