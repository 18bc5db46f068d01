"""Fold what a model computes from static shapes and constants into constants.

Converters compute shapes at run time because PyTensor's shapes are mostly
symbolic. Once a model's input dims and weights are fixed (as `export_onnx`
fixes them), ONNX shape inference knows many of those shapes: `fold_constants`
replaces the shape computations it can resolve, and every node of integer or
data-movement arithmetic on constants, by initializers. onnxruntime does part
of this itself when it loads a model, but not for dims read from a shape with
a symbolic batch dimension, and an exported file should not depend on it.
"""

import functools

import numpy as np

import onnx
from onnx import helper, numpy_helper
from pytensor.link.onnx.passes.graphs import (
    model_without,
    names_used_inside,
    remove_unread,
    rename_input,
)


# Folded results larger than this stay computed: a model should not grow
MAX_FOLDED_ELEMENTS = 4096


def attribute(node, name, default=None):
    for attr in node.attribute:
        if attr.name == name:
            return helper.get_attribute_value(attr)
    return default


def folded_axes(node, values, position, ndim):
    """The axes input (or attribute) of ``node``, non-negative."""
    axes = values[position] if len(values) > position else attribute(node, "axes")
    if axes is None:
        return None
    return [int(axis) % ndim for axis in np.asarray(axes).ravel()]


def truncated_division(a, b):
    quotient = a // b
    return quotient + ((quotient < 0) & (quotient * b != a))


def reduce(function):
    def evaluate(node, values):
        x = values[0]
        axes = folded_axes(node, values, 1, x.ndim)
        if axes is None and attribute(node, "noop_with_empty_axes", 0):
            return x
        keepdims = bool(attribute(node, "keepdims", 1))
        return function(
            x, axis=None if axes is None else tuple(axes), keepdims=keepdims
        )

    return evaluate


def shape_slice(node, shape):
    """The dims of ``shape`` a ``Shape`` node returns (``None`` where unknown)."""
    dims = list(shape)[attribute(node, "start", 0) : attribute(node, "end")]
    static = all(isinstance(dim, int) for dim in dims)
    return np.array(dims, dtype="int64" if static else object)


def onnx_slice(node, values):
    data, starts, ends = values[:3]
    axes = folded_axes(node, values, 3, data.ndim) or list(range(len(starts)))
    steps = values[4] if len(values) > 4 else np.ones(len(starts), "int64")
    index = [slice(None)] * data.ndim
    for axis, start, end, step in zip(axes, starts, ends, steps, strict=True):
        index[axis] = slice(int(start), int(end), int(step))
    return data[tuple(index)]


def onnx_reshape(node, values):
    data, shape = values
    shape = shape.copy()
    if not attribute(node, "allowzero", 0):
        zeros = np.flatnonzero(shape == 0)
        shape[zeros] = np.asarray(data.shape)[zeros]
    return data.reshape(shape)


def unsqueeze(node, values):
    x = values[0]
    ndim = x.ndim + len(np.ravel(values[1]))
    for axis in sorted(folded_axes(node, values, 1, ndim)):
        x = np.expand_dims(x, axis)
    return x


def squeeze(node, values):
    x = values[0]
    axes = folded_axes(node, values, 1, x.ndim)
    return np.squeeze(x, axis=None if axes is None else tuple(axes))


def folded_cast(node, values):
    [x] = values
    to = helper.tensor_dtype_to_np_dtype(attribute(node, "to"))
    if x.dtype.kind == "f" and np.dtype(to).kind != "f":
        raise Unfoldable  # NaN and overflow are undefined
    return x.astype(to)


def divide(node, values):
    a, b = values
    if a.dtype.kind not in "iu" or not np.all(b):
        raise Unfoldable
    return truncated_division(a, b).astype(a.dtype)


def modulo(node, values):
    a, b = values
    if a.dtype.kind not in "iu" or not np.all(b):
        raise Unfoldable
    return (np.fmod if attribute(node, "fmod", 0) else np.mod)(a, b)


def integer_only(evaluate):
    """``evaluate``, for nodes without float inputs: rounding is the runtime's."""

    def evaluate_integers(node, values):
        if any(value.dtype.kind == "f" for value in values):
            raise Unfoldable
        return evaluate(node, values)

    return evaluate_integers


def elementwise(function):
    return lambda node, values: function(*values)


class Unfoldable(Exception):
    """This node is better left to the runtime."""


EVALUATORS = {
    "Identity": lambda node, values: values[0],
    "Shape": lambda node, values: shape_slice(node, values[0].shape),
    "Size": lambda node, values: np.array(values[0].size, "int64"),
    "Gather": lambda node, values: np.take(
        values[0], values[1], axis=attribute(node, "axis", 0)
    ),
    "Concat": lambda node, values: np.concatenate(values, axis=attribute(node, "axis")),
    "Reshape": onnx_reshape,
    "Unsqueeze": unsqueeze,
    "Squeeze": squeeze,
    "Slice": onnx_slice,
    "Transpose": lambda node, values: np.transpose(values[0], attribute(node, "perm")),
    "Expand": lambda node, values: np.broadcast_to(
        values[0], np.broadcast_shapes(values[0].shape, tuple(values[1]))
    ),
    "Cast": folded_cast,
    "Div": divide,
    "Mod": modulo,
    "Not": lambda node, values: np.logical_not(values[0]),
    "And": lambda node, values: np.logical_and(*values),
    "Or": lambda node, values: np.logical_or(*values),
    "Xor": lambda node, values: np.logical_xor(*values),
    "Where": lambda node, values: np.where(*values),
    "ReduceProd": integer_only(reduce(np.prod)),
    "ReduceSum": integer_only(reduce(np.sum)),
}


# Integer functions NumPy computes as ONNX specifies them
INTEGER_FUNCTIONS = {
    "Range": np.arange,
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Neg": np.negative,
    "Abs": np.abs,
    "Max": lambda *values: functools.reduce(np.maximum, values),
    "Min": lambda *values: functools.reduce(np.minimum, values),
    "Equal": np.equal,
    "Less": np.less,
    "LessOrEqual": np.less_equal,
    "Greater": np.greater,
    "GreaterOrEqual": np.greater_equal,
}
EVALUATORS.update(
    (op_type, integer_only(elementwise(function)))
    for op_type, function in INTEGER_FUNCTIONS.items()
)


def fold_constants(model: onnx.ModelProto, weights) -> dict:
    """Replace by initializers the nodes of ``model`` computing static values.

    ``weights`` (``{name: array}``, the initializers kept out of ``model``)
    give their shapes. Returns the weights that the model still reads.
    """
    graph = model.graph
    outputs = {info.name for info in graph.output}
    # Folding changes how values are computed, never their shapes: one shape
    # inference serves a whole round
    while True:
        shapes = static_shapes(model, weights)
        if not (
            fold_static_shapes(graph, shapes, outputs)
            | fold_constant_nodes(graph, outputs)
            | skip_identities(graph, shapes, outputs)
        ):
            break
    remove_unread(graph)
    read = names_used_inside(graph)
    return {name: value for name, value in weights.items() if name in read}


def replace_by_constant(graph, node, value):
    graph.node.remove(node)
    graph.initializer.append(numpy_helper.from_array(np.asarray(value), node.output[0]))


def static_shapes(model, weights) -> dict[str, list]:
    """The shape ONNX shape inference gives each value.

    Each dim is an int, the name of a symbolic dim (equal names are equal
    lengths) or ``None`` if unknown.
    """
    inferred = onnx.shape_inference.infer_shapes(
        inference_model(model, weights), data_prop=True
    ).graph
    shapes = {}
    for info in (*inferred.input, *inferred.value_info, *inferred.output):
        tensor_type = info.type.tensor_type
        if tensor_type.HasField("shape"):
            shapes[info.name] = [
                dim.dim_value if dim.HasField("dim_value") else dim.dim_param or None
                for dim in tensor_type.shape.dim
            ]
    for tensor in model.graph.initializer:
        shapes[tensor.name] = list(tensor.dims)
    return shapes


def inference_model(model, weights) -> onnx.ModelProto:
    """``model`` with the weights and constants as inputs, for shape inference.

    ONNX's data propagation follows the values of vectors, element by element:
    those longer than `MAX_FOLDED_ELEMENTS` are declared of unknown length.
    """

    def value_info(name, dtype, shape):
        if len(shape) == 1 and shape[0] > MAX_FOLDED_ELEMENTS:
            shape = [f"{name}_length"]
        return helper.make_tensor_value_info(name, dtype, shape)

    large = {
        t.name: t
        for t in model.graph.initializer
        if len(t.dims) == 1 and t.dims[0] > MAX_FOLDED_ELEMENTS
    }
    copy = model_without(model, large)
    copy.graph.input.extend(
        value_info(name, tensor.data_type, tensor.dims)
        for name, tensor in large.items()
    )
    copy.graph.input.extend(
        value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype), value.shape)
        for name, value in weights.items()
    )
    return copy


def fold_static_shapes(graph, shapes, outputs) -> bool:
    """Fold ``Shape`` nodes, and ``Gather`` nodes of them, that read static dims."""
    producers = {name: node for node in graph.node for name in node.output}
    constants = {t.name: t for t in graph.initializer}
    folded = False
    for node in list(graph.node):
        if node.output[0] in outputs:
            continue
        if node.op_type == "Shape" and node.input[0] in shapes:
            dims = shape_slice(node, shapes[node.input[0]])
        elif node.op_type == "Gather" and node.input[1] in constants:
            source = producers.get(node.input[0])
            if source is None or source.op_type != "Shape":
                continue
            if source.input[0] not in shapes:
                continue
            dims = np.asarray(
                np.take(
                    shape_slice(source, shapes[source.input[0]]),
                    numpy_helper.to_array(constants[node.input[1]]),
                )
            )
        else:
            continue
        if dims.dtype.kind != "i":
            continue
        replace_by_constant(graph, node, dims)
        folded = True
    return folded


def fold_constant_nodes(graph, outputs) -> bool:
    """Evaluate the nodes whose inputs are all constants, where that is exact.

    Weights are not constants here: they keep their names in the file.
    """
    constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    folded = False
    for node in list(graph.node):
        evaluate = EVALUATORS.get(node.op_type)
        if (
            evaluate is None
            or node.domain not in ("", "ai.onnx")
            or node.output[0] in outputs
            or len(node.output) != 1
            or not all(name in constants for name in node.input if name)
        ):
            continue
        values = [constants[name] if name else None for name in node.input]
        while values and values[-1] is None:
            values.pop()
        if any(value is None for value in values):
            continue
        try:
            value = np.asarray(evaluate(node, values))
        except Unfoldable:
            continue
        if value.size > MAX_FOLDED_ELEMENTS:
            continue
        replace_by_constant(graph, node, value)
        constants[node.output[0]] = value
        folded = True
    return folded


def is_identity(node, shapes, constants) -> bool:
    """Whether ``node`` returns its first input unchanged."""
    if node.op_type == "Pad":
        pads = constants.get(node.input[1])
        return pads is not None and not pads.any()
    if node.op_type == "Transpose":
        perm = attribute(node, "perm")
        return perm is not None and list(perm) == sorted(perm)
    if node.op_type in ("Reshape", "Expand"):
        before, after = shapes.get(node.input[0]), shapes.get(node.output[0])
        return before is not None and before == after and None not in before
    return False


def skip_identities(graph, shapes, outputs) -> bool:
    """Remove the nodes that return their input unchanged (see `is_identity`)."""
    constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    identities = [
        node
        for node in graph.node
        if node.output[0] not in outputs and is_identity(node, shapes, constants)
    ]
    for identity in identities:
        graph.node.remove(identity)
        for node in graph.node:
            rename_input(node, identity.output[0], identity.input[0])
    return bool(identities)
