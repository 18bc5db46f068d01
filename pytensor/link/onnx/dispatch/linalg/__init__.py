"""Converters of the linear-algebra Ops, in modules that mirror
``pytensor.tensor.linalg`` (and `pytensor.link.onnx.numerics.linalg`, where
the algorithms are).

ONNX has no linear algebra beyond ``MatMul`` (and onnxruntime has no float64
kernel for its ``Det``): the algorithms run on stacks of matrices, so that
one graph serves a core Op (a stack of one matrix) and its ``Blockwise``
(see `~pytensor.link.onnx.dispatch.linalg.shared.register_stacked`). The
Schur and QZ decompositions are not unique and are not converted.
"""

# isort: off
import pytensor.link.onnx.dispatch.linalg.constructors
import pytensor.link.onnx.dispatch.linalg.decomposition
import pytensor.link.onnx.dispatch.linalg.inverse
import pytensor.link.onnx.dispatch.linalg.products
import pytensor.link.onnx.dispatch.linalg.solvers
import pytensor.link.onnx.dispatch.linalg.summary

# isort: on
