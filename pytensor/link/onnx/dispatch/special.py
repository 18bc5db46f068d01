"""Converters for the elementary and special functions of ``pytensor.scalar``.

ONNX lacks most of them, and onnxruntime's CPU provider has no float64 kernel
for Erf, Tan and the inverse and hyperbolic trigonometric functions: they are
built by the algorithms of `pytensor.link.onnx.numerics`, which agree with
NumPy and SciPy (the Python implementations of the PyTensor Ops) over the
whole float64 range; each module there states its accuracy.

In float32 the onnxruntime kernels of Tan, Cosh, Asinh, Atanh, Erf and
Softplus are within 1 ulp of the correctly rounded results and used. Sin and
Cos are computed by their float64 kernels and rounded, as are Log and Tanh
(`pytensor.link.onnx.dispatch.scalar`): their float32 kernels are 1 to 4 ulp
off (enough for ``arctan2(sin(x), cos(x))`` to be 2 ulp off, and for float32
tanh to exceed 1 in magnitude near 8.44). Sigmoid is computed in float32 like
SciPy's float32 loop, and the other functions in float64 and rounded once, as
SciPy's float32 loops do (float32 results equal SciPy's but for erfinv and
log1mexp, 2.3e-7). ``tests/link/onnx/test_elementary_ulp.py`` measures the
elementary functions in ulp.

Outputs of at most `SMALL_SIZE` elements, known statically, get the small
variants of gammaln, psi, tri_gamma, erf, erfc and erfcx: fewer nodes, each
method in an ``If`` branch for one value (docs: "Special functions of many
and of few values").
"""

import math
from functools import partial

import numpy as np
import pytensor.scalar.basic as ps
import pytensor.scalar.math as psm
from pytensor.tensor.type import TensorType

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.operands import (
    cast_all,
    computed_in,
    constant_orders,
    output_dtype,
)
from pytensor.link.onnx.numerics import (
    digamma,
    elementary,
    error_functions,
    gamma,
    incomplete_beta,
    incomplete_gamma,
    inverse_incomplete_beta,
    inverse_incomplete_gamma,
    trigonometric,
)
from pytensor.link.onnx.numerics.bessel_i import i0, i1
from pytensor.link.onnx.numerics.bessel_j import j0, j1
from pytensor.link.onnx.numerics.iteration import flat_elementwise
from pytensor.link.onnx.numerics.owens_t import owens_t
from pytensor.link.onnx.numerics.zeta import polygamma
from pytensor.link.onnx.value import branch, where, where_lazily


try:  # PyTensor < 3
    from pytensor.tensor.xlogx import XlogX, XlogY0
except ImportError:
    XlogX = XlogY0 = None


ELEMENTARY = {
    ps.Log1p: elementary.log1p,
    ps.Expm1: elementary.expm1,
    ps.Tan: trigonometric.tan,
    ps.Sin: trigonometric.sin,
    ps.Cos: trigonometric.cos,
    ps.ArcSin: trigonometric.arcsin,
    ps.ArcCos: trigonometric.arccos,
    ps.ArcTan: trigonometric.arctan,
    ps.Sinh: elementary.sinh,
    ps.Cosh: elementary.cosh,
    ps.ArcSinh: elementary.arcsinh,
    ps.ArcCosh: elementary.arccosh,
    ps.ArcTanh: elementary.arctanh,
    psm.Erf: error_functions.erf,
    psm.Erfc: error_functions.erfc,
    psm.Sigmoid: elementary.sigmoid,
    psm.Softplus: elementary.softplus,
}
# onnxruntime operators whose float32 kernels are within 1 ulp of the correctly
# rounded float32 results (tests/link/onnx/test_elementary_ulp.py).
FLOAT32_KERNELS = {
    ps.Tan: "Tan",
    ps.Cosh: "Cosh",
    ps.ArcSinh: "Asinh",
    ps.ArcTanh: "Atanh",
    psm.Erf: "Erf",
    psm.Softplus: "Softplus",
}
# onnxruntime operators whose float32 kernels are 1 ulp from the correctly
# rounded float32 results (enough for arctan2(sin(x), cos(x)) to be 2 ulp
# off) and float64 kernels far more accurate than float32 results need
FLOAT64_KERNELS_FOR_FLOAT32 = {ps.Sin: "Sin", ps.Cos: "Cos"}
# Functions that SciPy's float32 loops evaluate in float32 (and so underflow
# in float32); the others are computed in float64 and rounded once.
FLOAT32_CONSTRUCTIONS = {psm.Sigmoid}
# Functions computed in float64 whatever the dtype, of all their inputs
SPECIAL = {
    ps.ArcTan2: trigonometric.arctan2,
    psm.GammaLn: gamma.gammaln,
    psm.Gamma: gamma.gamma,
    psm.Psi: digamma.psi,
    psm.TriGamma: digamma.trigamma,
    psm.Erfcx: error_functions.erfcx,
    psm.Erfinv: error_functions.erfinv,
    psm.Erfcinv: error_functions.erfcinv,
    psm.Log1mexp: elementary.log1mexp,
    psm.I0: i0,
    psm.I1: i1,
    psm.J0: j0,
    psm.J1: j1,
    psm.Owens_t: owens_t,
}
# Their variants for at most SMALL_SIZE values (scalar parameters of
# log-densities), where nodes cost more than elements: polynomials by one
# MatMul, steps along a new axis, and only the methods the values need (for
# one value `pytensor.link.onnx.value.branch`, else `where_lazily`)
SMALL_VARIANTS = {
    psm.Erf: error_functions.erf_small,
    psm.Erfc: error_functions.erfc_small,
    psm.GammaLn: gamma.gammaln_small,
    psm.Psi: digamma.psi_small,
    psm.TriGamma: digamma.trigamma_small,
    psm.Erfcx: error_functions.erfcx_small,
}
SMALL_SIZE = 64
# Functions of vectors with loops, which run on their inputs flattened
INCOMPLETE = {
    psm.GammaInc: incomplete_gamma.gammainc,
    psm.GammaIncC: incomplete_gamma.gammaincc,
    psm.GammaL: incomplete_gamma.gammal,
    psm.GammaU: incomplete_gamma.gammau,
    psm.BetaInc: incomplete_beta.betainc,
    psm.GammaIncInv: inverse_incomplete_gamma.gammaincinv,
    psm.GammaIncCInv: inverse_incomplete_gamma.gammainccinv,
    psm.BetaIncInv: inverse_incomplete_beta.betaincinv,
}


def static_output_size(node) -> int | None:
    """The number of elements of ``node``'s output, if known statically
    (not for the scalars of a ``Composite``'s inner graph, which stand for
    tensors)."""
    output_type = node.outputs[0].type
    if not isinstance(output_type, TensorType) or None in output_type.shape:
        return None
    return math.prod(output_type.shape)


def algorithm(op, node, table):
    """``table``'s algorithm for ``op``, or its small variant for few values."""
    size = static_output_size(node)
    if type(op) not in SMALL_VARIANTS or size is None or not 0 < size <= SMALL_SIZE:
        return table[type(op)]
    choose = branch if size == 1 else where_lazily
    return partial(SMALL_VARIANTS[type(op)], choose=choose)


def onnx_funcify_elementary(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    [x] = cast_all(builder, node, inputs, dtype)
    if dtype != "float64" and type(op) in FLOAT32_KERNELS:
        x = builder.value(x, dtype).cast("float32")
        return [x.apply(FLOAT32_KERNELS[type(op)], x).cast(dtype).name]
    if dtype != "float64" and type(op) in FLOAT64_KERNELS_FOR_FLOAT32:
        x = builder.value(x, dtype).cast("float64")
        return [x.apply(FLOAT64_KERNELS_FOR_FLOAT32[type(op)], x).cast(dtype).name]
    in_float32 = dtype != "float64" and type(op) in FLOAT32_CONSTRUCTIONS
    compute_dtype = "float32" if in_float32 else "float64"
    function = algorithm(op, node, ELEMENTARY)
    return [computed_in(builder, function, [x], dtype, compute_dtype)]


def onnx_funcify_special(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    args = cast_all(builder, node, inputs, dtype)
    if type(op) in INCOMPLETE:
        function = flat_elementwise(INCOMPLETE[type(op)])
    else:
        function = algorithm(op, node, SPECIAL)
    return [computed_in(builder, function, args, dtype, "float64")]


for op_class in ELEMENTARY:
    onnx_funcify.register(op_class)(onnx_funcify_elementary)
for op_class in (*SPECIAL, *INCOMPLETE):
    onnx_funcify.register(op_class)(onnx_funcify_special)


@onnx_funcify.register(psm.PolyGamma)
def onnx_funcify_PolyGamma(op, node, builder, inputs, **kwargs):
    orders = constant_orders(node)
    if orders is None:
        raise NotImplementedError(
            "PolyGamma is only converted for a constant order n: the "
            "polynomials of its reflection formula for x < 0 depend on n."
        )
    dtype = output_dtype(node)
    x = builder.cast(inputs[1], node.inputs[1].type.dtype, dtype)
    construction = partial(of_constant_orders, polygamma, orders)
    return [computed_in(builder, construction, [x], dtype, "float64")]


def of_constant_orders(function, orders: np.ndarray, x):
    """``function(x, n)`` for the constant ``orders`` n, elementwise, in the
    broadcast shape of ``orders`` and ``x``."""
    values = np.unique(orders).tolist()
    result = function(x, values[0])
    for n in values[1:]:
        result = where(x.constant(orders == n, "bool"), function(x, n), result)
    if orders.ndim:
        result = result.expand(result.indices(orders.shape))
    return result


def onnx_funcify_xlog(op, node, builder, inputs, **kwargs):
    # In the output dtype, like the NumPy implementations
    dtype = output_dtype(node)
    args = [builder.value(x, dtype) for x in cast_all(builder, node, inputs, dtype)]
    xlog = elementary.xlogx if len(args) == 1 else elementary.xlogy0
    return [xlog(*args).name]


if XlogX is not None:
    onnx_funcify.register(XlogX)(onnx_funcify_xlog)
    onnx_funcify.register(XlogY0)(onnx_funcify_xlog)
