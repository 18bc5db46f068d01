import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.tensor.einsum import Einsum

import pytensor
from tests.link.onnx.utils import (
    assert_same_values,
    assert_sums_close,
    compare_onnx_and_py,
    no_rewrites,
    random_values,
)


rng = np.random.default_rng(3)


SUBSCRIPTS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
    ("i...j,j...->i...", [(2, 4, 5, 3), (3, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("Ab,bC->CA", [(2, 3), (3, 4)]),
    ("ij, jk -> ik", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8", "bool"])
@pytest.mark.parametrize(
    "subscripts, shapes", SUBSCRIPTS, ids=[s for s, _ in SUBSCRIPTS]
)
def test_einsum(subscripts, shapes, dtype):
    operands = [
        pt.tensor(f"x{i}", shape=(None,) * len(shape), dtype=dtype)
        for i, shape in enumerate(shapes)
    ]
    out = pt.einsum(subscripts, *operands)
    assert isinstance(out.owner.op, Einsum)
    compare_onnx_and_py(
        operands,
        out,
        [random_values(rng, shape, dtype) for shape in shapes],
        assert_fn=assert_sums_close,
        onnx_mode=no_rewrites,
    )


def test_einsum_int8_wraps_like_pytensor():
    # the dot wraps in int8, the sum that follows does not
    x = pt.matrix("x", dtype="int8")
    y = pt.matrix("y", dtype="int8")
    values = np.full((2, 2), 100, dtype="int8")
    compare_onnx_and_py(
        [x, y],
        [pt.einsum("ij,jk->ik", x, y), pt.einsum("ij,jk->", x, y)],
        [values, values],
        onnx_mode=no_rewrites,
    )


def test_einsum_mixed_dtypes():
    x = pt.matrix("x", dtype="float32")
    y = pt.matrix("y", dtype="int64")
    compare_onnx_and_py(
        [x, y],
        pt.einsum("ij,jk->ik", x, y),
        [random_values(rng, (2, 3), "float32"), random_values(rng, (3, 4), "int64")],
        assert_fn=assert_sums_close,
        onnx_mode=no_rewrites,
    )


def test_einsum_broadcastable_dims():
    x = pt.tensor("x", shape=(None, 1))
    y = pt.matrix("y")
    compare_onnx_and_py(
        [x, y],
        [pt.einsum("ij,jk->ik", x, y), pt.einsum("ij,ij->ij", x, y.T)],
        [random_values(rng, (4, 1), "float64"), random_values(rng, (3, 4), "float64")],
        onnx_mode=no_rewrites,
    )


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
def test_einsum_with_default_rewrites(static):
    # Rewrites inline an Einsum whose contraction path is known; with three
    # operands of unknown shapes the Einsum stays in the graph.
    shapes = [(2, 3), (3, 4), (4, 5)]
    operands = [
        pt.tensor(f"x{i}", shape=shape if static else (None, None))
        for i, shape in enumerate(shapes)
    ]
    out = pt.einsum("ij,jk,kl->il", *operands)
    fn, _ = compare_onnx_and_py(
        operands,
        out,
        [random_values(rng, shape, "float64") for shape in shapes],
        assert_fn=assert_sums_close,
    )
    has_einsum = any(
        isinstance(node.op, Einsum) for node in fn.maker.fgraph.apply_nodes
    )
    assert has_einsum != static


def test_einsum_in_a_larger_graph():
    x = pt.tensor3("x")
    w = pt.matrix("w")
    out = pt.exp(pt.einsum("bij,jk->bik", x, w)).sum(axis=-1)
    fn = pytensor.function([x, w], out, mode="ONNX")
    x_value, w_value = (
        random_values(rng, (2, 3, 4), "float64"),
        random_values(rng, (4, 2), "float64"),
    )
    expected = np.exp(np.einsum("bij,jk->bik", x_value, w_value)).sum(axis=-1)
    assert_same_values(fn(x_value, w_value), expected)
