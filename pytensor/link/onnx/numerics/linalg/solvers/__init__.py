"""Solvers of linear systems and matrix equations on stacks of matrices."""
