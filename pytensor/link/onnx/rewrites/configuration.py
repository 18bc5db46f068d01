"""The PyTensor rewrites the ONNX backend requires, those it excludes, the tag
of its own, and where in PyTensor's ``optdb`` those run.

`ONNXLinker` declares the first two (PyTensor's ``Mode`` applies a linker's
``required_rewrites`` and ``incompatible_rewrites`` to any optimizer it is
given); the ``Scan`` converter applies the same ones to inner graphs
(`onnx_rewrites`). The rewrites tagged `ONNX_TAG` run in ``mode="ONNX"`` and
in inner graphs.
"""

from pytensor.compile.mode import optdb
from pytensor.graph.rewriting.db import RewriteDatabaseQuery


ONNX_TAG = "onnx"
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
    # wrong for negative steps (x[:-2:-1] of one row read as x[0]);
    # local_dimshuffle_unit_slice does its work
    "local_dimshuffle_subtensor",
)
# `scan_save_mem_no_prealloc` trims Scan buffers the way backends without
# pre-allocated outputs need (PyTensor tags it for JAX and Numba too).
DEFAULT_QUERY = RewriteDatabaseQuery(
    include=["fast_run", "scan_save_mem_no_prealloc", ONNX_TAG]
)

# Positions in ``optdb`` of the mode's graph rewriters, in the order they run:
# after PyTensor's specializing rewrites (which make the forms they read) and
# before ``specialize_device`` (48.6) and PyTensor's last merge (``merge2``, 49)
# After `local_replace_AdvancedSubtensor` (specialize), which would transpose
# the indexed axis of ``x[:, idx]`` to the front and back
BLOCKWISE_ADVANCED_INDEX_POSITION = 47.2
MERGE_DIMSHUFFLED_TWINS_POSITION = 47.3
# Before batching, so that the smaller call can join a batch
CALLS_ON_DISTINCT_DATA_POSITION = 47.4
BATCH_SCALAR_CALLS_POSITION = 47.5


def onnx_rewrites(query: RewriteDatabaseQuery):
    """The graph rewriter of ``query`` adapted to the ONNX backend."""
    adapted = query.including(
        "scan_save_mem_no_prealloc", ONNX_TAG, *REQUIRED_REWRITES
    ).excluding(*INCOMPATIBLE_REWRITES)
    return optdb.query(adapted)
