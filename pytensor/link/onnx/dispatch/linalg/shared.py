"""What the linear-algebra converters share: registration of an Op and its
``Blockwise`` in one, dtypes, the checks of their inputs and the shapes of
right-hand sides.

The algorithms of `pytensor.link.onnx.numerics.linalg` run on a stack of the
core Op's inputs: a stack of one for the core Op alone, and one per batch
element for its ``Blockwise``.
"""

from functools import wraps

import numpy as np

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.batches import (
    batch_ndim,
    broadcast_batch_shape,
    core_node_of,
    flatten_batch,
)
from pytensor.link.onnx.dispatch.operands import output_dtype
from pytensor.link.onnx.dispatch.variables import UNSUPPORTED_OP_REASONS
from pytensor.link.onnx.value import Value, concat, minimum


def register_stacked(*op_classes):
    """Register ``convert`` for ``op_classes`` and for their ``Blockwise``.

    ``convert(op, node, *inputs)`` receives the core ``node`` and its inputs
    as `Value` stacks (one leading axis more than the core inputs) and
    returns the stacks of the outputs.
    """

    def register(convert):
        @wraps(convert)
        def convert_core(op, node, builder, inputs, **kwargs):
            stacks = [
                builder.value(name, var.type.dtype).unsqueeze([0])
                for name, var in zip(inputs, node.inputs, strict=True)
            ]
            return [output.squeeze([0]).name for output in convert(op, node, *stacks)]

        @wraps(convert)
        def convert_batched(core_op, node, builder, inputs, **kwargs):
            n_batch_dims = batch_ndim(node)
            batch_shape = broadcast_batch_shape(builder, node, inputs)
            batch_size = builder.add("ReduceProd", [batch_shape], keepdims=1)
            stacks = [
                builder.value(
                    flatten_batch(
                        builder, name, var, n_batch_dims, batch_shape, batch_size
                    ),
                    var.type.dtype,
                )
                for name, var in zip(inputs, node.inputs, strict=True)
            ]
            outputs = convert(core_op, core_node_of(node), *stacks)
            shape = builder.value(batch_shape, "int64")
            return [
                output.reshape(concat([shape, output.shape(1)], axis=0)).name
                for output in outputs
            ]

        for op_class in op_classes:
            onnx_funcify.register(op_class)(convert_core)
            onnx_funcify.register(op_class, batched=True)(convert_batched)
        return convert

    return register


def register_unsupported(op_class, reason: str):
    """Make ``op_class`` and its ``Blockwise`` raise ``NotImplementedError(reason)``.

    The reason is also given when the Op's types already fail (see
    `unsupported_reason`).
    """

    def raise_unsupported(op, node, builder, inputs, **kwargs):
        raise NotImplementedError(reason)

    UNSUPPORTED_OP_REASONS[op_class] = reason
    onnx_funcify.register(op_class)(raise_unsupported)
    onnx_funcify.register(op_class, batched=True)(raise_unsupported)


def float_output_dtype(node):
    """The dtype of the (first) output, which must be a float.

    Some Ops of PyTensor 2 declare an integer output for integer inputs,
    while their ``perform`` returns SciPy's floats.
    """
    dtype = output_dtype(node)
    if np.dtype(dtype).kind != "f":
        raise NotImplementedError(
            f"the Op declares a {dtype} output but computes floats; only float "
            "inputs are supported"
        )
    return dtype


def check_square(a: Value, var, message, exception_type=ValueError) -> Value:
    """Make the function raise ``exception_type(message)`` unless ``a`` is a
    stack of square matrices (``var`` is the PyTensor variable of ``a``).

    Returns ``a`` cut to its leading square: the run of the graph, which
    precedes the check, must not fail on other shapes.
    """
    rows, columns = var.type.shape[-2:]
    if rows is not None and columns is not None:
        return a
    a.builder.require(a.shape(1, 2).eq(a.shape(2, 3)), exception_type, message)
    n = minimum(a.shape(1, 2), a.shape(2, 3))
    return a.slice(0, n, axis=1).slice(0, n, axis=2)


def static_order(var) -> int | None:
    """The static number of rows of the square matrices ``var``, if both of
    their lengths are static and equal."""
    rows, columns = var.type.shape[-2:]
    return rows if rows is not None and rows == columns else None


NON_SQUARE = "Last 2 dimensions of the array must be square"


def square_input(node, a: Value, input_dtype) -> Value:
    """``a`` in ``input_dtype``, checked to be square as NumPy does."""
    a = a.cast(input_dtype)
    return check_square(a, node.inputs[0], NON_SQUARE, np.linalg.LinAlgError)


def is_wide(var) -> bool:
    """Whether the matrix ``var`` statically has fewer rows than columns."""
    rows, columns = var.type.shape[-2:]
    return rows is not None and columns is not None and rows < columns


def square_matrix(x: Value, n_leading: int, ndim: int):
    """``x`` reshaped to the ``(1, p, q)`` matrix of its first ``n_leading`` axes
    by the others, and the shapes of both groups of axes."""
    leading, trailing = x.shape(0, n_leading), x.shape(n_leading, ndim)
    sizes = [part.prod([0]) for part in (leading, trailing)]
    return x.reshape(concat([x.indices([1]), *sizes], axis=0)), leading, trailing


def float_inputs(builder, node, inputs):
    """The ``inputs`` of ``node`` as values of its (float) output dtype."""
    dtype = float_output_dtype(node)
    return [
        builder.value(name, var.type.dtype).cast(dtype)
        for name, var in zip(inputs, node.inputs, strict=True)
    ]


def as_columns(b: Value, b_ndim: int) -> Value:
    """The stack of right-hand sides ``b`` as matrices (vectors become columns)."""
    return b if b_ndim == 2 else b.unsqueeze([2])


def as_given(x: Value, b_ndim: int) -> Value:
    return x if b_ndim == 2 else x.squeeze([2])


def linear_system(op, node, a: Value, b: Value, message: str):
    """``a``, checked to be square (else ``ValueError(message)``), and the
    right-hand sides ``b`` as columns, in the output dtype."""
    dtype = output_dtype(node)
    a, b = a.cast(dtype), as_columns(b.cast(dtype), op.b_ndim)
    return check_square(a, node.inputs[0], message), b
