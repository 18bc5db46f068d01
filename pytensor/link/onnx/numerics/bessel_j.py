"""The Bessel functions of the first kind of orders 0 and 1: SciPy's ``j0``,
``j1`` and ``jv`` of those orders.

``j0`` and ``j1`` are SciPy's Cephes functions: Cephes' rational
approximations for ``|x| <= 5`` and its asymptotic modulus-phase form beyond,
with Cephes' phase ``x - pi/4`` (or ``x - 3 pi/4``) rounded to a float64 as
SciPy rounds it: from ``|x| ~ 1e3`` on that rounding, not the approximation,
makes up most of SciPy's error (a relative error of ``|x| * 2**-53`` of the
amplitude), and this reproduces it. SciPy's ``jv`` is AMOS up to ``|x| =
2**51``, accurate there, and Cephes' ``j0`` and ``j1`` beyond: ``jv`` has the
same approximations and an exact phase up to ``2**51``.

Maximum error against SciPy on dense grids (``tests/link/onnx/test_bessel.py``
asserts these bounds); ``envelope`` is ``min(1, sqrt(2 / (pi |x|)))``, the
amplitude of the oscillating functions, in terms of which their error is
stated next to their zeros:

=========  ==============================================================
function   float64
=========  ==============================================================
j0, j1     7.8e-16 relative where ``|J| > envelope / 10``, 5.1e-16 of the
           envelope next to the zeros
jv         2.1e-14 relative where ``|J| > envelope / 10`` (AMOS' own error
           is 1.5e-14 for ``5 < |x| < 25``), 2.4e-15 of the envelope next
           to the zeros; order 1 below ``|x| = 1e-5``: 5.7e-14 relative,
           all of it AMOS', against this function's ``x / 2``
=========  ==============================================================
"""

from pytensor.link.onnx.numerics.constants import SQRT1_2
from pytensor.link.onnx.numerics.elementary import odd
from pytensor.link.onnx.numerics.trigonometric import sin_and_cos
from pytensor.link.onnx.value import Value, polevl, where


J0_RP = [
    -4.79443220978201773821e9,
    1.95617491946556577543e12,
    -2.49248344360967716204e14,
    9.70862251047306323952e15,
]
J0_RQ = [
    1.0,
    4.99563147152651017219e2,
    1.73785401676374683123e5,
    4.84409658339962045305e7,
    1.11855537045356834862e10,
    2.11277520115489217587e12,
    3.10518229857422583814e14,
    3.18121955943204943306e16,
    1.71086294081043136091e18,
]
# The squares of the first two zeros of J0
J0_DR1 = 5.78318596294678452118e0
J0_DR2 = 3.04712623436620863991e1
J0_PP = [
    7.96936729297347051624e-4,
    8.28352392107440799803e-2,
    1.23953371646414299388e0,
    5.44725003058768775090e0,
    8.74716500199817011941e0,
    5.30324038235394892183e0,
    9.99999999999999997821e-1,
]
J0_PQ = [
    9.24408810558863637013e-4,
    8.56288474354474431428e-2,
    1.25352743901058953537e0,
    5.47097740330417105182e0,
    8.76190883237069594232e0,
    5.30605288235394617618e0,
    1.00000000000000000218e0,
]
J0_QP = [
    -1.13663838898469149931e-2,
    -1.28252718670509318512e0,
    -1.95539544257735972385e1,
    -9.32060152123768231369e1,
    -1.77681167980488050595e2,
    -1.47077505154951170175e2,
    -5.14105326766599330220e1,
    -6.05014350600728481186e0,
]
J0_QQ = [
    1.0,
    6.43178256118178023184e1,
    8.56430025976980587198e2,
    3.88240183605401609683e3,
    7.24046774195652478189e3,
    5.93072701187316984827e3,
    2.06209331660327847417e3,
    2.42005740240291393179e2,
]
J1_RP = [
    -8.99971225705559398224e8,
    4.52228297998194034323e11,
    -7.27494245221818276015e13,
    3.68295732863852883286e15,
]
J1_RQ = [
    1.0,
    6.20836478118054335476e2,
    2.56987256757748830383e5,
    8.35146791431949253037e7,
    2.21511595479792499675e10,
    4.74914122079991414898e12,
    7.84369607876235854894e14,
    8.95222336184627338078e16,
    5.32278620332680085395e18,
]
# The squares of the first two positive zeros of J1
J1_Z1 = 1.46819706421238932572e1
J1_Z2 = 4.92184563216946036703e1
J1_PP = [
    7.62125616208173112003e-4,
    7.31397056940917570436e-2,
    1.12719608129684925192e0,
    5.11207951146807644818e0,
    8.42404590141772420927e0,
    5.21451598682361504063e0,
    1.00000000000000000254e0,
]
J1_PQ = [
    5.71323128072548699714e-4,
    6.88455908754495404082e-2,
    1.10514232634061696926e0,
    5.07386386128601488557e0,
    8.39985554327604159757e0,
    5.20982848682361821619e0,
    9.99999999999999997461e-1,
]
J1_QP = [
    5.10862594750176621635e-2,
    4.98213872951233449420e0,
    7.58238284132545283818e1,
    3.66779609360150777800e2,
    7.10856304998926107277e2,
    5.97489612400613639965e2,
    2.11688757100572135698e2,
    2.52070205858023719784e1,
]
J1_QQ = [
    1.0,
    7.42373277035675149943e1,
    1.05644886038262816351e3,
    4.98641058337653607651e3,
    9.56231892404756170795e3,
    7.99704160447350683650e3,
    2.82619278517639096600e3,
    3.36093607810698293419e2,
]


SQ2OPI = 7.9788456080286535587989e-1
# Cephes' phase shifts x - pi/4 (J0) and x - 3 pi/4 (J1), as float64, and the
# exact cosine and sine of pi/4 and 3 pi/4
PHASE_SHIFT = {0: 7.85398163397448309616e-1, 1: 2.35619449019234492885e0}
SHIFT_COS_SIN = {0: (SQRT1_2, SQRT1_2), 1: (-SQRT1_2, SQRT1_2)}
ASYMPTOTIC_TABLES = {0: (J0_PP, J0_PQ, J0_QP, J0_QQ), 1: (J1_PP, J1_PQ, J1_QP, J1_QQ)}
# SciPy's jv is AMOS up to here and Cephes' j0 and j1 beyond; AMOS' jv of
# order 1 is +0.0 up to J1_UNDERFLOW.
JV_AMOS_LIMIT = 2.0**51
J1_UNDERFLOW = 7.844454502088054e-305


def cephes_phase(a: Value, order: int):
    """``cos`` and ``sin`` of Cephes' phase, ``a - shift`` rounded to a float64."""
    sin_phase, cos_phase = sin_and_cos(a - PHASE_SHIFT[order])
    return cos_phase, sin_phase


def exact_phase(a: Value, order: int, rounded_from: float):
    """``cos`` and ``sin`` of ``a - pi/4`` (order 0) or ``a - 3 pi/4`` (order 1),
    rounded like Cephes' from ``rounded_from`` on."""
    rounded = a > rounded_from
    sin_a, cos_a = sin_and_cos(where(rounded, a - PHASE_SHIFT[order], a))
    shift_cos, shift_sin = SHIFT_COS_SIN[order]
    shift_cos = where(rounded, 1.0, shift_cos)
    shift_sin = where(rounded, 0.0, shift_sin)
    return cos_a * shift_cos + sin_a * shift_sin, sin_a * shift_cos - cos_a * shift_sin


def bessel_j_central(a: Value, order: int) -> Value:
    """Cephes ``j0`` or ``j1`` of ``0 <= a <= 5``."""
    z = a * a
    if order == 0:
        rational = (z - J0_DR1) * (z - J0_DR2) * polevl(z, J0_RP) / polevl(z, J0_RQ)
        return where(a < 1e-5, 1.0 - z / 4.0, rational)
    rational = polevl(z, J1_RP) / polevl(z, J1_RQ)
    return rational * a * (z - J1_Z1) * (z - J1_Z2)


def bessel_j_asymptotic(a: Value, order: int, cos_phase: Value, sin_phase: Value):
    """Cephes' modulus-phase form of ``j0`` or ``j1`` for ``a > 5``."""
    pp, pq, qp, qq = ASYMPTOTIC_TABLES[order]
    w = 5.0 / a
    z = 25.0 / (a * a) if order == 0 else w * w
    p = polevl(z, pp) / polevl(z, pq)
    q = polevl(z, qp) / polevl(z, qq)
    return (p * cos_phase - w * q * sin_phase) * SQ2OPI / a.sqrt()


def bessel_j(x: Value, order: int, phase) -> Value:
    """``J0`` or ``J1`` with the ``phase(a, order)`` of the asymptotic form."""
    a = abs(x)
    far = bessel_j_asymptotic(a, order, *phase(a, order))
    result = where(a <= 5.0, bessel_j_central(a, order), far)
    return odd(x, result) if order else result


def j0(x: Value) -> Value:
    """Cephes ``j0``."""
    return bessel_j(x, 0, cephes_phase)


def j1(x: Value) -> Value:
    """Cephes ``j1``."""
    return bessel_j(x, 1, cephes_phase)


def jv(x: Value, order: int) -> Value:
    """SciPy's ``jv`` of the order 0 or 1."""

    def phase(a, order):
        return exact_phase(a, order, rounded_from=JV_AMOS_LIMIT)

    result = bessel_j(x, order, phase)
    if order:
        result = where(abs(x) <= J1_UNDERFLOW, 0.0, result)
    return result
