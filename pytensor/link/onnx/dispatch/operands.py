"""A node's operands as converters read them: their dtypes, their constant
values, and casts to the dtype an operation computes in.

Shared by the converter modules, which import nothing from each other.
"""

import numpy as np
from numpy.lib.array_utils import normalize_axis_index
from pytensor.graph.basic import Constant
from pytensor.tensor.basic import get_underlying_scalar_constant_value
from pytensor.tensor.exceptions import NotScalarConstantError

from pytensor.link.onnx.kernels import widened_kernel_dtype
from pytensor.link.onnx.value import Value, along_runtime_axis


def input_dtypes(node):
    """The dtypes of ``node``'s inputs."""
    return [inp.type.dtype for inp in node.inputs]


def output_dtype(node, index=0):
    """The dtype of ``node``'s output ``index``."""
    return node.outputs[index].type.dtype


def cast_all(builder, node, inputs, dtype):
    """``inputs`` (the values of ``node.inputs``) cast to ``dtype``."""
    return [
        builder.cast(name, from_dtype, dtype)
        for name, from_dtype in zip(inputs, input_dtypes(node), strict=True)
    ]


def cast_values(builder, node, inputs, dtype) -> list[Value]:
    """``inputs`` cast to ``dtype``, as values."""
    return [
        builder.value(name, dtype) for name in cast_all(builder, node, inputs, dtype)
    ]


def apply_in(builder, op_type, inputs, dtype, result_dtype, **attributes):
    """Run ``op_type`` on ``inputs`` (all ``dtype``) and return a ``result_dtype`` value.

    Dtypes without a kernel run in a wider dtype that holds all their values;
    casting the result back wraps exactly as NumPy's fixed-width arithmetic.
    """
    compute = widened_kernel_dtype(op_type, dtype, builder.opset)
    args = [builder.cast(name, dtype, compute) for name in inputs]
    result = builder.add(op_type, args, **attributes)
    return builder.cast(
        result, compute if result_dtype == dtype else result_dtype, result_dtype
    )


def computed_in(builder, function, inputs, dtype, compute_dtype):
    """``function`` of the values ``inputs`` (of ``dtype``), computed in
    ``compute_dtype`` and cast back to ``dtype``; the name of the result."""
    args = [builder.value(name, dtype).cast(compute_dtype) for name in inputs]
    return function(*args).cast(dtype).name


def constant_data(var):
    """The data of ``var`` if it is a ``Constant``, else None."""
    return var.data if isinstance(var, Constant) else None


def constant_orders(node) -> np.ndarray | None:
    """The constant first input (an order) of ``node``, or None if it varies.

    An order computed from constants alone, as gradients build them (``n +
    1``), counts as constant too.
    """
    orders = constant_data(node.inputs[0])
    if orders is None:
        try:
            orders = get_underlying_scalar_constant_value(node.inputs[0])
        except NotScalarConstantError:
            return None
    return np.asarray(orders)


def along_sort_axis(builder, node, inputs, sort_along, dtype) -> str:
    """``sort_along(axis)`` (a value name) for the axis input of a ``SortOp``
    or ``ArgSortOp`` node: a constant, or one chosen at run time."""
    x_var, axis_var = node.inputs
    ndim = x_var.type.ndim
    if isinstance(axis_var, Constant):
        return sort_along(normalize_axis_index(int(axis_var.data), ndim))
    axis = builder.value(inputs[1], axis_var.type.dtype).cast("int64")
    [result] = along_runtime_axis(
        axis, ndim, lambda k: [builder.value(sort_along(k), dtype)]
    )
    return result.name
