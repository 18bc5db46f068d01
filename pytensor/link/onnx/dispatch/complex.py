"""Converters of the Ops that take or return complex values.

ONNX holds a complex value as the real pair of its parts along a trailing
axis of length 2 (see `pytensor.link.onnx.numerics.complex`). Only the Ops
registered here with `onnx_funcify_complex` accept complex values; any other
Op meeting one fails to convert, naming itself.
"""

import operator
from functools import reduce

import numpy as np
import pytensor.scalar.basic as ps
from pytensor.compile.ops import DeepCopyOp, TypeCastingOp
from pytensor.raise_op import CheckAndRaise
from pytensor.tensor.basic import (
    Alloc,
    ExtractDiag,
    Join,
    MakeVector,
    ScalarFromTensor,
    Split,
    TensorFromScalar,
)
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.math import Dot, Sum
from pytensor.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from pytensor.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
)

from pytensor.link.onnx.complex_pairs import complex_parts_dtype, is_complex
from pytensor.link.onnx.dispatch.basic import (
    onnx_funcify,
    onnx_funcify_CheckAndRaise,
    onnx_funcify_complex,
    onnx_funcify_identity_like,
)
from pytensor.link.onnx.dispatch.elemwise import RUNTIME_BROADCASTING
from pytensor.link.onnx.dispatch.shape import require_same_lengths
from pytensor.link.onnx.dispatch.variables import INDEX_VALUE_TYPES, value_type
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
    ps.Reciprocal: nc.reciprocal,
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
# Scalar Ops acting on the parts alike: applied to the pairs of complex inputs
PAIR_WISE_FUNCTIONS = {
    ps.Add: variadic(operator.add),
    ps.Sub: operator.sub,
    ps.Neg: operator.neg,
    ps.Identity: lambda z: z,
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
def onnx_funcify_complex_Elemwise(
    op, node, builder, inputs, value_names=None, **kwargs
):
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
        range(node.outputs[0].type.ndim),
        RUNTIME_BROADCASTING,
        value_names,
    )
    dtype = parts_dtype(node)
    [out] = node.outputs
    if scalar_op in PAIR_WISE_FUNCTIONS and all(map(is_complex, node.inputs)):
        pairs = [
            value_of(builder, var, name).cast(dtype)
            for var, name in zip(node.inputs, inputs, strict=True)
        ]
        result = PAIR_WISE_FUNCTIONS[scalar_op](*pairs)
        return [result.cast(value_type(out)[0]).name]
    operands = [
        complex_operand(builder, var, name, dtype, from_real)
        for var, name in zip(node.inputs, inputs, strict=True)
    ]
    functions = FROM_REAL_FUNCTIONS if from_real else COMPLEX_FUNCTIONS
    result = functions[scalar_op](*operands)
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


# Ops that act on the real and imaginary parts alike, f(re + i im) =
# f(re) + i f(im): their ordinary converters run once per part
PART_WISE_OPS = (
    *(DimShuffle, Reshape, SpecifyShape, Alloc, Join, Split, MakeVector),
    *(Subtensor, AdvancedSubtensor, AdvancedSubtensor1, ExtractDiag),
    *(IncSubtensor, AdvancedIncSubtensor, AdvancedIncSubtensor1, Sum),
)


@onnx_funcify_complex.register(Shape)
@onnx_funcify_complex.register(Shape_i)
def onnx_funcify_complex_shape(op, node, builder, inputs, **kwargs):
    [z] = node.inputs
    real_part = nc.real(value_of(builder, z, inputs[0]))
    return converted_on_parts(node, builder, [real_part], **kwargs)


def onnx_funcify_complex_part_wise(op, node, builder, inputs, **kwargs):
    parts = [
        input_parts(builder, var, name)
        for var, name in zip(node.inputs, inputs, strict=True)
    ]
    re = converted_on_parts(node, builder, [p[0] for p in parts], **kwargs)
    im = converted_on_parts(node, builder, [p[1] for p in parts], **kwargs)
    return [
        nc.join(
            (
                builder.value(r, dtype).unsqueeze([-1]),
                builder.value(i, dtype).unsqueeze([-1]),
            )
        ).name
        for r, i, dtype in zip(re, im, output_dtypes(node), strict=True)
    ]


for op_class in PART_WISE_OPS:
    onnx_funcify_complex.register(op_class)(onnx_funcify_complex_part_wise)


@onnx_funcify_complex.register(Dot)
def onnx_funcify_complex_Dot(op, node, builder, inputs, **kwargs):
    # (a + ib)(c + id) from the real products, of which a real factor has two
    (a, b), (c, d) = (
        input_parts(builder, var, name, real_imag=None)
        for var, name in zip(node.inputs, inputs, strict=True)
    )
    [dtype] = output_dtypes(node)

    def dot(x, y):
        if x is None or y is None:
            return None
        [product] = converted_on_parts(node, builder, [x, y], **kwargs)
        return builder.value(product, dtype)

    bd, ad, bc = dot(b, d), dot(a, d), dot(b, c)
    re = dot(a, c) if bd is None else dot(a, c) - bd
    im = bc if ad is None else ad if bc is None else ad + bc
    return [nc.join((re.unsqueeze([-1]), im.unsqueeze([-1]))).name]


def value_of(builder, var, name):
    return builder.value(name, value_type(var)[0])


def input_parts(builder, var, name, real_imag=0.0):
    """The real and imaginary parts of the input ``var`` (ONNX value
    ``name``), without the pair axis: a real ``var``'s imaginary part is
    zeros, or ``real_imag`` if ``None``; an integer input (an index, a
    length, a ``None`` or slice given as a Python object) stands for both."""
    if isinstance(var.type, INDEX_VALUE_TYPES):
        return name, name
    value = value_of(builder, var, name)
    if is_complex(var):
        return nc.real(value), nc.imag(value)
    if np.dtype(var.type.dtype).kind != "f":
        return value, value
    return value, None if real_imag is None else value.full_like(real_imag)


def output_dtypes(node):
    return [complex_parts_dtype(out.type.dtype) for out in node.outputs]


def converted_on_parts(node, builder, parts, **kwargs):
    """The ONNX values of ``node``'s ordinary converter applied to ``parts``,
    standing for its inputs with complex ones replaced by real ones."""
    stand_ins = [
        var.type.clone(dtype=part.dtype)() if is_complex(var) else var
        for var, part in zip(node.inputs, parts, strict=True)
    ]
    op = node.op
    if isinstance(op, Sum):
        # complex64 sums accumulate in complex128, as in PyTensor
        op = Sum(
            axis=op.axis,
            dtype=complex_parts_dtype(op.dtype),
            acc_dtype=complex_parts_dtype(op.acc_dtype),
        )
    elif isinstance(op, MakeVector):
        op = MakeVector(dtype=complex_parts_dtype(op.dtype))
    real_node = op.make_node(*stand_ins)
    if any(map(is_complex, real_node.outputs)):
        raise NotImplementedError(
            f"complex values are not supported by the Op {node.op} in the ONNX backend"
        )
    return onnx_funcify(
        op,
        node=real_node,
        builder=builder,
        inputs=[getattr(part, "name", part) for part in parts],
        **kwargs,
    )
