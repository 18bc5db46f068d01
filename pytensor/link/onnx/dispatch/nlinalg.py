"""Converters for the ``numpy.linalg`` Ops of PyTensor.

They are built on the kernels of `pytensor.link.onnx.dispatch.slinalg`: LU
with partial pivoting for the inverse and the determinants, the Jacobi
methods for ``eigh``, the SVD and the pseudo-inverse.
"""

import numpy as np

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.slinalg import (
    Value,
    check_square,
    concat,
    diagonal,
    float_output_dtype,
    gradient_of_triangle,
    identity,
    jacobi_eigen,
    jacobi_svd,
    lu_factor,
    lu_solve,
    maximum,
    minimum,
    mT,
    orthonormal_completion,
    output_dtype,
    positions,
    raise_unless,
    register_stacked,
    register_unsupported,
    symmetric_eigen,
    symmetric_from,
    where,
)


try:  # PyTensor >= 3
    from pytensor.tensor.linalg import (
        SVD,
        Det,
        Eig,
        Eigh,
        Lstsq,
        MatrixInverse,
        MatrixPinv,
        SLogDet,
        TensorInv,
        TensorSolve,
    )

    EighGrad = None
except ImportError:  # PyTensor 2
    from pytensor.tensor.nlinalg import (
        SVD,
        Det,
        Eig,
        Eigh,
        EighGrad,
        Lstsq,
        MatrixInverse,
        MatrixPinv,
        SLogDet,
        TensorInv,
        TensorSolve,
    )


# numpy.linalg.pinv's default cutoff, relative to the largest singular value
PINV_RCOND = 1e-15


def inverse(a: Value) -> Value:
    """The inverse of the square stack ``a``; raises ``LinAlgError`` if singular."""
    lu, permutation, _, singular = lu_factor(a)
    raise_unless(~singular, np.linalg.LinAlgError, "Singular matrix")
    n = a.dim(1)
    return lu_solve(lu, permutation, identity(n, n, a.dtype).expand(a.shape()))


NON_SQUARE = "Last 2 dimensions of the array must be square"


def square_input(node, a: Value, input_dtype) -> Value:
    """``a`` in ``input_dtype``, checked to be square as NumPy does."""
    a = a.cast(input_dtype)
    return check_square(a, node.inputs[0], NON_SQUARE, np.linalg.LinAlgError)


@register_stacked(MatrixInverse)
def matrix_inverse_stacked(op, node, a):
    return [inverse(square_input(node, a, output_dtype(node)))]


def determinant_factors(a: Value):
    """The diagonal of ``U`` in ``a = P @ L @ U``, and the sign of ``P`` (``(batch, 1, 1)``)."""
    lu, _, pivots, _ = lu_factor(a)
    swaps = pivots.ne(positions(a.dim(1), 1)).cast(a.dtype).sum([1])
    odd = swaps - 2 * (swaps / 2).floor()
    return diagonal(lu, 1), 1 - 2 * odd


@register_stacked(Det)
def det_stacked(op, node, a):
    u_diagonal, sign = determinant_factors(square_input(node, a, output_dtype(node)))
    determinant = u_diagonal.apply(
        "ReduceProd", u_diagonal, u_diagonal.indices([2]), keepdims=1
    )
    return [(sign * determinant).squeeze([1, 2])]


@register_stacked(SLogDet)
def slogdet_stacked(op, node, a):
    u_diagonal, sign = determinant_factors(square_input(node, a, output_dtype(node, 1)))
    signs = u_diagonal.apply("Sign", u_diagonal)
    sign = sign * signs.apply("ReduceProd", signs, signs.indices([2]), keepdims=1)
    log_abs = abs(u_diagonal).log().sum([2])
    return [
        sign.squeeze([1, 2]).cast(output_dtype(node, 0)),
        log_abs.squeeze([1, 2]),
    ]


def is_wide(var) -> bool:
    """Whether the matrix ``var`` statically has fewer rows than columns."""
    rows, columns = var.type.shape[-2:]
    return rows is not None and columns is not None and rows < columns


def singular_value_decomposition(a: Value, var):
    """The ``k = min(m, n)`` singular values, the first ``k`` columns of ``w``
    and all of ``v`` of `jacobi_svd`, for ``a`` or, if wide, for ``a.T``.

    Also returns whether ``a`` was transposed (Jacobi rotations of the fewer
    columns are cheaper) and ``k``.
    """
    transposed = is_wide(var)
    singular_values, w, v = jacobi_svd(mT(a) if transposed else a)
    k = minimum(w.dim(1), w.dim(2)).unsqueeze([0])
    singular_values = singular_values.slice(0, k, axis=2)
    return singular_values, w.slice(0, k, axis=2), v, transposed, k


@register_stacked(SVD)
def svd_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    singular_values, w, v, transposed, k = singular_value_decomposition(
        a, node.inputs[0]
    )
    if not op.compute_uv:
        return [singular_values.squeeze([1])]
    u = w / where(singular_values > 0, singular_values, 1)
    m, n = w.dim(1), v.dim(1)
    eps = float(np.finfo(a.dtype).eps)
    cutoff = singular_values.max([2]) * (maximum(m, n).cast(a.dtype) * eps)
    n_u_columns = m if op.full_matrices else k.squeeze([0])
    u = orthonormal_completion(u, singular_values > cutoff, n_u_columns)
    if not op.full_matrices:
        v = v.slice(0, k, axis=2)
    if transposed:
        u, v = v, u
    return [u, singular_values.squeeze([1]), mT(v)]


def inverse_of_nonnegligible(values: Value, magnitudes: Value, rcond) -> Value:
    """``1 / values`` where ``magnitudes`` exceed ``rcond`` times their maximum, else 0."""
    large = magnitudes > magnitudes.max([2]) * rcond
    return where(large, 1 / where(large, values, 1), 0)


@register_stacked(MatrixPinv)
def matrix_pinv_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    if op.hermitian:
        # numpy.linalg.pinv reads the lower triangle
        eigenvalues, v = jacobi_eigen(symmetric_from(a, lower=True))
        weights = inverse_of_nonnegligible(eigenvalues, abs(eigenvalues), PINV_RCOND)
        return [(v * weights) @ mT(v)]
    singular_values, w, v, transposed, k = singular_value_decomposition(
        a, node.inputs[0]
    )
    # w = u * s: the pseudo-inverse v @ diag(1 / s) @ u.T is v @ diag(1 / s**2) @ w.T
    weights = inverse_of_nonnegligible(
        singular_values * singular_values, singular_values, PINV_RCOND
    )
    pinv = (v.slice(0, k, axis=2) * weights) @ mT(w)
    return [mT(pinv) if transposed else pinv]


@register_stacked(Eigh)
def eigh_stacked(op, node, a, b=None):
    eigenvalues, eigenvectors = symmetric_eigen(op, node, a, b)
    return [eigenvalues.squeeze([1]), eigenvectors]


if EighGrad is not None:

    @register_stacked(EighGrad)
    def eigh_grad_stacked(op, node, a, w, v, w_gradient, v_gradient):
        # g = v @ (diag(w_gradient) + c.T) @ v.T with
        # c[m, n] = (v.T @ v_gradient)[m, n] / (w[n] - w[m]) off the diagonal
        dtype = output_dtype(node)
        w, w_gradient = (x.cast(dtype).unsqueeze([1]) for x in (w, w_gradient))
        v, v_gradient = v.cast(dtype), v_gradient.cast(dtype)
        n = v.dim(1)
        on_diagonal = positions(n, 1).eq(positions(n, 2))
        differences = w - mT(w)
        c = where(
            on_diagonal, 0, (mT(v) @ v_gradient) / where(on_diagonal, 1, differences)
        )
        middle = where(on_diagonal, mT(w_gradient).expand(v.shape()), 0) + mT(c)
        return [gradient_of_triangle(v @ middle @ mT(v), op.UPLO == "L")]


register_unsupported(
    Eig,
    "its eigenvalues and eigenvectors are complex, and onnxruntime has no "
    "complex numbers. For a symmetric matrix, use pt.linalg.eigh (or eigvalsh), "
    "whose results are real.",
)


# Ops of arbitrary rank, without Blockwise


def square_matrix(x: Value, n_leading: int, ndim: int):
    """``x`` reshaped to the ``(1, p, q)`` matrix of its first ``n_leading`` axes
    by the others, and the shapes of both groups of axes."""
    leading, trailing = x.shape(0, n_leading), x.shape(n_leading, ndim)
    sizes = [part.apply("ReduceProd", part, keepdims=1) for part in (leading, trailing)]
    return x.reshape(concat([x.indices([1]), *sizes], axis=0)), leading, trailing


@onnx_funcify.register(TensorInv)
def onnx_funcify_TensorInv(op, node, builder, inputs, **kwargs):
    dtype = float_output_dtype(node)
    a = Value(builder, inputs[0], node.inputs[0].type.dtype).cast(dtype)
    ndim = node.inputs[0].type.ndim
    matrix, leading, trailing = square_matrix(a, op.ind, ndim)
    result = inverse(matrix)
    return [result.reshape(concat([trailing, leading], axis=0)).name]


@onnx_funcify.register(TensorSolve)
def onnx_funcify_TensorSolve(op, node, builder, inputs, **kwargs):
    dtype = float_output_dtype(node)
    a_var, b_var = node.inputs
    if a_var.type.ndim - b_var.type.ndim != node.outputs[0].type.ndim:
        raise NotImplementedError(
            "the Op declares a matrix output, but numpy.linalg.tensorsolve "
            f"returns {a_var.type.ndim - b_var.type.ndim} dimensions here"
        )
    a, b = (
        Value(builder, name, var.type.dtype).cast(dtype)
        for name, var in zip(inputs, node.inputs, strict=True)
    )
    ndim = a_var.type.ndim
    if op.axes is not None:
        moved = [axis % ndim for axis in op.axes]
        order = [axis for axis in range(ndim) if axis not in moved] + moved
        a = a.apply("Transpose", a, perm=order)
    matrix, _, trailing = square_matrix(a, b_var.type.ndim, ndim)
    lu, permutation, _, singular = lu_factor(matrix)
    raise_unless(~singular, np.linalg.LinAlgError, "Singular matrix")
    column = b.reshape(b.indices([1, -1, 1]))
    return [lu_solve(lu, permutation, column).reshape(trailing).name]


@onnx_funcify.register(Lstsq)
def onnx_funcify_Lstsq(op, node, builder, inputs, **kwargs):
    b_var = node.inputs[1]
    if b_var.type.ndim != 2:
        raise NotImplementedError(
            "the Op declares a matrix solution, so only a matrix of right-hand "
            "sides is supported"
        )
    a, b = (
        Value(builder, name, var.type.dtype).cast("float64").unsqueeze([0])
        for name, var in zip(inputs[:2], node.inputs[:2], strict=True)
    )
    rcond = Value(builder, inputs[2], node.inputs[2].type.dtype).cast("float64")
    m, n = a.dim(1), a.dim(2)
    singular_values, w, v = jacobi_svd(a)
    k = minimum(m, n)
    singular_values = singular_values.slice(0, k.unsqueeze([0]), axis=2)
    # LAPACK's gelsd: a negative rcond means the machine precision
    rcond = where(rcond < 0, float(np.finfo("float64").eps), rcond)
    kept = singular_values > singular_values.max([2]) * rcond
    rank = kept.cast("int64").sum([2])
    w, v = (x.slice(0, k.unsqueeze([0]), axis=2) for x in (w, v))
    weights = where(kept, 1 / where(kept, singular_values, 1) ** 2, 0)
    x = (v * weights) @ (mT(w) @ b)
    residuals = b - a @ x
    squares = (residuals * residuals).sum([1])
    full_rank = rank.squeeze([0, 1, 2]).eq(n) & (m > n)
    n_residuals = where(full_rank, squares.shape(2), squares.indices([0]))
    squares = squares.slice(0, n_residuals, axis=2)
    return [
        x.squeeze([0]).name,
        squares.squeeze([0, 1]).name,
        rank.squeeze([0, 1, 2]).cast(output_dtype(node, 2)).name,
        singular_values.squeeze([0, 1]).name,
    ]
