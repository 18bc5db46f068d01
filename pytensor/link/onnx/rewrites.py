"""The PyTensor rewrites the ONNX backend requires and those it excludes.

`ONNXLinker` declares them (PyTensor's ``Mode`` applies a linker's
``required_rewrites`` and ``incompatible_rewrites`` to any optimizer it is
given); the ``Scan`` converter applies the same ones to inner graphs.
"""

from pytensor.compile.mode import optdb
from pytensor.graph.rewriting.db import RewriteDatabaseQuery


REQUIRED_REWRITES = ("minimum_compile",)
INCOMPATIBLE_REWRITES = (
    # C-only Ops and the BLAS Ops they specialize into
    "cxx_only",
    "BlasOpt",
    # onnxruntime manages its own buffers; in-place Ops gain nothing
    "inplace",
    # Composite scalar graphs are expanded back into one ONNX node per
    # scalar Op, so fusing them first would only cost compile time
    "fusion",
    "local_careduce_fusion",
    # Scan buffers cannot be pre-allocated in ONNX
    "scan_save_mem_prealloc",
)
# `scan_save_mem_no_prealloc` trims Scan buffers the way backends without
# pre-allocated outputs need (PyTensor tags it for JAX and Numba too).
DEFAULT_QUERY = RewriteDatabaseQuery(include=["fast_run", "scan_save_mem_no_prealloc"])


def onnx_rewrites(query: RewriteDatabaseQuery):
    """The graph rewriter of ``query`` adapted to the ONNX backend."""
    adapted = query.including(
        "scan_save_mem_no_prealloc", *REQUIRED_REWRITES
    ).excluding(*INCOMPATIBLE_REWRITES)
    return optdb.query(adapted)
