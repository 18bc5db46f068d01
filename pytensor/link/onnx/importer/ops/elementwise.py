"""Elementwise arithmetic, math functions and activations."""

import numpy as np
import pytensor.tensor as pt
from pytensor.tensor.math import erf

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import (
    as_dtype,
    broadcast,
    broadcasting,
    like,
)


def is_integer(x):
    return x.dtype.startswith(("int", "uint"))


def same_dtype(fn):
    def handler(node, x, y):
        return as_dtype(broadcasting(fn)(x, y), x.dtype)

    return handler


onnx_op("Add")(same_dtype(pt.add))
onnx_op("Sub")(same_dtype(pt.sub))
onnx_op("Mul")(same_dtype(pt.mul))


@onnx_op("Div")
def div(node, x, y):
    x, y = broadcast(x, y)
    if is_integer(x):
        return truncated_div(x, y)
    return as_dtype(pt.true_div(x, y), x.dtype)


def truncated_div(x, y):
    floor = pt.int_div(x, y)
    inexact = pt.neq(floor * y, x)
    signs_differ = pt.neq(pt.lt(x, 0), pt.lt(y, 0))
    return as_dtype(
        pt.switch(inexact & signs_differ, floor + like(1, floor), floor), x.dtype
    )


@onnx_op("Mod")
def mod(node, x, y):
    x, y = broadcast(x, y)
    if node.attr("fmod", 0) == 0:
        return as_dtype(pt.mod(x, y), x.dtype)
    if is_integer(x):
        return as_dtype(x - truncated_div(x, y) * y, x.dtype)
    return as_dtype(x - pt.trunc(x / y) * y, x.dtype)


@onnx_op("Pow")
def power(node, x, y):
    x, y = broadcast(x, y)
    if is_integer(x) and not is_integer(y):
        return as_dtype(pt.pow(as_dtype(x, "float64"), y), x.dtype)
    return as_dtype(pt.pow(x, as_dtype(y, x.dtype) if is_integer(y) else y), x.dtype)


UNARY = {
    "Neg": pt.neg,
    "Abs": pt.abs,
    "Floor": pt.floor,
    "Ceil": pt.ceil,
    "Sqrt": pt.sqrt,
    "Exp": pt.exp,
    "Log": pt.log,
    "Sin": pt.sin,
    "Cos": pt.cos,
    "Tan": pt.tan,
    "Asin": pt.arcsin,
    "Acos": pt.arccos,
    "Atan": pt.arctan,
    "Sinh": pt.sinh,
    "Cosh": pt.cosh,
    "Tanh": pt.tanh,
    "Asinh": pt.arcsinh,
    "Acosh": pt.arccosh,
    "Atanh": pt.arctanh,
    "Erf": erf,
    "Sign": pt.sign,
    "Sigmoid": pt.sigmoid,
    "Softplus": pt.softplus,
    "BitwiseNot": pt.bitwise_not,
}

for op_type, function in UNARY.items():
    onnx_op(op_type)(lambda node, x, function=function: as_dtype(function(x), x.dtype))


@onnx_op("Identity")
def identity(node, x):
    """``x`` itself, a tensor or a sequence."""
    return x


@onnx_op("Round")
def round_half_even(node, x):
    return pt.round(x, mode="half_to_even")


@onnx_op("Reciprocal")
def reciprocal(node, x):
    return like(1, x) / x


@onnx_op("Relu")
def relu(node, x):
    return pt.maximum(x, like(0, x))


@onnx_op("LeakyRelu")
def leaky_relu(node, x):
    return pt.switch(x < like(0, x), x * like(node.attr("alpha", 0.01), x), x)


@onnx_op("PRelu")
def prelu(node, x, slope):
    x, slope = broadcast(x, slope)
    return pt.switch(x < like(0, x), x * slope, x)


@onnx_op("Elu")
def elu(node, x):
    alpha = like(node.attr("alpha", 1.0), x)
    return pt.switch(x < like(0, x), alpha * pt.expm1(x), x)


@onnx_op("Celu")
def celu(node, x):
    alpha = like(node.attr("alpha", 1.0), x)
    return pt.maximum(x, like(0, x)) + pt.minimum(
        like(0, x), alpha * pt.expm1(x / alpha)
    )


@onnx_op("Selu")
def selu(node, x):
    alpha = like(node.attr("alpha", 1.67326319217681884765625), x)
    gamma = like(node.attr("gamma", 1.05070102214813232421875), x)
    return gamma * pt.switch(x <= like(0, x), alpha * pt.expm1(x), x)


@onnx_op("ThresholdedRelu")
def thresholded_relu(node, x):
    return pt.switch(x > like(node.attr("alpha", 1.0), x), x, like(0, x))


@onnx_op("HardSigmoid")
def hard_sigmoid(node, x):
    alpha, beta = like(node.attr("alpha", 0.2), x), like(node.attr("beta", 0.5), x)
    return pt.clip(alpha * x + beta, like(0, x), like(1, x))


@onnx_op("HardSwish")
def hard_swish(node, x):
    return x * pt.clip(x / like(6, x) + like(0.5, x), like(0, x), like(1, x))


@onnx_op("Softsign")
def softsign(node, x):
    return x / (like(1, x) + pt.abs(x))


@onnx_op("Mish")
def mish(node, x):
    return x * pt.tanh(pt.softplus(x))


@onnx_op("Swish")
def swish(node, x):
    return x * pt.sigmoid(like(node.attr("alpha", 1.0), x) * x)


@onnx_op("Gelu")
def gelu(node, x):
    if node.attr("approximate", "none") == "tanh":
        inner = like(np.sqrt(2 / np.pi), x) * (x + like(0.044715, x) * x**3)
        return like(0.5, x) * x * (like(1, x) + pt.tanh(inner))
    return like(0.5, x) * x * (like(1, x) + erf(x / like(np.sqrt(2), x)))


@onnx_op("Shrink")
def shrink(node, x):
    bias, lambd = like(node.attr("bias", 0.0), x), like(node.attr("lambd", 0.5), x)
    return pt.switch(x < -lambd, x + bias, pt.switch(x > lambd, x - bias, like(0, x)))


@onnx_op("Clip", until=10)
def clip_attributes(node, x):
    low = like(node.attr("min", -np.inf), x)
    high = like(node.attr("max", np.inf), x)
    return pt.minimum(pt.maximum(x, low), high)


@onnx_op("Clip", since=11)
def clip(node, x, low=None, high=None):
    if low is not None:
        x = pt.maximum(x, low)
    return x if high is None else pt.minimum(x, high)


def variadic(function):
    def handler(node, *inputs):
        inputs = broadcast(*inputs)
        result = inputs[0]
        for x in inputs[1:]:
            result = function(result, x)
        return as_dtype(result, inputs[0].dtype)

    return handler


onnx_op("Max")(variadic(pt.maximum))
onnx_op("Min")(variadic(pt.minimum))
onnx_op("Sum")(variadic(pt.add))


@onnx_op("Mean")
def mean(node, *inputs):
    return variadic(pt.add)(node, *inputs) / like(len(inputs), inputs[0])


@onnx_op("IsNaN")
def isnan(node, x):
    return pt.isnan(x)


@onnx_op("IsInf")
def isinf(node, x):
    result = pt.zeros_like(x, dtype="bool")
    if node.attr("detect_positive", 1):
        result = result | pt.eq(x, like(np.inf, x))
    if node.attr("detect_negative", 1):
        result = result | pt.eq(x, like(-np.inf, x))
    return result


def wrapped(value, dtype):
    """The 64-bit integer ``value`` reduced modulo 2**bits into the integer ``dtype``."""
    bits = np.iinfo(dtype).bits
    if bits == 64:
        return as_dtype(value, dtype)
    mask = pt.constant(np.asarray(2**bits - 1, dtype=value.dtype))
    low = as_dtype(pt.bitwise_and(value, mask), "int64")
    if dtype.startswith("int"):
        low = pt.switch(low >= 2 ** (bits - 1), low - 2**bits, low)
    return as_dtype(low, dtype)


@onnx_op("BitShift")
def bit_shift(node, x, y):
    x, y = broadcast(x, y)
    bits = np.iinfo(x.dtype).bits
    wide = "uint64" if x.dtype.startswith("uint") else "int64"
    shift = as_dtype(pt.clip(as_dtype(y, "int64"), 0, bits - 1), "uint64")
    factor = pt.pow(pt.constant(np.asarray(2, dtype="uint64")), shift)
    in_range = (as_dtype(y, "int64") >= 0) & (as_dtype(y, "int64") < bits)
    if node.attr("direction") == "LEFT":
        product = as_dtype(x, wide) * as_dtype(factor, wide)
        return pt.switch(in_range, wrapped(product, x.dtype), like(0, x))
    shifted = as_dtype(pt.int_div(as_dtype(x, wide), as_dtype(factor, wide)), x.dtype)
    outside = (
        pt.switch(x < like(0, x), like(-1, x), like(0, x))
        if wide == "int64"
        else like(0, x)
    )
    return pt.switch(in_range, shifted, outside)


onnx_op("BitwiseAnd")(same_dtype(pt.bitwise_and))
onnx_op("BitwiseOr")(same_dtype(pt.bitwise_or))
onnx_op("BitwiseXor")(same_dtype(pt.bitwise_xor))
