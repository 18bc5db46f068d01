"""The modified Bessel functions of the first kind of orders 0 and 1:
Cephes' ``i0``, ``i1``, ``i0e`` and ``i1e`` (Chebyshev series), and SciPy's
``ive`` and ``iv`` of those orders, with AMOS' limits as SciPy returns them.

Maximum relative error against SciPy on dense grids
(``tests/link/onnx/test_special_math.py`` and ``test_bessel.py``):

=========  =======  ======================================================
function   float64  notes
=========  =======  ======================================================
i0, i1     4.4e-16  ``ive`` 8.9e-16, but 5.7e-14 for order 1 below 1e-230,
                    where SciPy's AMOS result is the inaccurate one
=========  =======  ======================================================
"""

import numpy as np

from pytensor.link.onnx.numerics.constants import DBL_MIN
from pytensor.link.onnx.numerics.series import chbevl
from pytensor.link.onnx.value import Value, where


I0E_A = [
    -4.41534164647933937950e-18,
    3.33079451882223809783e-17,
    -2.43127984654795469359e-16,
    1.71539128555513303061e-15,
    -1.16853328779934516808e-14,
    7.67618549860493561688e-14,
    -4.85644678311192946090e-13,
    2.95505266312963983461e-12,
    -1.72682629144155570723e-11,
    9.67580903537323691224e-11,
    -5.18979560163526290666e-10,
    2.65982372468238665035e-9,
    -1.30002500998624804212e-8,
    6.04699502254191894932e-8,
    -2.67079385394061173391e-7,
    1.11738753912010371815e-6,
    -4.41673835845875056359e-6,
    1.64484480707288970893e-5,
    -5.75419501008210370398e-5,
    1.88502885095841655729e-4,
    -5.76375574538582365885e-4,
    1.63947561694133579842e-3,
    -4.32430999505057594430e-3,
    1.05464603945949983183e-2,
    -2.37374148058994688156e-2,
    4.93052842396707084878e-2,
    -9.49010970480476444210e-2,
    1.71620901522208775349e-1,
    -3.04682672343198398683e-1,
    6.76795274409476084995e-1,
]
I0E_B = [
    -7.23318048787475395456e-18,
    -4.83050448594418207126e-18,
    4.46562142029675999901e-17,
    3.46122286769746109310e-17,
    -2.82762398051658348494e-16,
    -3.42548561967721913462e-16,
    1.77256013305652638360e-15,
    3.81168066935262242075e-15,
    -9.55484669882830764870e-15,
    -4.15056934728722208663e-14,
    1.54008621752140982691e-14,
    3.85277838274214270114e-13,
    7.18012445138366623367e-13,
    -1.79417853150680611778e-12,
    -1.32158118404477131188e-11,
    -3.14991652796324136454e-11,
    1.18891471078464383424e-11,
    4.94060238822496958910e-10,
    3.39623202570838634515e-9,
    2.26666899049817806459e-8,
    2.04891858946906374183e-7,
    2.89137052083475648297e-6,
    6.88975834691682398426e-5,
    3.36911647825569408990e-3,
    8.04490411014108831608e-1,
]
I1E_A = [
    2.77791411276104639959e-18,
    -2.11142121435816608115e-17,
    1.55363195773620046921e-16,
    -1.10559694773538630805e-15,
    7.60068429473540693410e-15,
    -5.04218550472791168711e-14,
    3.22379336594557470981e-13,
    -1.98397439776494371520e-12,
    1.17361862988909016308e-11,
    -6.66348972350202774223e-11,
    3.62559028155211703701e-10,
    -1.88724975172282928790e-9,
    9.38153738649577178388e-9,
    -4.44505912879632808065e-8,
    2.00329475355213526229e-7,
    -8.56872026469545474066e-7,
    3.47025130813767847674e-6,
    -1.32731636560394358279e-5,
    4.78156510755005422638e-5,
    -1.61760815825896745588e-4,
    5.12285956168575772895e-4,
    -1.51357245063125314899e-3,
    4.15642294431288815669e-3,
    -1.05640848946261981558e-2,
    2.47264490306265168283e-2,
    -5.29459812080949914269e-2,
    1.02643658689847095384e-1,
    -1.76416518357834055153e-1,
    2.52587186443633654823e-1,
]
I1E_B = [
    7.51729631084210481353e-18,
    4.41434832307170791151e-18,
    -4.65030536848935832153e-17,
    -3.20952592199342395980e-17,
    2.96262899764595013876e-16,
    3.30820231092092828324e-16,
    -1.88035477551078244854e-15,
    -3.81440307243700780478e-15,
    1.04202769841288027642e-14,
    4.27244001671195135429e-14,
    -2.10154184277266431302e-14,
    -4.08355111109219731823e-13,
    -7.19855177624590851209e-13,
    2.03562854414708950722e-12,
    1.41258074366137813316e-11,
    3.25260358301548823856e-11,
    -1.89749581235054123450e-11,
    -5.58974346219658380687e-10,
    -3.83538038596423702205e-9,
    -2.63146884688951950684e-8,
    -2.51223623787020892529e-7,
    -3.88256480887769039346e-6,
    -1.10588938762623716291e-4,
    -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
]


def bessel_i(x: Value, central, tail, order: int, scaled: bool) -> Value:
    """Cephes ``i0``, ``i0e``, ``i1`` and ``i1e`` (``order``, ``scaled``)."""
    a = abs(x)
    near = chbevl(a / 2.0 - 2.0, central)
    far = chbevl(32.0 / a - 2.0, tail)
    if order:
        near = near * a
    if not scaled:
        e = a.exp()
        near, far = near * e, e * far
    result = where(a <= 8.0, near, far / a.sqrt())
    if order:
        result = result * where(x < 0.0, -1.0, 1.0)
    return result


def i0(x: Value) -> Value:
    """Cephes ``i0``."""
    return bessel_i(x, I0E_A, I0E_B, 0, scaled=False)


def scaled_i(x: Value, order: int) -> Value:
    """Cephes ``i0e`` or ``i1e`` (``order`` 0 or 1), ``iv(x) exp(-|x|)`` for
    every ``x``: SciPy's ``ive`` stops at `AMOS_LIMIT`, these do not."""
    return bessel_i(x, *BESSEL_I_TABLES[order], order, scaled=True)


def i1(x: Value) -> Value:
    """Cephes ``i1``."""
    return bessel_i(x, I1E_A, I1E_B, 1, scaled=False)


BESSEL_I_TABLES = {0: (I0E_A, I0E_B), 1: (I1E_A, I1E_B)}
# SciPy's ive (AMOS) returns NaN beyond AMOS_LIMIT and 0.0 for I1 up to
# IVE1_UNDERFLOW; its iv returns NaN for subnormal x and ±0 for I1 up to
# IV1_UNDERFLOW.
AMOS_LIMIT = 1073741823.5
IVE1_UNDERFLOW = 7.844454502088054e-305
IV1_UNDERFLOW = 1.0547686614862998e-154


def ive(x: Value, order: int) -> Value:
    """SciPy's ``ive`` of the order 0 or 1, ``iv(x) exp(-|x|)``."""
    a = abs(x)
    result = bessel_i(x, *BESSEL_I_TABLES[order], order, scaled=True)
    if order:
        result = where(a <= IVE1_UNDERFLOW, 0.0, result)
    return where(a > AMOS_LIMIT, np.nan, result)


def iv(x: Value, order: int) -> Value:
    """SciPy's ``iv`` of the order 0 or 1."""
    a = abs(x)
    # I(x) overflows later than exp(|x|)
    half = (0.5 * a).exp()
    result = (half * bessel_i(x, *BESSEL_I_TABLES[order], order, scaled=True)) * half
    if order:
        # -0.0 goes second: onnxruntime's Where turns it into 0.0 in the first
        signed_zero = where(x < 0.0, -1.0, 1.0) * 0.0
        keep = (a > IV1_UNDERFLOW) | a.isnan()
        result = where(keep, result, signed_zero)
    subnormal = (a < DBL_MIN) & (a > 0.0)
    return where(subnormal | a.isinf(), np.nan, result)
