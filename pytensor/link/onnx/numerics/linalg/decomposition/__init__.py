"""Decompositions of stacks of matrices: LU, Cholesky, QR and the Jacobi methods."""
