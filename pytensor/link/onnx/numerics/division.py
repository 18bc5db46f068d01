"""Floor division and remainder as NumPy computes them (``//`` and ``%``).

ONNX's ``Div`` truncates integers toward zero and its ``Mod`` is either C's
``fmod`` or the remainder of floored division; onnxruntime fails on an
integer division by 0 and dies on ``INT_MIN / -1``. These functions follow
``numpy.floor_divide`` and ``numpy.remainder`` exactly, signed zeros included.
"""

import numpy as np

from pytensor.link.onnx.value import Value, where


def is_signed_int(x: Value) -> bool:
    return np.dtype(x.dtype).kind == "i"


def safe_divisor(y: Value) -> tuple[Value, Value]:
    """``y`` with 0 (and -1 for signed ints) replaced by 1, and whether ``y == 0``."""
    by_zero = y.eq(0)
    replaced = by_zero | y.eq(-1) if is_signed_int(y) else by_zero
    return where(replaced, 1, y), by_zero


def guarded_floor_divide(x: Value, y: Value) -> Value:
    """``x // y`` for ints, where ``y`` is neither 0 nor -1."""
    quotient = x / y
    if not is_signed_int(x):
        return quotient
    # onnxruntime's integer Mod with fmod=1 goes through double; fmod=0 is exact
    remainder = x.apply("Mod", x, y, fmod=0)
    rounds_down = remainder.ne(0) & ((x < 0) ^ (y < 0))
    return quotient - rounds_down.cast(x.dtype)


def integer_floor_divide(x: Value, y: Value, y_is_safe: bool = False) -> Value:
    """``numpy.floor_divide`` for ints: ``x // 0 == 0`` and ``INT_MIN // -1`` wraps.

    Parameters
    ----------
    x, y
        Integer values of one dtype.
    y_is_safe
        Whether ``y`` is known to hold neither 0 nor -1 (no guards needed).
    """
    if y_is_safe:
        return guarded_floor_divide(x, y)
    safe_y, by_zero = safe_divisor(y)
    quotient = guarded_floor_divide(x, safe_y)
    if is_signed_int(x):
        quotient = where(y.eq(-1), 0 - x, quotient)
    return where(by_zero, 0, quotient)


def integer_remainder(x: Value, y: Value, y_is_safe: bool = False) -> Value:
    """``numpy.remainder`` for ints: the sign of ``y``, and ``x % 0 == 0``."""
    if not y_is_safe:
        y, _ = safe_divisor(y)
    return x.apply("Mod", x, y, fmod=0)


def fmod_needs_shift(fmod: Value, y: Value) -> Value:
    """Whether the C ``fmod`` remainder differs in sign from the divisor."""
    return fmod.ne(0) & ((y < 0) ^ (fmod < 0))


def with_sign(magnitude: Value, is_negative: Value) -> Value:
    """``|magnitude|`` with a minus sign where ``is_negative``.

    Signed zeros are set by arithmetic because onnxruntime's ``Where`` returns
    0.0 for a -0.0 in its first branch.
    """
    return abs(magnitude) * where(is_negative, -1, 1)


def float_floor_divide(x: Value, y: Value) -> Value:
    """``numpy.floor_divide`` for floats, step by step as NumPy's ``npy_divmod``."""
    fmod = x.apply("Mod", x, y, fmod=1)
    div = (x - fmod) / y
    div = div - fmod_needs_shift(fmod, y).cast(x.dtype)
    floor_div = div.floor()
    floor_div = floor_div + ((div - floor_div) > 0.5).cast(x.dtype)
    # The result has the sign of x / y, also when it is zero; 1 / (x / y)
    # carries the sign of a zero quotient.
    true_div = x / y
    quotient_is_negative = (true_div < 0) | (true_div.apply("Reciprocal", true_div) < 0)
    floor_div = with_sign(floor_div, quotient_is_negative)
    return where(y.eq(0), true_div, floor_div)


def float_remainder(x: Value, y: Value) -> Value:
    """``numpy.remainder`` for floats: C ``fmod`` moved to the sign of the divisor."""
    fmod = x.apply("Mod", x, y, fmod=1)
    remainder = where(fmod_needs_shift(fmod, y), fmod + y, fmod)
    return with_sign(remainder, y < 0)
