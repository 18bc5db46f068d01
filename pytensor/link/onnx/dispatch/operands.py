"""A node's operands as converters read them: their dtypes, their constant
values, whether they can hold NaN, and casts to the dtype an operation
computes in.

Shared by the converter modules, which import nothing from each other.
"""

import numpy as np
import pytensor.scalar.basic as ps
from numpy.lib.array_utils import normalize_axis_index
from pytensor.graph.basic import Constant
from pytensor.tensor.basic import Alloc, Join, get_underlying_scalar_constant_value
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.exceptions import NotScalarConstantError
from pytensor.tensor.shape import Reshape, SpecifyShape
from pytensor.tensor.subtensor import (
    AdvancedSubtensor,
    AdvancedSubtensor1,
    Subtensor,
)

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


# Elementwise Ops whose result is NaN only where an operand is
NAN_FREE_OF_NAN_FREE = (
    *(ps.Neg, ps.Abs, ps.Exp, ps.Maximum, ps.Minimum),
    *(ps.Cast, ps.Identity, ps.Switch),
)
# Ops whose result holds only elements of their first input
ELEMENTS_OF_FIRST_INPUT = (
    *(DimShuffle, Reshape, SpecifyShape, Alloc),
    *(Subtensor, AdvancedSubtensor1, AdvancedSubtensor),
)
MAX_NAN_TRACED_NODES = 32


def cannot_hold_nan(var) -> bool:
    """Whether ``var`` holds no NaN, whatever the inputs of the graph.

    True for integer and boolean values, constants without NaN, what
    `NAN_FREE_OF_NAN_FREE`, `ELEMENTS_OF_FIRST_INPUT` and ``Join`` make of
    NaN-free operands, and ``where(isnan(x), a, f(x))`` or ``where(~isnan(x),
    f(x), a)`` with ``a`` NaN-free and ``f`` elementwise Ops of
    `NAN_FREE_OF_NAN_FREE` (``f(x)`` is NaN-free where ``x`` is not NaN).
    False where unsure: arithmetic (``inf - inf``, ``0 * inf``, ``log(-1)``)
    makes NaN of numbers.
    """
    known = {}

    def nan_free(v, not_nan=None, depth=0):
        """Whether ``v`` holds no NaN where ``not_nan``, read at the same
        positions by elementwise Ops, holds none."""
        key = v, not_nan
        if key not in known:
            known[key] = v is not_nan or (
                depth < MAX_NAN_TRACED_NODES
                and nan_free_by_rules(
                    v, lambda u, given=not_nan: nan_free(u, given, depth + 1)
                )
            )
        return known[key]

    return nan_free(var)


def nan_free_by_rules(var, nan_free) -> bool:
    """`cannot_hold_nan`'s rules for ``var``, given ``nan_free(operand,
    given=...)`` for its operands (by default under the assumption made of
    ``var``, which only elementwise Ops pass on)."""
    kind = np.dtype(getattr(var.type, "dtype", "object")).kind
    if kind in "biu":
        return True
    if kind != "f":
        return False
    if isinstance(var, Constant):
        return not np.isnan(var.data).any()
    if var.owner is None:
        return False
    op, inputs = var.owner.op, var.owner.inputs
    if isinstance(op, Elemwise):
        if isinstance(op.scalar_op, ps.Switch) and replaces_nan(*inputs, nan_free):
            return True
        return isinstance(op.scalar_op, NAN_FREE_OF_NAN_FREE) and all(
            map(nan_free, inputs)
        )
    if isinstance(op, ELEMENTS_OF_FIRST_INPUT):
        return nan_free(inputs[0], given=None)
    return isinstance(op, Join) and all(nan_free(v, given=None) for v in inputs)


def elemwise_of(var, scalar_op_type) -> bool:
    owner = var.owner
    return (
        owner is not None
        and isinstance(owner.op, Elemwise)
        and isinstance(owner.op.scalar_op, scalar_op_type)
    )


def replaces_nan(condition, if_true, if_false, nan_free) -> bool:
    """Whether ``where(condition, if_true, if_false)`` is ``where(isnan(x), a,
    b)`` or ``where(~isnan(x), b, a)``, with ``a`` NaN-free and ``b`` NaN-free
    where ``x`` is not NaN."""
    if elemwise_of(condition, ps.Invert):
        [condition] = condition.owner.inputs
        if_true, if_false = if_false, if_true
    if not elemwise_of(condition, ps.IsNan):
        return False
    [checked] = condition.owner.inputs
    return nan_free(if_true) and nan_free(if_false, given=checked)
