"""Walk an ONNX graph and build the PyTensor graph of its outputs.

Every node is first checked for a handler (or a function body to expand), and
every value for a type PyTensor has, so that one :class:`UnsupportedONNXError`
lists all that cannot be imported before anything is built.
"""

from collections import ChainMap
from dataclasses import dataclass, field

import numpy as np
import pytensor.tensor as pt
from pytensor.typed_list import TypedListType

import onnx
import pytensor
from onnx import AttributeProto, helper
from pytensor.link.onnx.importer.dtypes import is_supported, numpy_dtype, type_name
from pytensor.link.onnx.importer.errors import ONNXImportError
from pytensor.link.onnx.importer.loading import tensor_to_array
from pytensor.link.onnx.importer.ops import find_handler


DTYPE_ATTRIBUTES = ("to", "dtype", "output_dtype")


@dataclass
class Options:
    float_dtype: str | None = None
    shared_initializers: bool = False
    input_shapes: dict = field(default_factory=dict)


def opset_versions(opset_imports) -> dict[str, int]:
    versions = {}
    for opset in opset_imports:
        versions["" if opset.domain == "ai.onnx" else opset.domain] = opset.version
    return versions


class Scope:
    """The values visible to one graph: its own, then those of enclosing graphs."""

    def __init__(self, options, opsets, functions, values=None, updates=None):
        self.options = options
        self.opsets = opsets
        self.functions = functions
        self.values = ChainMap() if values is None else values
        self.shared = {}
        self.updates = {} if updates is None else updates

    def child(self, opsets=None, isolated=False):
        values = ChainMap() if isolated else self.values.new_child()
        return Scope(
            self.options, opsets or self.opsets, self.functions, values, self.updates
        )

    def dtype(self, elem_type: int) -> np.dtype:
        return numpy_dtype(elem_type, self.options.float_dtype)

    def constant(self, array, name=None):
        array = np.asarray(array)
        if array.dtype.kind == "f" and self.options.float_dtype:
            array = array.astype(self.options.float_dtype)
        return pt.constant(array, name=name)

    def import_graph(self, graph: onnx.GraphProto, inputs):
        """Bind ``inputs`` to the graph's inputs and return its output variables."""
        for tensor in graph.initializer:
            self.values[tensor.name] = self.initializer(tensor)
        real_inputs = [i for i in graph.input if i.name not in self.values.maps[0]]
        if len(inputs) != len(real_inputs):
            raise ONNXImportError(
                f"graph {graph.name!r} takes {len(real_inputs)} inputs, got {len(inputs)}"
            )
        for value_info, variable in zip(real_inputs, inputs, strict=True):
            self.values[value_info.name] = variable
        for index, node in enumerate(graph.node):
            self.import_node(node, index)
        return [self.lookup(output.name, "graph output") for output in graph.output]

    def initializer(self, tensor):
        value = tensor_to_array(tensor, self.options.float_dtype)
        if self.options.shared_initializers:
            self.shared[tensor.name] = pytensor.shared(value, name=tensor.name)
            return self.shared[tensor.name]
        return pt.constant(value, name=tensor.name)

    def lookup(self, name, user):
        try:
            return self.values[name]
        except KeyError:
            raise ONNXImportError(f"{user} uses the undefined value {name!r}") from None

    def import_node(self, proto: onnx.NodeProto, index: int):
        node = Node(proto, self, index)
        inputs = [self.lookup(n, node.label) if n else None for n in proto.input]
        while inputs and inputs[-1] is None:
            inputs.pop()
        handler = node.handler()
        outputs = handler(node, *inputs)
        if not isinstance(outputs, list | tuple):
            outputs = [outputs]
        if len(outputs) < len([n for n in proto.output if n]):
            raise ONNXImportError(
                f"{node.label}: the importer made {len(outputs)} outputs, "
                f"the node asks for {len(proto.output)}"
            )
        for name, output in zip(proto.output, outputs, strict=False):
            if name:
                self.values[name] = output

    def expand_function(self, node, inputs):
        """The outputs of ``node``'s function body applied to ``inputs``."""
        function = node.function_proto(inputs)
        opsets = self.opsets | opset_versions(function.opset_import)
        scope = self.child(opsets, isolated=True)
        for name, variable in zip(function.input, inputs, strict=False):
            if variable is not None:
                scope.values[name] = variable
        attributes = schema_defaults(node)
        attributes |= {a.name: a for a in function.attribute_proto}
        attributes |= {a.name: a for a in node.proto.attribute}
        for index, inner in enumerate(function.node):
            scope.import_node(bind_attribute_refs(inner, attributes), index)
        wanted = zip(function.output, node.proto.output, strict=False)
        return [
            scope.lookup(name, node.label) if used else None for name, used in wanted
        ]


def schema_defaults(node):
    """The default values of the attributes of ``node``'s ONNX schema."""
    try:
        schema = onnx.defs.get_schema(node.op_type, node.opset, node.domain)
    except onnx.defs.SchemaError:
        return {}
    return {
        name: attribute.default_value
        for name, attribute in schema.attributes.items()
        if attribute.default_value.type
    }


def bind_attribute_refs(node, attributes):
    if not any(a.ref_attr_name for a in node.attribute):
        return node
    bound = onnx.NodeProto()
    bound.CopyFrom(node)
    del bound.attribute[:]
    for attribute in node.attribute:
        if not attribute.ref_attr_name:
            bound.attribute.append(attribute)
        elif attribute.ref_attr_name in attributes:
            value = onnx.AttributeProto()
            value.CopyFrom(attributes[attribute.ref_attr_name])
            value.name = attribute.name
            bound.attribute.append(value)
    return bound


class Node:
    """One ONNX node as its handler sees it."""

    def __init__(self, proto: onnx.NodeProto, scope: Scope, index: int):
        self.proto = proto
        self.scope = scope
        self.op_type = proto.op_type
        self.domain = "" if proto.domain == "ai.onnx" else proto.domain
        self.opset = scope.opsets.get(self.domain, 1)
        self.label = f"node {proto.name or f'#{index}'} ({proto.op_type})"
        self.attrs = {a.name: a for a in proto.attribute}
        self.n_outputs = len(proto.output)

    def attr(self, name, default=None):
        """The value of attribute ``name``, or ``default`` if the node has none."""
        if name not in self.attrs:
            return default
        value = helper.get_attribute_value(self.attrs[name])
        if isinstance(value, bytes):
            return value.decode()
        if isinstance(value, onnx.TensorProto):
            return tensor_to_array(value)
        if isinstance(value, list) and value and isinstance(value[0], bytes):
            return [v.decode() for v in value]
        return value

    def dtype(self, elem_type):
        return self.scope.dtype(elem_type)

    def constant(self, array):
        return self.scope.constant(array)

    def output_used(self, index):
        return index < self.n_outputs and bool(self.proto.output[index])

    def subgraph(self, name):
        """A function mapping the inputs of graph attribute ``name`` to its outputs."""
        graph = self.attrs[name].g

        def build(*inputs):
            return self.scope.child().import_graph(graph, list(inputs))

        build.graph = graph
        return build

    def handler(self):
        handler = find_handler(self.op_type, self.opset, self.domain)
        if handler is not None:
            return handler
        return lambda node, *inputs: self.scope.expand_function(node, inputs)

    def function_proto(self, inputs) -> onnx.FunctionProto:
        local = self.scope.functions.get((self.domain, self.op_type))
        if local is not None:
            return local
        schema = onnx.defs.get_schema(self.op_type, self.opset, self.domain)
        if schema.has_function:
            if not schema.function_opset_versions:
                return schema.function_body
            version = body_version(schema.function_opset_versions, self.opset)
            body = schema.get_function_with_opset_version(version)
            return onnx.FunctionProto.FromString(body)
        types = [type_proto(x) for x in inputs]
        versions = schema.context_dependent_function_opset_versions
        arguments = (
            self.proto.SerializeToString(),
            [t.SerializeToString() for t in types],
        )
        if versions:
            version = body_version(versions, self.opset)
            body = schema.get_context_dependent_function_with_opset_version(
                version, *arguments
            )
        else:
            body = schema.get_context_dependent_function(*arguments)
        return onnx.FunctionProto.FromString(body)


def type_proto(x) -> onnx.TypeProto:
    """The ONNX type of the imported value ``x`` (a tensor or a typed list)."""
    if x is None:
        return onnx.TypeProto()
    if isinstance(x.type, TypedListType):
        element = x.type.ttype
        return helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(numpy_to_onnx(element.dtype), element.shape)
        )
    return helper.make_tensor_type_proto(numpy_to_onnx(x.dtype), x.type.shape)


def body_version(versions, opset):
    return max((v for v in versions if v <= opset), default=min(versions))


def numpy_to_onnx(dtype):
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def can_expand(op_type, domain, opset, functions):
    if (domain, op_type) in functions:
        return True
    try:
        schema = onnx.defs.get_schema(op_type, opset, domain)
    except onnx.defs.SchemaError:
        return False
    return schema.has_function or schema.has_context_dependent_function


def value_type_problem(type_proto: onnx.TypeProto) -> str | None:
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        elem = type_proto.tensor_type.elem_type
        return None if is_supported(elem) else f"type {type_name(elem)}"
    if kind == "sequence_type":
        return value_type_problem(type_proto.sequence_type.elem_type)
    if kind is None:
        return None
    return f"{kind.removesuffix('_type')} values"


def unsupported_items(graph, opsets, functions, where="graph"):
    """``(what, where, why)`` of everything in ``graph`` that cannot be imported."""
    problems = []
    values = [*graph.input, *graph.output, *graph.value_info]
    for value in values:
        if problem := value_type_problem(value.type):
            problems.append(
                (problem, f"value {value.name!r}", "PyTensor has no such type")
            )
    for tensor in graph.initializer:
        if not is_supported(tensor.data_type):
            problems.append(
                (
                    f"type {type_name(tensor.data_type)}",
                    f"initializer {tensor.name!r}",
                    "PyTensor has no such dtype",
                )
            )
    for index, node in enumerate(graph.node):
        label = f"{where}, node {node.name or f'#{index}'}"
        domain = "" if node.domain == "ai.onnx" else node.domain
        opset = opsets.get(domain)
        handled = opset is not None and find_handler(node.op_type, opset, domain)
        if not handled and not (
            opset and can_expand(node.op_type, domain, opset, functions)
        ):
            op = f"{domain}.{node.op_type}" if domain else node.op_type
            why = (
                f"no handler for opset {opset}"
                if opset
                else f"domain {domain!r} not imported"
            )
            problems.append((f"op {op}", label, why))
        for attribute in node.attribute:
            if (
                attribute.name in DTYPE_ATTRIBUTES
                and attribute.type == AttributeProto.INT
            ):
                if not is_supported(attribute.i):
                    problems.append(
                        (
                            f"type {type_name(attribute.i)}",
                            label,
                            f"attribute {attribute.name} asks for a dtype PyTensor lacks",
                        )
                    )
            if attribute.type == AttributeProto.TENSOR and not is_supported(
                attribute.t.data_type
            ):
                problems.append(
                    (
                        f"type {type_name(attribute.t.data_type)}",
                        label,
                        f"attribute {attribute.name} holds a tensor PyTensor cannot hold",
                    )
                )
            for subgraph in (
                [attribute.g] if attribute.HasField("g") else attribute.graphs
            ):
                problems += unsupported_items(
                    subgraph, opsets, functions, f"{label}/{attribute.name}"
                )
    return problems
