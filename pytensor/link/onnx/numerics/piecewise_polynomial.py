"""Piecewise polynomials with coefficients known when the graph is built.

The form of SciPy's ``PPoly``: on the interval ``b[i] <= x < b[i + 1]``,
``sum_j c[j, i] (x - b[i]) ** (k - j)``; below the first breakpoint the first
piece, from the last one on the last piece.
"""

import numpy as np

from pytensor.link.onnx.value import Value


def piecewise_polynomial(
    x: Value, breakpoints: np.ndarray, coefficients: np.ndarray
) -> Value:
    """The piecewise polynomial of ``breakpoints`` (``m + 1``, increasing) and
    ``coefficients`` (``(k + 1, m)``, highest degree first) at ``x``, by
    Horner's rule on the piece of each element.

    The piece is the number of inner breakpoints not above ``x``, one
    comparison per breakpoint and element: NaN takes the last piece, as in
    SciPy's splines (where a constant piece keeps its value).
    """
    inner = breakpoints[1:-1]
    if inner.size:
        below = x.unsqueeze([-1]) < x.constant(inner)
        piece = (~below).cast("int64").sum([-1], False)
    else:
        piece = (x * 0.0).cast("int64")
    dx = x - x.constant(breakpoints[:-1]).take(piece, axis=0)
    result = x.constant(coefficients[0]).take(piece, axis=0)
    for row in coefficients[1:]:
        result = result * dx + x.constant(row).take(piece, axis=0)
    return result
