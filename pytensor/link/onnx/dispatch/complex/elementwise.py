"""Complex overloads of the scalar Ops and of ``Elemwise``.

The complex overload of a scalar Op is the function of the parts
``(re, im)`` of its operands that computes it (`numerics.complex`); the
``Elemwise`` overload reads its inputs as parts, applies it, and writes the
result back as pairs, also through a ``Composite``'s inner graph.
"""

import operator
from functools import reduce, wraps

import pytensor.scalar.basic as ps
from pytensor.tensor.elemwise import Elemwise

from pytensor.link.onnx.complex_pairs import is_complex
from pytensor.link.onnx.dispatch.basic import convert_nodes, onnx_funcify
from pytensor.link.onnx.dispatch.complex.operands import (
    complex_operand,
    complex_pairs,
    convert_on_real_parts,
    convert_part_wise,
    output_value,
    parts_dtype,
    value_of,
)
from pytensor.link.onnx.dispatch.lengths import (
    RUNTIME_BROADCASTING,
    require_same_lengths,
)
from pytensor.link.onnx.dispatch.variables import value_type
from pytensor.link.onnx.numerics.complex import arithmetic as nc
from pytensor.link.onnx.numerics.complex import elementary as nce
from pytensor.link.onnx.numerics.complex import order as nco
from pytensor.link.onnx.value import where


def variadic(function):
    return wraps(function)(lambda *zs: reduce(function, zs))


def unchanged(z):
    return z


def square(z):
    return nc.multiply(z, z)


def real_part(z):
    return z[0]


def imaginary_part(z):
    return z[1]


def from_parts(re, im):
    return re, im


# Scalar Ops computed on complex numbers (real inputs become complex ones)
COMPLEX_FUNCTIONS = {
    ps.Add: variadic(nc.add),
    ps.Mul: variadic(nc.multiply),
    ps.Sub: nc.subtract,
    ps.TrueDiv: nc.divide,
    ps.Reciprocal: nc.reciprocal,
    ps.Neg: nc.negative,
    ps.Conj: nc.conj,
    ps.Sqr: square,
    ps.Exp: nc.exp,
    ps.Log: nc.log,
    ps.Sqrt: nc.sqrt,
    ps.Identity: unchanged,
    ps.Cast: unchanged,
    ps.EQ: nc.equal,
    ps.NEQ: nc.not_equal,
    ps.Real: real_part,
    ps.Imag: imaginary_part,
    ps.Abs: nc.absolute,
    ps.Angle: nc.angle,
    # NumPy's lexicographic order, and tests of the parts
    ps.LT: nco.less,
    ps.LE: nco.less_equal,
    ps.GT: nco.greater,
    ps.GE: nco.greater_equal,
    ps.Maximum: nco.maximum,
    ps.Minimum: nco.minimum,
    ps.IsNan: nco.has_nan,
    ps.IsInf: nco.has_inf,
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
# Scalar Ops building complex numbers from real ones
FROM_REAL_FUNCTIONS = {
    ps.Complex: from_parts,
    ps.ComplexFromPolar: nc.from_polar,
}
FROM_REAL_OPS = tuple(FROM_REAL_FUNCTIONS)
for table in (COMPLEX_FUNCTIONS, TRANSCENDENTAL_FUNCTIONS, FROM_REAL_FUNCTIONS):
    for scalar_op, function in table.items():
        onnx_funcify.register(scalar_op, complex=True)(function)

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
    ps.Identity: unchanged,
}


def supported_scalar_ops() -> str:
    return ", ".join(
        sorted(
            cls.__name__
            for slot, cls, _ in onnx_funcify.entries()
            if slot == "complex" and issubclass(cls, ps.ScalarOp)
        )
    )


def scalar_function(scalar_op, composite=None):
    """The complex overload of ``scalar_op`` (in the ``Composite``
    ``composite``, if given), a function of complex operands' parts."""
    op_class = type(scalar_op)
    if onnx_funcify.has(op_class, complex=True) and not (
        composite and issubclass(op_class, FROM_REAL_OPS)
    ):
        return onnx_funcify.dispatch(op_class, complex=True)
    within = f" of {composite}" if composite else ""
    raise NotImplementedError(
        f"complex values are not supported by the scalar Op {scalar_op}{within} "
        f"in the ONNX backend (only by {supported_scalar_ops()})"
    )


@onnx_funcify.register(Elemwise, complex=True)
def onnx_funcify_complex_Elemwise(
    op, node, builder, inputs, value_names=None, **kwargs
):
    scalar_op = type(op.scalar_op)
    if scalar_op in ELEMWISE_CONVERTERS:
        convert = ELEMWISE_CONVERTERS[scalar_op]
        return convert(op, node, builder, inputs, value_names=value_names, **kwargs)
    composite = issubclass(scalar_op, ps.Composite)
    function = None if composite else scalar_function(op.scalar_op)
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
    from_real = issubclass(scalar_op, FROM_REAL_OPS)
    operands = [
        complex_operand(builder, var, name, dtype, from_real)
        for var, name in zip(node.inputs, inputs, strict=True)
    ]
    return [output_value(out, function(*operands))]


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
        function = scalar_function(inner_node.op, composite)
        return [function(*map(parts, inner_values))]

    values = dict(zip(composite.fgraph.inputs, operands, strict=True))
    convert_nodes(composite.fgraph.toposort(), values, constant, convert)
    return [values[out] for out in composite.fgraph.outputs]


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
        return convert_part_wise(op, node, builder, inputs, **kwargs)
    return convert_on_real_parts(op, node, builder, inputs, **kwargs)


# Scalar Ops whose Elemwise has a complex overload of its own
ELEMWISE_CONVERTERS = {
    ps.Switch: onnx_funcify_complex_Switch,
    ps.Second: onnx_funcify_complex_Second,
}
