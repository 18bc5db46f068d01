"""Converters for sorting: ``SortOp`` and ``ArgSortOp``.

Both go through `~pytensor.link.onnx.numerics.sorting.stable_argsort`, which
is ``numpy.argsort(kind="stable")``.
"""

import numpy as np
from pytensor.tensor.sort import ArgSortOp, SortOp

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.lengths import dim_size
from pytensor.link.onnx.dispatch.operands import along_sort_axis
from pytensor.link.onnx.numerics.sorting import sort_key, stable_argsort


@onnx_funcify.register(ArgSortOp)
def onnx_funcify_ArgSortOp(op, node, builder, inputs, **kwargs):
    # Ties keep their order whatever the kind: NumPy's quicksort leaves the
    # order of ties unspecified, so the stable order is also correct for it.
    x, _ = inputs
    dtype = node.inputs[0].type.dtype

    def argsort_along(axis):
        return stable_argsort(builder, x, dtype, axis)

    return [along_sort_axis(builder, node, inputs, argsort_along, "int64")]


def sorted_floats(builder, x, dtype, axis):
    """``numpy.sort`` of floats: sort with NaN as +inf, then put the NaN back last.

    Faster than gathering with `stable_argsort`, which sorts twice for floats.
    """
    is_nan = builder.add("IsNaN", [x])
    length = dim_size(builder, x, axis)
    values, _ = builder.add_multi(
        "TopK",
        [sort_key(builder, x, dtype), length],
        n_outputs=2,
        axis=axis,
        largest=0,
        sorted=1,
    )
    n_nan = builder.add(
        "ReduceSum",
        [builder.cast(is_nan, "bool", "int64"), builder.constant([axis], "int64")],
        keepdims=1,
    )
    ones = builder.add(
        "Expand", [builder.constant(1, "int64"), builder.add("Shape", [x])]
    )
    position = builder.add("CumSum", [ones, builder.constant(axis, "int64")])
    is_tail = builder.add("Greater", [builder.add("Add", [position, n_nan]), length])
    nan = builder.constant(np.nan, dtype)
    return builder.add("Where", [is_tail, nan, values], hint="sorted")


@onnx_funcify.register(SortOp)
def onnx_funcify_SortOp(op, node, builder, inputs, **kwargs):
    x, _ = inputs
    dtype = node.inputs[0].type.dtype

    def sort_along(axis):
        if np.dtype(dtype).kind == "f":
            return sorted_floats(builder, x, dtype, axis)
        order = stable_argsort(builder, x, dtype, axis)
        return builder.add("GatherElements", [x, order], axis=axis, hint="sorted")

    return [along_sort_axis(builder, node, inputs, sort_along, dtype)]
