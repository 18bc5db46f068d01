"""Rounding ONNX lacks: toward zero, and half away from zero."""

from pytensor.link.onnx.value import Value, where


def trunc(x: Value) -> Value:
    """``numpy.trunc`` of floats, signed zeros included."""
    # onnxruntime's Where returns 0.0 for a -0.0 in its first branch, so the
    # branch that can produce -0.0 goes second.
    ceil, floor = x.ceil(), x.floor()
    return where(x > 0, floor, ceil)


def round_half_away_from_zero(x: Value) -> Value:
    """Round floats to the nearest integer, ties away from zero (C's ``round``)."""
    rounded = x.round()
    is_tie = abs(x - rounded).eq(0.5)
    away = x + x.apply("Sign", x) * 0.5
    return where(is_tie, away, rounded)
