from dataclasses import dataclass
from functools import singledispatch

import numpy as np
from pytensor.compile.ops import DeepCopyOp, ViewOp
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.utils import get_variable_trace_string
from pytensor.raise_op import CheckAndRaise
from pytensor.scalar.basic import ScalarType
from pytensor.tensor.type import TensorType

import onnx
from pytensor.link.onnx.builder import DEFAULT_OPSET, ONNXGraphBuilder


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
    return np.asarray(data, dtype=dtype)


@singledispatch
def onnx_funcify(op, node=None, builder=None, inputs=None, **kwargs):
    """Add the ONNX nodes computing ``node`` and return the names of its outputs.

    Handlers are registered per ``Op`` (or ``ScalarOp``) class. They receive
    the PyTensor ``node``, the ``ONNXGraphBuilder`` of the model being built
    and the ONNX value names of the node's inputs, and return one ONNX value
    name per output of ``node``.
    """
    raise NotImplementedError(f"No ONNX conversion for the Op {op}")


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
    """

    model: onnx.ModelProto
    checks: tuple[tuple[str, CheckAndRaise], ...] = ()


def unsupported_error(node, reason: str) -> NotImplementedError:
    """Build the error raised when ``node`` cannot be converted."""
    op = node.op
    output = node.outputs[0]
    return NotImplementedError(
        f"The ONNX backend cannot convert the Op {op} "
        f"(class {type(op).__module__}.{type(op).__name__}) computing the "
        f"variable {output} of type {output.type}: {reason}\n"
        "Compile this function with another mode (for instance mode='FAST_RUN'), "
        "rewrite the graph without this Op, or register a converter with "
        f"`onnx_funcify.register({type(op).__name__})`."
        f"{get_variable_trace_string(output)}"
    )


def variable_shape(var: Variable) -> tuple:
    if isinstance(var.type, TensorType):
        return var.type.shape
    return ()


def check_graph_variable(var: Variable, role: str):
    """Raise early for variables whose type ONNX cannot carry."""
    if isinstance(var.type, (TensorType, ScalarType)):
        if np.dtype(var.type.dtype).kind == "c":
            raise NotImplementedError(
                f"The ONNX backend does not support complex numbers: the {role} {var} "
                f"has type {var.type}."
            )
        return
    raise NotImplementedError(
        f"The ONNX backend cannot take the {role} {var} of type {var.type} "
        f"({type(var.type).__name__}): only tensors and scalars have an ONNX "
        "equivalent. Random generators, slices, typed lists and sparse "
        "matrices are not supported."
        f"{get_variable_trace_string(var)}"
    )


@onnx_funcify.register(FunctionGraph)
def onnx_funcify_FunctionGraph(
    fgraph,
    *,
    opset: int = DEFAULT_OPSET,
    input_names=None,
    output_names=None,
    keep_checks: bool = True,
    graph_name: str = "pytensor_graph",
    **kwargs,
) -> ONNXGraph:
    """Convert a whole ``FunctionGraph`` into one ONNX model.

    Parameters
    ----------
    fgraph
        The (rewritten) graph to convert.
    opset
        Opset version of the default ONNX domain.
    input_names, output_names
        Preferred names of the graph inputs and outputs; default to the
        variables' names (or ``input_i`` / ``output_i``).
    keep_checks
        Whether ``CheckAndRaise`` conditions become extra boolean outputs
        (``True``) or are dropped (``False``, for export).
    """
    builder = ONNXGraphBuilder(opset=opset, keep_checks=keep_checks)
    names: dict[Variable, str] = {}

    input_names = input_names or [
        inp.name or f"input_{i}" for i, inp in enumerate(fgraph.inputs)
    ]
    for inp, hint in zip(fgraph.inputs, input_names, strict=True):
        check_graph_variable(inp, "input")
        names[inp] = builder.add_input(hint, inp.type.dtype, variable_shape(inp))

    for node in fgraph.toposort():
        input_values = []
        for inp in node.inputs:
            if inp not in names:
                if not isinstance(inp, Constant):
                    raise ValueError(
                        f"{inp} is neither an input nor computed before {node}"
                    )
                check_graph_variable(inp, "constant")
                names[inp] = builder.constant(
                    onnx_typify(inp.data, dtype=inp.type.dtype), hint="const"
                )
            input_values.append(names[inp])
        for out in node.outputs:
            check_graph_variable(out, "output")
        try:
            output_values = onnx_funcify(
                node.op, node=node, builder=builder, inputs=input_values
            )
        except NotImplementedError as err:
            raise unsupported_error(node, str(err)) from err
        names.update(zip(node.outputs, output_values, strict=True))

    output_names = output_names or [
        out.name or f"output_{i}" for i, out in enumerate(fgraph.outputs)
    ]
    for out, hint in zip(fgraph.outputs, output_names, strict=True):
        if out not in names:
            check_graph_variable(out, "output")
            names[out] = builder.constant(onnx_typify(out.data, dtype=out.type.dtype))
        names[out] = builder.add_output(
            names[out], hint, out.type.dtype, variable_shape(out)
        )

    checks = tuple(
        (builder.add_output(condition, "check", "bool", ()), op)
        for condition, op in builder.checks
    )
    return ONNXGraph(model=builder.make_model(graph_name), checks=checks)


@onnx_funcify.register(DeepCopyOp)
@onnx_funcify.register(ViewOp)
def onnx_funcify_identity_like(op, node, builder, inputs, **kwargs):
    return list(inputs)


@onnx_funcify.register(CheckAndRaise)
def onnx_funcify_CheckAndRaise(op, node, builder, inputs, **kwargs):
    value, *conditions = inputs
    if builder.keep_checks:
        for condition, var in zip(conditions, node.inputs[1:], strict=True):
            as_int = builder.cast(condition, var.type.dtype, "int32")
            all_true = builder.add("ReduceMin", [as_int], keepdims=0, hint="all_true")
            builder.checks.append((builder.cast(all_true, "int32", "bool"), op))
    return [value]
