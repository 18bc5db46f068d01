"""Converters for the decompositions and solvers of ``scipy.linalg`` in PyTensor.

ONNX has no linear algebra beyond ``MatMul`` (and onnxruntime has no float64
kernel for its ``Det``): the algorithms are in
`pytensor.link.onnx.numerics.linalg`, on stacks of matrices, so that one graph
serves a core Op (a stack of one matrix) and its ``Blockwise``. The Schur and
QZ decompositions are not unique and are not converted.
"""

from pytensor.link.onnx.dispatch.linalg import (
    check_square,
    checked_generalized_eigen,
    float_output_dtype,
    output_dtype,
    register_stacked,
    register_unsupported,
    static_size,
    symmetric_eigen,
)
from pytensor.link.onnx.numerics.linalg.constructors import block_diagonal
from pytensor.link.onnx.numerics.linalg.decomposition.cholesky import (
    cholesky,
    cholesky_of_triangle,
)
from pytensor.link.onnx.numerics.linalg.decomposition.lu import (
    inverse_permutation,
    lu_factor,
    lu_parts,
    permutation_of_pivots,
)
from pytensor.link.onnx.numerics.linalg.decomposition.qr import qr
from pytensor.link.onnx.numerics.linalg.expm import expm
from pytensor.link.onnx.numerics.linalg.solvers.cholesky import cholesky_solve
from pytensor.link.onnx.numerics.linalg.solvers.general import solve
from pytensor.link.onnx.numerics.linalg.solvers.sylvester import (
    sylvester_of_quasi_triangular,
)
from pytensor.link.onnx.numerics.linalg.solvers.triangular import substitute
from pytensor.link.onnx.numerics.linalg.solvers.tridiagonal import (
    tridiagonal_lu_factor,
    tridiagonal_lu_solve,
)
from pytensor.link.onnx.numerics.linalg.stacks import (
    gradient_of_triangle,
    has_zero_on_diagonal,
    mT,
    nan_where,
    positions,
    symmetric_from,
    tridiagonal_band,
)
from pytensor.link.onnx.value import Value


try:  # PyTensor >= 3
    from pytensor.tensor.linalg import (
        LU,
        QR,
        QZ,
        BlockDiagonal,
        Cholesky,
        CholeskySolve,
        Eigvalsh,
        Expm,
        LUFactor,
        LUFactorTridiagonal,
        PivotToPermutations,
        Schur,
        Solve,
        SolveLUFactorTridiagonal,
        SolveTriangular,
    )
    from pytensor.tensor.linalg.solvers.linear_control import TRSYL

    EigvalshGrad = None
except ImportError:  # PyTensor 2
    from pytensor.tensor._linalg.solve.linear_control import TRSYL
    from pytensor.tensor._linalg.solve.tridiagonal import (
        LUFactorTridiagonal,
        SolveLUFactorTridiagonal,
    )
    from pytensor.tensor.slinalg import (
        LU,
        QR,
        QZ,
        BlockDiagonal,
        Cholesky,
        CholeskySolve,
        Eigvalsh,
        EigvalshGrad,
        Expm,
        LUFactor,
        PivotToPermutations,
        Schur,
        Solve,
        SolveTriangular,
    )


def as_columns(b: Value, b_ndim: int) -> Value:
    """The stack of right-hand sides ``b`` as matrices (vectors become columns)."""
    return b if b_ndim == 2 else b.unsqueeze([2])


def as_given(x: Value, b_ndim: int) -> Value:
    return x if b_ndim == 2 else x.squeeze([2])


def linear_system(op, node, a: Value, b: Value, message: str):
    """``a``, checked to be square (else ``ValueError(message)``), and the
    right-hand sides ``b`` as columns, in the output dtype."""
    dtype = output_dtype(node)
    a, b = a.cast(dtype), as_columns(b.cast(dtype), op.b_ndim)
    return check_square(a, node.inputs[0], message), b


@register_stacked(Cholesky)
def cholesky_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    a = check_square(a, node.inputs[0], "Input array is expected to be square")
    return [cholesky_of_triangle(a, op.lower, static_size(node.inputs[0]))]


@register_stacked(SolveTriangular)
def solve_triangular_stacked(op, node, a, b):
    a, b = linear_system(op, node, a, b, "expected square matrix")
    x = substitute(
        a,
        b,
        lower=op.lower,
        unit_diagonal=op.unit_diagonal,
        size=static_size(node.inputs[0]),
    )
    if not op.unit_diagonal:
        x = nan_where(has_zero_on_diagonal(a), x)
    return [as_given(x, op.b_ndim)]


@register_stacked(CholeskySolve)
def cholesky_solve_stacked(op, node, c, b):
    c, b = linear_system(op, node, c, b, "The factored matrix c is not square.")
    x = cholesky_solve(c if op.lower else mT(c), b, static_size(node.inputs[0]))
    return [as_given(x, op.b_ndim)]


@register_stacked(Solve)
def solve_stacked(op, node, a, b):
    a, b = linear_system(op, node, a, b, "Input a needs to be a square matrix.")
    size = static_size(node.inputs[0])
    if op.assume_a == "pos":
        factor, failed = cholesky(a if op.lower else mT(a), size)
        x = cholesky_solve(factor, b, size)
    else:
        if op.assume_a in ("sym", "her"):
            a = symmetric_from(a, op.lower)
        elif op.assume_a == "tridiagonal":
            a = tridiagonal_band(a)
        x, failed = solve(a, b, size)
    return [as_given(nan_where(failed, x), op.b_ndim)]


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


@register_stacked(TRSYL)
def trsyl_stacked(op, node, a, b, c):
    dtype = float_output_dtype(node)
    a, b, c = (x.cast(dtype) for x in (a, b, c))
    return [sylvester_of_quasi_triangular(a, b, c)]


NOT_UNIQUE = (
    "{name} is not unique: the order of the eigenvalues along the diagonal "
    "and the signs of the Schur vectors follow from the iterations of LAPACK's "
    "{routine}, which the ONNX backend does not reproduce, so its results would "
    "differ from PyTensor's. {instead}"
)
register_unsupported(
    Schur,
    NOT_UNIQUE.format(
        name="The Schur decomposition",
        routine="gees",
        instead="For a symmetric matrix, use pt.linalg.eigh (T = diag(w), Z = v). "
        "solve_sylvester and solve_continuous_lyapunov compute Schur "
        "decompositions: solve a @ x + x @ b = c as the linear system "
        "pt.linalg.solve(kron(eye, a) + kron(b.T, eye), c.T.ravel()) instead.",
    ),
)
register_unsupported(
    QZ,
    NOT_UNIQUE.format(
        name="The QZ (generalized Schur) decomposition",
        routine="gges",
        instead="solve_discrete_are computes a QZ decomposition; "
        "solve_discrete_lyapunov(method='direct') converts.",
    ),
)


NON_SQUARE_LU = "The ONNX backend computes the LU decomposition of square matrices only"


@register_stacked(LU)
def lu_stacked(op, node, a):
    a = a.cast(output_dtype(node, -1))
    a = check_square(a, node.inputs[0], NON_SQUARE_LU)
    lu, permutation, _, _ = lu_factor(a, static_size(node.inputs[0]))
    lower, upper = lu_parts(lu)
    # a = p @ lower @ upper with p[permutation[i], i] = 1
    p = positions(a.dim(1), 1).eq(mT(permutation))
    if op.permute_l:
        return [p.cast(a.dtype) @ lower, upper]
    if op.p_indices:
        rows_of_lower = inverse_permutation(permutation).squeeze([2])
        return [rows_of_lower.cast(output_dtype(node, 0)), lower, upper]
    return [p.cast(output_dtype(node, 0)), lower, upper]


@register_stacked(LUFactor)
def lu_factor_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    a = check_square(a, node.inputs[0], NON_SQUARE_LU)
    lu, _, pivots, singular = lu_factor(a, static_size(node.inputs[0]))
    return [nan_where(singular, lu), pivots.squeeze([2]).cast(output_dtype(node, 1))]


@register_stacked(PivotToPermutations)
def pivot_to_permutations_stacked(op, node, pivots):
    swapped = permutation_of_pivots(pivots.cast("int64").unsqueeze([2]))
    if op.inverse:
        return [swapped.squeeze([2])]
    return [inverse_permutation(swapped).squeeze([2])]


@register_stacked(QR)
def qr_stacked(op, node, a):
    outputs = qr(a.cast(output_dtype(node)), op.mode, op.pivoting)
    if op.pivoting:
        outputs[-1] = outputs[-1].cast(node.outputs[-1].type.dtype)
    return outputs


@register_stacked(Eigvalsh)
def eigvalsh_stacked(op, node, a, b=None):
    eigenvalues, _ = symmetric_eigen(op, node, a, b)
    return [eigenvalues.squeeze([1])]


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


@register_stacked(Expm)
def expm_stacked(op, node, a):
    a = a.cast(float_output_dtype(node))
    a = check_square(a, node.inputs[0], "expected a square matrix")
    return [expm(a)]


@register_stacked(BlockDiagonal)
def block_diagonal_stacked(op, node, *matrices):
    dtype = output_dtype(node)
    return [block_diagonal([matrix.cast(dtype) for matrix in matrices])]
