"""Converters of the Ops that take or return complex values.

ONNX holds a complex value as the real pair of its parts along a trailing
axis of length 2 (see `pytensor.link.onnx.numerics.complex`). Only the Ops
registered here with `onnx_funcify_complex` accept complex values; any other
Op meeting one fails to convert, naming itself.
"""

from functools import reduce

import numpy as np
import pytensor.scalar.basic as ps
from pytensor.compile.ops import DeepCopyOp, TypeCastingOp
from pytensor.raise_op import CheckAndRaise
from pytensor.tensor.basic import ScalarFromTensor, TensorFromScalar
from pytensor.tensor.elemwise import Elemwise

from pytensor.link.onnx.dispatch.basic import (
    onnx_funcify_CheckAndRaise,
    onnx_funcify_complex,
    onnx_funcify_identity_like,
)
from pytensor.link.onnx.dispatch.elemwise import RUNTIME_BROADCASTING
from pytensor.link.onnx.dispatch.shape import require_same_lengths
from pytensor.link.onnx.dispatch.variables import (
    complex_parts_dtype,
    is_complex,
    value_type,
)
from pytensor.link.onnx.numerics import complex as nc


for op_class in (DeepCopyOp, TypeCastingOp, ScalarFromTensor, TensorFromScalar):
    onnx_funcify_complex.register(op_class)(onnx_funcify_identity_like)
onnx_funcify_complex.register(CheckAndRaise)(onnx_funcify_CheckAndRaise)


def variadic(function):
    return lambda *zs: reduce(function, zs)


# Scalar Ops computed on complex numbers (real inputs become complex ones)
COMPLEX_FUNCTIONS = {
    ps.Add: variadic(nc.add),
    ps.Mul: variadic(nc.multiply),
    ps.Sub: nc.subtract,
    ps.TrueDiv: nc.divide,
    ps.Neg: nc.negative,
    ps.Conj: nc.conj,
    ps.Sqr: lambda z: nc.multiply(z, z),
    ps.Exp: nc.exp,
    ps.Log: nc.log,
    ps.Sqrt: nc.sqrt,
    ps.Identity: lambda z: z,
    ps.Cast: lambda z: z,
    ps.EQ: nc.equal,
    ps.NEQ: nc.not_equal,
    ps.Real: lambda z: z[0],
    ps.Imag: lambda z: z[1],
    ps.Abs: nc.absolute,
    ps.Angle: nc.angle,
}
# Scalar Ops building complex numbers from real ones
FROM_REAL_FUNCTIONS = {
    ps.Complex: lambda re, im: (re, im),
    ps.ComplexFromPolar: nc.from_polar,
}
SUPPORTED_SCALAR_OPS = ", ".join(
    sorted(cls.__name__ for cls in (*COMPLEX_FUNCTIONS, *FROM_REAL_FUNCTIONS))
)


@onnx_funcify_complex.register(Elemwise)
def onnx_funcify_complex_Elemwise(op, node, builder, inputs, value_names=None, **kwargs):
    scalar_op = type(op.scalar_op)
    from_real = scalar_op in FROM_REAL_FUNCTIONS
    if not from_real and scalar_op not in COMPLEX_FUNCTIONS:
        raise NotImplementedError(
            f"complex values are not supported by the scalar Op {op.scalar_op} "
            f"in the ONNX backend (only by {SUPPORTED_SCALAR_OPS})"
        )
    require_same_lengths(
        builder,
        node.inputs,
        inputs,
        node.outputs[0].type.ndim,
        RUNTIME_BROADCASTING,
        value_names,
    )
    dtype = parts_dtype(node)
    operands = [
        complex_operand(builder, var, name, dtype, from_real)
        for var, name in zip(node.inputs, inputs, strict=True)
    ]
    functions = FROM_REAL_FUNCTIONS if from_real else COMPLEX_FUNCTIONS
    result = functions[scalar_op](*operands)
    [out] = node.outputs
    if is_complex(out):
        return [nc.join(result).cast(value_type(out)[0]).name]
    return [result.squeeze([-1]).cast(out.type.dtype).name]


def parts_dtype(node) -> str:
    """The real dtype the parts of ``node``'s complex numbers are computed in."""
    dtypes = [var.type.dtype for var in node.inputs + node.outputs if is_complex(var)]
    return complex_parts_dtype(np.result_type(*dtypes))


def complex_operand(builder, var, name, dtype, real=False):
    """The parts of the input ``var`` (ONNX value ``name``) in ``dtype``; a real
    ``var`` is one part with the pair axis, or, unless ``real``, a complex
    number of imaginary part 0."""
    value = builder.value(name, value_type(var)[0])
    if is_complex(var):
        return tuple(part.cast(dtype) for part in nc.split(value))
    value = value.cast(dtype)
    return value.unsqueeze([-1]) if real else nc.from_real(value)
