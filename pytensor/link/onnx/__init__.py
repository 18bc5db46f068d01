"""ONNX backend for PyTensor.

Importing this package registers the ``"onnx"`` linker and the ``"ONNX"``
mode. It imports neither onnx nor onnxruntime: those load when a function is
first compiled or exported.
"""

from pytensor.link.onnx.linker import ONNXLinker
from pytensor.link.onnx.mode import ONNX, register_onnx_mode


__all__ = [
    "ONNX",
    "ONNXLinker",
    "ONNXVerificationError",
    "UnsupportedGraphError",
    "export_onnx",
    "import_onnx",
    "onnx_funcify",
    "onnx_support_report",
    "onnx_typify",
    "precision_report",
    "random_key",
]

LAZY_EXPORTS = {
    "export_onnx": "pytensor.link.onnx.export",
    "import_onnx": "pytensor.link.onnx.importer",
    "onnx_support_report": "pytensor.link.onnx.export",
    "UnsupportedGraphError": "pytensor.link.onnx.export",
    "ONNXVerificationError": "pytensor.link.onnx.export",
    "precision_report": "pytensor.link.onnx.export",
    "random_key": "pytensor.link.onnx.generator_keys",
}


def __getattr__(name):
    if name in LAZY_EXPORTS:
        from importlib import import_module

        return getattr(import_module(LAZY_EXPORTS[name]), name)
    if name in ("onnx_funcify", "onnx_typify"):
        from pytensor.link.onnx import dispatch

        return getattr(dispatch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


register_onnx_mode()
