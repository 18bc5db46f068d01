"""Converters for scalar Ops, applied elementwise to tensors.

A scalar handler receives either an ``Elemwise`` node (tensor inputs) or a
node of a ``Composite``'s inner graph (scalar inputs); both carry the dtypes
through ``node.inputs[i].type.dtype`` and ``node.outputs[i].type.dtype``.
Every handler's result broadcasts over all of its inputs, like NumPy.
"""

import numpy as np
import pytensor.scalar.basic as ps
from pytensor.graph.basic import Constant

from pytensor.link.onnx.dispatch.basic import onnx_funcify


# Data types for which onnxruntime's CPU provider has a kernel, for the ONNX
# operators whose coverage has gaps (measured on onnxruntime 1.31.1).
MAX_MIN_DTYPES = frozenset(
    ("int8", "int32", "int64", "uint8", "uint32", "uint64", "float32", "float64")
)
ORT_CPU_KERNEL_DTYPES = {"Max": MAX_MIN_DTYPES, "Min": MAX_MIN_DTYPES}
# Wider dtypes holding every value of the key dtype, in order of preference.
WIDER_DTYPES = {
    "bool": ("uint8", "int32", "int64"),
    "int8": ("int16", "int32", "int64"),
    "int16": ("int32", "int64"),
    "uint8": ("uint16", "uint32", "int32", "int64"),
    "uint16": ("uint32", "int32", "int64"),
    "uint32": ("uint64", "int64"),
}
# ``Where`` only moves values, so a same-width dtype with a kernel also works.
WHERE_KERNEL_DTYPE = {
    "bool": "uint8",
    "int16": "int32",
    "uint16": "uint32",
    "uint64": "int64",
}


def kernel_dtype(op_type: str, dtype: str) -> str:
    """The dtype in which to run ``op_type`` on ``dtype`` values in onnxruntime.

    Dtypes without a kernel run in a wider dtype that holds all their values;
    casting the result back wraps exactly as NumPy's fixed-width arithmetic.
    """
    supported = ORT_CPU_KERNEL_DTYPES.get(op_type)
    if supported is None or dtype in supported:
        return dtype
    for wider in WIDER_DTYPES.get(dtype, ()):
        if wider in supported:
            return wider
    raise NotImplementedError(f"onnxruntime has no {op_type} kernel for {dtype}")


def input_dtypes(node):
    """The dtypes of ``node``'s inputs."""
    return [inp.type.dtype for inp in node.inputs]


def output_dtype(node):
    """The dtype of ``node``'s (first) output."""
    return node.outputs[0].type.dtype


def cast_all(builder, node, inputs, dtype):
    """``inputs`` (the values of ``node.inputs``) cast to ``dtype``."""
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
    """Fold ``inputs`` left to right with the binary ``op_type``."""
    result, *rest = inputs
    for other in rest:
        result = builder.add(op_type, [result, other])
    return result


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def is_signed_int(dtype) -> bool:
    return np.dtype(dtype).kind == "i"


def where(builder, condition, if_true, if_false, dtype):
    """``Where`` on two ``dtype`` values, including dtypes without a kernel."""
    compute = WHERE_KERNEL_DTYPE.get(dtype, dtype)
    result = builder.add(
        "Where",
        [
            condition,
            builder.cast(if_true, dtype, compute),
            builder.cast(if_false, dtype, compute),
        ],
    )
    return builder.cast(result, compute, dtype)


def compare(builder, op_type, x, y, dtype):
    """Compare two ``dtype`` values with the ONNX comparison ``op_type``."""
    if dtype == "bool" and op_type != "Equal":
        x, y = (builder.cast(name, "bool", "uint8") for name in (x, y))
    return builder.add(op_type, [x, y])


def full_like(builder, like, value, dtype):
    """A ``dtype`` tensor of ``value`` with the shape of ``like``."""
    shape = builder.add("Shape", [like])
    return builder.add("Expand", [builder.constant(value, dtype), shape])


def is_zero(builder, x, dtype):
    return builder.add("Equal", [x, builder.constant(0, dtype)])


def is_negative(builder, x, dtype):
    return builder.add("Less", [x, builder.constant(0, dtype)])


def constant_data(var):
    return var.data if isinstance(var, Constant) else None


ARITHMETIC = {ps.Add: "Add", ps.Mul: "Mul", ps.Sub: "Sub"}
BOOL_ARITHMETIC = {ps.Add: "Or", ps.Mul: "And", ps.Maximum: "Or", ps.Minimum: "And"}


@onnx_funcify.register(ps.Add)
@onnx_funcify.register(ps.Mul)
@onnx_funcify.register(ps.Sub)
def onnx_funcify_arithmetic(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    args = cast_all(builder, node, inputs, dtype)
    if dtype == "bool" and type(op) in BOOL_ARITHMETIC:
        return [variadic(builder, BOOL_ARITHMETIC[type(op)], args)]
    return [variadic(builder, ARITHMETIC[type(op)], args)]


@onnx_funcify.register(ps.Maximum)
@onnx_funcify.register(ps.Minimum)
def onnx_funcify_extremum(op, node, builder, inputs, **kwargs):
    # onnxruntime's Max and Min propagate NaN like np.maximum and np.minimum
    dtype = output_dtype(node)
    args = cast_all(builder, node, inputs, dtype)
    if dtype == "bool":
        return [variadic(builder, BOOL_ARITHMETIC[type(op)], args)]
    if dtype == "int64":
        # onnxruntime 1.31's int64 Max/Min compare the low 32 bits as signed
        # when the high halves are equal; its comparisons are right.
        comparison = "Greater" if isinstance(op, ps.Maximum) else "Less"
        result, *rest = args
        for other in rest:
            keep = builder.add(comparison, [result, other])
            result = where(builder, keep, result, other, dtype)
        return [result]
    if isinstance(op, ps.Maximum) and (rectified := rectified_input(node)) is not None:
        return [builder.add("Relu", [args[rectified]])]
    op_type = "Max" if isinstance(op, ps.Maximum) else "Min"
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
    [x] = cast_all(builder, node, inputs, dtype)
    if np.dtype(dtype).kind == "u":
        return [builder.add("Sub", [builder.constant(0, dtype), x])]
    return [builder.add("Neg", [x])]


@onnx_funcify.register(ps.Abs)
def onnx_funcify_Abs(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_all(builder, node, inputs, dtype)
    return [x if dtype == "bool" else builder.add("Abs", [x])]


@onnx_funcify.register(ps.Sqr)
def onnx_funcify_Sqr(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_all(builder, node, inputs, dtype)
    return [x if dtype == "bool" else builder.add("Mul", [x, x])]


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


@onnx_funcify.register(ps.Exp)
@onnx_funcify.register(ps.Log)
@onnx_funcify.register(ps.Sqrt)
@onnx_funcify.register(ps.Reciprocal)
@onnx_funcify.register(ps.Tanh)
@onnx_funcify.register(ps.Sign)
@onnx_funcify.register(ps.RoundHalfToEven)
def onnx_funcify_unary(op, node, builder, inputs, **kwargs):
    [x] = cast_all(builder, node, inputs, output_dtype(node))
    return [builder.add(UNARY[type(op)], [x])]


@onnx_funcify.register(ps.Exp2)
def onnx_funcify_Exp2(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_all(builder, node, inputs, dtype)
    return [builder.add("Pow", [builder.constant(2, dtype), x])]


def log_base(builder, x, base, dtype):
    """``log(x) / log(base)``, snapped to ``k`` where ``x == base ** k``.

    Within 3 ulp of NumPy in float64 and 5 ulp in float32, and exact for
    every power of two (``log2(8.0) == 3.0``) and of ten up to ``1e22``.
    """
    log = builder.add("Log", [x])
    quotient = builder.add("Div", [log, builder.constant(np.log(base), dtype)])
    rounded = builder.add("Round", [quotient])
    power = builder.add("Pow", [builder.constant(base, dtype), rounded])
    return builder.add("Where", [builder.add("Equal", [power, x]), rounded, quotient])


LOG_BASES = {ps.Log2: 2, ps.Log10: 10}


@onnx_funcify.register(ps.Log2)
@onnx_funcify.register(ps.Log10)
def onnx_funcify_log_base(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_all(builder, node, inputs, dtype)
    return [log_base(builder, x, LOG_BASES[type(op)], dtype)]


@onnx_funcify.register(ps.Deg2Rad)
@onnx_funcify.register(ps.Rad2Deg)
def onnx_funcify_angle_conversion(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_all(builder, node, inputs, dtype)
    pi, half_turn = np.asarray(np.pi, dtype), np.asarray(180, dtype)
    # NumPy multiplies by the ratio of pi and 180 rounded to the dtype
    factor = pi / half_turn if isinstance(op, ps.Deg2Rad) else half_turn / pi
    return [builder.add("Mul", [x, builder.constant(factor, dtype)])]


def trunc(builder, x, dtype):
    # onnxruntime's Where returns 0.0 for a -0.0 in its first branch, so the
    # branch that can produce -0.0 goes second.
    ceil, floor = builder.add("Ceil", [x]), builder.add("Floor", [x])
    is_positive = builder.add("Greater", [x, builder.constant(0, dtype)])
    return builder.add("Where", [is_positive, floor, ceil])


def round_half_away_from_zero(builder, x, dtype):
    rounded = builder.add("Round", [x])
    distance = builder.add("Abs", [builder.add("Sub", [x, rounded])])
    is_tie = builder.add("Equal", [distance, builder.constant(0.5, dtype)])
    half_step = builder.add(
        "Mul", [builder.add("Sign", [x]), builder.constant(0.5, dtype)]
    )
    away = builder.add("Add", [x, half_step])
    return builder.add("Where", [is_tie, away, rounded])


ROUNDING = {
    ps.Floor: lambda builder, x, dtype: builder.add("Floor", [x]),
    ps.Ceil: lambda builder, x, dtype: builder.add("Ceil", [x]),
    ps.Trunc: trunc,
    ps.RoundHalfAwayFromZero: round_half_away_from_zero,
}


@onnx_funcify.register(ps.Floor)
@onnx_funcify.register(ps.Ceil)
@onnx_funcify.register(ps.Trunc)
@onnx_funcify.register(ps.RoundHalfAwayFromZero)
def onnx_funcify_rounding(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_all(builder, node, inputs, dtype)
    if not is_float(input_dtypes(node)[0]):
        return [x]
    return [ROUNDING[type(op)](builder, x, dtype)]


def integer_power(builder, base, exponent, dtype, n_bits):
    """``base ** exponent`` by binary exponentiation, wrapping like NumPy.

    ``n_bits`` low bits of the exponent are used. onnxruntime's integer
    ``Pow`` goes through ``double`` and is inexact above 2**53.
    """
    result, square = builder.constant(1, "int64"), base
    for bit in range(max(n_bits, 1)):
        if bit:
            square = builder.add("Mul", [square, square])
        mask = builder.constant(np.left_shift(np.int64(1), bit), "int64")
        bit_is_set = builder.cast(
            builder.add("BitwiseAnd", [exponent, mask]), "int64", "bool"
        )
        result = builder.add(
            "Where", [bit_is_set, builder.add("Mul", [result, square]), result]
        )
    return builder.cast(result, "int64", dtype)


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
    if is_float(dtype):
        return [builder.add("Pow", cast_all(builder, node, inputs, dtype))]
    # NumPy raises for negative integer exponents; those results are unspecified
    base, exponent = cast_all(builder, node, inputs, "int64")
    n_bits = exponent_bits(node.inputs[1])
    return [integer_power(builder, base, exponent, dtype, n_bits)]


def safe_integer_divisor(builder, y, dtype):
    """``y`` with 0 (and -1 for signed ints) replaced by 1, and whether ``y == 0``.

    onnxruntime fails on integer division by 0 and the process dies on
    ``INT_MIN / -1`` for 32 and 64 bit ints.
    """
    by_zero = is_zero(builder, y, dtype)
    replaced = by_zero
    if is_signed_int(dtype):
        by_minus_one = builder.add("Equal", [y, builder.constant(-1, dtype)])
        replaced = builder.add("Or", [by_zero, by_minus_one])
    safe = where(builder, replaced, builder.constant(1, dtype), y, dtype)
    return safe, by_zero


def guarded_floor_divide(builder, x, y, dtype):
    """``x // y`` for ints, where ``y`` is neither 0 nor -1."""
    quotient = builder.add("Div", [x, y])
    if not is_signed_int(dtype):
        return quotient
    # onnxruntime's integer Mod with fmod=1 goes through double; fmod=0 is exact
    remainder = builder.add("Mod", [x, y], fmod=0)
    inexact = builder.add("Not", [is_zero(builder, remainder, dtype)])
    signs_differ = builder.add(
        "Xor", [is_negative(builder, x, dtype), is_negative(builder, y, dtype)]
    )
    rounds_down = builder.add("And", [inexact, signs_differ])
    return builder.add("Sub", [quotient, builder.cast(rounds_down, "bool", dtype)])


def integer_floor_divide(builder, x, y, dtype, safe_divisor):
    """``numpy.floor_divide`` for ints: ``x // 0 == 0`` and ``INT_MIN // -1`` wraps."""
    if safe_divisor:
        return guarded_floor_divide(builder, x, y, dtype)
    safe_y, by_zero = safe_integer_divisor(builder, y, dtype)
    quotient = guarded_floor_divide(builder, x, safe_y, dtype)
    if is_signed_int(dtype):
        by_minus_one = builder.add("Equal", [y, builder.constant(-1, dtype)])
        negated = builder.add("Sub", [builder.constant(0, dtype), x])
        quotient = where(builder, by_minus_one, negated, quotient, dtype)
    return where(builder, by_zero, builder.constant(0, dtype), quotient, dtype)


def integer_mod(builder, x, y, dtype, safe_divisor):
    """``numpy.remainder`` for ints: the sign of ``y``, and ``x % 0 == 0``."""
    if not safe_divisor:
        y, _ = safe_integer_divisor(builder, y, dtype)
    return builder.add("Mod", [x, y], fmod=0)


def is_safe_divisor(var) -> bool:
    """Whether ``var`` is a constant without 0 or -1, so needs no guards."""
    data = constant_data(var)
    return data is not None and not np.isin(data, (0, -1)).any()


def fmod_needs_shift(builder, fmod, y, dtype):
    """Whether the C ``fmod`` remainder differs in sign from the divisor."""
    return builder.add(
        "And",
        [
            builder.add("Not", [is_zero(builder, fmod, dtype)]),
            builder.add(
                "Xor",
                [is_negative(builder, y, dtype), is_negative(builder, fmod, dtype)],
            ),
        ],
    )


def with_sign(builder, magnitude, is_negative_sign, dtype):
    """``|magnitude|`` with a minus sign where ``is_negative_sign``.

    Signed zeros are set by arithmetic because onnxruntime's ``Where`` returns
    0.0 for a -0.0 in its first branch.
    """
    sign = builder.add(
        "Where",
        [is_negative_sign, builder.constant(-1, dtype), builder.constant(1, dtype)],
    )
    return builder.add("Mul", [builder.add("Abs", [magnitude]), sign])


def float_floor_divide(builder, x, y, dtype):
    """``numpy.floor_divide`` for floats, step by step as NumPy's ``npy_divmod``."""
    fmod = builder.add("Mod", [x, y], fmod=1)
    div = builder.add("Div", [builder.add("Sub", [x, fmod]), y])
    shift = builder.cast(fmod_needs_shift(builder, fmod, y, dtype), "bool", dtype)
    div = builder.add("Sub", [div, shift])
    floor_div = builder.add("Floor", [div])
    snaps_up = builder.add(
        "Greater",
        [builder.add("Sub", [div, floor_div]), builder.constant(0.5, dtype)],
    )
    floor_div = builder.add("Add", [floor_div, builder.cast(snaps_up, "bool", dtype)])
    # The result has the sign of x / y, also when it is zero; 1 / (x / y)
    # carries the sign of a zero quotient.
    true_div = builder.add("Div", [x, y])
    quotient_is_negative = builder.add(
        "Or",
        [
            is_negative(builder, true_div, dtype),
            is_negative(builder, builder.add("Reciprocal", [true_div]), dtype),
        ],
    )
    floor_div = with_sign(builder, floor_div, quotient_is_negative, dtype)
    return builder.add("Where", [is_zero(builder, y, dtype), true_div, floor_div])


def float_mod(builder, x, y, dtype):
    """``numpy.remainder`` for floats: C ``fmod`` moved to the sign of the divisor."""
    fmod = builder.add("Mod", [x, y], fmod=1)
    shifted = builder.add("Add", [fmod, y])
    mod = builder.add(
        "Where", [fmod_needs_shift(builder, fmod, y, dtype), shifted, fmod]
    )
    return with_sign(builder, mod, is_negative(builder, y, dtype), dtype)


DIVISION = {
    ps.IntDiv: (integer_floor_divide, float_floor_divide),
    ps.Mod: (integer_mod, float_mod),
}


@onnx_funcify.register(ps.IntDiv)
@onnx_funcify.register(ps.Mod)
def onnx_funcify_division(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    for_integers, for_floats = DIVISION[type(op)]
    if is_float(dtype):
        return [for_floats(builder, *cast_all(builder, node, inputs, dtype), dtype)]
    compute = "int8" if dtype == "bool" else dtype
    x, y = cast_all(builder, node, inputs, compute)
    result = for_integers(builder, x, y, compute, is_safe_divisor(node.inputs[1]))
    return [builder.cast(result, compute, dtype)]


COMPARISONS = {
    ps.LT: "Less",
    ps.GT: "Greater",
    ps.LE: "LessOrEqual",
    ps.GE: "GreaterOrEqual",
    ps.EQ: "Equal",
    ps.NEQ: "Equal",
}


def compare_signed_with_uint64(builder, op_type, x, y, x_dtype, y_dtype):
    """Compare a signed int with a uint64 exactly, as NumPy does."""
    signed_first = is_signed_int(x_dtype)
    signed, signed_dtype = (x, x_dtype) if signed_first else (y, y_dtype)
    negative = is_negative(builder, signed, signed_dtype)
    as_unsigned = [
        builder.cast(name, dtype, "uint64")
        for name, dtype in ((x, x_dtype), (y, y_dtype))
    ]
    unsigned_result = builder.add(op_type, as_unsigned)
    # A negative signed operand is smaller than any uint64
    result_if_negative = op_type != "Equal" and (
        (op_type in ("Less", "LessOrEqual")) == signed_first
    )
    if result_if_negative:
        return builder.add("Or", [negative, unsigned_result])
    return builder.add("And", [builder.add("Not", [negative]), unsigned_result])


@onnx_funcify.register(ps.LT)
@onnx_funcify.register(ps.GT)
@onnx_funcify.register(ps.LE)
@onnx_funcify.register(ps.GE)
@onnx_funcify.register(ps.EQ)
@onnx_funcify.register(ps.NEQ)
def onnx_funcify_comparison(op, node, builder, inputs, **kwargs):
    op_type = COMPARISONS[type(op)]
    x_dtype, y_dtype = input_dtypes(node)
    kinds = {np.dtype(x_dtype).kind, np.dtype(y_dtype).kind}
    if kinds == {"i", "u"} and "uint64" in (x_dtype, y_dtype):
        result = compare_signed_with_uint64(builder, op_type, *inputs, x_dtype, y_dtype)
    else:
        dtype = ps.upcast(x_dtype, y_dtype)
        result = compare(
            builder, op_type, *cast_all(builder, node, inputs, dtype), dtype
        )
    if isinstance(op, ps.NEQ):
        return [builder.add("Not", [result])]
    return [result]


@onnx_funcify.register(ps.IsNan)
@onnx_funcify.register(ps.IsInf)
def onnx_funcify_float_class(op, node, builder, inputs, **kwargs):
    [x] = inputs
    if not is_float(input_dtypes(node)[0]):
        return [full_like(builder, x, False, "bool")]
    return [builder.add("IsNaN" if isinstance(op, ps.IsNan) else "IsInf", [x])]


BITWISE = {
    ps.AND: ("And", "BitwiseAnd"),
    ps.OR: ("Or", "BitwiseOr"),
    ps.XOR: ("Xor", "BitwiseXor"),
    ps.Invert: ("Not", "BitwiseNot"),
}


@onnx_funcify.register(ps.AND)
@onnx_funcify.register(ps.OR)
@onnx_funcify.register(ps.XOR)
@onnx_funcify.register(ps.Invert)
def onnx_funcify_bitwise(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    if is_float(dtype):
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
    condition, if_true, if_false = inputs
    condition = builder.cast(condition, input_dtypes(node)[0], "bool")
    [if_true, if_false] = cast_all(builder, node, inputs, dtype)[1:]
    return [where(builder, condition, if_true, if_false, dtype)]


@onnx_funcify.register(ps.Clip)
def onnx_funcify_Clip(op, node, builder, inputs, **kwargs):
    # PyTensor's Clip is `lower if x < lower else upper if x > upper else x`:
    # NaN bounds are ignored and lower wins when lower > upper.
    dtype = output_dtype(node)
    x, lower, upper = cast_all(builder, node, inputs, dtype)
    above = compare(builder, "Greater", x, upper, dtype)
    below = compare(builder, "Less", x, lower, dtype)
    clipped_above = where(builder, above, upper, x, dtype)
    return [where(builder, below, lower, clipped_above, dtype)]


@onnx_funcify.register(ps.Second)
def onnx_funcify_Second(op, node, builder, inputs, **kwargs):
    x, y = inputs
    y = builder.cast(y, input_dtypes(node)[1], output_dtype(node))
    return [builder.add("Expand", [y, builder.add("Shape", [x])])]
