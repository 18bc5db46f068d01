"""Runtimes a model can be exported for, and which kernels each one has.

A model that passes the ONNX checker can still fail to load: runtimes only
implement some (operator, dtype) combinations, and which ones is documented
nowhere precisely. The tables at the end of this module are measured, not
transcribed: ``tests/link/onnx/kernel_probe.py`` builds a one-node model for
every operator of the default ONNX domain, every model opset from
:data:`MIN_OPSET` to the newest one the runtime loads, and every binding of
the operator's type constraints to PyTensor's dtypes, and records which ones
the runtime creates a session for. Regenerate them with
``python -m tests.link.onnx.kernel_probe --write``.
"""

import functools
import itertools
from collections.abc import Mapping
from dataclasses import dataclass


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
MIN_OPSET = 17
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


@dataclass(frozen=True)
class KernelGap:
    """An ONNX node that a target runtime has no kernel for.

    Attributes
    ----------
    node
        Name of the ONNX node (``outer/inner`` for nodes of subgraphs).
    op_type
        Its operator.
    dtypes
        The dtype bound to each of the operator's type constraints.
    reason
        What is missing, in words.
    """

    node: str
    op_type: str
    dtypes: Mapping[str, str]
    reason: str


@dataclass(frozen=True)
class Target:
    """A runtime that exported models can be checked against.

    Attributes
    ----------
    name
        The ``target=`` value selecting it.
    description
        The runtime, its version and execution provider.
    max_opset
        The newest opset of the default domain the runtime loads.
    kernels
        ``{op_type: {first_opset: spec}}``: from model opset ``first_opset``
        on (until the next key), the bindings of the operator's type
        constraints that have a kernel, as ``"T: float32 float64; T1: int64"``
        (every combination) or ``"float32,int64 | float64,int64"`` (these
        combinations).
    """

    name: str
    description: str
    max_opset: int
    kernels: Mapping[str, Mapping[int, str]]

    @property
    def opsets(self) -> range:
        """The opsets this target loads and the exporter supports."""
        return range(MIN_OPSET, self.max_opset + 1)

    def signatures(self, op_type: str, opset: int):
        """The supported dtype bindings of ``op_type`` at ``opset``, or ``None`` if not measured.

        Returns
        -------
        tuple of (constraint names, frozenset of dtype tuples) or None
        """
        from onnx import defs

        versions = self.kernels.get(op_type, {})
        first = max((o for o in versions if o <= opset), default=None)
        if first is None:
            return None
        schema = defs.get_schema(op_type, opset, "")
        names = tuple(c.type_param_str for c in schema.type_constraints)
        return names, parse_spec(versions[first], names)

    def has_kernel(self, op_type: str, opset: int, dtypes: Mapping[str, str]):
        """Whether a kernel exists for ``op_type`` with these constraint ``dtypes``.

        Constraints absent from ``dtypes`` (bound only by omitted optional
        inputs) match anything. Returns ``None`` when the operator was not
        measured.
        """
        found = self.signatures(op_type, opset)
        if found is None:
            return None
        names, signatures = found
        wanted = [(names.index(c), d) for c, d in dtypes.items() if c in names]
        return any(all(s[i] == d for i, d in wanted) for s in signatures)

    def kernel_gaps(self, model) -> list[KernelGap]:
        """Every node of ``model`` (subgraphs included) this target cannot run.

        ``model`` must pass strict shape inference: the dtypes of all values
        are taken from it.
        """
        import onnx

        opset = default_opset(model)
        if opset > self.max_opset:
            return [
                KernelGap(
                    "",
                    "",
                    {},
                    f"opset {opset} is newer than {self.description} loads "
                    f"(opset <= {self.max_opset})",
                )
            ]
        inferred = onnx.shape_inference.infer_shapes(
            model, check_type=True, strict_mode=True
        )
        gaps = []
        for path, node, dtypes in walk_nodes(inferred.graph, {}, opset):
            if node.domain not in ("", "ai.onnx"):
                gaps.append(
                    KernelGap(path, node.op_type, dtypes, f"domain {node.domain!r}")
                )
                continue
            supported = self.has_kernel(node.op_type, opset, dtypes)
            if supported:
                continue
            if supported is None:
                reason = f"{self.name} was not probed for {node.op_type}"
            else:
                bound = ", ".join(f"{c}={d}" for c, d in dtypes.items())
                reason = f"{self.description} has no {node.op_type} kernel for {bound}"
            gaps.append(KernelGap(path, node.op_type, dtypes, reason))
        return gaps

    def missing_dtypes(self, op_type: str, opset: int) -> list[str]:
        """PyTensor dtypes the ONNX schema of ``op_type`` allows but this target lacks.

        Only operators with a single varying type constraint are summarised
        this way; the result lists the dtypes of that constraint.
        """
        found = self.signatures(op_type, opset)
        if found is None:
            return []
        from onnx import defs

        names, signatures = found
        allowed = schema_dtypes(defs.get_schema(op_type, opset, ""))
        varying = [n for n in names if len(allowed[n]) > 1]
        if len(varying) != 1:
            return []
        position = names.index(varying[0])
        present = {s[position] for s in signatures}
        return [d for d in allowed[varying[0]] if d not in present]


def default_opset(model) -> int:
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def schema_dtypes(schema) -> dict[str, list[str]]:
    """PyTensor dtypes allowed by each type constraint of an ONNX ``schema``."""
    return {
        c.type_param_str: [
            d for d in DTYPES if d in {TENSOR_TYPES.get(t) for t in c.allowed_type_strs}
        ]
        for c in schema.type_constraints
    }


@functools.lru_cache(maxsize=4096)
def parse_spec(spec: str, names: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    if not spec:
        return frozenset()
    if ":" in spec:
        columns = dict(
            (name.strip(), dtypes.split())
            for name, dtypes in (part.split(":") for part in spec.split(";"))
        )
        return frozenset(itertools.product(*(columns[n] for n in names)))
    return frozenset(tuple(s.strip().split(",")) for s in spec.split("|"))


def walk_nodes(graph, outer_types, opset, prefix=""):
    """Yield ``(path, node, {constraint: dtype})`` for every node, subgraphs included."""
    from onnx import AttributeProto, defs, helper

    types = dict(outer_types)
    for info in [*graph.input, *graph.output, *graph.value_info]:
        if info.type.HasField("tensor_type"):
            types[info.name] = info.type.tensor_type.elem_type
    for tensor in graph.initializer:
        types[tensor.name] = tensor.data_type

    def dtype_of(name):
        elem = types.get(name)
        return None if elem is None else helper.tensor_dtype_to_np_dtype(elem).name

    for node in graph.node:
        path = f"{prefix}{node.name or node.op_type}"
        dtypes = {}
        try:
            schema = defs.get_schema(node.op_type, opset, node.domain)
        except defs.SchemaError:
            schema = None
        if schema is not None:
            for formals, names in (
                (schema.inputs, node.input),
                (schema.outputs, node.output),
            ):
                for position, name in enumerate(names):
                    formal = formals[min(position, len(formals) - 1)]
                    dtype = dtype_of(name) if name else None
                    if dtype is not None and formal.type_str in {
                        c.type_param_str for c in schema.type_constraints
                    }:
                        dtypes.setdefault(formal.type_str, dtype)
        yield path, node, dtypes
        for attribute in node.attribute:
            if attribute.type == AttributeProto.GRAPH:
                yield from walk_nodes(attribute.g, types, opset, f"{path}/")


def get_target(name: str) -> Target:
    """The :class:`Target` called ``name`` (one of :data:`TARGETS`)."""
    try:
        return TARGETS[name]
    except KeyError:
        raise ValueError(
            f"Unknown target {name!r}; choose one of {sorted(TARGETS)} or None"
        ) from None


def kernel_limits(opset: int = 18) -> list[tuple[str, list[str], list[str]]]:
    """The dtypes each runtime lacks, for every operator that lacks some.

    Returns
    -------
    list of (op_type, dtypes onnxruntime lacks, further dtypes onnxruntime-web lacks)
        Operators with a single varying type constraint, at ``opset``; only
        PyTensor dtypes the ONNX operator allows are considered.
    """
    from onnx import defs

    cpu, web = TARGETS["onnxruntime"], TARGETS["onnxruntime-web"]
    rows = []
    for op_type in sorted(cpu.kernels):
        try:
            defs.get_schema(op_type, opset, "")
        except defs.SchemaError:
            continue
        missing = cpu.missing_dtypes(op_type, opset)
        web_missing = [
            d for d in web.missing_dtypes(op_type, opset) if d not in missing
        ]
        if missing or web_missing:
            rows.append((op_type, missing, web_missing))
    return rows


def kernel_limits_rst(opset: int = 18) -> str:
    """:func:`kernel_limits` as a reStructuredText table (for the documentation)."""
    cpu, web = TARGETS["onnxruntime"], TARGETS["onnxruntime-web"]
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 2 3 2",
        "",
        "   * - ONNX operator",
        f"     - no kernel in {cpu.description}",
        f"     - also none in {web.description}",
    ]
    for op_type, missing, web_missing in kernel_limits(opset):
        lines += [
            f"   * - {op_type}",
            f"     - {', '.join(missing) or '—'}",
            f"     - {', '.join(web_missing) or '—'}",
        ]
    return "\n".join(lines) + "\n"


def build_targets(measured) -> dict[str, Target]:
    descriptions = {
        "onnxruntime": "onnxruntime {version} (CPUExecutionProvider)",
        "onnxruntime-web": "onnxruntime-web {version} (wasm)",
    }
    return {
        name: Target(
            name=name,
            description=descriptions[name].format(version=data["version"]),
            max_opset=data["max_opset"],
            kernels=data["kernels"],
        )
        for name, data in measured.items()
    }


# BEGIN MEASURED TABLES
# Generated by `python -m tests.link.onnx.kernel_probe --write` (onnx 1.23.2).
MEASURED = {
    "onnxruntime": {
        "version": "1.31.1",
        "max_opset": 26,
        "kernels": {
            "Abs": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Acos": {17: "T: float16 float32"},
            "Acosh": {17: "T: float16 float32"},
            "Add": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "AffineGrid": {20: "T1: float16 float32 float64; T2: int64"},
            "And": {17: "T: bool; T1: bool"},
            "ArgMax": {17: "T: int8 int32 int64 uint8 float16 float32 float64"},
            "ArgMin": {17: "T: int8 int32 int64 uint8 float16 float32 float64"},
            "Asin": {17: "T: float16 float32"},
            "Asinh": {17: "T: float16 float32"},
            "Atan": {17: "T: float16 float32"},
            "Atanh": {17: "T: float16 float32"},
            "Attention": {
                23: "float16,float16,bool | float16,float16,int8 | float16,float16,int16 | float16,float16,int32 | float16,float16,int64 | float16,float16,uint8 | float16,float16,uint16 | float16,float16,uint32 | float16,float16,uint64 | float16,float16,float16 | float16,float16,float32 | float16,float16,float64 | float32,float32,bool | float32,float32,int8 | float32,float32,int16 | float32,float32,int32 | float32,float32,int64 | float32,float32,uint8 | float32,float32,uint16 | float32,float32,uint32 | float32,float32,uint64 | float32,float32,float16 | float32,float32,float32 | float32,float32,float64 | float64,float64,bool | float64,float64,int8 | float64,float64,int16 | float64,float64,int32 | float64,float64,int64 | float64,float64,uint8 | float64,float64,uint16 | float64,float64,uint32 | float64,float64,uint64 | float64,float64,float16 | float64,float64,float32 | float64,float64,float64"
            },
            "AveragePool": {17: "T: float16 float32"},
            "BatchNormalization": {
                17: "float16,float16,float16 | float16,float16,float32 | float16,float32,float16 | float16,float32,float32 | float32,float16,float16 | float32,float16,float32 | float32,float32,float16 | float32,float32,float32 | float64,float64,float64"
            },
            "Bernoulli": {
                17: "T1: float16 float32 float64; T2: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64",
                22: "",
            },
            "BitShift": {17: "T: uint8 uint32 uint64"},
            "BitwiseAnd": {18: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64"},
            "BitwiseNot": {18: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64"},
            "BitwiseOr": {18: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64"},
            "BitwiseXor": {18: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64"},
            "BlackmanWindow": {
                17: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64",
                19: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64",
            },
            "Cast": {
                17: "T1: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T2: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "CastLike": {
                17: "T1: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T2: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Ceil": {17: "T: float16 float32 float64"},
            "Celu": {17: "T: float32"},
            "CenterCropPad": {
                18: "T: bool int8 int32 int64 uint8 uint32 uint64 float16 float32 float64; Tind: int64"
            },
            "Clip": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Col2Im": {18: "T: float16 float32"},
            "Compress": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "Concat": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "ConstantOfShape": {
                17: "T1: int64; T2: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Conv": {17: "T: float16 float32"},
            "ConvInteger": {17: "T1: int8 uint8; T2: int8 uint8; T3: int32"},
            "ConvTranspose": {17: "T: float16 float32"},
            "Cos": {17: "T: float16 float32 float64"},
            "Cosh": {17: "T: float16 float32"},
            "CumProd": {
                26: "T: int32 int64 uint32 uint64 float16 float32 float64; T2: int32 int64"
            },
            "CumSum": {17: "T: int32 int64 float16 float32 float64; T2: int32 int64"},
            "DFT": {17: "T1: float16 float32 float64; T2: int32 int64"},
            "DeformConv": {19: "T: float16 float32 float64"},
            "DepthToSpace": {17: "T: int8 uint8 float16 float32 float64"},
            "DequantizeLinear": {
                17: "T: int8 int32 uint8",
                19: "T1: int8 int32 uint8; T2: float16 float32",
                21: "T1: int8 int16 int32 uint8 uint16; T2: float16 float32",
                23: "int8,float16,float16 | int8,float32,float32 | int16,float16,float16 | int16,float32,float32 | int32,float16,float16 | int32,float32,float32 | uint8,float16,float16 | uint8,float32,float32 | uint16,float16,float16 | uint16,float32,float32",
            },
            "Det": {17: "T: float16 float32"},
            "Div": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Dropout": {
                17: "T: float16 float32 float64; T1: float16 float32 float64; T2: bool"
            },
            "DynamicQuantizeLinear": {17: "T1: float32; T2: uint8"},
            "Einsum": {17: "T: int32 int64 float16 float32 float64"},
            "Elu": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "Equal": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "Erf": {17: "T: float16 float32"},
            "Exp": {17: "T: float16 float32 float64"},
            "Expand": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "EyeLike": {
                17: "int32,int32 | int32,int64 | int32,uint64 | int32,float32 | int32,float64 | int64,int32 | int64,int64 | int64,uint64 | int64,float32 | int64,float64 | uint64,int32 | uint64,int64 | uint64,uint64 | uint64,float32 | uint64,float64 | float16,int32 | float16,int64 | float16,uint64 | float16,float16 | float16,float32 | float16,float64 | float32,int32 | float32,int64 | float32,uint64 | float32,float32 | float32,float64 | float64,int32 | float64,int64 | float64,uint64 | float64,float32 | float64,float64"
            },
            "Flatten": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Floor": {17: "T: float16 float32 float64"},
            "Gather": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; Tind: int32 int64"
            },
            "GatherElements": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; Tind: int32 int64"
            },
            "GatherND": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Gelu": {20: "T: float16 float32"},
            "Gemm": {17: "T: float16 float32 float64"},
            "GlobalAveragePool": {17: "T: float16 float32"},
            "GlobalLpPool": {17: "T: float16 float32", 22: ""},
            "GlobalMaxPool": {17: "T: float16 float32"},
            "Greater": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "GreaterOrEqual": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "GridSample": {
                17: "T1: float16 float32; T2: float16 float32",
                20: "float16,float16 | float16,float32 | float32,float16 | float32,float32 | float64,float64",
            },
            "GroupNormalization": {21: "T: float16 float32 float64"},
            "HammingWindow": {
                17: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64",
                19: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64",
            },
            "HannWindow": {
                17: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64",
                19: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64",
            },
            "HardSigmoid": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "HardSwish": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "Hardmax": {17: "T: float16 float32"},
            "Identity": {
                17: "V: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "If": {
                17: "V: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; B: bool"
            },
            "ImageDecoder": {20: ""},
            "InstanceNormalization": {17: "T: float16 float32"},
            "IsInf": {
                17: "T1: float32 float64; T2: bool",
                20: "T1: float16 float32 float64; T2: bool",
            },
            "IsNaN": {17: "T1: float16 float32 float64; T2: bool"},
            "LRN": {17: "T: float16 float32"},
            "LayerNormalization": {17: "T: float16 float32 float64; U: float32"},
            "LeakyRelu": {17: "T: float16 float32 float64", 19: "T: float16 float32"},
            "Less": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "LessOrEqual": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "Log": {17: "T: float16 float32 float64"},
            "LogSoftmax": {17: "T: float16 float32 float64"},
            "Loop": {
                17: "V: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; I: int64; B: bool"
            },
            "LpNormalization": {17: "T: float16 float32 float64"},
            "LpPool": {17: "T: float16 float32"},
            "MatMul": {17: "T: int32 int64 uint32 uint64 float16 float32 float64"},
            "MatMulInteger": {17: "T1: int8 uint8; T2: int8 uint8; T3: int32"},
            "Max": {
                17: "T: int8 int32 int64 uint8 uint32 uint64 float16 float32 float64"
            },
            "MaxPool": {17: "T: int8 uint8 float16 float32 float64; I: int64"},
            "Mean": {17: "T: float16 float32"},
            "MeanVarianceNormalization": {
                17: "T: float16 float32",
                18: "T: float32",
                19: "T: float16 float32",
            },
            "MelWeightMatrix": {
                17: "T1: int32 int64; T2: float16 float32; T3: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64"
            },
            "Min": {
                17: "T: int8 int32 int64 uint8 uint32 uint64 float16 float32 float64"
            },
            "Mish": {18: "T: float16 float32 float64", 19: "T: float16 float32"},
            "Mod": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Mul": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Multinomial": {17: "T1: float16 float32; T2: int32 int64", 22: ""},
            "Neg": {17: "T: int8 int16 int32 int64 float16 float32 float64"},
            "NegativeLogLikelihoodLoss": {
                17: "T: float16 float32 float64; Tind: int32 int64"
            },
            "NonMaxSuppression": {17: ""},
            "NonZero": {17: "T: bool int32 int64 uint8 float16 float32"},
            "Not": {17: "T: bool"},
            "OneHot": {
                17: "int32,float32,float32 | int64,float32,float32 | float16,float32,float32 | float32,float16,float32 | float32,float32,float16 | float32,float32,float32"
            },
            "OptionalGetElement": {
                18: "bool,bool | int8,int8 | int16,int16 | int32,int32 | int64,int64 | uint8,uint8 | uint16,uint16 | uint32,uint32 | uint64,uint64 | float16,float16 | float32,float32 | float64,float64"
            },
            "OptionalHasElement": {
                18: "O: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; B: bool"
            },
            "Or": {17: "T: bool; T1: bool"},
            "PRelu": {
                17: "T: int32 int64 uint32 float16 float32 float64",
                19: "T: float16 float32",
            },
            "Pad": {
                17: "T: bool int8 int32 int64 uint8 uint32 uint64 float16 float32 float64",
                18: "T: bool int8 int32 int64 uint8 uint32 uint64 float16 float32 float64; Tind: int32 int64",
            },
            "Pow": {
                17: "T: int32 int64 float16 float32 float64; T1: int32 int64 float16 float32 float64"
            },
            "QLinearConv": {
                17: "int8,int8,int8,int32 | uint8,int8,uint8,int32 | uint8,uint8,uint8,int32"
            },
            "QLinearMatMul": {
                17: "int8,int8,int8 | uint8,int8,uint8 | uint8,uint8,uint8",
                21: "float16,int8,int8,int8 | float16,uint8,int8,uint8 | float16,uint8,uint8,uint8 | float32,int8,int8,int8 | float32,uint8,int8,uint8 | float32,uint8,uint8,uint8",
            },
            "QuantizeLinear": {
                17: "T1: float32; T2: uint8",
                19: "T1: float16 float32; T2: uint8",
                23: "T1: float16 float32; T2: float16 float32; T3: uint8",
            },
            "RMSNormalization": {
                23: "float16,float16 | float32,float32 | float64,float64"
            },
            "RandomNormalLike": {
                17: "bool,float32 | bool,float64 | int8,float32 | int8,float64 | int16,float32 | int16,float64 | int32,float32 | int32,float64 | int64,float32 | int64,float64 | uint8,float32 | uint8,float64 | uint16,float32 | uint16,float64 | uint32,float32 | uint32,float64 | uint64,float32 | uint64,float64 | float16,float16 | float16,float32 | float16,float64 | float32,float32 | float32,float64 | float64,float32 | float64,float64",
                22: "",
            },
            "RandomUniformLike": {
                17: "bool,float32 | bool,float64 | int8,float32 | int8,float64 | int16,float32 | int16,float64 | int32,float32 | int32,float64 | int64,float32 | int64,float64 | uint8,float32 | uint8,float64 | uint16,float32 | uint16,float64 | uint32,float32 | uint32,float64 | uint64,float32 | uint64,float64 | float16,float16 | float16,float32 | float16,float64 | float32,float32 | float32,float64 | float64,float32 | float64,float64",
                22: "",
            },
            "Range": {17: "T: int16 int32 int64 float32 float64"},
            "Reciprocal": {17: "T: float16 float32 float64"},
            "ReduceL1": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceL2": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceLogSum": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceLogSumExp": {
                17: "T: int32 int64 float16 float32 float64",
                18: "T: int32 int64 uint32 uint64 float16 float32 float64",
                19: "T: int32 int64 float16 float32 float64",
            },
            "ReduceMax": {
                17: "T: int8 int32 int64 uint8 float16 float32 float64",
                20: "T: bool int8 int32 int64 uint8 float16 float32 float64",
            },
            "ReduceMean": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceMin": {
                17: "T: int8 int32 int64 uint8 float16 float32 float64",
                20: "T: bool int8 int32 int64 uint8 float16 float32 float64",
            },
            "ReduceProd": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceSum": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceSumSquare": {17: "T: int32 int64 float16 float32 float64"},
            "Relu": {
                17: "T: int8 int32 float16 float32 float64",
                18: "T: int8 int32 int64 float16 float32 float64",
                19: "T: int8 int32 float16 float32 float64",
            },
            "Reshape": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "ReverseSequence": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "RoiAlign": {17: "T1: float16 float32 float64; T2: int64", 22: ""},
            "RotaryEmbedding": {23: "T: float16 float32; M: int64"},
            "Round": {17: "T: float16 float32 float64"},
            "STFT": {17: "T1: float16 float32 float64; T2: int32 int64"},
            "ScatterElements": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; Tind: int32 int64"
            },
            "ScatterND": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Selu": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "Shape": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: int64"
            },
            "Shrink": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Sigmoid": {17: "T: float16 float32 float64"},
            "Sign": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Sin": {17: "T: float16 float32 float64"},
            "Sinh": {17: "T: float16 float32"},
            "Size": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: int64"
            },
            "Slice": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; Tind: int32 int64"
            },
            "Softmax": {17: "T: float16 float32 float64"},
            "SoftmaxCrossEntropyLoss": {
                17: "T: float16 float32 float64; Tind: int32 int64"
            },
            "Softplus": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "Softsign": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "SpaceToDepth": {17: "T: int8 uint8 float16 float32 float64"},
            "Split": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Sqrt": {17: "T: float16 float32 float64"},
            "Squeeze": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Sub": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Sum": {17: "T: float16 float32 float64"},
            "Swish": {24: "T: float16 float32 float64", 25: ""},
            "Tan": {17: "T: float16 float32"},
            "Tanh": {17: "T: float16 float32 float64"},
            "TensorScatter": {
                24: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "ThresholdedRelu": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "Tile": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: int64"
            },
            "TopK": {
                17: "T: int8 int16 int32 int64 uint8 float16 float32 float64; I: int64"
            },
            "Transpose": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Trilu": {17: "T: bool int32 int64 float16 float32 float64"},
            "Unique": {17: "T: int8 int64 float16 float32 float64"},
            "Unsqueeze": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Where": {
                17: "B: bool; T: int8 int32 int64 uint8 uint32 float16 float32 float64"
            },
            "Xor": {17: "T: bool; T1: bool"},
        },
    },
    "onnxruntime-web": {
        "version": "1.30.0",
        "max_opset": 26,
        "kernels": {
            "Abs": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Acos": {17: "T: float16 float32"},
            "Acosh": {17: "T: float16 float32"},
            "Add": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "AffineGrid": {20: "T1: float16 float32 float64; T2: int64"},
            "And": {17: "T: bool; T1: bool"},
            "ArgMax": {17: "T: int8 int32 int64 uint8 float16 float32 float64"},
            "ArgMin": {17: "T: int8 int32 int64 uint8 float16 float32 float64"},
            "Asin": {17: "T: float16 float32"},
            "Asinh": {17: "T: float16 float32"},
            "Atan": {17: "T: float16 float32"},
            "Atanh": {17: "T: float16 float32"},
            "Attention": {
                23: "float16,float16,bool | float16,float16,int8 | float16,float16,int16 | float16,float16,int32 | float16,float16,int64 | float16,float16,uint8 | float16,float16,uint16 | float16,float16,uint32 | float16,float16,uint64 | float16,float16,float16 | float16,float16,float32 | float16,float16,float64 | float32,float32,bool | float32,float32,int8 | float32,float32,int16 | float32,float32,int32 | float32,float32,int64 | float32,float32,uint8 | float32,float32,uint16 | float32,float32,uint32 | float32,float32,uint64 | float32,float32,float16 | float32,float32,float32 | float32,float32,float64 | float64,float64,bool | float64,float64,int8 | float64,float64,int16 | float64,float64,int32 | float64,float64,int64 | float64,float64,uint8 | float64,float64,uint16 | float64,float64,uint32 | float64,float64,uint64 | float64,float64,float16 | float64,float64,float32 | float64,float64,float64"
            },
            "AveragePool": {17: "T: float16 float32"},
            "BatchNormalization": {
                17: "float16,float16,float16 | float16,float16,float32 | float16,float32,float16 | float16,float32,float32 | float32,float16,float16 | float32,float16,float32 | float32,float32,float16 | float32,float32,float32 | float64,float64,float64"
            },
            "Bernoulli": {
                17: "T1: float16 float32 float64; T2: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64",
                22: "",
            },
            "BitShift": {17: "T: uint8 uint32 uint64"},
            "BitwiseAnd": {18: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64"},
            "BitwiseNot": {18: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64"},
            "BitwiseOr": {18: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64"},
            "BitwiseXor": {18: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64"},
            "BlackmanWindow": {
                17: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64",
                19: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64",
            },
            "Cast": {
                17: "T1: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T2: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "CastLike": {
                17: "T1: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T2: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Ceil": {17: "T: float16 float32 float64"},
            "Celu": {17: "T: float32"},
            "CenterCropPad": {
                18: "T: bool int8 int32 int64 uint8 uint32 uint64 float16 float32 float64; Tind: int64"
            },
            "Clip": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Col2Im": {18: "T: float16 float32"},
            "Compress": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "Concat": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "ConstantOfShape": {
                17: "T1: int64; T2: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Conv": {17: "T: float16 float32"},
            "ConvInteger": {17: "T1: int8 uint8; T2: int8 uint8; T3: int32"},
            "ConvTranspose": {17: "T: float16 float32"},
            "Cos": {17: "T: float16 float32 float64"},
            "Cosh": {17: "T: float16 float32"},
            "CumProd": {
                26: "T: int32 int64 uint32 uint64 float16 float32 float64; T2: int32 int64"
            },
            "CumSum": {17: "T: int32 int64 float16 float32 float64; T2: int32 int64"},
            "DFT": {17: "T1: float16 float32 float64; T2: int32 int64"},
            "DeformConv": {19: "T: float16 float32 float64"},
            "DepthToSpace": {17: "T: int8 uint8 float16 float32 float64"},
            "DequantizeLinear": {
                17: "T: int8 int32 uint8",
                19: "T1: int8 int32 uint8; T2: float16 float32",
                21: "T1: int8 int16 int32 uint8 uint16; T2: float16 float32",
                23: "int8,float16,float16 | int8,float32,float32 | int16,float16,float16 | int16,float32,float32 | int32,float16,float16 | int32,float32,float32 | uint8,float16,float16 | uint8,float32,float32 | uint16,float16,float16 | uint16,float32,float32",
            },
            "Det": {17: "T: float16 float32"},
            "Div": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Dropout": {
                17: "T: float16 float32 float64; T1: float16 float32 float64; T2: bool"
            },
            "DynamicQuantizeLinear": {17: "T1: float32; T2: uint8"},
            "Einsum": {17: "T: int32 int64 float16 float32 float64"},
            "Elu": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "Equal": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "Erf": {17: "T: float16 float32"},
            "Exp": {17: "T: float16 float32 float64"},
            "Expand": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "EyeLike": {
                17: "int32,int32 | int32,int64 | int32,uint64 | int32,float32 | int32,float64 | int64,int32 | int64,int64 | int64,uint64 | int64,float32 | int64,float64 | uint64,int32 | uint64,int64 | uint64,uint64 | uint64,float32 | uint64,float64 | float16,int32 | float16,int64 | float16,uint64 | float16,float16 | float16,float32 | float16,float64 | float32,int32 | float32,int64 | float32,uint64 | float32,float32 | float32,float64 | float64,int32 | float64,int64 | float64,uint64 | float64,float32 | float64,float64"
            },
            "Flatten": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Floor": {17: "T: float16 float32 float64"},
            "Gather": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; Tind: int32 int64"
            },
            "GatherElements": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; Tind: int32 int64"
            },
            "GatherND": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Gelu": {20: "T: float16 float32"},
            "Gemm": {17: "T: float16 float32 float64"},
            "GlobalAveragePool": {17: "T: float16 float32"},
            "GlobalLpPool": {17: "T: float16 float32", 22: ""},
            "GlobalMaxPool": {17: "T: float16 float32"},
            "Greater": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "GreaterOrEqual": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "GridSample": {
                17: "T1: float16 float32; T2: float16 float32",
                20: "float16,float16 | float16,float32 | float32,float16 | float32,float32 | float64,float64",
            },
            "GroupNormalization": {21: "T: float16 float32 float64"},
            "HammingWindow": {
                17: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64",
                19: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64",
            },
            "HannWindow": {
                17: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64",
                19: "T1: int32 int64; T2: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64",
            },
            "HardSigmoid": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "HardSwish": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "Hardmax": {17: "T: float16 float32"},
            "Identity": {
                17: "V: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "If": {
                17: "V: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; B: bool"
            },
            "ImageDecoder": {20: ""},
            "InstanceNormalization": {17: "T: float16 float32"},
            "IsInf": {
                17: "T1: float32 float64; T2: bool",
                20: "T1: float16 float32 float64; T2: bool",
            },
            "IsNaN": {17: "T1: float16 float32 float64; T2: bool"},
            "LRN": {17: "T: float16 float32"},
            "LayerNormalization": {17: "T: float16 float32 float64; U: float32"},
            "LeakyRelu": {17: "T: float16 float32 float64", 19: "T: float16 float32"},
            "Less": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "LessOrEqual": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: bool"
            },
            "Log": {17: "T: float16 float32 float64"},
            "LogSoftmax": {17: "T: float16 float32 float64"},
            "Loop": {
                17: "V: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; I: int64; B: bool"
            },
            "LpNormalization": {17: "T: float16 float32 float64"},
            "LpPool": {17: "T: float16 float32"},
            "MatMul": {17: "T: int32 int64 uint32 uint64 float16 float32 float64"},
            "MatMulInteger": {17: "T1: int8 uint8; T2: int8 uint8; T3: int32"},
            "Max": {
                17: "T: int8 int32 int64 uint8 uint32 uint64 float16 float32 float64"
            },
            "MaxPool": {17: "T: int8 uint8 float16 float32 float64; I: int64"},
            "Mean": {17: "T: float16 float32"},
            "MeanVarianceNormalization": {
                17: "T: float16 float32",
                18: "T: float32",
                19: "T: float16 float32",
            },
            "MelWeightMatrix": {
                17: "T1: int32 int64; T2: float16 float32; T3: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64"
            },
            "Min": {
                17: "T: int8 int32 int64 uint8 uint32 uint64 float16 float32 float64"
            },
            "Mish": {18: "T: float16 float32 float64", 19: "T: float16 float32"},
            "Mod": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Mul": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Multinomial": {17: "T1: float16 float32; T2: int32 int64", 22: ""},
            "Neg": {17: "T: int8 int16 int32 int64 float16 float32 float64"},
            "NegativeLogLikelihoodLoss": {
                17: "T: float16 float32 float64; Tind: int32 int64"
            },
            "NonMaxSuppression": {17: ""},
            "NonZero": {17: "T: bool int32 int64 uint8 float16 float32"},
            "Not": {17: "T: bool"},
            "OneHot": {
                17: "int32,float32,float32 | int64,float32,float32 | float16,float32,float32 | float32,float16,float32 | float32,float32,float16 | float32,float32,float32"
            },
            "OptionalGetElement": {
                18: "bool,bool | int8,int8 | int16,int16 | int32,int32 | int64,int64 | uint8,uint8 | uint16,uint16 | uint32,uint32 | uint64,uint64 | float16,float16 | float32,float32 | float64,float64"
            },
            "OptionalHasElement": {
                18: "O: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; B: bool"
            },
            "Or": {17: "T: bool; T1: bool"},
            "PRelu": {
                17: "T: int32 int64 float16 float32 float64",
                19: "T: float16 float32",
            },
            "Pad": {
                17: "T: bool int8 int32 int64 uint8 uint32 uint64 float16 float32 float64",
                18: "T: bool int8 int32 int64 uint8 uint32 uint64 float16 float32 float64; Tind: int32 int64",
            },
            "Pow": {
                17: "T: int32 int64 float16 float32 float64; T1: int32 int64 float16 float32 float64"
            },
            "QLinearConv": {
                17: "int8,int8,int8,int32 | uint8,int8,uint8,int32 | uint8,uint8,uint8,int32"
            },
            "QLinearMatMul": {
                17: "int8,int8,int8 | uint8,int8,uint8 | uint8,uint8,uint8",
                21: "float16,int8,int8,int8 | float16,uint8,int8,uint8 | float16,uint8,uint8,uint8 | float32,int8,int8,int8 | float32,uint8,int8,uint8 | float32,uint8,uint8,uint8",
            },
            "QuantizeLinear": {
                17: "T1: float32; T2: uint8",
                19: "T1: float16 float32; T2: uint8",
                23: "T1: float16 float32; T2: float16 float32; T3: uint8",
            },
            "RMSNormalization": {
                23: "float16,float16 | float32,float32 | float64,float64"
            },
            "RandomNormalLike": {
                17: "bool,float32 | bool,float64 | int8,float32 | int8,float64 | int16,float32 | int16,float64 | int32,float32 | int32,float64 | int64,float32 | int64,float64 | uint8,float32 | uint8,float64 | uint16,float32 | uint16,float64 | uint32,float32 | uint32,float64 | uint64,float32 | uint64,float64 | float16,float16 | float16,float32 | float16,float64 | float32,float32 | float32,float64 | float64,float32 | float64,float64",
                22: "",
            },
            "RandomUniformLike": {
                17: "bool,float32 | bool,float64 | int8,float32 | int8,float64 | int16,float32 | int16,float64 | int32,float32 | int32,float64 | int64,float32 | int64,float64 | uint8,float32 | uint8,float64 | uint16,float32 | uint16,float64 | uint32,float32 | uint32,float64 | uint64,float32 | uint64,float64 | float16,float16 | float16,float32 | float16,float64 | float32,float32 | float32,float64 | float64,float32 | float64,float64",
                22: "",
            },
            "Range": {17: "T: int16 int32 int64 float32 float64"},
            "Reciprocal": {17: "T: float16 float32 float64"},
            "ReduceL1": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceL2": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceLogSum": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceLogSumExp": {
                17: "T: int32 int64 float16 float32 float64",
                18: "T: int32 int64 uint32 uint64 float16 float32 float64",
                19: "T: int32 int64 float16 float32 float64",
            },
            "ReduceMax": {
                17: "T: int8 int32 int64 uint8 float16 float32 float64",
                20: "T: bool int8 int32 int64 uint8 float16 float32 float64",
            },
            "ReduceMean": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceMin": {
                17: "T: int8 int32 int64 uint8 float16 float32 float64",
                20: "T: bool int8 int32 int64 uint8 float16 float32 float64",
            },
            "ReduceProd": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceSum": {17: "T: int32 int64 float16 float32 float64"},
            "ReduceSumSquare": {17: "T: int32 int64 float16 float32 float64"},
            "Relu": {
                17: "T: int8 int32 float16 float32 float64",
                18: "T: int8 int32 int64 float16 float32 float64",
                19: "T: int8 int32 float16 float32 float64",
            },
            "Reshape": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "ReverseSequence": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "RoiAlign": {17: "T1: float16 float32 float64; T2: int64", 22: ""},
            "RotaryEmbedding": {23: "T: float16 float32; M: int64"},
            "Round": {17: "T: float16 float32 float64"},
            "STFT": {17: "T1: float16 float32 float64; T2: int32 int64"},
            "ScatterElements": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; Tind: int32 int64"
            },
            "ScatterND": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Selu": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "Shape": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: int64"
            },
            "Shrink": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Sigmoid": {17: "T: float16 float32 float64"},
            "Sign": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Sin": {17: "T: float16 float32 float64"},
            "Sinh": {17: "T: float16 float32"},
            "Size": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: int64"
            },
            "Slice": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; Tind: int32 int64"
            },
            "Softmax": {17: "T: float16 float32 float64"},
            "SoftmaxCrossEntropyLoss": {
                17: "T: float16 float32 float64; Tind: int32 int64"
            },
            "Softplus": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "Softsign": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "SpaceToDepth": {17: "T: int8 uint8 float16 float32 float64"},
            "Split": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Sqrt": {17: "T: float16 float32 float64"},
            "Squeeze": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Sub": {
                17: "T: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Sum": {17: "T: float16 float32 float64"},
            "Swish": {24: "T: float16 float32 float64", 25: ""},
            "Tan": {17: "T: float16 float32"},
            "Tanh": {17: "T: float16 float32 float64"},
            "TensorScatter": {
                24: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "ThresholdedRelu": {
                17: "T: float16 float32",
                18: "T: float16 float32 float64",
                19: "T: float16 float32",
            },
            "Tile": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64; T1: int64"
            },
            "TopK": {
                17: "T: int8 int16 int32 int64 uint8 float16 float32 float64; I: int64"
            },
            "Transpose": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Trilu": {17: "T: bool int32 int64 float16 float32 float64"},
            "Unique": {17: "T: int8 int64 float16 float32 float64"},
            "Unsqueeze": {
                17: "T: bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64"
            },
            "Where": {17: "B: bool; T: int32 int64 uint8 float16 float32 float64"},
            "Xor": {17: "T: bool; T1: bool"},
        },
    },
}
# END MEASURED TABLES

TARGETS: dict[str, Target] = build_targets(MEASURED)
