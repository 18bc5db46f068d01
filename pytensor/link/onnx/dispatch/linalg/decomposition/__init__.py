"""Converters of the decompositions of ``pytensor.tensor.linalg.decomposition``."""

# isort: off
import pytensor.link.onnx.dispatch.linalg.decomposition.cholesky
import pytensor.link.onnx.dispatch.linalg.decomposition.eigen
import pytensor.link.onnx.dispatch.linalg.decomposition.lu
import pytensor.link.onnx.dispatch.linalg.decomposition.qr
import pytensor.link.onnx.dispatch.linalg.decomposition.schur
import pytensor.link.onnx.dispatch.linalg.decomposition.svd

# isort: on
