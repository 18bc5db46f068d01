"""Algorithms written as ONNX graphs, for functions ONNX lacks.

Each module is one family (gamma functions, error functions, Bessel
functions, incomplete gamma and beta functions, zeta and polygamma, Owen's T,
random number generation, and in `~pytensor.link.onnx.numerics.linalg` the
decompositions and solvers), written with the value vocabulary of
`pytensor.link.onnx.value`: functions of :class:`~pytensor.link.onnx.value.Value`
that return values, know nothing of PyTensor Ops, and are tested on their own.
The converters in `pytensor.link.onnx.dispatch` register them for Ops.
"""
