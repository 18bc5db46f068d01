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
    """``x[..., None] ** exponents``, a last axis of one power per exponent."""
    return x.unsqueeze([-1]) ** np.asarray(exponents, dtype="float64")


def power_series(x: Value, coefficients) -> Value:
    """``sum_i coefficients[i] * x**i`` for ``x`` of any shape, by one ``MatMul``.

    ``coefficients`` of shape ``(d,)`` give a value of ``x``'s shape, of shape
    ``(d, k)`` the ``k`` sums along a new last axis. Accurate where the terms
    do not cancel.
    """
    coefficients = np.asarray(coefficients, dtype="float64")
    powers = powers_of(x, np.arange(len(coefficients), dtype="float64"))
    if coefficients.ndim == 2:
        return powers @ coefficients
    # onnxruntime's MatMul of an empty matrix and a vector fails
    return (powers @ coefficients[:, None]).take(0, axis=-1)


def rationals(x: Value, *pairs) -> list[Value]:
    """``P(x) / Q(x)`` for each pair ``(P, Q)`` of coefficient lists (from the
    highest degree, as `~pytensor.link.onnx.value.polevl`), all by one ``MatMul``.

    Five nodes for one ratio, three more for each further one, where Horner's
    rule takes two a degree: for small inputs, on which nodes cost more than
    the powers ``x**i`` along a new axis.
    """
    columns = [c for pair in pairs for c in pair]
    table = np.zeros((max(map(len, columns)), len(columns)))
    for column, coefficients in enumerate(columns):
        table[: len(coefficients), column] = np.asarray(coefficients)[::-1]
    sums = power_series(x, table)
    parts = [sums.take(column, axis=-1) for column in range(len(columns))]
    return [p / q for p, q in zip(parts[::2], parts[1::2], strict=True)]
