"""Decompositions and solvers written as ONNX graphs, one module per family,
on stacks of matrices ``(batch, rows, columns)``."""
