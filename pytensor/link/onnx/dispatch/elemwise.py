import functools

import numpy as np
import pytensor.scalar.basic as ps
import pytensor.tensor.special as special
from pytensor.graph.fg import FunctionGraph
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.type import tensor

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.lengths import (
    RUNTIME_BROADCASTING,
    require_equal_lengths,
    require_same_lengths,
)
from pytensor.link.onnx.passes.dense_layers import (
    DENSE_LAYER_PRODUCT_AT,
    GEMM_DTYPES,
)
from pytensor.link.onnx.passes.graphs import count_nodes


@onnx_funcify.register(Elemwise)
def onnx_funcify_Elemwise(op, node, builder, inputs, value_names=None, **kwargs):
    # ONNX elementwise operators broadcast like NumPy, so the scalar Op's
    # converter applies to whole tensors unchanged, once lengths of 1 that
    # are not typed broadcastable are ruled out.
    ndim = node.outputs[0].type.ndim
    require_same_lengths(
        builder, node.inputs, inputs, range(ndim), RUNTIME_BROADCASTING, value_names
    )
    outputs = onnx_funcify(op.scalar_op, node=node, builder=builder, inputs=inputs)
    for position in gemm_product_positions(node):
        builder.mark(DENSE_LAYER_PRODUCT_AT[position], outputs[0])
    return outputs


def gemm_product_positions(node) -> list[int]:
    """The positions of the inputs of the Elemwise ``node`` that ``Gemm``
    could compute, with the other input as its bias, if ``node`` adds two
    values of a ``Gemm`` dtype.

    Such an input is a matrix (the product, if a matrix product computes
    it), and the other input must not enlarge it, since ``Gemm`` only
    broadcasts its third input.
    """
    if not isinstance(node.op.scalar_op, ps.Add) or len(node.inputs) != 2:
        return []
    dtype = node.outputs[0].type.dtype
    if dtype not in GEMM_DTYPES or any(v.type.dtype != dtype for v in node.inputs):
        return []
    positions = []
    for position, (product, bias) in enumerate((node.inputs, node.inputs[::-1])):
        if product.type.ndim != 2 or bias.type.ndim > 2:
            continue
        bias_shape = (1,) * (2 - bias.type.ndim) + bias.type.shape
        if not any(
            p == 1 and b != 1
            for p, b in zip(product.type.shape, bias_shape, strict=True)
        ):
            positions.append(position)
    return positions


@functools.cache
def converted_size(op: Elemwise, input_dtypes: tuple[str, ...]) -> int:
    """The number of ONNX nodes converting one call of ``op`` on scalars of
    ``input_dtypes`` adds (0 if it cannot be converted)."""
    inputs = [tensor(dtype=dtype, shape=()) for dtype in input_dtypes]
    fgraph = FunctionGraph(inputs, op(*inputs, return_list=True), clone=False)
    try:
        converted = onnx_funcify(fgraph)
    except NotImplementedError:
        return 0
    return count_nodes(converted.model.graph)


@onnx_funcify.register(DimShuffle)
def onnx_funcify_DimShuffle(op, node, builder, inputs, **kwargs):
    [x] = inputs
    [x_var] = node.inputs
    unknown_dropped = [axis for axis in op.drop if x_var.type.shape[axis] is None]
    if unknown_dropped and builder.keep_checks:
        x_value = builder.value(x, x_var.type.dtype)
        require_equal_lengths(
            builder,
            {(x_value, None): [(axis, 1) for axis in unknown_dropped]},
            "cannot select an axis to squeeze out which has size not equal to one",
        )
    if op.drop:
        x = builder.add(
            "Squeeze", [x, builder.constant(op.drop, "int64")], hint="squeezed"
        )
    kept = sorted(op.shuffle)
    permutation = [kept.index(axis) for axis in op.shuffle]
    if permutation != sorted(permutation):
        x = builder.add("Transpose", [x], perm=permutation, hint="transposed")
    if op.augment:
        x = builder.add(
            "Unsqueeze", [x, builder.constant(op.augment, "int64")], hint="expanded"
        )
    return [x]


def softmax_axes(axis, ndim) -> tuple[int, ...]:
    """Normalize a softmax ``axis`` (``None``, an int or a tuple) to a tuple."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim for a in axis))


# PyTensor 2's LogSoftmax runs scipy.special.log_softmax; PyTensor 3's is the
# formula x - max - log(sum(exp(x - max))) (they differ where the max is inf)
LOG_SOFTMAX_IS_SCIPYS = "perform" in vars(special.LogSoftmax)


def softmax_of(op_type, axis, node, builder, inputs):
    """``Softmax`` or ``LogSoftmax`` of the single input over ``axis``."""
    [x] = inputs
    dtype = node.outputs[0].type.dtype
    if np.dtype(dtype).kind != "f":
        raise NotImplementedError(
            f"the {op_type} of integers typed {dtype} is not supported (PyTensor < 3 "
            "computes floats for it): cast the input to a float type first"
        )
    x = builder.cast(x, node.inputs[0].type.dtype, dtype)
    ndim = node.inputs[0].type.ndim
    axes = softmax_axes(axis, ndim)
    if not axes:
        # PyTensor simplifies x - max(x) = x - x to 0: constant 1 (log: 0)
        value = builder.constant(1 if op_type == "Softmax" else 0, dtype)
        shape = builder.add("Shape", [x], hint="shape")
        return builder.add("Expand", [value, shape], hint=op_type.lower())
    if axes == (ndim - 1,) and op_type == "Softmax":
        # onnxruntime's LogSoftmax mishandles NaN and inf along any axis (its
        # Softmax only along other axes than the last): NaN of a row gives
        # 46.05 elsewhere, [inf, 1] gives [nan, -inf] where NumPy's is NaN
        return builder.add(op_type, [x], axis=ndim - 1, hint=op_type.lower())
    axes = builder.constant(axes, "int64")
    maximum = builder.add("ReduceMax", [x, axes], keepdims=1, hint="max")
    if op_type == "LogSoftmax" and LOG_SOFTMAX_IS_SCIPYS:
        # scipy.special.log_softmax shifts by 0 where the maximum is infinite
        infinite = builder.add("IsInf", [maximum], hint="infinite_max")
        zero = builder.constant(0, dtype)
        maximum = builder.add("Where", [infinite, zero, maximum], hint="max")
    shifted = builder.add("Sub", [x, maximum], hint="shifted")
    exp = builder.add("Exp", [shifted], hint="exp")
    total = builder.add("ReduceSum", [exp, axes], keepdims=1, hint="total")
    if op_type == "Softmax":
        return builder.add("Div", [exp, total], hint="softmax")
    log_total = builder.add("Log", [total], hint="log_total")
    return builder.add("Sub", [shifted, log_total], hint="log_softmax")


@onnx_funcify.register(special.Softmax)
def onnx_funcify_Softmax(op, node, builder, inputs, **kwargs):
    return [softmax_of("Softmax", op.axis, node, builder, inputs)]


@onnx_funcify.register(special.LogSoftmax)
def onnx_funcify_LogSoftmax(op, node, builder, inputs, **kwargs):
    return [softmax_of("LogSoftmax", op.axis, node, builder, inputs)]


if hasattr(special, "SoftmaxGrad"):

    @onnx_funcify.register(special.SoftmaxGrad)
    def onnx_funcify_SoftmaxGrad(op, node, builder, inputs, **kwargs):
        dtype = node.outputs[0].type.dtype
        dy, sm = (
            builder.cast(name, var.type.dtype, dtype)
            for name, var in zip(inputs, node.inputs, strict=True)
        )
        axes = softmax_axes(op.axis, node.inputs[1].type.ndim)
        dy_sm = builder.add("Mul", [dy, sm], hint="dy_sm")
        total = builder.add(
            "ReduceSum",
            [dy_sm, builder.constant(axes, "int64")],
            keepdims=1,
            noop_with_empty_axes=1,
            hint="total",
        )
        weighted = builder.add("Mul", [total, sm], hint="weighted")
        return [builder.add("Sub", [dy_sm, weighted], hint="softmax_grad")]
