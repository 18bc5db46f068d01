"""Converters of the LU factorization of tridiagonal matrices and of the
solves with it (LAPACK's ``gttrf`` and ``gttrs``)."""

from pytensor.link.onnx.dispatch.linalg.ops import (
    LUFactorTridiagonal,
    SolveLUFactorTridiagonal,
)
from pytensor.link.onnx.dispatch.linalg.shared import (
    as_columns,
    as_given,
    output_dtype,
    register_stacked,
)
from pytensor.link.onnx.numerics.linalg.solvers.tridiagonal import (
    tridiagonal_lu_factor,
    tridiagonal_lu_solve,
)


def as_rows(vectors, dtype):
    """Stacks of vectors ``(batch, length)`` as rows ``(batch, 1, length)`` of ``dtype``."""
    return [vector.cast(dtype).unsqueeze([1]) for vector in vectors]


@register_stacked(LUFactorTridiagonal)
def lu_factor_tridiagonal_stacked(op, node, dl, d, du):
    *diagonals, ipiv = tridiagonal_lu_factor(*as_rows([dl, d, du], output_dtype(node)))
    return [
        *(diagonal.squeeze([1]) for diagonal in diagonals),
        ipiv.squeeze([1]).cast(output_dtype(node, 4)),
    ]


@register_stacked(SolveLUFactorTridiagonal)
def solve_lu_factor_tridiagonal_stacked(op, node, dl, d, du, du2, ipiv, b):
    dtype = output_dtype(node)
    factors = as_rows([dl, d, du, du2], dtype)
    ipiv = ipiv.cast("int64").unsqueeze([1])
    b = as_columns(b.cast(dtype), op.b_ndim)
    x = tridiagonal_lu_solve(*factors, ipiv, b, op.transposed)
    return [as_given(x, op.b_ndim)]
