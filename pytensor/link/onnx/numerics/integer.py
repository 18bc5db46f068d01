"""Integer arithmetic onnxruntime gets wrong or lacks: exact powers, and
comparisons of signed integers with uint64."""

import numpy as np

from pytensor.link.onnx.value import Value, where


def integer_power(base: Value, exponent: Value, n_bits: int) -> Value:
    """``base ** exponent`` of int64 values by binary exponentiation, wrapping like NumPy.

    Only the ``n_bits`` low bits of the exponent are read. onnxruntime's
    integer ``Pow`` goes through ``double`` and is inexact above 2**53.
    """
    result, square = base.constant(1, "int64"), base
    for bit in range(max(n_bits, 1)):
        if bit:
            square = square * square
        mask = np.left_shift(np.int64(1), bit)
        bit_is_set = exponent.apply("BitwiseAnd", exponent, mask).cast("bool")
        result = where(bit_is_set, result * square, result)
    return result


def compare_signed_with_uint64(op_type: str, x: Value, y: Value) -> Value:
    """The comparison ``op_type`` of a signed int and a uint64, exact as in NumPy.

    One of ``x`` and ``y`` is signed, the other uint64; ``op_type`` is an
    ONNX comparison (``Less``, ``Equal``...).
    """
    signed_first = np.dtype(x.dtype).kind == "i"
    negative = (x if signed_first else y) < 0
    as_unsigned = [v.cast("uint64") for v in (x, y)]
    unsigned_result = as_unsigned[0].apply(op_type, *as_unsigned)
    # A negative signed operand is smaller than any uint64
    if op_type != "Equal" and (op_type in ("Less", "LessOrEqual")) == signed_first:
        return negative | unsigned_result
    return ~negative & unsigned_result
