"""Converters of the solvers of ``pytensor.tensor.linalg.solvers``."""

# isort: off
import pytensor.link.onnx.dispatch.linalg.solvers.general
import pytensor.link.onnx.dispatch.linalg.solvers.linear_control
import pytensor.link.onnx.dispatch.linalg.solvers.lstsq
import pytensor.link.onnx.dispatch.linalg.solvers.psd
import pytensor.link.onnx.dispatch.linalg.solvers.triangular
import pytensor.link.onnx.dispatch.linalg.solvers.tridiagonal

# isort: on
