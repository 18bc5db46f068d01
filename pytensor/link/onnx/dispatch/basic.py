from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import singledispatch

import numpy as np
from pytensor.compile.ops import DeepCopyOp, TypeCastingOp
from pytensor.graph.basic import Apply, Constant, Variable
from pytensor.graph.fg import FunctionGraph
from pytensor.ifelse import IfElse
from pytensor.raise_op import CheckAndRaise

import onnx
from pytensor.link.onnx.builder import DEFAULT_OPSET, ONNXGraphBuilder, at_opset
from pytensor.link.onnx.complex_pairs import as_real_pairs
from pytensor.link.onnx.dispatch.registry import convert_node, onnx_funcify
from pytensor.link.onnx.dispatch.variables import (
    INDEX_VALUE_TYPES,
    RANDOM_GENERATOR_OPS,
    ConversionFailure,
    ONNXConversionError,
    is_sequence,
    random_generator_failure,
    type_failure,
    unsupported_message,
    unsupported_reason,
    unsupported_type_reason,
    value_type,
)
from pytensor.link.onnx.fusions import with_fused_patterns
from pytensor.link.onnx.passes.if_branches import common_prefix


@singledispatch
def onnx_typify(data, dtype=None, **kwargs):
    """Convert a runtime value into the NumPy array that onnxruntime is fed."""
    raise NotImplementedError(
        f"The ONNX backend cannot represent a value of type {type(data).__name__}"
    )


@onnx_typify.register(np.ndarray)
@onnx_typify.register(np.generic)
@onnx_typify.register(bool)
@onnx_typify.register(int)
@onnx_typify.register(float)
def onnx_typify_array(data, dtype=None, **kwargs):
    array = np.asarray(data)
    if array.dtype.kind == "c":
        return as_real_pairs(array, dtype)
    return np.asarray(array, dtype=dtype)


def register_all(op_classes):
    """Register the decorated converter for every class of ``op_classes``
    (for instance the keys of a table from Op class to ONNX operator)."""

    def register(converter):
        for op_class in op_classes:
            onnx_funcify.register(op_class)(converter)
        return converter

    return register


@dataclass(frozen=True)
class ONNXGraph:
    """A PyTensor ``FunctionGraph`` converted to ONNX.

    Attributes
    ----------
    model
        The ``ModelProto``. Its first outputs are the graph's outputs in order.
    checks
        ``(output_name, CheckAndRaise op)`` for every runtime assertion whose
        condition was added as an extra boolean output after the graph outputs.
    sources
        The PyTensor node each ONNX node of the main graph was converted from,
        by ONNX node name.
    failure_checks
        ``(output_name, CheckAndRaise op)`` for the assertions onnxruntime
        makes itself (see ``ONNXGraphBuilder.require``): outputs of
        ``diagnostic_model`` only, the model with every check, computed after
        a failed run to raise PyTensor's exception.
    """

    model: onnx.ModelProto
    checks: tuple[tuple[str, CheckAndRaise], ...] = ()
    sources: Mapping[str, Apply] = field(default_factory=dict, compare=False)
    failure_checks: tuple[tuple[str, CheckAndRaise], ...] = ()
    diagnostic_model: onnx.ModelProto | None = None


def convert_nodes(nodes, names, constant, convert):
    """Convert PyTensor ``nodes``, in topological order, into ONNX values.

    The one walk over a graph's nodes, for whole graphs, inner graphs and
    ``Composite`` scalar graphs.

    Parameters
    ----------
    nodes
        The Apply nodes, each after the nodes computing its inputs.
    names
        ``{variable: ONNX value}``, holding the graph's inputs; every output
        of ``nodes`` is added to it.
    constant
        ``constant(var)`` is the ONNX value of a constant met as an input.
    convert
        ``convert(node, inputs)`` adds the nodes computing ``node`` from the
        ONNX values ``inputs`` and returns those of its outputs.
    """
    for node in nodes:
        for var in node.inputs:
            if var not in names:
                if not isinstance(var, Constant):
                    raise ValueError(
                        f"{var} is neither an input nor computed before {node}"
                    )
                names[var] = constant(var)
        inputs = [names[var] for var in node.inputs]
        names.update(zip(node.outputs, convert(node, inputs), strict=True))
    return names


def lazy_branches(nodes, outputs) -> dict[Apply, tuple]:
    """The ``IfElse`` branches inside which each node is needed, innermost last.

    A node is needed only inside the branch ``(ifelse_node, 0)`` (then) or
    ``(ifelse_node, 1)`` (else) when every path from it to ``outputs`` runs
    through that branch's inputs of ``ifelse_node``: PyTensor's lazy VM then
    computes it only where the branch is taken. Nodes needed outside any
    branch are left out.
    """
    uses = {var: [()] for var in outputs}
    places = {}
    for node in reversed(nodes):
        outputs_used_at = [uses[out] for out in node.outputs if out in uses]
        place = common_prefix([p for used in outputs_used_at for p in used] or [()])
        if place:
            places[node] = place
        for index, var in enumerate(node.inputs):
            inner = place
            if isinstance(node.op, IfElse) and index > 0:
                inner = (*place, (node, int(index > node.op.n_outs)))
            uses.setdefault(var, []).append(inner)
    return places


def deferring_branch_checks(builder, nodes, outputs, convert):
    """``convert`` deferring the checks of the nodes needed only inside an
    ``IfElse`` branch to that branch (`ONNXGraphBuilder.defer_checks`), so that
    they hold only where it is taken, as in PyTensor's lazy VM."""
    places = lazy_branches(nodes, outputs)

    def convert_deferring(node, inputs):
        first = len(builder.checks)
        output_values = convert(node, inputs)
        if node in places and len(builder.checks) > first:
            builder.defer_checks(first, places[node][-1])
        return output_values

    return convert_deferring


@onnx_funcify.register(FunctionGraph)
def onnx_funcify_FunctionGraph(
    fgraph,
    *,
    opset: int = DEFAULT_OPSET,
    input_names=None,
    output_names=None,
    keep_checks: bool = True,
    random_generators: bool = False,
    graph_name: str = "pytensor_graph",
    **kwargs,
) -> ONNXGraph:
    """Convert a whole ``FunctionGraph`` into one ONNX model.

    Parameters
    ----------
    fgraph
        The (rewritten) graph to convert.
    opset
        Opset version of the default ONNX domain of the model. Converters
        write the operators of :data:`~pytensor.link.onnx.builder.DEFAULT_OPSET`;
        an older opset is reached with onnx's version converter.
    input_names, output_names
        Preferred names of the graph inputs and outputs; default to the
        variables' names (or ``input_i`` / ``output_i``).
    keep_checks
        Whether ``CheckAndRaise`` conditions become extra boolean outputs
        (``True``) or are dropped (``False``, for export).
    random_generators
        Whether random generator inputs and outputs become uint64 keys (see
        `pytensor.link.onnx.dispatch.random`), as mode="ONNX" feeds them.

    Raises
    ------
    ONNXConversionError
        Listing every input, constant and node that cannot be converted (not
        only the first one).
    OpsetError
        If the model cannot be expressed at ``opset``.
    """
    fgraph = with_fused_patterns(fgraph)
    builder = ONNXGraphBuilder(opset=max(opset, DEFAULT_OPSET), keep_checks=keep_checks)
    names: dict[Variable, str] = {}
    failures: list[ConversionFailure] = []
    sources: dict[str, Apply] = {}

    def stand_in(var):
        # An unconvertible value becomes an extra input, so that the rest of
        # the graph still converts and can be checked (see `partial`).
        if unsupported_type_reason(var, random_generators) is not None:
            return builder.fresh_name("unconverted")
        return builder.add_input(
            f"unconverted_{var.name or 'value'}",
            *value_type(var),
            sequence=is_sequence(var),
        )

    def convert_constant(var):
        if isinstance(var.type, INDEX_VALUE_TYPES):
            return var.data
        if failure := type_failure(
            var, "constant", random_generators=random_generators
        ):
            failures.append(failure)
            return stand_in(var)
        dtype, _ = value_type(var)
        if is_sequence(var):
            return builder.sequence_constant(var.data, dtype)
        return builder.constant(onnx_typify(var.data, dtype=dtype), hint="const")

    input_names = input_names or [
        inp.name or f"input_{i}" for i, inp in enumerate(fgraph.inputs)
    ]
    for inp, hint in zip(fgraph.inputs, input_names, strict=True):
        if failure := type_failure(inp, "input", random_generators=random_generators):
            failures.append(failure)
            names[inp] = stand_in(inp)
        else:
            names[inp] = builder.add_input(
                hint, *value_type(inp), sequence=is_sequence(inp)
            )
    # Reserved before any intermediate value so that they keep the user's names
    output_names = [
        builder.fresh_name(hint)
        for hint in output_names
        or [out.name or f"output_{i}" for i, out in enumerate(fgraph.outputs)]
    ]

    def convert(node, inputs):
        first_new_node = len(builder.nodes)
        uses_generators = random_generators and isinstance(
            node.op, RANDOM_GENERATOR_OPS
        )
        node_failures = [
            failure
            for out in node.outputs
            if not isinstance(out.type, INDEX_VALUE_TYPES)
            and (failure := type_failure(out, "output", node, uses_generators))
        ]
        if not node_failures and (failure := random_generator_failure(node)):
            node_failures = [failure]
        if node_failures and (reason := unsupported_reason(node.op)):
            node_failures = [
                ConversionFailure(
                    node.outputs[0], node, reason, unsupported_message(node, reason)
                )
            ]
        if not node_failures:
            try:
                output_values = convert_node(node, builder, inputs, value_names=names)
            except NotImplementedError as err:
                message = unsupported_message(node, str(err))
                node_failures = [
                    ConversionFailure(node.outputs[0], node, str(err), message)
                ]
        if node_failures:
            failures.extend(node_failures)
            output_values = [stand_in(out) for out in node.outputs]
        sources.update(
            (onnx_node.name, node) for onnx_node in builder.nodes[first_new_node:]
        )
        return output_values

    nodes = fgraph.toposort()
    convert = deferring_branch_checks(builder, nodes, fgraph.outputs, convert)
    convert_nodes(nodes, names, convert_constant, convert)

    for out, name in zip(fgraph.outputs, output_names, strict=True):
        if out not in names:
            names[out] = convert_constant(out)
        if unsupported_type_reason(out, random_generators) is None:
            dtype, shape = value_type(out)
            if keep_checks:
                # onnxruntime trusts declared output shapes and would fold the
                # checks of the very shapes they declare (SpecifyShape...)
                shape = (None,) * len(shape)
            names[out] = builder.add_output(
                names[out], name, dtype, shape, name=name, sequence=is_sequence(out)
            )

    checks = tuple(
        (builder.add_output(condition, "check", "bool", ()), op)
        for condition, op in builder.checks
    )
    model = builder.make_model(graph_name)
    failure_checks = tuple(
        (builder.add_output(condition, "check", "bool", ()), op)
        for condition, op in builder.failure_checks
    )
    diagnostic_model = builder.make_model(graph_name) if failure_checks else None
    converted = ONNXGraph(
        model=model,
        checks=checks,
        sources=sources,
        failure_checks=failure_checks,
        diagnostic_model=diagnostic_model,
    )
    if failures:
        raise ONNXConversionError(failures, partial=converted)
    return replace(
        converted,
        model=at_opset(model, opset),
        diagnostic_model=diagnostic_model and at_opset(diagnostic_model, opset),
    )


@onnx_funcify.register(DeepCopyOp)
@onnx_funcify.register(TypeCastingOp)
def onnx_funcify_identity_like(op, node, builder, inputs, **kwargs):
    return list(inputs)


@onnx_funcify.register(CheckAndRaise)
def onnx_funcify_CheckAndRaise(op, node, builder, inputs, **kwargs):
    value, *conditions = inputs
    for condition, var in zip(conditions, node.inputs[1:], strict=True):
        condition = builder.cast(condition, var.type.dtype, "bool")
        builder.require(condition, op.exc_type, op.msg, is_scalar=var.type.ndim == 0)
    return [value]
