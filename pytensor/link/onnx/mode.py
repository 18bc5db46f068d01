from pytensor.compile.mode import (
    Mode,
    predefined_linkers,
    predefined_modes,
    register_linker,
    register_mode,
)
from pytensor.graph.rewriting.db import RewriteDatabaseQuery

from pytensor.link.onnx.linker import ONNXLinker


ONNX = Mode(
    ONNXLinker(),
    # `scan_save_mem_no_prealloc` trims Scan buffers the way backends without
    # pre-allocated outputs need (PyTensor tags it for JAX and Numba too).
    RewriteDatabaseQuery(include=["fast_run", "scan_save_mem_no_prealloc"]),
)


def register_onnx_mode():
    """Make ``mode="ONNX"`` and ``Mode(linker="onnx")`` available.

    Registering again is harmless.
    """
    if "onnx" not in predefined_linkers:
        register_linker("onnx", ONNXLinker())
    if "ONNX" not in predefined_modes:
        register_mode("ONNX", ONNX)
