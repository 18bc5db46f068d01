"""What onnxruntime's kernels compute.

A node can pass the ONNX checker and still have no kernel in onnxruntime for
its dtypes; converters compute such nodes in the narrowest dtype that has one.
Which kernels exist is measured, not transcribed: ``onnxruntime.json`` beside
this module is written by ``python scripts/probe_kernels.py --write``. Kernels
that exist but compute wrong results are listed in :data:`WRONG_RESULTS`.
"""

import functools
import itertools
import json
from pathlib import Path

import numpy as np


DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
)
TENSOR_TYPES = {
    f"tensor({onnx_name})": dtype
    for onnx_name, dtype in zip(
        (
            "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float double"
        ).split(),
        DTYPES,
        strict=True,
    )
}
MEASUREMENTS = Path(__file__).with_name("onnxruntime.json")
RUNTIME = "onnxruntime"
# The opset converters write unless told otherwise (the builder's), and that
# the kernel tables are read at
DEFAULT_OPSET = 18

INT64_HALVES = (
    "compares the low 32 bits as signed when the high halves are equal, so "
    "values that differ only from bit 31 on come out wrong"
)
THROUGH_FLOAT64 = (
    "computes integers in float64: inexact beyond 2**53, and saturating "
    "instead of wrapping"
)
FAILS_WHEN_EMPTY = "fails (status FAIL) when the inner dimension has length 0"
WRONG_RESULTS = {
    ("Max", "int64"): INT64_HALVES,
    ("Min", "int64"): INT64_HALVES,
    ("ReduceMax", "int64"): INT64_HALVES,
    ("ReduceMin", "int64"): INT64_HALVES,
    ("ReduceSum", "int32"): THROUGH_FLOAT64,
    ("ReduceSum", "int64"): THROUGH_FLOAT64,
    ("ReduceProd", "int32"): THROUGH_FLOAT64,
    ("ReduceProd", "int64"): THROUGH_FLOAT64,
    **{("Pow", dtype): THROUGH_FLOAT64 for dtype in DTYPES[1:9]},
    ("MatMul", "uint32"): FAILS_WHEN_EMPTY,
    ("MatMul", "uint64"): FAILS_WHEN_EMPTY,
}
"""onnxruntime kernels that exist but compute wrong results, with the reason.

Measured on the version in ``onnxruntime.json``. :func:`kernel_dtypes` leaves
them out, so converters widen past them or compute the result another way.
"""


@functools.cache
def measurements() -> dict[str, dict]:
    """The measured kernel tables of every runtime, from ``onnxruntime.json``.

    Returns
    -------
    dict
        ``{runtime: {"version", "max_opset", "kernels"}}``, where ``kernels``
        is ``{op_type: {first_opset: spec}}`` (see :func:`parse_spec`). A
        runtime stored as its ``differences_from`` another gets the other's
        tables with its own entries applied (``null``: not measured).
    """
    stored = json.loads(MEASUREMENTS.read_text())["runtimes"]
    runtimes = {}
    for name, data in stored.items():
        kernels = (
            dict(runtimes[data["differences_from"]]["kernels"])
            if ("differences_from" in data)
            else {}
        )
        for op_type, versions in data["kernels"].items():
            if versions is None:
                kernels.pop(op_type, None)
            else:
                kernels[op_type] = {int(o): spec for o, spec in versions.items()}
        runtimes[name] = {
            "version": data["version"],
            "max_opset": data["max_opset"],
            "kernels": kernels,
        }
    return runtimes


@functools.lru_cache(maxsize=4096)
def parse_spec(spec: str, names: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    """The dtype bindings of the type constraints ``names`` that a ``spec`` lists.

    A spec is ``"T: float32 float64; T1: int64"`` (every combination) or
    ``"float32,int64 | float64,int64"`` (these combinations).
    """
    if not spec:
        return frozenset()
    if ":" in spec:
        columns = dict(
            (name.strip(), dtypes.split())
            for name, dtypes in (part.split(":") for part in spec.split(";"))
        )
        return frozenset(itertools.product(*(columns[n] for n in names)))
    return frozenset(tuple(s.strip().split(",")) for s in spec.split("|"))


def signatures(kernels, op_type: str, opset: int):
    """The dtype bindings of ``op_type`` at model ``opset`` in a table of :func:`measurements`.

    Returns
    -------
    tuple of (constraint names, frozenset of dtype tuples) or None
        None if ``op_type`` was not measured at ``opset``.
    """
    from onnx import defs

    versions = kernels.get(op_type, {})
    first = max((o for o in versions if o <= opset), default=None)
    if first is None:
        return None
    schema = defs.get_schema(op_type, opset, "")
    names = tuple(c.type_param_str for c in schema.type_constraints)
    return names, parse_spec(versions[first], names)


@functools.lru_cache(maxsize=512)
def kernel_dtypes(
    op_type: str, opset: int = DEFAULT_OPSET, constraint: str = "T"
) -> frozenset[str]:
    """The dtypes of ``constraint`` for which onnxruntime computes ``op_type`` right.

    Read from the measured table at model ``opset``, without the kernels of
    :data:`WRONG_RESULTS`.
    """
    found = signatures(measurements()[RUNTIME]["kernels"], op_type, opset)
    if found is None:
        raise NotImplementedError(f"onnxruntime was not probed for {op_type}")
    names, bindings = found
    position = names.index(constraint)
    measured = {binding[position] for binding in bindings}
    return frozenset(d for d in measured if (op_type, d) not in WRONG_RESULTS)


def is_signed(dtype) -> bool:
    return np.dtype(dtype).kind in "if"


def widened_kernel_dtype(op_type: str, dtype: str, opset: int = DEFAULT_OPSET) -> str:
    """The narrowest dtype that holds every ``dtype`` value and has an ``op_type`` kernel.

    Among equally wide ones, that of the same signedness (booleans count as
    unsigned); floats widen to floats only.
    """
    return narrowest_kernel_dtype(
        op_type, dtype, opset, lambda candidate: np.can_cast(dtype, candidate, "safe")
    )


def moved_kernel_dtype(op_type: str, dtype: str, opset: int = DEFAULT_OPSET) -> str:
    """A dtype with an ``op_type`` kernel at least as wide as ``dtype``.

    For operators that only move values (``Where``): casting to a same-width
    dtype of the other signedness and back restores every value.
    """
    width = np.dtype(dtype).itemsize
    return narrowest_kernel_dtype(
        op_type, dtype, opset, lambda candidate: np.dtype(candidate).itemsize >= width
    )


def narrowest_kernel_dtype(op_type, dtype, opset, admits) -> str:
    """``dtype`` if it has an ``op_type`` kernel, else the narrowest of the same
    kind (float or not) that ``admits``, preferring the same signedness."""
    supported = kernel_dtypes(op_type, opset)
    if dtype in supported:
        return dtype
    is_float = np.dtype(dtype).kind == "f"
    candidates = [
        candidate
        for candidate in supported
        if (np.dtype(candidate).kind == "f") == is_float and admits(candidate)
    ]
    if not candidates:
        raise NotImplementedError(f"onnxruntime has no {op_type} kernel for {dtype}")
    return min(candidates, key=lambda c: width_and_signedness(c, dtype))


def width_and_signedness(candidate: str, dtype: str) -> tuple[int, bool]:
    """Sort key: narrower first, then those of the signedness of ``dtype``."""
    return np.dtype(candidate).itemsize, is_signed(candidate) != is_signed(dtype)
