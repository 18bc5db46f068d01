import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.tensor.shape import Reshape, Shape_i, specify_shape

import pytensor
from pytensor.link.onnx.dispatch import onnx_funcify
from tests.link.onnx.utils import compare_converted_graph, compare_onnx_and_py


DTYPES = ["float64", "float32", "int8", "uint16", "int64", "bool"]
rng = np.random.default_rng(3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 4), (2, 3, 4)], ids=str)
def test_shape_and_shape_i(shape, dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None,) * len(shape))
    outputs = [x.shape, *(Shape_i(i)(x) for i in range(len(shape)))]
    compare_onnx_and_py([x], outputs, [np.zeros(shape, dtype=dtype)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape, new_shape",
    [
        ((2, 3, 4), (6, 4)),
        ((2, 3, 4), (-1,)),
        ((2, 3, 4), (4, -1, 2)),
        ((2, 3, 4), (24, 1, 1)),
        ((1, 1), ()),
        ((), (1, 1, 1)),
        ((0, 3), (3, 0)),
        ((0, 3), (-1,)),
        ((0, 3), (0, 5, 7)),
    ],
    ids=str,
)
def test_reshape_to_constant_shapes(shape, new_shape, dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None,) * len(shape))
    values = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
    compare_onnx_and_py([x], x.reshape(new_shape), [values])


@pytest.mark.parametrize("shape_dtype", ["int64", "int32", "uint8"])
def test_reshape_to_symbolic_shapes(shape_dtype):
    x = pt.matrix("x")
    rows = pt.scalar("rows", dtype=shape_dtype)
    new_shape = pt.vector("new_shape", dtype="int64", shape=(3,))
    outputs = [
        x.reshape((rows, -1)),
        Reshape(3)(x, new_shape),
        x.reshape((x.shape[1], x.shape[0])),
        x.T.reshape((-1,)),
    ]
    compare_onnx_and_py(
        [x, rows, new_shape],
        outputs,
        [
            np.arange(12.0).reshape(3, 4),
            np.array(2, dtype=shape_dtype),
            np.array([2, -1, 3]),
        ],
    )


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_specify_shape_passes_values_through(dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None, None))
    n = pt.scalar("n", dtype="int64")
    out = specify_shape(x, (2, n)) + 0 if dtype != "bool" else specify_shape(x, (2, n))
    compare_onnx_and_py([x, n], out, [np.ones((2, 3), dtype=dtype), np.array(3)])


def test_specify_shape_checks_the_shape_at_runtime():
    x = pt.matrix("x")
    n = pt.scalar("n", dtype="int32")
    fn = pytensor.function([x, n], specify_shape(x, (2, n)) * 2, mode="ONNX")
    np.testing.assert_array_equal(fn(np.ones((2, 3)), 3), 2 * np.ones((2, 3)))
    with pytest.raises(AssertionError, match="SpecifyShape"):
        fn(np.ones((2, 3)), 4)
    with pytest.raises(AssertionError, match="SpecifyShape"):
        fn(np.ones((1, 3)), 3)


def test_specify_shape_checks_are_left_out_of_exported_models():
    x = pt.matrix("x")
    fn = pytensor.function([x], specify_shape(x, (2, 3)) * 2, mode="FAST_RUN")
    checked = onnx_funcify(fn.maker.fgraph).model
    unchecked = onnx_funcify(fn.maker.fgraph, keep_checks=False).model
    assert len(checked.graph.output) == 2
    assert len(unchecked.graph.output) == 1


def test_specify_shape_with_unknown_entries():
    x = pt.matrix("x")
    n = pt.scalar("n", dtype="int64")
    out = specify_shape(x, (None, n)) * 2
    compare_onnx_and_py([x, n], out, [np.ones((2, 3)), np.array(3)])
    fn = pytensor.function([x, n], out, mode="ONNX")
    with pytest.raises(AssertionError, match=r"SpecifyShape.*\(None, 'n'\)"):
        fn(np.ones((2, 3)), 4)


def test_graph_as_default_c_mode_leaves_it():
    x = pt.tensor3("x")
    y = pt.matrix("y")
    outputs = [
        x.reshape((x.shape[0], -1)),
        x.shape,
        x.shape[1] * y.shape[0],
        specify_shape(y, (2, 3)).sum(),
    ]
    fn = pytensor.function([x, y], outputs, mode="FAST_RUN")
    compare_converted_graph(fn, [rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3))])


@pytest.mark.parametrize(
    "shape", [(3, 2), (-1, 3), (-1, -1), (4, -1), (0, -1), (7, 1), (-2, -3)]
)
def test_reshape_raises_numpys_error_where_the_shape_does_not_fit(shape):
    x, target = pt.matrix("x"), pt.lvector("shape")
    results = []
    for mode in ("FAST_COMPILE", "ONNX"):
        fn = pytensor.function([x, target], x.reshape(target, ndim=2), mode=mode)
        try:
            results.append(fn(np.ones((2, 3)), shape).shape)
        except ValueError:
            results.append(ValueError)
    assert results[0] == results[1]
