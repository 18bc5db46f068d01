"""The reasons the Schur and QZ decompositions are not converted: they are
not unique."""

from pytensor.link.onnx.dispatch.linalg.ops import QZ, Schur
from pytensor.link.onnx.dispatch.linalg.shared import register_unsupported


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
