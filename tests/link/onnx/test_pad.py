import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.graph.replace import clone_replace
from pytensor.tensor.pad import Pad

import pytensor
from tests.link.onnx.utils import (
    assert_same_values,
    compare_onnx_and_py,
    exported_op_types,
    no_rewrites,
    random_values,
)


rng = np.random.default_rng(5)


MODES = [
    ("constant", {}),
    ("constant", {"constant_values": ((1, 2), (-3, 4))}),
    ("edge", {}),
    ("wrap", {}),
    ("reflect", {}),
    ("symmetric", {}),
    ("linear_ramp", {}),
    ("linear_ramp", {"end_values": ((5, -4), (2, 3))}),
    ("maximum", {}),
    ("minimum", {"stat_length": 2}),
    ("mean", {}),
    ("mean", {"stat_length": ((1, 2), (3, 1))}),
]
MODE_IDS = [f"{mode}-{'-'.join(kwargs) or 'default'}" for mode, kwargs in MODES]
WIDTHS = {
    "asymmetric": ((2, 1), (0, 3)),
    "wider_than_axis": ((7, 5), (9, 6)),
}


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
@pytest.mark.parametrize("mode, kwargs", MODES, ids=MODE_IDS)
def test_pad(mode, kwargs, width):
    x = pt.matrix("x")
    out = pt.pad(x, width, mode=mode, **kwargs)
    assert isinstance(out.owner.op, Pad)
    compare_onnx_and_py(
        [x], out, [random_values(rng, (3, 4), "float64")], onnx_mode=no_rewrites
    )


@pytest.mark.parametrize("mode", ["wrap", "constant", "mean"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "uint16"])
def test_pad_keeps_or_sets_the_dtype(mode, dtype):
    # "wrap", "reflect" and "symmetric" keep the dtype, the others compute in floatX
    x = pt.tensor3("x", dtype=dtype)
    compare_onnx_and_py(
        [x],
        pt.pad(x, ((1, 2), (0, 0), (3, 1)), mode=mode),
        [random_values(rng, (2, 3, 2), dtype)],
        onnx_mode=no_rewrites,
    )


# PyTensor builds "reflect" and "symmetric" from Scans that take seconds to
# compile: more cases are checked against NumPy, whose semantics PyTensor's
# pad reproduces.
@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize(
    "dtype, shape, width",
    [
        ("int32", (3, 4), ((2, 1), (0, 3))),
        ("bool", (2, 3, 2), ((1, 2), (0, 0), (3, 1))),
        ("uint16", (5,), (13, 11)),
        ("float32", (3, 1), 2),
        ("float64", (1,), (3, 4)),
    ],
)
def test_mirrored_pad_like_numpy(mode, dtype, shape, width):
    # On an axis of length 1, NumPy repeats the element for "reflect";
    # PyTensor 3.0.7's own implementation does not pad such an axis at all.
    x = pt.tensor("x", dtype=dtype, shape=(None,) * len(shape))
    fn = pytensor.function([x], pt.pad(x, width, mode=mode), mode=no_rewrites)
    value = random_values(rng, shape, dtype)
    assert_same_values(fn(value), np.pad(value, width, mode=mode))


def test_pad_symbolic_widths_and_values():
    x = pt.vector("x")
    widths = pt.vector("widths", dtype="int64")
    value = pt.scalar("value")
    stat_length = pt.scalar("stat_length", dtype="int32")
    compare_onnx_and_py(
        [x, widths, value, stat_length],
        [
            pt.pad(x, widths, mode="constant", constant_values=value),
            pt.pad(x, widths, mode="reflect"),
            pt.pad(x, widths, mode="maximum", stat_length=stat_length),
        ],
        [
            random_values(rng, 5, "float64"),
            np.array([3, 6], dtype="int64"),
            np.array(-2.5),
            np.array(2, dtype="int32"),
        ],
        onnx_mode=no_rewrites,
    )


@pytest.mark.parametrize("mode", ["maximum", "minimum"])
def test_pad_statistics_propagate_nan(mode):
    x = pt.vector("x")
    compare_onnx_and_py(
        [x],
        pt.pad(x, (1, 2), mode=mode),
        [np.array([1.0, np.nan, 3.0])],
        onnx_mode=no_rewrites,
    )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", ["maximum", "minimum"])
def test_pad_statistics_of_nan_free_values_skip_the_nan_check(mode, dtype):
    x = pt.matrix("x", dtype=dtype)
    nan_free = pt.where(pt.isnan(x), -np.inf, x)
    values = np.array([[1.0, np.nan, 3.0], [np.inf, -2.0, np.nan]], dtype=dtype)
    fn, _ = compare_onnx_and_py(
        [x],
        pt.pad(nan_free, ((1, 2), (2, 1)), mode=mode, stat_length=2),
        [values],
        onnx_mode=no_rewrites,
    )
    # the one IsNaN of `nan_free`
    assert exported_op_types(fn).count("IsNaN") == 1


def test_pad_with_default_rewrites():
    # Pad is not inlined by the default rewrites: it reaches the converter
    x = pt.tensor("x", shape=(3, None))
    padded = [
        pt.pad(x, ((1, 2), (2, 0)), mode=mode) for mode in ("constant", "symmetric")
    ]
    padded.append(pt.pad(x * 2, 1, mode="linear_ramp", end_values=1.5).sum(axis=0))
    fn, _ = compare_onnx_and_py([x], padded, [random_values(rng, (3, 4), "float64")])
    assert any(isinstance(node.op, Pad) for node in fn.maker.fgraph.apply_nodes)


def inlined(out):
    """The inner graph of the ``Pad`` computing ``out``, applied to its inputs."""
    node = out.owner
    [result] = clone_replace(
        node.op.inner_outputs, dict(zip(node.op.inner_inputs, node.inputs, strict=True))
    )
    return result


@pytest.mark.parametrize(
    "mode",
    [
        "constant",
        "edge",
        "wrap",
        "maximum",
        "mean",
        "reflect",
        "symmetric",
        "linear_ramp",
    ],
)
def test_inlined_pad_graph(mode):
    # What a graph looks like if the Pad's inner graph is inlined: the Ops
    # of other modules (subtensor, Alloc, Scan with IfElse, Join...) compute it.
    x = pt.matrix("x")
    compare_onnx_and_py(
        [x],
        inlined(pt.pad(x, ((1, 2), (3, 0)), mode=mode)),
        [random_values(rng, (3, 4), "float64")],
    )
