"""The PyTensor graph an export converts: outputs, explicit inputs and weights."""

import inspect
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
from pytensor.compile import builders
from pytensor.compile.builders import OpFromGraph
from pytensor.compile.mode import get_mode
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.features import PreserveVariableAttributes
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.replace import clone_replace
from pytensor.graph.traversal import graph_inputs, io_toposort
from pytensor.graph.utils import get_variable_trace_string
from pytensor.scalar.basic import Composite, ScalarType
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.random import op as random_op
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.random.type import RandomType
from pytensor.tensor.type import TensorType

from pytensor.link.onnx.generator_keys import random_key


SymbolicOp = getattr(builders, "SymbolicOp", None)  # PyTensor >= 3
RandomVariableWithCoreShape = getattr(random_op, "RandomVariableWithCoreShape", None)


class RebuildError(NotImplementedError):
    """A node that cannot be rebuilt from new inputs (e.g. in float32)."""

    def __init__(self, node, cause):
        self.node = node
        self.reason = f"cannot be rebuilt from {node.inputs}: {cause}"
        super().__init__(
            f"The Op {node.op} computing {node.outputs[0]} {self.reason}"
            f"{get_variable_trace_string(node.outputs[0])}"
        )


@dataclass(frozen=True)
class ExportableGraph:
    """A rewritten graph ready for conversion.

    Attributes
    ----------
    fgraph
        Inputs are the explicit inputs followed by the weights (shared
        variables) that the outputs use; outputs are the function's outputs
        followed by the new values of the random generators it updates.
    n_inputs
        How many of ``fgraph.inputs`` are explicit inputs.
    weights
        The current value of each weight, in the order of ``fgraph.inputs``
        (a random generator's is its `random_key`).
    input_names, output_names
        The user's names (``None`` for unnamed variables) of the explicit
        inputs and of the function's outputs.
    updated_generators
        For each output after the function's own, the position in
        ``fgraph.inputs`` of the random generator it is the new value of.
    """

    fgraph: FunctionGraph
    n_inputs: int
    weights: tuple[np.ndarray, ...]
    input_names: tuple[str | None, ...]
    output_names: tuple[str | None, ...]
    updated_generators: tuple[int, ...] = ()

    @property
    def explicit_inputs(self) -> list[Variable]:
        return self.fgraph.inputs[: self.n_inputs]

    @property
    def weight_inputs(self) -> list[Variable]:
        return self.fgraph.inputs[self.n_inputs :]

    @property
    def generator_inputs(self) -> list[int]:
        """Positions in ``fgraph.inputs`` of the random generators."""
        return [
            i for i, var in enumerate(self.fgraph.inputs) if is_random_generator(var)
        ]


def is_random_generator(var: Variable) -> bool:
    return isinstance(var.type, RandomType)


def weight_value(var: SharedVariable, value) -> np.ndarray:
    """What the model stores or takes for the shared variable ``var`` holding ``value``."""
    return random_key(value) if is_random_generator(var) else np.asarray(value)


def exportable_graph(source, dtype: str | None = None) -> ExportableGraph:
    """Build the :class:`ExportableGraph` of a compiled function or ``(inputs, outputs)``."""
    if hasattr(source, "maker"):
        graph = compiled_graph(source)
    elif isinstance(source, Sequence) and not isinstance(source, str):
        if len(source) != 2:
            raise TypeError(
                "A symbolic graph is exported as a pair (inputs, outputs); "
                f"got a sequence of {len(source)} items"
            )
        graph = symbolic_graph(*source)
    else:
        raise TypeError(
            "export_onnx expects a function compiled with pytensor.function or a "
            f"pair (inputs, outputs) of variables, not {type(source).__name__}"
        )
    if dtype is None or dtype == "float64":
        return graph
    if dtype != "float32":
        raise ValueError(f"dtype must be None or 'float32', not {dtype!r}")
    return float32_graph(graph)


def compiled_graph(fn) -> ExportableGraph:
    maker = fn.maker
    fgraph = maker.fgraph
    n_outputs = len(maker.outputs)
    generator_updates = [
        (out, fgraph.inputs[fgraph.update_mapping[position]])
        for position, out in enumerate(fgraph.outputs)
        if position >= n_outputs
        and is_random_generator(fgraph.inputs[fgraph.update_mapping[position]])
    ]
    outputs = fgraph.outputs[:n_outputs] + [out for out, _ in generator_updates]
    values = dict(zip(fgraph.inputs, fn.input_storage, strict=True))
    explicit = [v for v in fgraph.inputs if not isinstance(v, SharedVariable)]
    weights = [v for v in fgraph.inputs if isinstance(v, SharedVariable)]
    outputs = without_core_shape_wrappers(explicit + weights, outputs)
    graph = FunctionGraph(explicit + weights, outputs, clone=False, features=[])
    used = [w for w in weights if graph.clients[w]]
    if len(used) != len(weights):
        graph = FunctionGraph(explicit + used, outputs, clone=False, features=[])
    return ExportableGraph(
        fgraph=graph,
        n_inputs=len(explicit),
        weights=tuple(weight_value(w, values[w].data) for w in used),
        input_names=tuple(v.name for v in explicit),
        output_names=tuple(out.variable.name for out in maker.outputs),
        updated_generators=tuple(
            graph.inputs.index(generator) for _, generator in generator_updates
        ),
    )


def without_core_shape_wrappers(inputs, outputs) -> list[Variable]:
    """``outputs`` with each ``RandomVariableWithCoreShape`` replaced by its random variable.

    The Numba mode wraps random variables so (as an ``OpFromGraph`` taking
    the core shape first); the rest of the graph is left as it is.
    """
    if RandomVariableWithCoreShape is None:
        return outputs
    memo = {}
    for node in io_toposort(inputs, outputs):
        new_inputs = [memo.get(inp, inp) for inp in node.inputs]
        if isinstance(node.op, RandomVariableWithCoreShape):
            replacements = dict(zip(node.op.inner_inputs, new_inputs, strict=True))
            new_outputs = clone_replace(node.op.inner_outputs, replace=replacements)
        elif any(
            new is not old for new, old in zip(new_inputs, node.inputs, strict=True)
        ):
            new_outputs = node.clone_with_new_inputs(new_inputs).outputs
        else:
            continue
        memo.update(zip(node.outputs, new_outputs, strict=True))
    return [memo.get(out, out) for out in outputs]


def symbolic_graph(inputs, outputs) -> ExportableGraph:
    """Rewrite ``outputs`` as a function of ``inputs`` with mode="ONNX"'s rewrites."""
    if isinstance(inputs, Variable):
        inputs = [inputs]
    outputs = [outputs] if isinstance(outputs, Variable) else list(outputs)
    inputs = list(inputs)
    for inp in inputs:
        if not isinstance(inp, Variable) or inp.owner is not None:
            raise TypeError(f"Graph inputs must be root variables; {inp} is not")
        if isinstance(inp, Constant):
            raise TypeError(f"A constant ({inp}) cannot be a graph input")
    weights = [
        v
        for v in graph_inputs(outputs)
        if isinstance(v, SharedVariable) and v not in inputs
    ]
    n_outputs = len(outputs)
    updated = [
        v
        for v in inputs + weights
        if is_random_generator(v) and getattr(v, "default_update", None) is not None
    ]
    outputs += [v.default_update for v in updated]
    fgraph = FunctionGraph(
        inputs + weights, outputs, clone=True, features=[PreserveVariableAttributes()]
    )
    return rewritten(
        ExportableGraph(
            fgraph=fgraph,
            n_inputs=len(inputs),
            weights=tuple(weight_value(w, w.get_value(borrow=True)) for w in weights),
            input_names=tuple(v.name for v in inputs),
            output_names=tuple(v.name for v in outputs[:n_outputs]),
            updated_generators=tuple((inputs + weights).index(v) for v in updated),
        )
    )


def rewritten(graph: ExportableGraph) -> ExportableGraph:
    get_mode("ONNX").optimizer.rewrite(graph.fgraph)
    return graph


def float32_graph(graph: ExportableGraph) -> ExportableGraph:
    """Rebuild ``graph`` with every float64 input, weight, constant and Op in float32.

    Ops are rebuilt from their float32 inputs, so each converter then emits its
    float32 implementation; values an Op still produces in float64 (for
    instance the true division of two integers) are cast to float32 right
    away. The result is rewritten again like any exported graph.
    """
    memo = {inp: float32_type(inp.type)(name=inp.name) for inp in graph.fgraph.inputs}
    outputs = rebuild_in_float32(graph.fgraph.outputs, memo, pt.cast)
    inputs = [memo[inp] for inp in graph.fgraph.inputs]
    fgraph = FunctionGraph(
        inputs, outputs, clone=False, features=[PreserveVariableAttributes()]
    )
    return rewritten(
        ExportableGraph(
            fgraph=fgraph,
            n_inputs=graph.n_inputs,
            weights=tuple(as_float32(w) for w in graph.weights),
            input_names=graph.input_names,
            output_names=graph.output_names,
            updated_generators=graph.updated_generators,
        )
    )


def as_float32(value):
    value = np.asarray(value)
    return value.astype("float32") if value.dtype == np.float64 else value


def float32_type(var_type):
    """The type ``var_type`` with float64 replaced by float32."""
    if getattr(var_type, "dtype", None) != "float64":
        return var_type
    if isinstance(var_type, TensorType):
        return var_type.clone(dtype="float32")
    if isinstance(var_type, ScalarType):
        return ScalarType("float32")
    return var_type


def rebuild_in_float32(outputs, memo, cast):
    def narrow(var):
        return (
            cast(var, "float32")
            if getattr(var.type, "dtype", None) == "float64"
            else var
        )

    return rebuild(outputs, memo, float32_op, float32_constant, narrow)


def rebuild(outputs, memo, convert_op, convert_constant, convert_output):
    """Rebuild the graph of ``outputs`` from the replacements of its inputs in ``memo``.

    Each node is rebuilt by calling ``convert_op(node.op)`` on the rebuilt
    inputs (so that Ops whose inner graph depends on the input types, like
    ``SymbolicOp``, build a fresh one), constants go through
    ``convert_constant`` and new outputs through ``convert_output``. ``memo``
    is updated with the replacement of every variable.
    """
    for node in io_toposort(list(memo), outputs):
        new_inputs = [
            memo[inp] if inp in memo else convert_constant(inp) for inp in node.inputs
        ]
        op = convert_op(node.op)
        try:
            if isinstance(op, RandomVariable):  # whose __call__ takes parameters
                new_outputs = op.make_node(*new_inputs).outputs
            else:
                new_outputs = op(*new_inputs, return_list=True)
        except Exception as err:
            if not isinstance(node.op, OpFromGraph):
                raise RebuildError(node, err) from err
            # An inner graph typed for the old inputs (e.g. Numba's
            # BlockwiseWithCoreShape) is inlined and rebuilt instead
            inner_memo = dict(zip(node.op.inner_inputs, new_inputs, strict=True))
            new_outputs = rebuild(
                node.op.inner_outputs,
                inner_memo,
                convert_op,
                convert_constant,
                convert_output,
            )
        for old, new in zip(node.outputs, new_outputs, strict=True):
            new = convert_output(new)
            new.name = old.name
            memo[old] = new
    return [memo[out] if out in memo else convert_constant(out) for out in outputs]


def fresh_op(op):
    """``op``, with a newly built inner graph if it is a ``SymbolicOp``.

    A compiled function rewrites the inner graphs of its ``SymbolicOp``s (in
    place, for the default modes), and such an inner graph can no longer be
    evaluated on its own.
    """
    if SymbolicOp is not None and isinstance(op, SymbolicOp):
        props = {name: getattr(op, name) for name in getattr(op, "__props__", ())}
        return type(op)(**op._init_kwargs, **props)
    return op


def float32_constant(var):
    if getattr(var.type, "dtype", None) != "float64":
        return var
    if isinstance(var.type, ScalarType):
        return ps.constant(np.float32(var.data), name=var.name)
    return pt.constant(
        np.asarray(var.data, dtype="float32"), name=var.name, ndim=var.type.ndim
    )


def float32_op(op):
    if isinstance(op, Composite):
        memo = {inp: float32_type(inp.type)() for inp in op.fgraph.inputs}
        outputs = rebuild_in_float32(op.fgraph.outputs, memo, ps.cast)
        return Composite([memo[inp] for inp in op.fgraph.inputs], outputs)
    if isinstance(op, Elemwise):
        return Elemwise(float32_op(op.scalar_op))
    if isinstance(op, ps.Cast) and op.o_type.dtype == "float64":
        return ps.Cast(ScalarType("float32"), name=op.name)
    props = getattr(op, "__props__", None)
    if not props:
        return op
    values = op._props_dict()
    converted = {name: float32_prop(value) for name, value in values.items()}
    if all(converted[n] is values[n] for n in values):
        return op
    parameters = inspect.signature(type(op)).parameters
    if not any(p.kind == p.VAR_KEYWORD for p in parameters.values()):
        # Some props (Sum's scalar_op) are fixed by the class, not arguments
        converted = {n: v for n, v in converted.items() if n in parameters}
    return type(op)(**converted)


def float32_prop(value):
    if isinstance(value, str) and value == "float64":
        return "float32"
    if isinstance(value, np.dtype) and value == np.float64:
        return np.dtype("float32")
    if isinstance(value, TensorType | ScalarType):
        return float32_type(value)
    return value
