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
    AllocEmpty,
    ExtractDiag,
    Eye,
    Join,
    MakeVector,
    Nonzero,
    ScalarFromTensor,
    Split,
    TensorFromScalar,
)
from pytensor.tensor.blas import BatchedDot
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.extra_ops import FillDiagonal, FillDiagonalOffset, Repeat
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
    convert_nodes,
    onnx_funcify,
    onnx_funcify_CheckAndRaise,
    onnx_funcify_complex,
    onnx_funcify_identity_like,
)
from pytensor.link.onnx.dispatch.elemwise import RUNTIME_BROADCASTING
from pytensor.link.onnx.dispatch.lengths import require_same_lengths
from pytensor.link.onnx.dispatch.variables import INDEX_VALUE_TYPES, value_type
from pytensor.link.onnx.numerics import complex as nc
from pytensor.link.onnx.numerics import complex_elementary as nce
from pytensor.link.onnx.value import Value, where


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
# Transcendental functions of complex numbers
TRANSCENDENTAL_FUNCTIONS = {
    ps.Sin: nce.sin,
    ps.Cos: nce.cos,
    ps.Tan: nce.tan,
    ps.Sinh: nce.sinh,
    ps.Cosh: nce.cosh,
    ps.Tanh: nce.tanh,
    ps.ArcSin: nce.arcsin,
    ps.ArcCos: nce.arccos,
    ps.ArcTan: nce.arctan,
    ps.ArcSinh: nce.arcsinh,
    ps.ArcCosh: nce.arccosh,
    ps.ArcTanh: nce.arctanh,
    ps.Pow: nce.power,
    ps.Log1p: nce.log1p,
    ps.Log2: nce.log2,
    ps.Log10: nce.log10,
    ps.Exp2: nce.exp2,
    ps.Expm1: nce.expm1,
}
COMPLEX_FUNCTIONS.update(TRANSCENDENTAL_FUNCTIONS)
# computed in float64 parts also for complex64 (rounded once at the end):
# float32 range reductions lose the accuracy next to the zeros of sin and cos.
# Not exp2, which scales by log(2) in the input's precision as NumPy does (the
# phase of a huge imaginary part depends on that rounding)
DOUBLE_PRECISION_FUNCTIONS = TRANSCENDENTAL_FUNCTIONS.keys() - {ps.Exp2}
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
# Order of complex numbers (NumPy's lexicographic one) and tests of their parts
COMPLEX_FUNCTIONS.update(
    {
        ps.LT: nc.less,
        ps.LE: nc.less_equal,
        ps.GT: nc.greater,
        ps.GE: nc.greater_equal,
        ps.Maximum: nc.maximum,
        ps.Minimum: nc.minimum,
        ps.IsNan: nc.has_nan,
        ps.IsInf: nc.has_inf,
    }
)
SUPPORTED_SCALAR_OPS = ", ".join(
    sorted(cls.__name__ for cls in (*COMPLEX_FUNCTIONS, *FROM_REAL_FUNCTIONS))
)


@onnx_funcify_complex.register(Elemwise)
def onnx_funcify_complex_Elemwise(
    op, node, builder, inputs, value_names=None, **kwargs
):
    scalar_op = type(op.scalar_op)
    if scalar_op in ELEMWISE_CONVERTERS:
        convert = ELEMWISE_CONVERTERS[scalar_op]
        return convert(op, node, builder, inputs, value_names=value_names, **kwargs)
    from_real = scalar_op in FROM_REAL_FUNCTIONS
    composite = issubclass(scalar_op, ps.Composite)
    if not (from_real or composite) and scalar_op not in COMPLEX_FUNCTIONS:
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
    dtype = "float64" if in_double_precision(op.scalar_op) else parts_dtype(node)
    if composite:
        operands = [
            complex_operand(builder, var, name, dtype, keep_real=True)
            for var, name in zip(node.inputs, inputs, strict=True)
        ]
        results = composite_on_parts(op.scalar_op, operands, builder, dtype)
        return list(map(output_value, node.outputs, results))
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
    return [output_value(out, functions[scalar_op](*operands))]


def output_value(out, result) -> str:
    """The ONNX value of the output ``out`` computed as ``result``: parts, or
    one real value with the pair axis."""
    if is_complex(out):
        return nc.join(result).cast(value_type(out)[0]).name
    return result.squeeze([-1]).cast(out.type.dtype).name


def parts_dtype(node) -> str:
    """The real dtype the parts of ``node``'s complex numbers are computed in."""
    dtypes = [var.type.dtype for var in node.inputs + node.outputs if is_complex(var)]
    return complex_parts_dtype(np.result_type(*dtypes))


def complex_operand(builder, var, name, dtype, real=False, keep_real=False):
    """The parts of the input ``var`` (ONNX value ``name``) in ``dtype``; a real
    ``var`` is one part with the pair axis (in its own dtype if
    ``keep_real``), or, unless ``real``, a complex number of imaginary part 0."""
    value = builder.value(name, value_type(var)[0])
    if is_complex(var):
        return tuple(part.cast(dtype) for part in nc.split(value))
    if keep_real:
        return value.unsqueeze([-1])
    value = value.cast(dtype)
    return value.unsqueeze([-1]) if real else nc.from_real(value)


def in_double_precision(scalar_op) -> bool:
    """Whether the scalar Op ``scalar_op`` (or one in its ``Composite`` graph)
    is computed in float64 parts."""
    if isinstance(scalar_op, ps.Composite):
        return any(in_double_precision(n.op) for n in scalar_op.fgraph.apply_nodes)
    return type(scalar_op) in DOUBLE_PRECISION_FUNCTIONS


def composite_on_parts(composite, operands, builder, dtype) -> list:
    """The outputs of the ``Composite`` scalar Op ``composite`` from its
    ``operands``: parts (in ``dtype``) or real values with the pair axis.

    Its inner nodes on real values only are converted as real ones; a real
    value met by a complex function is a complex number of imaginary part +0,
    as PyTensor upcasts it.
    """

    def parts(value):
        if isinstance(value, tuple):
            return value
        re = value.cast(dtype)
        return re, re.full_like(0.0)

    def constant(var):
        if is_complex(var):
            number = complex(var.data)
            return tuple(
                builder.value(builder.constant(part, dtype), dtype)
                for part in (number.real, number.imag)
            )
        return builder.value(builder.constant(var.data, var.type.dtype), var.type.dtype)

    def convert(inner_node, inner_values):
        if not any(map(is_complex, inner_node.inputs + inner_node.outputs)):
            names = onnx_funcify(
                inner_node.op,
                node=inner_node,
                builder=builder,
                inputs=[value.name for value in inner_values],
            )
            return [
                builder.value(name, out.type.dtype)
                for name, out in zip(names, inner_node.outputs, strict=True)
            ]
        function = COMPLEX_FUNCTIONS.get(type(inner_node.op))
        if function is None:
            raise NotImplementedError(
                f"complex values are not supported by the scalar Op {inner_node.op} "
                f"of {composite} in the ONNX backend (only by {SUPPORTED_SCALAR_OPS})"
            )
        return [function(*map(parts, inner_values))]

    values = dict(zip(composite.fgraph.inputs, operands, strict=True))
    convert_nodes(composite.fgraph.toposort(), values, constant, convert)
    return [values[out] for out in composite.fgraph.outputs]


# Ops that act on the real and imaginary parts alike, f(re + i im) =
# f(re) + i f(im): their ordinary converters run once per part
PART_WISE_OPS = (
    *(DimShuffle, Reshape, SpecifyShape, Alloc, Join, Split, MakeVector),
    *(Subtensor, AdvancedSubtensor, AdvancedSubtensor1, ExtractDiag),
    *(IncSubtensor, AdvancedIncSubtensor, AdvancedIncSubtensor1, Sum),
)


@onnx_funcify_complex.register(Shape)
@onnx_funcify_complex.register(Shape_i)
def onnx_funcify_complex_on_real_parts(op, node, builder, inputs, **kwargs):
    # a real result that depends on the shapes of the complex inputs only
    parts = [
        nc.real(value_of(builder, var, name)) if is_complex(var) else name
        for var, name in zip(node.inputs, inputs, strict=True)
    ]
    return converted_on_parts(node, builder, parts, **kwargs)


# The inputs of the part-wise Ops that hold their values (by default the
# first): the others are indices, lengths, axes or conditions
VALUE_INPUTS = {
    Elemwise: slice(1, None),
    Join: slice(1, None),
    MakeVector: slice(None),
    IncSubtensor: slice(0, 2),
    AdvancedIncSubtensor: slice(0, 2),
    AdvancedIncSubtensor1: slice(0, 2),
    FillDiagonal: slice(0, 2),
    FillDiagonalOffset: slice(0, 2),
}


def onnx_funcify_complex_part_wise(op, node, builder, inputs, **kwargs):
    values = range(len(inputs))[VALUE_INPUTS.get(type(op), slice(0, 1))]
    parts = [
        input_parts(builder, var, name, is_index=position not in values)
        for position, (var, name) in enumerate(zip(node.inputs, inputs, strict=True))
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


def onnx_funcify_complex_Switch(op, node, builder, inputs, value_names=None, **kwargs):
    # one Where of the pairs, the condition broadcast along the pair axis
    [out] = node.outputs
    require_same_lengths(
        builder,
        node.inputs,
        inputs,
        range(out.type.ndim),
        RUNTIME_BROADCASTING,
        value_names,
    )
    dtype = parts_dtype(node)
    condition = value_of(builder, node.inputs[0], inputs[0]).cast("bool")
    branches = [
        complex_pairs(builder, var, name, dtype)
        for var, name in zip(node.inputs[1:], inputs[1:], strict=True)
    ]
    pairs = where(condition.unsqueeze([-1]), *branches)
    return [pairs.cast(value_type(out)[0]).name]


def onnx_funcify_complex_Second(op, node, builder, inputs, **kwargs):
    # the value of its second input, of its first one's shape
    if is_complex(node.outputs[0]):
        return onnx_funcify_complex_part_wise(op, node, builder, inputs, **kwargs)
    return onnx_funcify_complex_on_real_parts(op, node, builder, inputs, **kwargs)


# Scalar Ops whose Elemwise has a complex converter of its own
ELEMWISE_CONVERTERS = {
    ps.Switch: onnx_funcify_complex_Switch,
    ps.Second: onnx_funcify_complex_Second,
}


@onnx_funcify_complex.register(Dot)
@onnx_funcify_complex.register(BatchedDot)
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


def input_parts(builder, var, name, real_imag=0.0, is_index=False):
    """The real and imaginary parts of the input ``var`` (ONNX value
    ``name``), without the pair axis: a real ``var``'s imaginary part is
    zeros, or ``real_imag`` if ``None``; an index (``is_index``: a
    position, a length, an axis, a condition; a ``None`` or slice given as a
    Python object) stands for both."""
    if isinstance(var.type, INDEX_VALUE_TYPES):
        return name, name
    value = value_of(builder, var, name)
    if is_complex(var):
        return nc.real(value), nc.imag(value)
    if is_index:
        return value, value
    return value, None if real_imag is None else value.full_like(real_imag)


def complex_pairs(builder, var, name, dtype) -> Value:
    """The input ``var`` (ONNX value ``name``) as complex values of parts of
    ``dtype``: a real ``var`` with imaginary parts 0."""
    if is_complex(var):
        return value_of(builder, var, name).cast(dtype)
    return nc.join(complex_operand(builder, var, name, dtype))


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


for op_class in (Repeat, FillDiagonal, FillDiagonalOffset):
    onnx_funcify_complex.register(op_class)(onnx_funcify_complex_part_wise)


@onnx_funcify_complex.register(Nonzero)
def onnx_funcify_complex_Nonzero(op, node, builder, inputs, **kwargs):
    z = nc.split(value_of(builder, node.inputs[0], inputs[0]))
    is_nonzero = nc.not_equal(z, (0.0, 0.0)).squeeze([-1])
    return converted_on_parts(node, builder, [is_nonzero], **kwargs)


@onnx_funcify_complex.register(Eye)
@onnx_funcify_complex.register(AllocEmpty)
def onnx_funcify_complex_real_part_of(op, node, builder, inputs, **kwargs):
    # the Op of real dtype for the real part, zeros for the imaginary part
    [dtype] = output_dtypes(node)
    real_op = type(op)(dtype=dtype)
    real_node = real_op.make_node(*node.inputs)
    [re] = onnx_funcify(real_op, node=real_node, builder=builder, inputs=inputs)
    re = builder.value(re, dtype).unsqueeze([-1])
    return [nc.join((re, re.full_like(0.0))).name]
