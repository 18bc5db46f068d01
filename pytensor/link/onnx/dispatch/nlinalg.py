"""Converters for the ``numpy.linalg`` Ops of PyTensor.

The algorithms are in `pytensor.link.onnx.numerics.linalg`: LU with partial
pivoting for the inverse and the determinants, the Jacobi methods for
``eigh``, the SVD and the pseudo-inverse.
"""

import numpy as np

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.linalg import (
    check_square,
    float_output_dtype,
    output_dtype,
    register_stacked,
    register_unsupported,
    static_size,
    symmetric_eigen,
)
from pytensor.link.onnx.numerics.linalg.decomposition.svd import svd, thin_svd
from pytensor.link.onnx.numerics.linalg.determinant import (
    determinant,
    sign_and_log_determinant,
)
from pytensor.link.onnx.numerics.linalg.inverse import (
    hermitian_pseudo_inverse,
    inverse,
    pseudo_inverse,
)
from pytensor.link.onnx.numerics.linalg.solvers.general import solve
from pytensor.link.onnx.numerics.linalg.solvers.least_squares import least_squares
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal_mask,
    gradient_of_triangle,
    mT,
)
from pytensor.link.onnx.value import Value, concat, where


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


NON_SQUARE = "Last 2 dimensions of the array must be square"


def square_input(node, a: Value, input_dtype) -> Value:
    """``a`` in ``input_dtype``, checked to be square as NumPy does."""
    a = a.cast(input_dtype)
    return check_square(a, node.inputs[0], NON_SQUARE, np.linalg.LinAlgError)


def checked_inverse(a: Value, size: int | None = None) -> Value:
    """The inverse of the square stack ``a`` (of ``size`` rows if static);
    raises ``LinAlgError`` if singular."""
    a_inverse, singular = inverse(a, size)
    a.builder.require(~singular, np.linalg.LinAlgError, "Singular matrix")
    return a_inverse


@register_stacked(MatrixInverse)
def matrix_inverse_stacked(op, node, a):
    a = square_input(node, a, output_dtype(node))
    return [checked_inverse(a, static_size(node.inputs[0]))]


@register_stacked(Det)
def det_stacked(op, node, a):
    a = square_input(node, a, output_dtype(node))
    determinants = determinant(a, static_size(node.inputs[0]))
    return [determinants.squeeze([1, 2])]


@register_stacked(SLogDet)
def slogdet_stacked(op, node, a):
    a = square_input(node, a, output_dtype(node, 1))
    sign, log_abs = sign_and_log_determinant(a, static_size(node.inputs[0]))
    return [
        sign.squeeze([1, 2]).cast(output_dtype(node, 0)),
        log_abs.squeeze([1, 2]),
    ]


def is_wide(var) -> bool:
    """Whether the matrix ``var`` statically has fewer rows than columns."""
    rows, columns = var.type.shape[-2:]
    return rows is not None and columns is not None and rows < columns


@register_stacked(SVD)
def svd_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    transposed = is_wide(node.inputs[0])
    if not op.compute_uv:
        singular_values, *_ = thin_svd(a, transposed)
        return [singular_values.squeeze([1])]
    u, singular_values, vh = svd(
        a, full_matrices=op.full_matrices, transposed=transposed
    )
    return [u, singular_values.squeeze([1]), vh]


@register_stacked(MatrixPinv)
def matrix_pinv_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    if op.hermitian:
        return [hermitian_pseudo_inverse(a)]
    return [pseudo_inverse(a, is_wide(node.inputs[0]))]


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
        on_diagonal = diagonal_mask(n, n)
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
    sizes = [part.prod([0]) for part in (leading, trailing)]
    return x.reshape(concat([x.indices([1]), *sizes], axis=0)), leading, trailing


def float_inputs(builder, node, inputs):
    """The ``inputs`` of ``node`` as values of its (float) output dtype."""
    dtype = float_output_dtype(node)
    return [
        builder.value(name, var.type.dtype).cast(dtype)
        for name, var in zip(inputs, node.inputs, strict=True)
    ]


@onnx_funcify.register(TensorInv)
def onnx_funcify_TensorInv(op, node, builder, inputs, **kwargs):
    [a] = float_inputs(builder, node, inputs)
    matrix, leading, trailing = square_matrix(a, op.ind, node.inputs[0].type.ndim)
    result = checked_inverse(matrix)
    return [result.reshape(concat([trailing, leading], axis=0)).name]


@onnx_funcify.register(TensorSolve)
def onnx_funcify_TensorSolve(op, node, builder, inputs, **kwargs):
    a, b = float_inputs(builder, node, inputs)
    a_var, b_var = node.inputs
    if a_var.type.ndim - b_var.type.ndim != node.outputs[0].type.ndim:
        raise NotImplementedError(
            "the Op declares a matrix output, but numpy.linalg.tensorsolve "
            f"returns {a_var.type.ndim - b_var.type.ndim} dimensions here"
        )
    ndim = a_var.type.ndim
    if op.axes is not None:
        moved = [axis % ndim for axis in op.axes]
        a = a.transpose([axis for axis in range(ndim) if axis not in moved] + moved)
    matrix, _, trailing = square_matrix(a, b_var.type.ndim, ndim)
    x, singular = solve(matrix, b.reshape(b.indices([1, -1, 1])))
    builder.require(~singular, np.linalg.LinAlgError, "Singular matrix")
    return [x.reshape(trailing).name]


@onnx_funcify.register(Lstsq)
def onnx_funcify_Lstsq(op, node, builder, inputs, **kwargs):
    if (ndim := node.inputs[0].type.ndim) != 2:
        return raising_on_every_call(
            builder,
            node,
            np.linalg.LinAlgError,
            f"{ndim}-dimensional array given. Array must be two-dimensional",
        )
    if node.inputs[1].type.ndim != 2:
        raise NotImplementedError(
            "the Op declares a matrix solution, so only a matrix of right-hand "
            "sides is supported"
        )
    a, b, rcond = (
        builder.value(name, var.type.dtype).cast("float64")
        for name, var in zip(inputs, node.inputs, strict=True)
    )
    x, squares, rank, singular_values = least_squares(
        a.unsqueeze([0]), b.unsqueeze([0]), rcond
    )
    return [
        x.squeeze([0]).name,
        squares.squeeze([0, 1]).name,
        rank.squeeze([0, 1, 2]).cast(output_dtype(node, 2)).name,
        singular_values.squeeze([0, 1]).name,
    ]


def raising_on_every_call(builder, node, exc_type, message) -> list[str]:
    """Outputs for a node whose ``perform`` raises ``exc_type(message)`` for
    any input its types allow: each call raises it, as in PyTensor. A model
    without runtime checks (an export) can't raise, so it is refused."""
    if not builder.keep_checks:
        raise NotImplementedError(f"{node.op} raises on every call: {message}")
    never = builder.value(builder.constant(False, "bool"), "bool")
    builder.require(never, exc_type, message, is_scalar=True)
    return [
        builder.constant(np.zeros((0,) * out.type.ndim, out.type.dtype), out.type.dtype)
        for out in node.outputs
    ]
