"""Exporting PyTensor graphs as ONNX model files.

`export_onnx` converts a compiled function (or a symbolic graph), names and
shapes the model, bakes in its weights, checks it against the target
runtime's kernels, optionally verifies it against PyTensor, and writes it
atomically. `onnx_support_report` lists everything that prevents an export;
`precision_report` reads what a quantized or float16 export cost in accuracy.
"""

from pytensor.link.onnx.export.api import export_onnx, onnx_support_report
from pytensor.link.onnx.export.precision import PrecisionReport, precision_report
from pytensor.link.onnx.export.report import SupportReport, UnsupportedGraphError
from pytensor.link.onnx.export.verify import ONNXVerificationError


__all__ = [
    "ONNXVerificationError",
    "PrecisionReport",
    "SupportReport",
    "UnsupportedGraphError",
    "export_onnx",
    "onnx_support_report",
    "precision_report",
]
