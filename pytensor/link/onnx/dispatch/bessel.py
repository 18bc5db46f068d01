"""Converters for the Bessel functions ``J0``, ``J1``, ``Jv``, ``Kve`` and ``Ive``/``Iv``.

The Ops with an order argument convert for the constant orders -1, 0 and 1;
``ive`` and ``iv`` are built in ``special_math`` from Cephes' ``i0`` and ``i1``.

ONNX has no Bessel functions. ``j0`` and ``j1`` are SciPy's Cephes functions,
rebuilt here with Cephes' rational approximations for ``|x| <= 5`` and its
asymptotic modulus-phase form beyond, with Cephes' phase ``x - pi/4`` (or
``x - 3 pi/4``) rounded to a float64 as SciPy rounds it: from ``|x| ~ 1e3`` on
that rounding, not the approximation, makes up most of SciPy's error (a
relative error of ``|x| * 2**-53`` of the amplitude), and this converter
reproduces it. SciPy's ``jv`` is AMOS up to ``|x| = 2**51``, accurate there,
and Cephes' ``j0`` and ``j1`` beyond: the orders 0 and 1 are converted with the
same approximations and an exact phase up to ``2**51``. ``kve`` of the orders
0 and 1 is Cephes' ``k0e`` and ``k1e``, with AMOS' limits as SciPy returns them
(``inf`` below ``1000 * DBL_MIN``, NaN above ``AMOS_LIMIT``).

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
           all of it AMOS', against this converter's ``x / 2``
kve        3.3e-15 relative for ``1 < x <= 2``, where Cephes and AMOS both
           lose a few bits, 1.6e-15 below, 7.1e-16 above
=========  ==============================================================

Float32 (and float16) values are computed in float64 and rounded once, as
SciPy's float32 loops do.
"""

import numpy as np
import pytensor.scalar.math as psm
from pytensor.tensor.basic import get_underlying_scalar_constant_value
from pytensor.tensor.exceptions import NotScalarConstantError

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.scalar import cast_all, constant_data, output_dtype
from pytensor.link.onnx.dispatch.special import (
    REDUCTION_LIMIT,
    construct,
    odd,
    reduce_by_quarter_pi,
    sin_and_cos_of_reduced,
)
from pytensor.link.onnx.dispatch.special_math import AMOS_LIMIT, chbevl, i0, i1, iv, ive
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
K0_A = [
    1.37446543561352307156e-16,
    4.25981614279661018399e-14,
    1.03496952576338420167e-11,
    1.90451637722020886025e-9,
    2.53479107902614945675e-7,
    2.28621210311945178607e-5,
    1.26461541144692592338e-3,
    3.59799365153615016266e-2,
    3.44289899924628486886e-1,
    -5.35327393233902768720e-1,
]
K0_B = [
    5.30043377268626276149e-18,
    -1.64758043015242134646e-17,
    5.21039150503902756861e-17,
    -1.67823109680541210385e-16,
    5.51205597852431940784e-16,
    -1.84859337734377901440e-15,
    6.34007647740507060557e-15,
    -2.22751332699166985548e-14,
    8.03289077536357521100e-14,
    -2.98009692317273043925e-13,
    1.14034058820847496303e-12,
    -4.51459788337394416547e-12,
    1.85594911495471785253e-11,
    -7.95748924447710747776e-11,
    3.57739728140030116597e-10,
    -1.69753450938905987466e-9,
    8.57403401741422608519e-9,
    -4.66048989768794782956e-8,
    2.76681363944501510342e-7,
    -1.83175552271911948767e-6,
    1.39498137188764993662e-5,
    -1.28495495816278026384e-4,
    1.56988388573005337491e-3,
    -3.14481013119645005427e-2,
    2.44030308206595545468e0,
]
K1_A = [
    -7.02386347938628759343e-18,
    -2.42744985051936593393e-15,
    -6.66690169419932900609e-13,
    -1.41148839263352776110e-10,
    -2.21338763073472585583e-8,
    -2.43340614156596823496e-6,
    -1.73028895751305206302e-4,
    -6.97572385963986435018e-3,
    -1.22611180822657148235e-1,
    -3.53155960776544875667e-1,
    1.52530022733894777053e0,
]
K1_B = [
    -5.75674448366501715755e-18,
    1.79405087314755922667e-17,
    -5.68946255844285935196e-17,
    1.83809354436663880070e-16,
    -6.05704724837331885336e-16,
    2.03870316562433424052e-15,
    -7.01983709041831346144e-15,
    2.47715442448130437068e-14,
    -8.97670518232499435011e-14,
    3.34841966607842919884e-13,
    -1.28917396095102890680e-12,
    5.13963967348173025100e-12,
    -2.12996783842756842877e-11,
    9.21831518760500529508e-11,
    -4.19035475934189648750e-10,
    2.01504975519703286596e-9,
    -1.03457624656780970260e-8,
    5.74108412545004946722e-8,
    -3.50196060308781257119e-7,
    2.40648494783721712015e-6,
    -1.93619797416608296024e-5,
    1.95215518471351631108e-4,
    -2.85781685962277938680e-3,
    1.03923736576817238437e-1,
    2.72062619048444266945e0,
]

SQ2OPI = 7.9788456080286535587989e-1
SQRT1_2 = 0.7071067811865476
# Cephes' phase shifts x - pi/4 (J0) and x - 3 pi/4 (J1), as float64, and the
# exact cosine and sine of pi/4 and 3 pi/4
PHASE_SHIFT = {0: 7.85398163397448309616e-1, 1: 2.35619449019234492885e0}
SHIFT_COS_SIN = {0: (SQRT1_2, SQRT1_2), 1: (-SQRT1_2, SQRT1_2)}
ASYMPTOTIC_TABLES = {0: (J0_PP, J0_PQ, J0_QP, J0_QQ), 1: (J1_PP, J1_PQ, J1_QP, J1_QQ)}
# SciPy's jv is AMOS up to here and Cephes' j0 and j1 beyond; AMOS' jv of
# order 1 is +0.0 up to J1_UNDERFLOW and its kve is inf below KVE_OVERFLOW.
JV_AMOS_LIMIT = 2.0**51
J1_UNDERFLOW = 7.844454502088054e-305
KVE_OVERFLOW = 2.2250738585072014e-305


def sin_and_cos(a: Value):
    """``sin(a)`` and ``cos(a)`` of ``a >= 0`` (or NaN, inf) from one range reduction.

    Accurate next to the zeros too; onnxruntime's kernels, accurate there, take
    over from ``REDUCTION_LIMIT``.
    """
    reducible = a < REDUCTION_LIMIT
    z, octant = reduce_by_quarter_pi(where(reducible, a, 0.0))
    sin_z, cos_z = sin_and_cos_of_reduced(z)
    swap = octant.eq(2.0) | octant.eq(6.0)
    sin_sign = where(octant.eq(4.0) | octant.eq(6.0), -1.0, 1.0)
    cos_sign = where(octant.eq(2.0) | octant.eq(4.0), -1.0, 1.0)
    sin_a = where(swap, cos_z, sin_z) * sin_sign
    cos_a = where(swap, sin_z, cos_z) * cos_sign
    return where(reducible, sin_a, a.sin()), where(reducible, cos_a, a.cos())


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
    return bessel_j(x, 0, cephes_phase)


def j1(x: Value) -> Value:
    return bessel_j(x, 1, cephes_phase)


def jv(x: Value, order: int) -> Value:
    """SciPy's ``jv`` of the order 0 or 1."""

    def phase(a, order):
        return exact_phase(a, order, rounded_from=JV_AMOS_LIMIT)

    result = bessel_j(x, order, phase)
    if order:
        result = where(abs(x) <= J1_UNDERFLOW, 0.0, result)
    return result


KVE_TABLES = {0: (K0_A, K0_B), 1: (K1_A, K1_B)}


def kve(x: Value, order: int) -> Value:
    """SciPy's ``kve`` of the order 0 or 1: Cephes ``k0e`` or ``k1e``, AMOS' limits."""
    central_table, tail_table = KVE_TABLES[order]
    series = chbevl(x * x - 2.0, central_table)
    log_half_x = (0.5 * x).log()
    if order == 0:
        central = series - log_half_x * i0(x)
    else:
        central = log_half_x * i1(x) + series / x
    tail = chbevl(8.0 / x - 2.0, tail_table) / x.sqrt()
    result = where(x <= 2.0, central * x.exp(), tail)
    result = where(x < KVE_OVERFLOW, np.inf, result)
    return where((x < 0.0) | (x > AMOS_LIMIT), np.nan, result)


def constant_integer_orders(node, op) -> np.ndarray:
    """The constant orders ``v`` of a Bessel function node, each -1, 0 or 1.

    An order computed from constants alone, as gradients build them (``v - 1``),
    counts as constant too.
    """
    orders = constant_data(node.inputs[0])
    if orders is None:
        try:
            orders = get_underlying_scalar_constant_value(node.inputs[0])
        except NotScalarConstantError:
            pass
    if orders is None or not np.isin(orders, (-1, 0, 1)).all():
        unsupported = (
            "a variable order" if orders is None else np.unique(orders).tolist()
        )
        raise NotImplementedError(
            f"{type(op).__name__} is only converted for a constant order v of -1, 0 "
            f"or 1 (Cephes' approximations), not for {unsupported}: other orders "
            "need the AMOS algorithms of SciPy."
        )
    return np.asarray(orders)


def of_orders(function, orders: np.ndarray, x: Value, odd_in_order: bool) -> Value:
    """``function(x, |v|)`` for the constant ``orders`` v, elementwise.

    ``odd_in_order``: the function of order -1 is minus that of order 1 (``jv``),
    otherwise equal to it (``kve``). The result has the broadcast shape of
    ``orders`` and ``x``.
    """
    builder = x.builder
    degrees = np.unique(np.abs(orders)).astype(int).tolist()
    results = {degree: function(x, degree) for degree in degrees}
    if len(results) == 1:
        [result] = results.values()
    else:
        is_one = Value(
            builder, builder.constant(np.abs(orders) == 1, "bool"), "bool", x.dtype
        )
        result = where(is_one, results[1], results[0])
    factors = np.where(odd_in_order & (orders == -1), -1.0, 1.0)
    if factors.size != 1 or factors.min() < 0.0:
        result = result * factors
    return result


# The function of each Op, and whether order -1 gives minus order 1 (else the same)
BESSEL_OF_ORDER = {psm.Jv: (jv, True), psm.Kve: (kve, False), psm.Ive: (ive, False)}
if hasattr(psm, "Iv"):
    BESSEL_OF_ORDER[psm.Iv] = (iv, False)


@onnx_funcify.register(psm.J0)
@onnx_funcify.register(psm.J1)
def onnx_funcify_bessel_j(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_all(builder, node, inputs, dtype)
    construction = j0 if isinstance(op, psm.J0) else j1
    return [construct(builder, construction, [x], dtype, "float64")]


def onnx_funcify_bessel_of_order(op, node, builder, inputs, **kwargs):
    orders = constant_integer_orders(node, op)
    function, odd_in_order = BESSEL_OF_ORDER[type(op)]
    dtype = output_dtype(node)
    [_, x] = cast_all(builder, node, inputs, dtype)

    def construction(x):
        return of_orders(function, orders, x, odd_in_order)

    return [construct(builder, construction, [x], dtype, "float64")]


for op_class in BESSEL_OF_ORDER:
    onnx_funcify.register(op_class)(onnx_funcify_bessel_of_order)
