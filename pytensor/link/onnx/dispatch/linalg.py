"""What the converters of `~pytensor.link.onnx.dispatch.slinalg` and
`~pytensor.link.onnx.dispatch.nlinalg` share: registration of an Op and its
``Blockwise`` in one, dtypes, and the checks of their inputs.

The algorithms of `pytensor.link.onnx.numerics.linalg` run on a stack of the
core Op's inputs: a stack of one for the core Op alone, and one per batch
element for its ``Blockwise``.
"""

import numpy as np

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.blockwise import (
    batch_ndim,
    broadcast_batch_shape,
    core_node_of,
    flatten_batch,
)
from pytensor.link.onnx.dispatch.scalar import output_dtype
from pytensor.link.onnx.dispatch.variables import UNSUPPORTED_OP_REASONS
from pytensor.link.onnx.numerics.linalg.decomposition.eigen import (
    generalized_eigen,
    jacobi_eigen,
)
from pytensor.link.onnx.numerics.linalg.stacks import symmetric_from
from pytensor.link.onnx.value import Value, concat, minimum


def register_stacked(*op_classes):
    """Register ``convert`` for ``op_classes`` and for their ``Blockwise``.

    ``convert(op, node, *inputs)`` receives the core ``node`` and its inputs
    as `Value` stacks (one leading axis more than the core inputs) and
    returns the stacks of the outputs.
    """

    def register(convert):
        def convert_core(op, node, builder, inputs, **kwargs):
            stacks = [
                builder.value(name, var.type.dtype).unsqueeze([0])
                for name, var in zip(inputs, node.inputs, strict=True)
            ]
            return [output.squeeze([0]).name for output in convert(op, node, *stacks)]

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


def static_size(var) -> int | None:
    """The static number of rows of the square matrices ``var``, if both of
    their lengths are static and equal."""
    rows, columns = var.type.shape[-2:]
    return rows if rows is not None and rows == columns else None


NOT_POSITIVE_DEFINITE_B = (
    "The leading minor of b is not positive definite. The factorization of b "
    "could not be completed and no eigenvalues or eigenvectors were computed."
)


def checked_generalized_eigen(a: Value, b: Value, lower: bool):
    """`generalized_eigen`, raising ``LinAlgError`` if ``b`` is not positive definite."""
    eigenvalues, eigenvectors, failed = generalized_eigen(a, b, lower)
    a.builder.require(~failed, np.linalg.LinAlgError, NOT_POSITIVE_DEFINITE_B)
    return eigenvalues, eigenvectors


def symmetric_eigen(op, node, a, b=None):
    """``(eigenvalues, eigenvectors)`` of an ``Eigh``-like node, in the output dtype."""
    dtype = output_dtype(node)
    lower = op.lower if hasattr(op, "lower") else op.UPLO == "L"
    a = a.cast(dtype)
    a = check_square(a, node.inputs[0], "expected square matrix")
    if b is None:
        return jacobi_eigen(symmetric_from(a, lower))
    return checked_generalized_eigen(a, b.cast(dtype), lower)
