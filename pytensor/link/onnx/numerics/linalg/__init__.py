"""Decompositions and solvers written as ONNX graphs, one module per family,
on stacks of matrices ``(batch, rows, columns)``, laid out as PyTensor's own
Numba linear algebra: the shared building blocks in `stacks`, the
decompositions in `decomposition` (LU, Cholesky, QR, and the Jacobi methods
for the eigenvalues and the SVD), the solvers in `solvers` (triangular,
general, Cholesky, tridiagonal, Sylvester, least squares), and the matrix
functions (`expm`, `inverse`, `determinant`, `constructors`)."""
