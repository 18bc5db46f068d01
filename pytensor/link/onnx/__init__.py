"""ONNX backend for PyTensor.

Importing this package registers the ``"onnx"`` linker and the ``"ONNX"``
mode. It imports neither onnx nor onnxruntime: those load when a function is
first compiled or exported.
"""

from pytensor.link.onnx.linker import ONNXLinker
from pytensor.link.onnx.mode import ONNX, register_onnx_mode


__all__ = ["ONNX", "ONNXLinker", "export_onnx", "onnx_funcify", "onnx_typify"]


def __getattr__(name):
    if name == "export_onnx":
        from pytensor.link.onnx.export import export_onnx

        return export_onnx
    if name in ("onnx_funcify", "onnx_typify"):
        from pytensor.link.onnx import dispatch

        return getattr(dispatch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


register_onnx_mode()
