"""The Hurwitz zeta function and the polygamma functions of constant orders.

``polygamma`` of orders ``n >= 2`` is SciPy's ``(-1)**(n+1) n! zeta(n+1, x)``
with Cephes' Hurwitz zeta, exactly SciPy's result for ``x > 0``; for ``x < 0``
the reflection formula replaces SciPy's sum from ``x`` up, whose terms cancel.
Orders 0 and 1 are ``psi`` and ``trigamma``.
"""

from functools import cache, partial

import numpy as np
from scipy.special import gamma as gamma_function

from pytensor.link.onnx.numerics.constants import MACHEP, PI
from pytensor.link.onnx.numerics.digamma import psi, trigamma
from pytensor.link.onnx.numerics.gamma import is_non_positive_integer
from pytensor.link.onnx.numerics.trigonometric import sin
from pytensor.link.onnx.value import Value, polevl, where


ZETA_A = [
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
]


def hurwitz_zeta(s: float, q: Value) -> Value:
    """Cephes ``zeta(s, q)`` for a constant ``s > 1`` and ``q > 0``: 9 terms of
    the sum, then Euler-Maclaurin's formula, each until the terms are negligible."""
    total = q**-s
    a, done = q, q < 0.0
    for _ in range(9):
        a = a + 1.0
        b = a**-s
        total = where(done, total, total + b)
        done = done | (abs(b / total) < MACHEP)
    w = a
    total = where(done, total, total + b * w / (s - 1.0) - 0.5 * b)
    factor, k = 1.0, 0.0
    for coefficient in ZETA_A:
        factor *= s + k
        b = b / w
        term = factor * b / coefficient
        total = where(done, total, total + term)
        done = done | (abs(term / total) < MACHEP)
        k += 1.0
        factor *= s + k
        b = b / w
        k += 1.0
    asymptotic = (1.0 / (s - 1.0) + 0.5 / q) * q ** (1.0 - s)
    return where(q > 1e8, asymptotic, total)


@cache
def cot_derivative_polynomial(n: int) -> list[int]:
    """``P_n``, from the highest degree, with ``(d/dy)**n cot(y) = P_n(cot(y))``."""
    p = np.polynomial.Polynomial([0, 1])
    for _ in range(n):
        p = -np.polynomial.Polynomial([1, 0, 1]) * p.deriv()
    return [int(c) for c in p.coef[::-1]]


def polygamma_of_order(x: Value, n: int) -> Value:
    """SciPy's ``polygamma(n, x)`` for ``n >= 2``; by the reflection formula
    ``ψ⁽ⁿ⁾(x) = (-1)**n ψ⁽ⁿ⁾(1 - x) - π (d/dx)**n cot(πx)`` for ``x < 0``, where
    SciPy sums the series term by term from ``x`` up to 9."""
    factor = (-1.0) ** (n + 1) * float(gamma_function(n + 1.0))
    negative = x < 0.0
    y = where(negative, 1.0 - x, x)
    positive_part = factor * hurwitz_zeta(n + 1.0, y)
    # cot(πf) = sin(π(1/2 - |f|)) / sin(π|f|), |f| <= 1/2, exactly 0 at |f| = 1/2
    fraction = x - x.round()
    distance = abs(fraction)
    cot = sin(PI * (0.5 - distance)) / sin(PI * distance)
    cot = where(fraction < 0.0, -cot, cot)
    cot_term = PI ** (n + 1) * polevl(cot, cot_derivative_polynomial(n))
    reflected = (-1.0) ** n * positive_part - cot_term
    result = where(negative, reflected, positive_part)
    # Cephes' zeta is +inf at the non-positive integers
    return where(is_non_positive_integer(x), factor * np.inf, result)


def polygamma(x: Value, n: int) -> Value:
    """SciPy's ``polygamma(n, x)`` of a constant order ``n``."""
    if n < 0:
        return x * np.nan
    return {0: psi, 1: trigamma}.get(n, partial(polygamma_of_order, n=n))(x)
