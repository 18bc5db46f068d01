"""Converters for scalar Ops, applied elementwise to tensors.

A scalar handler receives either an ``Elemwise`` node (tensor inputs) or a
node of a ``Composite``'s inner graph (scalar inputs); both carry the dtypes
through ``node.inputs[i].type.dtype`` and ``node.outputs[i].type.dtype``.
Every handler's result broadcasts over all of its inputs, like NumPy.
"""

import functools

import numpy as np
import pytensor.scalar.basic as ps

from pytensor.link.onnx.dispatch.basic import onnx_funcify, register_all
from pytensor.link.onnx.dispatch.operands import (
    apply_in,
    cast_all,
    cast_values,
    constant_data,
    input_dtypes,
    output_dtype,
)
from pytensor.link.onnx.kernels import WRONG_RESULTS
from pytensor.link.onnx.numerics.division import (
    float_floor_divide,
    float_remainder,
    integer_floor_divide,
    integer_remainder,
)
from pytensor.link.onnx.numerics.integer import (
    compare_signed_with_uint64,
    integer_power,
)
from pytensor.link.onnx.numerics.logarithm import log_base
from pytensor.link.onnx.numerics.rounding import round_half_away_from_zero, trunc
from pytensor.link.onnx.value import Value, maximum, minimum, where


def variadic(builder, op_type, inputs):
    """Fold ``inputs`` left to right with the binary ``op_type``."""
    result, *rest = inputs
    for other in rest:
        result = builder.add(op_type, [result, other])
    return result


ARITHMETIC = {ps.Add: "Add", ps.Mul: "Mul", ps.Sub: "Sub"}
BOOL_ARITHMETIC = {ps.Add: "Or", ps.Mul: "And", ps.Maximum: "Or", ps.Minimum: "And"}


@register_all(ARITHMETIC)
def onnx_funcify_arithmetic(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    args = cast_all(builder, node, inputs, dtype)
    if dtype == "bool" and type(op) in BOOL_ARITHMETIC:
        return [variadic(builder, BOOL_ARITHMETIC[type(op)], args)]
    return [variadic(builder, ARITHMETIC[type(op)], args)]


EXTREMUM = {ps.Maximum: "Max", ps.Minimum: "Min"}


@register_all(EXTREMUM)
def onnx_funcify_extremum(op, node, builder, inputs, **kwargs):
    # onnxruntime's Max and Min propagate NaN like np.maximum and np.minimum
    dtype, op_type = output_dtype(node), EXTREMUM[type(op)]
    args = cast_all(builder, node, inputs, dtype)
    if dtype == "bool":
        return [variadic(builder, BOOL_ARITHMETIC[type(op)], args)]
    if (op_type, dtype) in WRONG_RESULTS:
        extremum = maximum if op_type == "Max" else minimum
        return [
            functools.reduce(extremum, cast_values(builder, node, inputs, dtype)).name
        ]
    if op_type == "Max" and (rectified := rectified_input(node)) is not None:
        return [builder.add("Relu", [args[rectified]])]
    return [apply_in(builder, op_type, args, dtype, dtype)]


def rectified_input(node) -> int | None:
    """The position of ``x`` if the float ``node`` is ``maximum(x, 0)``, else None.

    ``Relu`` returns ``maximum(x, 0)`` but for the sign of a zero: -0.0 for
    -0.0, as the Numba backend does (NumPy and the C backend return 0.0).
    Runtimes fuse ``Relu`` with a preceding ``Conv`` or ``Gemm``.
    """
    dtype = output_dtype(node)
    if dtype not in ("float32", "float64") or len(node.inputs) != 2:
        return None
    for position, (x, zero) in enumerate((node.inputs, node.inputs[::-1])):
        data = constant_data(zero)
        if (
            data is not None
            and x.type.dtype == dtype
            and np.ndim(data) <= x.type.ndim
            and all(length == 1 for length in np.shape(data))
            and not np.any(data)
        ):
            return position
    return None


@onnx_funcify.register(ps.TrueDiv)
def onnx_funcify_TrueDiv(op, node, builder, inputs, **kwargs):
    return [builder.add("Div", cast_all(builder, node, inputs, output_dtype(node)))]


@onnx_funcify.register(ps.Neg)
def onnx_funcify_Neg(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_values(builder, node, inputs, dtype)
    return [(0 - x if np.dtype(dtype).kind == "u" else -x).name]


@onnx_funcify.register(ps.Abs)
def onnx_funcify_Abs(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_values(builder, node, inputs, dtype)
    return [(x if dtype == "bool" else abs(x)).name]


@onnx_funcify.register(ps.Sqr)
def onnx_funcify_Sqr(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_values(builder, node, inputs, dtype)
    return [(x if dtype == "bool" else x * x).name]


@onnx_funcify.register(ps.Identity)
@onnx_funcify.register(ps.Cast)
def onnx_funcify_Cast(op, node, builder, inputs, **kwargs):
    return [builder.cast(inputs[0], input_dtypes(node)[0], output_dtype(node))]


UNARY = {
    ps.Exp: "Exp",
    ps.Log: "Log",
    ps.Sqrt: "Sqrt",
    ps.Reciprocal: "Reciprocal",
    ps.Tanh: "Tanh",
    ps.Sign: "Sign",
    ps.RoundHalfToEven: "Round",
}


# Whose float32 kernels are 3 (Log) and 4 ulp (Tanh, whose results exceed 1
# in magnitude near 8.44) from the correctly rounded results: float32 values
# are computed by the float64 kernel and rounded once
ROUNDED_FROM_FLOAT64 = {ps.Log, ps.Tanh}


@register_all(UNARY)
def onnx_funcify_unary(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_all(builder, node, inputs, dtype)
    if type(op) in ROUNDED_FROM_FLOAT64 and dtype in ("float32", "float16"):
        x = builder.value(x, dtype).cast("float64")
        return [x.apply(UNARY[type(op)], x).cast(dtype).name]
    return [builder.add(UNARY[type(op)], [x])]


@onnx_funcify.register(ps.Exp2)
def onnx_funcify_Exp2(op, node, builder, inputs, **kwargs):
    [x] = cast_values(builder, node, inputs, output_dtype(node))
    return [(x.constant(2) ** x).name]


LOG_BASES = {ps.Log2: 2, ps.Log10: 10}


@register_all(LOG_BASES)
def onnx_funcify_log_base(op, node, builder, inputs, **kwargs):
    [x] = cast_values(builder, node, inputs, output_dtype(node))
    return [log_base(x, LOG_BASES[type(op)]).name]


@onnx_funcify.register(ps.Deg2Rad)
@onnx_funcify.register(ps.Rad2Deg)
def onnx_funcify_angle_conversion(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_values(builder, node, inputs, dtype)
    pi, half_turn = np.asarray(np.pi, dtype), np.asarray(180, dtype)
    # NumPy multiplies by the ratio of pi and 180 rounded to the dtype
    factor = pi / half_turn if isinstance(op, ps.Deg2Rad) else half_turn / pi
    return [(x * factor).name]


ROUNDING = {
    ps.Floor: Value.floor,
    ps.Ceil: Value.ceil,
    ps.Trunc: trunc,
    ps.RoundHalfAwayFromZero: round_half_away_from_zero,
}


@register_all(ROUNDING)
def onnx_funcify_rounding(op, node, builder, inputs, **kwargs):
    [x] = cast_values(builder, node, inputs, output_dtype(node))
    if np.dtype(input_dtypes(node)[0]).kind != "f":
        return [x.name]
    return [ROUNDING[type(op)](x).name]


def exponent_bits(exponent_var):
    """How many low bits of an integer exponent can be set."""
    data = constant_data(exponent_var)
    if data is not None:
        return int(max(np.max(data, initial=0), 0)).bit_length()
    dtype = np.dtype(exponent_var.type.dtype)
    return 1 if dtype.kind == "b" else dtype.itemsize * 8 - (dtype.kind == "i")


@onnx_funcify.register(ps.Pow)
def onnx_funcify_Pow(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    if np.dtype(dtype).kind == "f":
        return [builder.add("Pow", cast_all(builder, node, inputs, dtype))]
    base, exponent = cast_values(builder, node, inputs, "int64")
    if np.dtype(node.inputs[1].type.dtype).kind == "i" and not is_non_negative(
        node.inputs[1]
    ):
        builder.require(
            exponent >= 0,
            ValueError,
            "Integers to negative integer powers are not allowed.",
        )
    power = integer_power(base, exponent, exponent_bits(node.inputs[1]))
    return [power.cast(dtype).name]


def is_non_negative(var) -> bool:
    """Whether ``var`` is a constant without negative values."""
    data = constant_data(var)
    return data is not None and not (np.asarray(data) < 0).any()


def is_safe_divisor(var) -> bool:
    """Whether ``var`` is a constant without 0 or -1, so needs no guards."""
    data = constant_data(var)
    return data is not None and not np.isin(data, (0, -1)).any()


DIVISION = {
    ps.IntDiv: (integer_floor_divide, float_floor_divide),
    ps.Mod: (integer_remainder, float_remainder),
}


@register_all(DIVISION)
def onnx_funcify_division(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    for_integers, for_floats = DIVISION[type(op)]
    if np.dtype(dtype).kind == "f":
        return [for_floats(*cast_values(builder, node, inputs, dtype)).name]
    compute = "int8" if dtype == "bool" else dtype
    x, y = cast_values(builder, node, inputs, compute)
    return [for_integers(x, y, is_safe_divisor(node.inputs[1])).cast(dtype).name]


COMPARISONS = {
    ps.LT: "Less",
    ps.GT: "Greater",
    ps.LE: "LessOrEqual",
    ps.GE: "GreaterOrEqual",
    ps.EQ: "Equal",
    ps.NEQ: "Equal",
}


@register_all(COMPARISONS)
def onnx_funcify_comparison(op, node, builder, inputs, **kwargs):
    op_type = COMPARISONS[type(op)]
    x_dtype, y_dtype = input_dtypes(node)
    kinds = {np.dtype(x_dtype).kind, np.dtype(y_dtype).kind}
    if kinds == {"i", "u"} and "uint64" in (x_dtype, y_dtype):
        x, y = map(builder.value, inputs, (x_dtype, y_dtype))
        result = compare_signed_with_uint64(op_type, x, y).name
    else:
        dtype = ps.upcast(x_dtype, y_dtype)
        x, y = cast_values(builder, node, inputs, dtype)
        result = x.compare(op_type, y).name
    if isinstance(op, ps.NEQ):
        return [builder.add("Not", [result])]
    return [result]


@onnx_funcify.register(ps.IsNan)
@onnx_funcify.register(ps.IsInf)
def onnx_funcify_float_class(op, node, builder, inputs, **kwargs):
    x = builder.value(inputs[0], input_dtypes(node)[0])
    if np.dtype(x.dtype).kind != "f":
        return [x.constant(False, "bool").expand(x.shape()).name]
    return [(x.isnan() if isinstance(op, ps.IsNan) else x.isinf()).name]


BITWISE = {
    ps.AND: ("And", "BitwiseAnd"),
    ps.OR: ("Or", "BitwiseOr"),
    ps.XOR: ("Xor", "BitwiseXor"),
    ps.Invert: ("Not", "BitwiseNot"),
}


@register_all(BITWISE)
def onnx_funcify_bitwise(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    if np.dtype(dtype).kind == "f":
        raise NotImplementedError(
            f"bitwise {type(op).__name__} of {' and '.join(input_dtypes(node))} "
            f"has the float result dtype {dtype}; NumPy rejects it too. Cast the "
            "inputs to a common integer dtype first."
        )
    logical, bitwise = BITWISE[type(op)]
    args = cast_all(builder, node, inputs, dtype)
    return [builder.add(logical if dtype == "bool" else bitwise, args)]


@onnx_funcify.register(ps.Switch)
def onnx_funcify_Switch(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    condition, if_true, if_false = map(builder.value, inputs, input_dtypes(node))
    return [
        where(condition.cast("bool"), if_true.cast(dtype), if_false.cast(dtype)).name
    ]


@onnx_funcify.register(ps.Clip)
def onnx_funcify_Clip(op, node, builder, inputs, **kwargs):
    # PyTensor's Clip is `lower if x < lower else upper if x > upper else x`:
    # NaN bounds are ignored and lower wins when lower > upper.
    dtype = output_dtype(node)
    x, lower, upper = cast_values(builder, node, inputs, dtype)
    return [where(x < lower, lower, where(x > upper, upper, x)).name]


@onnx_funcify.register(ps.Second)
def onnx_funcify_Second(op, node, builder, inputs, **kwargs):
    x, y = inputs
    y = builder.value(y, input_dtypes(node)[1]).cast(output_dtype(node))
    return [y.expand(builder.value(x, input_dtypes(node)[0]).shape()).name]
