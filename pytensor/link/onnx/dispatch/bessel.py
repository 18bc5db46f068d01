"""Converters for the Bessel functions of an order: ``Jv``, ``Kve``, ``Ive``, ``Iv``.

They convert for the constant orders -1, 0 and 1,
with the algorithms of `pytensor.link.onnx.numerics.bessel_j`, ``bessel_i``
and ``bessel_k`` (Cephes' approximations with AMOS' limits, as SciPy); each
states its accuracy. Float32 (and float16) values are computed in float64
and rounded once, as SciPy's float32 loops do.
"""

import numpy as np
import pytensor.scalar.math as psm

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.operands import (
    cast_all,
    computed_in,
    constant_orders,
    output_dtype,
)
from pytensor.link.onnx.numerics import bessel_i, bessel_j
from pytensor.link.onnx.numerics.bessel_k import kve
from pytensor.link.onnx.value import Value, where


def constant_integer_orders(node, op) -> np.ndarray:
    """The constant orders ``v`` of a Bessel function node, each -1, 0 or 1.

    An order computed from constants alone, as gradients build them (``v - 1``),
    counts as constant too.
    """
    orders = constant_orders(node)
    if orders is None or not np.isin(orders, (-1, 0, 1)).all():
        unsupported = (
            "a variable order" if orders is None else np.unique(orders).tolist()
        )
        raise NotImplementedError(
            f"{type(op).__name__} is only converted for a constant order v of -1, 0 "
            f"or 1 (Cephes' approximations), not for {unsupported}: other orders "
            "need the AMOS algorithms of SciPy."
        )
    return orders


def of_orders(function, orders: np.ndarray, x: Value, odd_in_order: bool) -> Value:
    """``function(x, |v|)`` for the constant ``orders`` v, elementwise.

    ``odd_in_order``: the function of order -1 is minus that of order 1 (``jv``),
    otherwise equal to it (``kve``). The result has the broadcast shape of
    ``orders`` and ``x``.
    """
    degrees = np.unique(np.abs(orders)).astype(int).tolist()
    results = {degree: function(x, degree) for degree in degrees}
    if len(results) == 1:
        [result] = results.values()
    else:
        result = where(x.constant(np.abs(orders) == 1, "bool"), results[1], results[0])
    factors = np.where(odd_in_order & (orders == -1), -1.0, 1.0)
    if factors.size != 1 or factors.min() < 0.0:
        result = result * factors
    return result


# The function of each Op, and whether order -1 gives minus order 1 (else the same)
BESSEL_OF_ORDER = {
    psm.Jv: (bessel_j.jv, True),
    psm.Kve: (kve, False),
    psm.Ive: (bessel_i.ive, False),
}
if hasattr(psm, "Iv"):
    BESSEL_OF_ORDER[psm.Iv] = (bessel_i.iv, False)


def onnx_funcify_bessel_of_order(op, node, builder, inputs, **kwargs):
    orders = constant_integer_orders(node, op)
    function, odd_in_order = BESSEL_OF_ORDER[type(op)]
    dtype = output_dtype(node)
    [_, x] = cast_all(builder, node, inputs, dtype)

    def construction(x):
        return of_orders(function, orders, x, odd_in_order)

    return [computed_in(builder, construction, [x], dtype, "float64")]


for op_class in BESSEL_OF_ORDER:
    onnx_funcify.register(op_class)(onnx_funcify_bessel_of_order)
