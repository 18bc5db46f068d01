"""The matrix exponential: Padé approximation of degree 13 with scaling and squaring."""

import numpy as np

from pytensor.link.onnx.numerics.linalg.solvers.general import solve
from pytensor.link.onnx.numerics.linalg.stacks import identity, loop
from pytensor.link.onnx.value import Value, maximum, minimum, where


# Higham (2005), "The scaling and squaring method for the matrix exponential
# revisited": coefficients of the [13/13] Padé approximant, and the largest
# 1-norm for which it is accurate to float64's unit roundoff
PADE_13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
THETA_13 = 5.371920351148152
# 2**-1100 underflows every float64: no input needs more squarings
MAX_SQUARINGS = 1100


def n_squarings(a: Value) -> Value:
    """``max(0, ceil(log2(norm_1(a) / theta_13)))`` per stack, as int64 ``(batch, 1, 1)``."""
    norm = abs(a).sum([1]).max([2])
    ratio = maximum(norm / THETA_13, norm.constant(1))
    exponent = (ratio.log() / float(np.log(2))).ceil()
    exponent = where(exponent.isnan(), 0, exponent)
    return minimum(exponent, exponent.constant(MAX_SQUARINGS)).cast("int64")


def expm(a: Value) -> Value:
    """The matrix exponential: [13/13] Padé approximant with scaling and squaring."""
    n = a.dim(1)
    squarings = n_squarings(a)
    a = a / (a.constant(2.0) ** squarings.cast(a.dtype))
    eye = identity(n, n, a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    b = PADE_13
    odd = a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
    odd = a @ (odd + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    even = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2)
    even = even + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    x, _ = solve(even - odd, even + odd)

    def step(i, x):
        return [where(i < squarings.into(i.builder), x @ x, x)]

    most = squarings.apply("ReduceMax", squarings, keepdims=0)
    [x] = loop(most, [x], step, hint="squared")
    return x
