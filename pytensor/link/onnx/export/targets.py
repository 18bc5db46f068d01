"""Runtimes a model can be exported for, and which kernels each one has.

A model that passes the ONNX checker can still fail to load: runtimes only
implement some (operator, dtype) combinations, and which ones is documented
nowhere precisely. The tables are measured, not transcribed:
``scripts/probe_kernels.py`` builds a one-node model for every operator of the
default ONNX domain, every model opset from :data:`MIN_OPSET` to the newest
one the runtime loads, and every binding of the operator's type constraints to
PyTensor's dtypes, and records which ones the runtime creates a session for,
in ``pytensor/link/onnx/kernels/onnxruntime.json`` (see
:func:`pytensor.link.onnx.kernels.measurements`). Regenerate it with
``python scripts/probe_kernels.py --write``.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from pytensor.link.onnx.kernels import (
    DTYPES,
    TENSOR_TYPES,
    measurements,
    signatures,
)


MIN_OPSET = 17


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
        return signatures(self.kernels, op_type, opset)

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


TARGETS: dict[str, Target] = build_targets(measurements())
