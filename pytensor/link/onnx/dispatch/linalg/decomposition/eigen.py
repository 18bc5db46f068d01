"""Converters of the symmetric eigendecompositions (cyclic Jacobi, and
Cholesky reduction for the generalized problem), their gradients in PyTensor
2, and the reason ``Eig`` is not converted."""

import numpy as np

from pytensor.link.onnx.dispatch.linalg.ops import (
    Eig,
    Eigh,
    EighGrad,
    Eigvalsh,
    EigvalshGrad,
)
from pytensor.link.onnx.dispatch.linalg.shared import (
    check_square,
    output_dtype,
    register_stacked,
    register_unsupported,
)
from pytensor.link.onnx.numerics.linalg.decomposition.eigen import (
    generalized_eigen,
    jacobi_eigen,
)
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal_mask,
    gradient_of_triangle,
    mT,
    symmetric_from,
)
from pytensor.link.onnx.value import Value, where


NOT_POSITIVE_DEFINITE_B = (
    "The leading minor of b is not positive definite. The factorization of b "
    "could not be completed and no eigenvalues or eigenvectors were computed."
)


def checked_generalized_eigen(a: Value, b: Value, lower: bool):
    """`generalized_eigen`, raising ``LinAlgError`` if ``b`` is not positive definite."""
    eigenvalues, eigenvectors, failed = generalized_eigen(a, b, lower)
    a.builder.require(~failed, np.linalg.LinAlgError, NOT_POSITIVE_DEFINITE_B)
    return eigenvalues, eigenvectors


def symmetric_eigen(op, node, a, b=None):
    """``(eigenvalues, eigenvectors)`` of an ``Eigh``-like node, in the output dtype."""
    dtype = output_dtype(node)
    lower = op.lower if hasattr(op, "lower") else op.UPLO == "L"
    a = a.cast(dtype)
    a = check_square(a, node.inputs[0], "expected square matrix")
    if b is None:
        return jacobi_eigen(symmetric_from(a, lower))
    return checked_generalized_eigen(a, b.cast(dtype), lower)


@register_stacked(Eigh)
def eigh_stacked(op, node, a, b=None):
    eigenvalues, eigenvectors = symmetric_eigen(op, node, a, b)
    return [eigenvalues.squeeze([1]), eigenvectors]


@register_stacked(Eigvalsh)
def eigvalsh_stacked(op, node, a, b=None):
    eigenvalues, _ = symmetric_eigen(op, node, a, b)
    return [eigenvalues.squeeze([1])]


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


if EigvalshGrad is not None:

    @register_stacked(EigvalshGrad)
    def eigvalsh_grad_stacked(op, node, a, b, eigenvalues_gradient):
        dtype = output_dtype(node)
        a, b = a.cast(dtype), b.cast(dtype)
        eigenvalues, v = checked_generalized_eigen(a, b, op.lower)
        weights = eigenvalues_gradient.cast(dtype).unsqueeze([1])
        a_gradient = (v * weights) @ mT(v)
        b_gradient = -(v * (weights * eigenvalues)) @ mT(v)
        return [
            gradient_of_triangle(a_gradient, op.lower),
            gradient_of_triangle(b_gradient, op.lower),
        ]


register_unsupported(
    Eig,
    "its eigenvalues and eigenvectors are complex, and onnxruntime has no "
    "complex numbers. For a symmetric matrix, use pt.linalg.eigh (or eigvalsh), "
    "whose results are real.",
)
