"""Converters for elementary and special functions, accurate in float64.

onnxruntime's CPU provider has no float64 kernel for Erf, Tan and the inverse
and hyperbolic trigonometric functions, its float64 Sin and Cos lose all
relative accuracy next to their zeros, its float64 Sigmoid and Softplus
underflow or overflow early, and ONNX has no log1p, expm1, erfc or atan2. These
functions are built here from operators that do have float64 kernels, with the
algorithms of Cephes, so that they agree with NumPy and SciPy (the Python
implementations of the PyTensor Ops) over the whole float64 range, including
``±0``, ``±inf``, NaN and the edges of each domain.

Maximum relative error against NumPy/SciPy on dense grids of each domain
(``tests/link/onnx/test_special.py`` asserts 1e-15, 1e-13 for erfc):

=========  =======  ======================================================
function   float64  notes
=========  =======  ======================================================
log1p      4.0e-16
expm1      5.6e-16
sin, cos   3.1e-16  near the zeros too, where onnxruntime's float64 kernels
                    have a relative error of 1; for ``|x| >= 2**27`` those
                    kernels (4.4e-16)
tan        5.7e-16  for ``|x| >= 2**27`` onnxruntime's Sin / Cos
arcsin     2.7e-16
arccos     2.4e-16
arctan     2.2e-16
arctan2    2.5e-16
sinh       6.1e-16
cosh       6.1e-16
arcsinh    4.4e-16
arccosh    4.4e-16
arctanh    4.3e-16
erf        1.3e-16
erfc       5.7e-14  all of it SciPy's error, which rounds x*x in exp(-x*x);
                    against mpmath our erfc is within 2e-15. 0 where
                    SciPy's is (``x**2 > 709.78``)
sigmoid    5.0e-16  SciPy's ``1 / (1 + exp(-x))``, 0 below -709.78
softplus   4.4e-16  PyTensor's piecewise formula
=========  =======  ======================================================

In float32 the onnxruntime kernels of Sin, Cos, Tan, Asin, Acos, Atan, Sinh,
Cosh, Asinh, Acosh, Atanh, Erf and Softplus are accurate (relative error
below 5e-7) and used; log1p, expm1, erfc and arctan2 are computed in float64
and rounded once, sigmoid in float32 like SciPy's float32 loop.
"""

import numpy as np
import pytensor.scalar.basic as ps
import pytensor.scalar.math as psm

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.scalar import cast_all, output_dtype
from pytensor.link.onnx.value import Value, polevl, where


def sign_bit(x: Value) -> Value:
    return (x < 0.0) | (1.0 / x < 0.0)


def odd(x: Value, f_of_abs: Value) -> Value:
    """``f(x)`` of an odd function ``f`` from ``f(|x|)``, with ``f(-0) = -0``."""
    # A multiplication: onnxruntime's Where turns a selected -0 into +0.
    return f_of_abs * where(sign_bit(x), -1.0, 1.0)


PI = 3.141592653589793
PI_2 = 1.5707963267948966
PI_4 = 0.7853981633974483
LN2 = 0.6931471805599453
MAXLOG = 7.09782712893383996843e2
# From here on asinh(x) and acosh(x) equal log(2 * x) in float64.
ASYMPTOTIC_FROM = 2.0**28


def finite_log1p(x: Value) -> Value:
    """``log1p`` of finite ``x`` (``inf`` gives NaN)."""
    # Goldberg: x * log(u) / (u - 1) with u = 1 + x is exact to a few ulps.
    u = 1.0 + x
    return x * where(u.eq(1.0), 1.0, u.log() / (u - 1.0))


def log1p(x: Value) -> Value:
    return where(x.eq(np.inf), x, finite_log1p(x))


def expm1(x: Value) -> Value:
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
    return odd(x, where(a < 22.0, moderate, half_exp_squared(a)))


def cosh(x: Value) -> Value:
    a = abs(x)
    e = a.exp()
    moderate = 0.5 * (e + 1.0 / e)
    return where(a < 22.0, moderate, half_exp_squared(a))


def half_exp_squared(a: Value) -> Value:
    """``exp(a) / 2`` without overflowing before the result does."""
    h = (0.5 * a).exp()
    return (0.5 * h) * h


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


ATAN_P = [
    -8.750608600031904122785e-1,
    -1.615753718733365076637e1,
    -7.500855792314704667340e1,
    -1.228866684490136173410e2,
    -6.485021904942025371773e1,
]
ATAN_Q = [
    1.0,
    2.485846490142306297962e1,
    1.650270098316988542046e2,
    4.328810604912902668951e2,
    4.853903996359136964868e2,
    1.945506571482613964425e2,
]
TAN_3PI_8 = 2.41421356237309504880
PI_2_LOW = 6.123233995736765886130e-17


def arctan_nonnegative(a: Value) -> Value:
    """Cephes ``atan`` of ``a >= 0`` (or NaN)."""
    large = a > TAN_3PI_8
    medium = a > 0.66
    reduced = where(large, -1.0 / a, where(medium, (a - 1.0) / (a + 1.0), a))
    offset = where(large, PI_2, where(medium, PI_4, 0.0))
    low_bits = where(large, PI_2_LOW, where(medium, 0.5 * PI_2_LOW, 0.0))
    z = reduced * reduced
    ratio = z * polevl(z, ATAN_P) / polevl(z, ATAN_Q)
    return offset + ((reduced * ratio + reduced) + low_bits)


def arctan(x: Value) -> Value:
    return odd(x, arctan_nonnegative(abs(x)))


def arcsin(x: Value) -> Value:
    return arctan(x / ((1.0 - x) * (1.0 + x)).sqrt())


def arccos(x: Value) -> Value:
    return 2.0 * arctan_nonnegative(((1.0 - x) / (1.0 + x)).sqrt())


def arctan2(y: Value, x: Value) -> Value:
    ay, ax = abs(y), abs(x)
    steep = ay > ax
    ratio = where(steep, ax, ay) / where(steep, ay, ax)
    ratio = where(ay.eq(ax), where(ay.eq(0.0), 0.0, 1.0), ratio)
    angle = arctan_nonnegative(ratio)
    angle = where(steep, PI_2 - angle, angle)
    angle = where(sign_bit(x), PI - angle, angle)
    return odd(y, angle)


TAN_P = [
    -1.30936939181383777646e4,
    1.15351664838587416140e6,
    -1.79565251976484877988e7,
]
TAN_Q = [
    1.0,
    1.36812963470692954678e4,
    -1.32089234440210967447e6,
    2.50083801823357915839e7,
    -5.38695755929454629881e7,
]
# pi/4 in five parts; the first four have at most 25 significant bits, so
# their products with octant counts below 2**28 are exact.
PI_4_PARTS = [
    7.853981554508209228515625e-1,
    7.946627356147928e-09,
    3.061616966026797e-17,
    3.1841585276126414e-25,
    5.41428336960957e-33,
]
REDUCTION_LIMIT = 2.0**27


def reduce_by_quarter_pi(s: Value):
    """``s - k * pi/4`` for the even ``k`` nearest ``s / (pi/4)``, and ``k mod 8``.

    Exact enough for ``0 <= s < REDUCTION_LIMIT`` to keep the relative error of
    the reduced argument at the level of its rounding, also next to the
    multiples of ``pi/2`` closest to a float64.
    """
    octant = (s / PI_4).floor()
    octant = octant + (octant - 2.0 * (0.5 * octant).floor())
    z = s
    for part in PI_4_PARTS:
        z = z - octant * part
    return z, octant - 8.0 * (0.125 * octant).floor()


def tan(x: Value) -> Value:
    a = abs(x)
    reducible = a < REDUCTION_LIMIT
    z, octant = reduce_by_quarter_pi(where(reducible, a, 0.0))
    zz = z * z
    t = z + z * (zz * polevl(zz, TAN_P) / polevl(zz, TAN_Q))
    cotangent = octant.eq(2.0) | octant.eq(6.0)
    reduced = where(cotangent, -1.0 / t, t)
    return odd(x, where(reducible, reduced, a.sin() / a.cos()))


SIN_P = [
    1.58962301576546568060e-10,
    -2.50507477628578072866e-8,
    2.75573136213857245213e-6,
    -1.98412698295895385996e-4,
    8.33333333332211858878e-3,
    -1.66666666666666307295e-1,
]
COS_P = [
    -1.13585365213876817300e-11,
    2.08757008419747316778e-9,
    -2.75573141792967388112e-7,
    2.48015872888517045348e-5,
    -1.38888888888730564116e-3,
    4.16666666666665929218e-2,
]


def sin_and_cos_of_reduced(z: Value):
    """Cephes' polynomials for ``sin(z)`` and ``cos(z)``, ``|z| <= pi/4``."""
    zz = z * z
    sin_z = z + z * (zz * polevl(zz, SIN_P))
    cos_z = (1.0 - 0.5 * zz) + zz * (zz * polevl(zz, COS_P))
    return sin_z, cos_z


def sin_or_cos(a: Value, kernel: str, cos_octants, negated_octants) -> Value:
    """``sin(a)`` or ``cos(a)`` of ``a >= 0`` (or NaN) from the octant of ``a``.

    onnxruntime's float64 Sin and Cos lose the relative accuracy next to their
    zeros; its ``kernel`` is only used from ``REDUCTION_LIMIT`` on, where it is
    accurate.
    """
    reducible = a < REDUCTION_LIMIT
    z, octant = reduce_by_quarter_pi(where(reducible, a, 0.0))
    sin_z, cos_z = sin_and_cos_of_reduced(z)
    use_cos = octant.eq(cos_octants[0]) | octant.eq(cos_octants[1])
    negate = octant.eq(negated_octants[0]) | octant.eq(negated_octants[1])
    reduced = where(use_cos, cos_z, sin_z) * where(negate, -1.0, 1.0)
    return where(reducible, reduced, a.apply(kernel, a))


def sin(x: Value) -> Value:
    return odd(x, sin_or_cos(abs(x), "Sin", (2.0, 6.0), (4.0, 6.0)))


def cos(x: Value) -> Value:
    return sin_or_cos(abs(x), "Cos", (0.0, 4.0), (2.0, 4.0))


ERF_T = [
    9.60497373987051638749e0,
    9.00260197203842689217e1,
    2.23200534594684319226e3,
    7.00332514112805075473e3,
    5.55923013010394962768e4,
]
ERF_U = [
    1.0,
    3.35617141647503099647e1,
    5.21357949780152679795e2,
    4.59432382970980127987e3,
    2.26290000613890934246e4,
    4.92673942608635921086e4,
]
ERFC_P = [
    2.46196981473530512524e-10,
    5.64189564831068821977e-1,
    7.46321056442269912687e0,
    4.86371970985681366614e1,
    1.96520832956077098242e2,
    5.26445194995477358631e2,
    9.34528527171957607540e2,
    1.02755188689515710272e3,
    5.57535335369399327526e2,
]
ERFC_Q = [
    1.0,
    1.32281951154744992508e1,
    8.67072140885989742329e1,
    3.54937778887819891062e2,
    9.75708501743205489753e2,
    1.82390916687909736289e3,
    2.24633760818710981792e3,
    1.65666309194161350182e3,
    5.57535340817727675546e2,
]
ERFC_R = [
    5.64189583547755073984e-1,
    1.27536670759978104416e0,
    5.01905042251180477414e0,
    6.16021097993053585195e0,
    7.40974269950448939160e0,
    2.97886665372100240670e0,
]
ERFC_S = [
    1.0,
    2.26052863220117276590e0,
    9.39603524938001434673e0,
    1.20489539808096656605e1,
    1.70814450747565897222e1,
    9.60896809063285878198e0,
    3.36907645100081516050e0,
]


def erf_central(x: Value) -> Value:
    """Cephes ``erf`` for ``|x| <= 1``."""
    z = x * x
    return x * polevl(z, ERF_T) / polevl(z, ERF_U)


def exp_minus_square(a: Value) -> Value:
    """``exp(-a**2)`` accurate to the last bits (Cephes ``expx2``).

    ``a = m + f`` with ``m`` a multiple of 1/128, so ``m**2`` is exact and only
    the small ``2*m*f + f**2`` is rounded.
    """
    m = (128.0 * a + 0.5).floor() / 128.0
    f = a - m
    return (-(m * m)).exp() * (-(2.0 * m * f + f * f)).exp()


def erfc_tail(a: Value) -> Value:
    """Cephes ``erfc`` for ``a >= 1`` (or NaN), 0 where ``a**2 > MAXLOG``."""
    underflow = a * a > MAXLOG
    s = where(underflow, 1.0, a)
    near = s < 8.0
    numerator = where(near, polevl(s, ERFC_P), polevl(s, ERFC_R))
    denominator = where(near, polevl(s, ERFC_Q), polevl(s, ERFC_S))
    return where(underflow, 0.0, exp_minus_square(s) * numerator / denominator)


def erf(x: Value) -> Value:
    a = abs(x)
    return odd(x, where(a <= 1.0, erf_central(a), 1.0 - erfc_tail(a)))


def erfc(x: Value) -> Value:
    a = abs(x)
    tail = erfc_tail(a)
    return where(a < 1.0, 1.0 - erf_central(x), where(x < 0.0, 2.0 - tail, tail))


def sigmoid(x: Value) -> Value:
    # SciPy's expit, which underflows to 0 below -709.78 rather than going subnormal.
    return 1.0 / (1.0 + (-x).exp())


def softplus(x: Value) -> Value:
    # PyTensor's Softplus.impl is exp(x) below -37, log1p(exp(x)) below 18,
    # x + exp(-x) below 33.3 and x above. Two pieces give the same values:
    # below -37, 1 + exp(x) rounds to 1 and log1p returns exp(x) itself;
    # above 33.3, exp(-x) is below half an ulp of x.
    return where(x < 18.0, finite_log1p(x.exp()), x + (-x).exp())


CONSTRUCTIONS = {
    ps.Log1p: log1p,
    ps.Expm1: expm1,
    ps.Tan: tan,
    ps.Sin: sin,
    ps.Cos: cos,
    ps.ArcSin: arcsin,
    ps.ArcCos: arccos,
    ps.ArcTan: arctan,
    ps.Sinh: sinh,
    ps.Cosh: cosh,
    ps.ArcSinh: arcsinh,
    ps.ArcCosh: arccosh,
    ps.ArcTanh: arctanh,
    psm.Erf: erf,
    psm.Erfc: erfc,
    psm.Sigmoid: sigmoid,
    psm.Softplus: softplus,
}
# onnxruntime operators whose float32 kernels are accurate to float32 precision.
FLOAT32_KERNELS = {
    ps.Tan: "Tan",
    ps.Sin: "Sin",
    ps.Cos: "Cos",
    ps.ArcSin: "Asin",
    ps.ArcCos: "Acos",
    ps.ArcTan: "Atan",
    ps.Sinh: "Sinh",
    ps.Cosh: "Cosh",
    ps.ArcSinh: "Asinh",
    ps.ArcCosh: "Acosh",
    ps.ArcTanh: "Atanh",
    psm.Erf: "Erf",
    psm.Softplus: "Softplus",
}
# Constructions that SciPy's float32 loops evaluate in float32 (and so underflow
# in float32); the others are computed in float64 and rounded once.
FLOAT32_CONSTRUCTIONS = {psm.Sigmoid}


def construct(builder, construction, inputs, dtype, compute_dtype):
    """Apply ``construction`` to ``inputs`` (of ``dtype``) in ``compute_dtype``."""
    args = [
        Value(builder, builder.cast(name, dtype, compute_dtype), compute_dtype)
        for name in inputs
    ]
    return builder.cast(construction(*args).name, compute_dtype, dtype)


def onnx_funcify_special_unary(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_all(builder, node, inputs, dtype)
    if dtype == "float64":
        return [construct(builder, CONSTRUCTIONS[type(op)], [x], dtype, "float64")]
    if type(op) in FLOAT32_KERNELS:
        result = builder.add(
            FLOAT32_KERNELS[type(op)], [builder.cast(x, dtype, "float32")]
        )
        return [builder.cast(result, "float32", dtype)]
    compute_dtype = "float32" if type(op) in FLOAT32_CONSTRUCTIONS else "float64"
    return [construct(builder, CONSTRUCTIONS[type(op)], [x], dtype, compute_dtype)]


for op_class in CONSTRUCTIONS:
    onnx_funcify.register(op_class)(onnx_funcify_special_unary)


@onnx_funcify.register(ps.ArcTan2)
def onnx_funcify_ArcTan2(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    args = cast_all(builder, node, inputs, dtype)
    return [construct(builder, arctan2, args, dtype, "float64")]
