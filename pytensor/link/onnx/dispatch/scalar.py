"""Converters for scalar Ops, applied elementwise to tensors.

A scalar handler receives either an ``Elemwise`` node (tensor inputs) or a
node of a ``Composite``'s inner graph (scalar inputs); both carry the dtypes
through ``node.inputs[i].type.dtype`` and ``node.outputs[i].type.dtype``.
"""

import numpy as np
import pytensor.scalar.basic as ps

from pytensor.link.onnx.dispatch.basic import onnx_funcify


# Data types for which onnxruntime's CPU provider has a kernel, for the ONNX
# operators whose coverage has gaps (measured on onnxruntime 1.31.1).
ORT_CPU_KERNEL_DTYPES = {
    "Max": {
        "int8",
        "int32",
        "int64",
        "uint8",
        "uint32",
        "uint64",
        "float32",
        "float64",
    },
    "Min": {
        "int8",
        "int32",
        "int64",
        "uint8",
        "uint32",
        "uint64",
        "float32",
        "float64",
    },
    "Pow": {"int32", "int64", "float32", "float64"},
    "Neg": {"int8", "int16", "int32", "int64", "float32", "float64"},
}
WIDER_INT = {"int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}


def kernel_dtype(op_type: str, dtype: str) -> str:
    """The dtype in which to run ``op_type`` on ``dtype`` values in onnxruntime.

    Integers without a kernel run in a wider integer type; the result is cast
    back, which wraps exactly as NumPy's fixed-width arithmetic does.
    """
    supported = ORT_CPU_KERNEL_DTYPES.get(op_type)
    if supported is None or dtype in supported:
        return dtype
    if dtype in WIDER_INT and WIDER_INT[dtype] in supported:
        return WIDER_INT[dtype]
    if np.dtype(dtype).kind in "iub" and "int64" in supported:
        return "int64"
    raise NotImplementedError(f"onnxruntime has no {op_type} kernel for {dtype}")


def input_dtypes(node):
    return [inp.type.dtype for inp in node.inputs]


def output_dtype(node):
    return node.outputs[0].type.dtype


def cast_all(builder, node, inputs, dtype):
    return [
        builder.cast(name, from_dtype, dtype)
        for name, from_dtype in zip(inputs, input_dtypes(node), strict=True)
    ]


def apply_in(builder, op_type, inputs, dtype, result_dtype, **attributes):
    """Run ``op_type`` on ``inputs`` (all ``dtype``) and return a ``result_dtype`` value."""
    compute = kernel_dtype(op_type, dtype)
    args = [builder.cast(name, dtype, compute) for name in inputs]
    result = builder.add(op_type, args, **attributes)
    return builder.cast(
        result, compute if result_dtype == dtype else result_dtype, result_dtype
    )


def variadic(builder, op_type, inputs):
    result, *rest = inputs
    for other in rest:
        result = builder.add(op_type, [result, other])
    return result


ARITHMETIC = {ps.Add: "Add", ps.Mul: "Mul", ps.Sub: "Sub"}
BOOL_ARITHMETIC = {ps.Add: "Or", ps.Mul: "And"}


@onnx_funcify.register(ps.Add)
@onnx_funcify.register(ps.Mul)
@onnx_funcify.register(ps.Sub)
def onnx_funcify_arithmetic(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    args = cast_all(builder, node, inputs, dtype)
    if dtype == "bool" and type(op) in BOOL_ARITHMETIC:
        return [variadic(builder, BOOL_ARITHMETIC[type(op)], args)]
    return [variadic(builder, ARITHMETIC[type(op)], args)]


@onnx_funcify.register(ps.TrueDiv)
def onnx_funcify_TrueDiv(op, node, builder, inputs, **kwargs):
    return [builder.add("Div", cast_all(builder, node, inputs, output_dtype(node)))]


@onnx_funcify.register(ps.Identity)
def onnx_funcify_Identity(op, node, builder, inputs, **kwargs):
    return [builder.cast(inputs[0], input_dtypes(node)[0], output_dtype(node))]


@onnx_funcify.register(ps.Cast)
def onnx_funcify_Cast(op, node, builder, inputs, **kwargs):
    return [builder.cast(inputs[0], input_dtypes(node)[0], output_dtype(node))]


@onnx_funcify.register(ps.Exp)
@onnx_funcify.register(ps.Log)
def onnx_funcify_float_unary(op, node, builder, inputs, **kwargs):
    op_type = {ps.Exp: "Exp", ps.Log: "Log"}[type(op)]
    [x] = cast_all(builder, node, inputs, output_dtype(node))
    return [builder.add(op_type, [x])]
