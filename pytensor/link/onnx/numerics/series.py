"""Sums of series: Chebyshev series (Cephes' ``chbevl``) and power series
evaluated by one ``MatMul`` (Horner's rule is `pytensor.link.onnx.value.polevl`)."""

import numpy as np

from pytensor.link.onnx.value import Value


def chbevl(x: Value, coefficients) -> Value:
    """Cephes' sum of a Chebyshev series, coefficients from the highest order."""
    b0, b1, b2 = coefficients[0], 0.0, 0.0
    for coefficient in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + coefficient
    return 0.5 * (b0 - b2)


def powers_of(x: Value, exponents) -> Value:
    """``x[:, None] ** exponents``, a column per exponent."""
    return x.unsqueeze([1]) ** np.asarray(exponents, dtype="float64")


def power_series(x: Value, coefficients) -> Value:
    """``sum_i coefficients[i] * x**i`` for a vector ``x``, by one ``MatMul``.

    ``coefficients`` of shape ``(d,)`` give a vector, of shape ``(d, k)`` the
    ``k`` sums as columns. Accurate where the terms do not cancel.
    """
    coefficients = np.asarray(coefficients, dtype="float64")
    powers = powers_of(x, np.arange(len(coefficients), dtype="float64"))
    if coefficients.ndim == 2:
        return powers @ coefficients
    # onnxruntime's MatMul of an empty matrix and a vector fails
    return (powers @ coefficients[:, None]).take(0, axis=1)
