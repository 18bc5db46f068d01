"""The inverse of the regularized incomplete beta function, SciPy's
``betaincinv`` (Boost's ``ibeta_inv``).

Boost's closed forms (``a`` or ``b`` of 1, ``a = b = 1/2``), and elsewhere
Newton's method on ``log I`` against ``log x`` in a bracket with bisection, on
the side of the median where ``x`` or ``1 - x`` is the smaller, until the step
is below 1e-9. Boost stops at about half the digits: against SciPy it is
within 1e-11, plus the change of ``x`` that a change of ``1e-13 min(y, 1 -
y)`` in ``I`` makes; SciPy's own result misses ``y`` at about 1% of a grid of
parameters in ``[1e-3, 1e4]`` (NaN, or a far root), where this one is the
inverse of ``betainc``.
"""

import numpy as np

from pytensor.link.onnx.numerics.constants import DBL_MIN, MACHEP, PI_2
from pytensor.link.onnx.numerics.elementary import expm1, log1p
from pytensor.link.onnx.numerics.error_functions import erfcinv
from pytensor.link.onnx.numerics.gamma import gammaln
from pytensor.link.onnx.numerics.incomplete_beta import (
    beta_power_terms,
    incomplete_beta,
)
from pytensor.link.onnx.numerics.iteration import converge
from pytensor.link.onnx.numerics.trigonometric import sin
from pytensor.link.onnx.value import Value, where


INVERSE_BETA_MAXITER = 100
SQRT2 = 1.4142135623730951
# Newton's method stops after a step of log(x) below this: it converges
# quadratically, so the last step leaves an error far below it
INVERSE_BETA_TOLERANCE = 1e-9


def inverse_beta_start(a: Value, b: Value, t: Value) -> Value:
    """A starting point for ``I_z(a, b) = t``: the larger of the root of the
    leading term ``z**a / (a B(a, b))`` and of the normal approximation."""
    log_beta = gammaln(a) + gammaln(b) - gammaln(a + b)
    power_law = ((t.log() + a.log() + log_beta) / a).exp()
    total = a + b
    sd = (a * b / (total * total * (total + 1.0))).sqrt()
    normal = a / total - SQRT2 * erfcinv(2.0 * t) * sd
    z = where(normal > power_law, normal, power_law)
    return where(z > 0.5, 0.5, where(z < DBL_MIN, DBL_MIN, z))


def inverse_beta_step(iteration, a, b, upper, right, t, log_t, z, lo, hi):
    # Newton's method on h(u) = log G(exp(u)) - log t inside a bracket [lo, hi]
    # of the root, falling back to bisection; G = I_x(a, b), or 1 - I_x(a, b)
    # where upper, with x = z, or 1 - z where right
    x, xc = where(right, 1.0 - z, z), where(right, z, 1.0 - z)
    value = incomplete_beta(
        where(upper, b, a), where(upper, a, b), where(upper, xc, x), where(upper, x, xc)
    )
    h = value.log() - log_t
    increasing = ~(upper ^ right)
    left_of_root = ~((h < 0.0) ^ increasing)
    lo = where(left_of_root, z, lo)
    hi = where(left_of_root, hi, z)
    slope = beta_power_terms(a, b, x, xc, with_y=True) / ((1.0 - z) * value)
    step = where(increasing, h, -h) / slope
    newton = z * (-step).exp()
    newton = where(newton < DBL_MIN, DBL_MIN, newton)
    inside = (newton >= lo) & (newton <= hi)
    bisection = lo.sqrt() * hi.sqrt()
    converged = (inside & (abs(step) <= INVERSE_BETA_TOLERANCE)) | h.eq(0.0)
    converged = converged | (hi <= lo * (1.0 + 4.0 * MACHEP)) | value.isnan()
    z = where(h.eq(0.0), z, where(inside, newton, bisection))
    z = where(value.isnan(), np.nan, z)
    return {"z": z, "lo": lo, "hi": hi}, converged


def inverse_incomplete_beta(a: Value, b: Value, y: Value) -> Value:
    """``x`` with ``I_x(a, b) = y`` for ``a, b > 0``, ``0 < y < 1``.

    Solves for ``z = min(x, 1 - x) <= 1/2`` (``x`` is above 1/2 where ``y`` is
    above ``I_(1/2)(a, b)``) and matches ``I_x(a, b)`` or ``1 - I_x(a, b) =
    I_(1-x)(b, a)`` to the smaller of ``y`` and ``1 - y``, so that neither loses
    its relative accuracy.
    """
    right = y > incomplete_beta(a, b, y.full_like(0.5))
    upper = y > 0.5
    t = where(upper, 1.0 - y, y)
    start = inverse_beta_start(
        where(right, b, a), where(right, a, b), where(right, 1.0 - y, y)
    )
    state = {"z": start, "lo": t.full_like(DBL_MIN), "hi": t.full_like(0.5)}
    z, *_, converged = converge(
        inverse_beta_step,
        [a, b, upper, right, t, t.log()],
        state,
        t.full_like(0.0) > 1.0,
        INVERSE_BETA_MAXITER,
        "inverse_beta",
    )
    x = where(right, 1.0 - z, z)
    return where(converged, x, np.nan)


def inverse_beta_of_b_one(a: Value, p: Value, q: Value, complement: bool) -> Value:
    """Boost's ``x`` with ``I_x(a, 1) = x**a = p = 1 - q``, or ``1 - x``
    (``complement``)."""
    log_x = where(p < q, p.log(), log1p(-q)) / a
    if not complement:
        return where(p < q, p ** (1.0 / a), log_x.exp())
    one_minus = where((p < q) & (a <= 1.0), 1.0 - p ** (1.0 / a), -expm1(log_x))
    return one_minus


def betaincinv_closed_forms(a: Value, b: Value, y: Value, x: Value) -> Value:
    """``x``, but Boost's closed forms for ``a`` or ``b`` of 1 and ``a = b = 1/2``."""
    q = 1.0 - y
    # Boost swaps a = 1/2, b > 1/2 first, and iterates for b = 1 then
    b_one = b.eq(1.0) & ~a.eq(0.5)
    x = where(b_one, inverse_beta_of_b_one(a, y, q, complement=False), x)
    # I_x(1, b) = 1 - I_(1-x)(b, 1)
    x = where(a.eq(1.0), inverse_beta_of_b_one(b, q, y, complement=True), x)
    x = where(a.eq(1.0) & b.eq(1.0), y, x)
    arcsine = sin(PI_2 * y)
    return where(a.eq(0.5) & b.eq(0.5), arcsine * arcsine, x)


def betaincinv(a: Value, b: Value, y: Value) -> Value:
    """SciPy's ``betaincinv`` (Boost's ``ibeta_inv``), with its edge values."""
    invalid = a.isnan() | b.isnan() | y.isnan() | (a <= 0.0) | (b <= 0.0)
    invalid = invalid | (y < 0.0) | (y > 1.0)
    special = invalid | a.isinf() | b.isinf() | y.eq(0.0) | y.eq(1.0)
    x = inverse_incomplete_beta(
        where(special, 1.0, a), where(special, 1.0, b), where(special, 0.5, y)
    )
    x = where(a.isinf() | b.isinf(), np.nan, x)
    x = betaincinv_closed_forms(a, b, y, x)
    x = where(y.eq(0.0), 0.0, where(y.eq(1.0), 1.0, x))
    return where(invalid, np.nan, x)
