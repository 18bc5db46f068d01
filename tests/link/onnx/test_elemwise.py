from functools import partial

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytensor.tensor.special as special
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pytensor.tensor.elemwise import DimShuffle, Elemwise

import pytensor
from tests.link.onnx.utils import (
    assert_same_values,
    compare_converted_graph,
    compare_onnx_and_py,
    exported_op_types,
    n_runtime_checks,
)


rng = np.random.default_rng(7)

DIMSHUFFLES = [
    # (input shape, new_order); the 1s of the input may be dropped
    ((), ()),
    ((), ("x",)),
    ((), ("x", "x")),
    ((3,), (0,)),
    ((3,), ("x", 0)),
    ((3,), (0, "x")),
    ((1,), ()),
    ((1,), ("x",)),
    ((1,), ("x", "x", "x")),
    ((3, 4), (1, 0)),
    ((3, 4), (1, "x", 0)),
    ((3, 4), ("x", 1, 0, "x")),
    ((3, 1), (0,)),
    ((3, 1), ("x", 0)),
    ((1, 4), (1,)),
    ((1, 4), (1, "x")),
    ((1, 1), ()),
    ((1, 1), ("x",)),
    ((3, 1, 4), (2, 0)),
    ((3, 1, 4), (2, "x", 0)),
    ((3, 1, 4), ("x", 2, "x", 0, "x")),
    ((3, 1, 4), (0, "x", 2)),
    ((3, 1, 4), (1, 2, 0)),
    ((2, 3, 4), (0, "x", 2, "x", 1)),
    ((2, 3, 4), (2, 0, 1)),
    ((2, 3, 4), (1, 2, 0, "x")),
    ((1, 3, 1, 4), (3, "x", 1)),
    ((1, 3, 1, 4), (1, 3)),
    ((1, 3, 1, 4), ("x", 3, 2, "x", 1)),
    ((0, 3), (1, "x", 0)),
    ((2, 0, 1), (1, 0)),
    ((2, 0, 1), ("x", 1, 2, 0)),
]


def as_symbolic(shape, keep_ones):
    """The static shape with unknown lengths, keeping the 1s if ``keep_ones``."""
    return tuple(1 if (length == 1 and keep_ones) else None for length in shape)


@pytest.mark.parametrize("static", ["static", "symbolic", "symbolic_ones"])
@pytest.mark.parametrize("shape, new_order", DIMSHUFFLES, ids=str)
def test_dimshuffle(shape, new_order, static):
    # Dropping an axis of unknown length is allowed: it must be 1 at runtime
    type_shape = (
        shape if static == "static" else as_symbolic(shape, static == "symbolic")
    )
    x = pt.tensor("x", shape=type_shape)
    out = DimShuffle(input_ndim=len(shape), new_order=new_order)(x)
    compare_onnx_and_py([x], out, [rng.normal(size=shape)])


@pytest.mark.parametrize(
    "dtype", ["float32", "int8", "int16", "uint16", "int64", "uint64", "bool"]
)
def test_dimshuffle_keeps_every_dtype(dtype):
    x = pt.tensor("x", dtype=dtype, shape=(3, 1, None))
    out = x.dimshuffle(2, "x", 0)
    compare_onnx_and_py([x], out, [np.arange(12).reshape(3, 1, 4).astype(dtype)])


@st.composite
def dimshuffles(draw):
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=4)))
    droppable = [axis for axis, length in enumerate(shape) if length == 1]
    dropped = (
        draw(st.lists(st.sampled_from(droppable), unique=True)) if droppable else []
    )
    kept = draw(st.permutations([a for a in range(len(shape)) if a not in dropped]))
    new_order = list(kept)
    for _ in range(draw(st.integers(0, 3))):
        new_order.insert(draw(st.integers(0, len(new_order))), "x")
    static = draw(st.booleans())
    return shape, tuple(new_order), shape if static else as_symbolic(shape, False)


@given(dimshuffles())
def test_dimshuffle_any_drop_transpose_expand(case):
    shape, new_order, type_shape = case
    x = pt.tensor("x", dtype="int64", shape=type_shape)
    out = DimShuffle(input_ndim=len(shape), new_order=new_order)(x)
    values = np.arange(int(np.prod(shape)), dtype="int64").reshape(shape)
    compare_onnx_and_py([x], out, [values])


def softmax_axes():
    """Axes of the softmaxes; PyTensor 3 also reduces over several axes."""
    try:
        special.softmax(pt.tensor3(), axis=(0, 2))
    except TypeError:
        return [None, 0, 1, -1]
    return [None, 0, 1, -1, (0, 2), (2, 1, 0), ()]


SOFTMAX_AXES = softmax_axes()


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("softmax", [special.softmax, special.log_softmax])
def test_softmax_and_log_softmax_over_any_axes(softmax, dtype, static):
    shape = (2, 3, 4)
    x = pt.tensor("x", dtype=dtype, shape=shape if static else (None,) * 3)
    values = rng.normal(scale=5, size=shape).astype(dtype)
    values[1, 2] = [np.nan, 1.0, 2.0, 3.0]
    outputs = [softmax(x, axis=axis) for axis in SOFTMAX_AXES]
    # log-probabilities near 0 are differences of O(1) terms: their float32
    # rounding error is absolute, not relative
    atol = 1e-6 if dtype == "float32" else 0.0
    compare_onnx_and_py(
        [x], outputs, [values], assert_fn=partial(assert_same_values, atol=atol)
    )


@pytest.mark.parametrize("softmax", [special.softmax, special.log_softmax])
def test_softmax_of_empty_arrays_and_scalars(softmax):
    # Only the other axes are empty: PyTensor 2 raises on an empty softmax axis
    no_rows = pt.matrix("no_rows")
    no_columns = pt.matrix("no_columns")
    s = pt.scalar("s")
    compare_onnx_and_py(
        [no_rows, no_columns, s],
        [softmax(no_rows, axis=1), softmax(no_columns, axis=0), softmax(s)],
        [np.zeros((0, 3)), np.zeros((3, 0)), np.array(3.0)],
    )


def test_softmax_of_integers():
    i = pt.vector("i", dtype="int64")
    out = special.softmax(i)
    if out.dtype == "int64":
        # PyTensor 2 types it int64 but computes floats
        with pytest.raises(NotImplementedError, match="integer"):
            pytensor.function([i], out, mode="ONNX")
        return
    # PyTensor 3.0.7 itself never finishes compiling the LogSoftmax of integers
    compare_onnx_and_py([i], out, [np.arange(4)])


@pytest.mark.parametrize("axis", [None, 0, -1])
def test_softmax_gradients(axis):
    x = pt.matrix("x")
    w = pt.matrix("w")
    cost = (special.softmax(x, axis=axis) * w).sum() + (
        special.log_softmax(x, axis=axis) * w**2
    ).sum()
    compare_onnx_and_py(
        [x, w],
        pytensor.grad(cost, x),
        [rng.normal(size=(3, 4)), rng.normal(size=(3, 4))],
    )


@pytest.mark.skipif(
    not hasattr(special, "SoftmaxGrad"), reason="SoftmaxGrad is gone in PyTensor 3"
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_softmax_grad_op(axis, dtype):
    dy = pt.matrix("dy", dtype=dtype)
    sm = pt.matrix("sm", dtype=dtype)
    values = [
        rng.normal(size=(3, 4)).astype(dtype),
        rng.uniform(size=(3, 4)).astype(dtype),
    ]
    compare_onnx_and_py([dy, sm], special.SoftmaxGrad(axis=axis)(dy, sm), values)


def test_graph_as_default_c_mode_leaves_it():
    x = pt.matrix("x")
    w = pt.matrix("w")
    b = pt.vector("b")
    logits = x @ w + b
    outputs = [
        special.softmax(logits, axis=-1),
        special.log_softmax(logits, axis=-1),
        pytensor.grad(special.log_softmax(logits, axis=-1)[:, 0].sum(), w),
        logits.T[:, None, :],
    ]
    fn = pytensor.function([x, w, b], outputs, mode="FAST_RUN")
    compare_converted_graph(
        fn, [rng.normal(size=(5, 3)), rng.normal(size=(3, 4)), rng.normal(size=4)]
    )


RUNTIME_BROADCASTING = "Runtime broadcasting not allowed"


def composite_of(x, y):
    xs, ys = ps.float64("xs"), ps.float64("ys")
    return Elemwise(ps.Composite([xs, ys], [xs * ys + xs]))(x, y)


@pytest.mark.parametrize(
    "combine", [pt.add, composite_of], ids=["elemwise", "composite"]
)
def test_elemwise_runtime_broadcast(combine):
    x, y = pt.vector("x"), pt.vector("y")
    fn = pytensor.function([x, y], combine(x, y), mode="ONNX")
    for lengths in ((1, 3), (3, 1)):
        with pytest.raises(ValueError, match=RUNTIME_BROADCASTING):
            fn(*(np.ones(n) for n in lengths))
    with pytest.raises(ValueError):
        fn(np.ones(3), np.ones(4))
    compare_onnx_and_py([x, y], combine(x, y), [np.ones(1), np.ones(1)])
    compare_onnx_and_py([x, y], combine(x, y), [np.ones(3), np.arange(3.0)])


def test_typed_broadcastable_inputs_broadcast_without_check():
    x, row = pt.matrix("x"), pt.tensor("row", shape=(1, None))
    fn, _ = compare_onnx_and_py([x, row], x + row, [np.ones((2, 3)), np.ones((1, 3))])
    with pytest.raises(ValueError, match=RUNTIME_BROADCASTING):
        fn(np.ones((2, 1)), np.ones((1, 3)))
    assert n_runtime_checks(fn) == 1
    column = pt.tensor("column", shape=(None, 1))
    fn = pytensor.function([column, row], column + row, mode="ONNX")
    assert n_runtime_checks(fn) == 0


def test_lengths_known_or_equal_by_construction_need_no_check():
    x, y = pt.tensor("x", shape=(3,)), pt.tensor("y", shape=(3,))
    assert n_runtime_checks(pytensor.function([x, y], x * y, mode="ONNX")) == 0
    v = pt.vector("v")
    chain = pt.exp(v) * v + pt.log(v) / v
    assert n_runtime_checks(pytensor.function([v], chain, mode="ONNX")) == 0
    # a length read against a static one is compared with a constant
    fn = pytensor.function([v, x], v + x, mode="ONNX")
    assert n_runtime_checks(fn) == 1
    with pytest.raises(ValueError, match=RUNTIME_BROADCASTING):
        fn(np.ones(1), np.ones(3))
    # one check per pair of lengths, even when several nodes need it
    w = pt.vector("w")
    fn = pytensor.function([v, w], [v + w, (v + w) * w, pt.exp(v) - w], mode="ONNX")
    assert n_runtime_checks(fn) == 1


def test_exported_models_have_no_runtime_broadcasting_check():
    x, y = pt.vector("x"), pt.vector("y")
    fn = pytensor.function([x, y], x + y, mode="ONNX")
    assert n_runtime_checks(fn) == 1
    assert exported_op_types(fn) == ["Add"]


@pytest.mark.parametrize("length, raises", [(1, False), (3, True), (0, True)])
def test_squeezing_an_axis_of_length_other_than_one_raises(length, raises):
    x = pt.vector("x")
    for mode in ("FAST_COMPILE", "ONNX"):
        fn = pytensor.function([x], pt.squeeze(x, 0), mode=mode)
        if raises:
            with pytest.raises(ValueError):
                fn(np.ones(length))
        else:
            assert fn(np.ones(length)) == 1
