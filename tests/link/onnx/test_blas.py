import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.compile.mode import Mode
from pytensor.tensor import blas, blas_c
from pytensor.tensor.basic import AllocEmpty

import pytensor
from tests.link.onnx.utils import (
    compare_converted_graph,
    compare_onnx_and_py,
)


py_fast_run = Mode(linker="py", optimizer="fast_run")
rng = np.random.default_rng(42)


def op_types(fgraph):
    return {type(node.op) for node in fgraph.apply_nodes}


def blas_cases(dtype):
    A = pt.matrix("A", dtype=dtype)
    B = pt.matrix("B", dtype=dtype)
    Z = pt.matrix("Z", dtype=dtype)
    x = pt.vector("x", dtype=dtype)
    y = pt.vector("y", dtype=dtype)
    a = pt.scalar("a", dtype=dtype)
    b = pt.scalar("b", dtype=dtype)
    inputs = [A, B, Z, x, y, a, b]
    values = [
        rng.normal(size=(3, 3)),
        rng.normal(size=(3, 3)),
        rng.normal(size=(3, 3)),
        rng.normal(size=3),
        rng.normal(size=3),
        np.array(0.7),
        np.array(-1.3),
    ]
    values = [value.astype(dtype) for value in values]
    return (
        {
            blas.Dot22: A @ B,
            blas.Dot22Scalar: a * (A @ B),
            blas.Gemm: b * Z + a * (A @ B),
            blas.Gemv: b * y + a * (A @ x),
            blas.Ger: Z + a * pt.outer(x, y),
        },
        inputs,
        values,
    )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "op_class", [blas.Dot22, blas.Dot22Scalar, blas.Gemm, blas.Gemv, blas.Ger]
)
def test_blas_ops_from_python_fast_run_graphs(op_class, dtype):
    outputs, inputs, values = blas_cases(dtype)
    fn = pytensor.function(
        inputs, outputs[op_class], mode=py_fast_run, on_unused_input="ignore"
    )
    # the rewritten graph is what is under test here
    assert op_class in op_types(fn.maker.fgraph)
    compare_converted_graph(fn, values)


def test_gemv_into_an_uninitialized_buffer():
    A = pt.matrix("A")
    x = pt.vector("x")
    fn = pytensor.function([A, x], [A @ x, x @ A], mode=py_fast_run)
    # Gemv with beta = 0 accumulating into AllocEmpty
    assert {blas.Gemv, AllocEmpty} <= op_types(fn.maker.fgraph)
    compare_converted_graph(fn, [rng.normal(size=(3, 3)), rng.normal(size=3)])


def test_inplace_gemm_on_an_intermediate_result():
    x = pt.matrix("x")
    y = pt.matrix("y")
    z = pt.matrix("z")
    fn = pytensor.function([x, y, z], pt.exp(z) + 2.0 * (x @ y), mode=py_fast_run)
    assert blas.gemm_inplace in {node.op for node in fn.maker.fgraph.apply_nodes}
    compare_converted_graph(
        fn, [rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(2, 4))]
    )


def test_blas_graph_as_default_c_mode_leaves_it():
    A = pt.matrix("A")
    x = pt.vector("x")
    fn = pytensor.function([A, x], [A @ A, A @ x, x @ A], mode="FAST_RUN")
    compare_converted_graph(fn, [rng.normal(size=(3, 3)), rng.normal(size=3)])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gemm_honours_symbolic_alpha_and_beta(dtype):
    z = pt.matrix("z", dtype=dtype)
    x = pt.matrix("x", dtype=dtype)
    y = pt.matrix("y", dtype=dtype)
    alpha = pt.scalar("alpha", dtype=dtype)
    beta = pt.scalar("beta", dtype=dtype)
    out = blas.gemm_no_inplace(z, alpha, x, y, beta)
    values = [
        rng.normal(size=shape).astype(dtype) for shape in [(2, 4), (2, 3), (3, 4)]
    ]
    for scales in [(0.5, 2.0), (1.0, 1.0), (-1.0, 0.0), (0.0, -3.0)]:
        compare_onnx_and_py(
            [z, x, y, alpha, beta],
            out,
            [*values, *(np.array(s, dtype=dtype) for s in scales)],
        )


def test_zero_beta_ignores_nan_and_inf_in_the_accumulator():
    z = pt.matrix("z")
    x = pt.matrix("x")
    y = pt.matrix("y")
    v = pt.vector("v")
    w = pt.vector("w")
    alpha = pt.scalar("alpha")
    beta = pt.scalar("beta")
    outputs = [
        blas.gemm_no_inplace(z, alpha, x, y, beta),
        blas.gemv_no_inplace(v, alpha, x, w, beta),
    ]
    accumulator = np.array([[np.nan, np.inf], [1.0, -np.inf]])
    values = [accumulator, np.eye(2), np.ones((2, 2)), accumulator[0], np.ones(2)]
    compare_onnx_and_py(
        [z, x, y, v, w, alpha, beta], outputs, [*values, np.array(2.0), np.array(0.0)]
    )


def test_gemm_broadcasts_z():
    z = pt.tensor("z", shape=(1, None))
    x = pt.matrix("x")
    y = pt.matrix("y")
    out = blas.gemm_no_inplace(z, np.float64(2.0), x, y, np.float64(0.5))
    compare_onnx_and_py(
        [z, x, y],
        out,
        [rng.normal(size=(1, 4)), rng.normal(size=(3, 2)), rng.normal(size=(2, 4))],
    )


GEMV_OPS = [blas.gemv_no_inplace, blas_c.cgemv_no_inplace]
GER_OPS = [blas.ger, blas_c.cger_no_inplace]


@pytest.mark.parametrize("static", [True, False], ids=["static", "symbolic"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("gemv", GEMV_OPS, ids=lambda op: type(op).__name__)
def test_gemv(gemv, dtype, static):
    y = pt.tensor("y", dtype=dtype, shape=(3,) if static else (None,))
    A = pt.tensor("A", dtype=dtype, shape=(3, 4) if static else (None, None))
    x = pt.tensor("x", dtype=dtype, shape=(4,) if static else (None,))
    alpha = pt.scalar("alpha", dtype=dtype)
    beta = pt.scalar("beta", dtype="float64")
    values = [rng.normal(size=shape).astype(dtype) for shape in [(3,), (3, 4), (4,)]]
    compare_onnx_and_py(
        [y, A, x, alpha, beta],
        gemv(y, alpha, A, x, beta),
        [*values, np.array(1.5, dtype=dtype), np.array(-0.5)],
    )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("ger", GER_OPS, ids=lambda op: type(op).__name__)
def test_ger(ger, dtype):
    A = pt.matrix("A", dtype=dtype)
    x = pt.vector("x", dtype=dtype)
    y = pt.vector("y", dtype=dtype)
    alpha = pt.scalar("alpha", dtype=dtype)
    values = [rng.normal(size=shape).astype(dtype) for shape in [(3, 2), (3,), (2,)]]
    compare_onnx_and_py(
        [A, alpha, x, y],
        ger(A, alpha, x, y),
        [values[0], np.array(2.5, dtype), *values[1:]],
    )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_dot22_dot22scalar_and_batched_dot(dtype):
    x = pt.matrix("x", dtype=dtype)
    y = pt.matrix("y", dtype=dtype)
    a = pt.scalar("a", dtype=dtype)
    u = pt.tensor3("u", dtype=dtype)
    v = pt.tensor3("v", dtype=dtype)
    outputs = [blas._dot22(x, y), blas._dot22scalar(x, y, a), blas._batched_dot(u, v)]
    values = [
        rng.normal(size=(2, 3)),
        rng.normal(size=(3, 0 if dtype == "float32" else 4)),
        np.array(-2.0),
        rng.normal(size=(5, 2, 3)),
        rng.normal(size=(5, 3, 4)),
    ]
    compare_onnx_and_py([x, y, a, u, v], outputs, [v.astype(dtype) for v in values])
