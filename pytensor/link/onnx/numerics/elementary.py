"""Exponentials, logarithms and hyperbolic functions, accurate in float64.

ONNX has no ``log1p`` or ``expm1``, and onnxruntime's CPU provider has no
float64 kernel for the hyperbolic functions and their inverses; its float64
Sigmoid and Softplus underflow or overflow early. These are built from
operators that do have float64 kernels: ``log1p`` from ``log`` and the
rounding error of ``1 + x``, Kahan's ``expm1``, and from them the formulas of
Cephes and NumPy.

Maximum error against NumPy/SciPy, in ulp of their float64 result on dense
grids of each domain (``tests/link/onnx/test_elementary_ulp.py``; relative
for the last three, ``tests/link/onnx/test_special.py``). onnxruntime's
float64 ``Exp`` and ``Log`` are within 1 ulp, not correctly rounded, which
bounds what is built on them:

=========  =======  ======================================================
function   float64  notes
=========  =======  ======================================================
log1p      2 ulp    ``log(u)`` corrected by the rounding error of ``u = 1 + x``
expm1      3 ulp
sinh       3 ulp
cosh       1 ulp    ``exp(|x|) / 2`` from 22 on
tanh       8 ulp    onnxruntime's ``Tanh``, one node for the activation of
                    dense layers (``1 - 2 / (exp(2|x|) + 1)`` from 0.55 on
                    would be within 3 ulp, at ten nodes)
arcsinh    2 ulp
arccosh    2 ulp
arctanh    3 ulp
sigmoid    5.0e-16  SciPy's ``1 / (1 + exp(-x))``, 0 below -709.78
softplus   4.4e-16  PyTensor's piecewise formula
log1mexp   5.5e-16
=========  =======  ======================================================
"""

import numpy as np

from pytensor.link.onnx.numerics.series import power_series
from pytensor.link.onnx.value import Value, maximum, where


def sign_bit(x: Value) -> Value:
    """Whether the sign bit of ``x`` is set (true for ``-0.0``)."""
    return (x < 0.0) | (1.0 / x < 0.0)


def odd(x: Value, f_of_abs: Value) -> Value:
    """``f(x)`` of an odd function ``f`` from ``f(|x|)``, with ``f(-0) = -0``."""
    # A multiplication: onnxruntime's Where turns a selected -0 into +0.
    return f_of_abs * where(sign_bit(x), -1.0, 1.0)


LN2 = 0.6931471805599453
DBL_MIN = 2.2250738585072014e-308
# From here on asinh(x) and acosh(x) equal log(2 * x) in float64.
ASYMPTOTIC_FROM = 2.0**28


def finite_log1p(x: Value) -> Value:
    """``log1p`` of finite ``x`` (``inf`` gives NaN)."""
    # log(u) for u = 1 + x, corrected by the rounding error of u: log(1 + x)
    # = log(u) + log(1 + (x - (u - 1)) / u), whose argument is below an ulp
    # (and 0 for u = 0). x itself goes second, as onnxruntime's Where drops the
    # sign of a -0.0 in its first branch, under a condition without Not, which
    # onnxruntime's optimizer would fold by swapping the branches.
    u = 1.0 + x
    u_minus_1 = u - 1.0
    corrected = u.log() + (x - u_minus_1) / maximum(u, DBL_MIN)
    return where(abs(u_minus_1) > 0.0, corrected, x)


def log1p(x: Value) -> Value:
    """``log(1 + x)``, accurate for small ``x``."""
    return where(x.eq(np.inf), x, finite_log1p(x))


def expm1(x: Value) -> Value:
    """``exp(x) - 1``, accurate for small ``x``."""
    # Kahan: x * (u - 1) / log(u) with u = exp(x).
    u = x.exp()
    u_minus_1 = u - 1.0
    result = x * where(u.eq(1.0), 1.0, u_minus_1 / u.log())
    result = where(u.eq(np.inf), u, result)
    return where(u_minus_1.eq(-1.0), -1.0, result)


def sinh(x: Value) -> Value:
    a = abs(x)
    t = expm1(a)
    moderate = 0.5 * (t + t / (t + 1.0))
    return odd(x, where(a < 22.0, moderate, half_exp(a)))


def cosh(x: Value) -> Value:
    a = abs(x)
    e = a.exp()
    moderate = 0.5 * (e + 1.0 / e)
    return where(a < 22.0, moderate, half_exp(a))


# exp(a) overflows from here on, exp(a) / 2 from ln(2 * DBL_MAX)
EXP_OVERFLOW = 709.782712893384


def half_exp(a: Value) -> Value:
    """``exp(a) / 2`` without overflowing before the result does."""
    h = (0.5 * a).exp()
    return where(a < EXP_OVERFLOW, 0.5 * a.exp(), (0.5 * h) * h)


def arcsinh(x: Value) -> Value:
    a = abs(x)
    moderate = a < ASYMPTOTIC_FROM
    s = where(moderate, a, 0.0)
    near = log1p(s + s * s / (1.0 + (1.0 + s * s).sqrt()))
    return odd(x, where(moderate, near, a.log() + LN2))


def arccosh(x: Value) -> Value:
    moderate = x < ASYMPTOTIC_FROM
    t = where(moderate, x - 1.0, 0.0)
    near = log1p(t + (2.0 * t + t * t).sqrt())
    result = where(moderate, near, x.log() + LN2)
    return where(x < 1.0, np.nan, result)


def arctanh(x: Value) -> Value:
    a = abs(x)
    return odd(x, 0.5 * log1p(2.0 * a / (1.0 - a)))


def sigmoid(x: Value) -> Value:
    # SciPy's expit, which underflows to 0 below -709.78 rather than going subnormal.
    return 1.0 / (1.0 + (-x).exp())


def softplus(x: Value) -> Value:
    # PyTensor's Softplus.impl is exp(x) below -37, log1p(exp(x)) below 18,
    # x + exp(-x) below 33.3 and x above. Two pieces give the same values:
    # below -37, 1 + exp(x) rounds to 1 and log1p returns exp(x) itself;
    # above 33.3, exp(-x) is below half an ulp of x.
    return where(x < 18.0, finite_log1p(x.exp()), x + (-x).exp())


def log1mexp(x: Value) -> Value:
    """``log(1 - exp(x))`` of ``x <= 0``."""
    # log1p(-0.0) = -0.0 goes second: onnxruntime's Where drops the sign of
    # a -0.0 in its first branch
    return where(x >= -LN2, (-expm1(x)).log(), log1p(-x.exp()))


def xlogx(x: Value) -> Value:
    """``x log(x)``, 0 at ``x = 0``."""
    return where(x.eq(0.0), 0.0, x * x.log())


def xlogy0(x: Value, y: Value) -> Value:
    """``x log(y)``, 0 where ``x = 0``."""
    return where(x.eq(0.0), 0.0, x * y.log())


# atanh(u) = u + u**3 * sum(u**(2 j) / (2 j + 3)), j = 0, ..., 17 for u**2 <= 1/9
ATANH_SERIES = [1.0 / (2 * j + 3) for j in range(18)]


def log1pmx(x: Value) -> Value:
    """``log(1 + x) - x``, without cancellation for small ``x``."""
    small = abs(x) < 0.5
    s = where(small, x, 0.0)
    u = s / (2.0 + s)
    uu = u * u
    series = 2.0 * (u * uu) * power_series(uu, ATANH_SERIES) - s * s / (2.0 + s)
    return where(small, series, log1p(x) - x)
