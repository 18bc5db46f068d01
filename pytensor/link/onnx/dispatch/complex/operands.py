"""What the complex overloads share: reading a node's inputs as parts or
pairs, writing its outputs, and running an Op's real converter on the parts.

ONNX holds a complex value as the real pair of its parts along a trailing
axis of length 2 (`pytensor.link.onnx.complex_pairs`); the arithmetic on
them is in `pytensor.link.onnx.numerics.complex`.
"""

import numpy as np
from pytensor.tensor.basic import Join, MakeVector
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.extra_ops import FillDiagonal, FillDiagonalOffset
from pytensor.tensor.math import Sum
from pytensor.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    IncSubtensor,
)

from pytensor.link.onnx.complex_pairs import complex_parts_dtype, is_complex
from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.variables import INDEX_VALUE_TYPES, value_type
from pytensor.link.onnx.numerics.complex import arithmetic as nc
from pytensor.link.onnx.value import Value


def value_of(builder, var, name):
    return builder.value(name, value_type(var)[0])


def parts_dtype(node) -> str:
    """The real dtype the parts of ``node``'s complex numbers are computed in."""
    dtypes = [var.type.dtype for var in node.inputs + node.outputs if is_complex(var)]
    return complex_parts_dtype(np.result_type(*dtypes))


def output_dtypes(node):
    return [complex_parts_dtype(out.type.dtype) for out in node.outputs]


def output_value(out, result) -> str:
    """The ONNX value of the output ``out`` computed as ``result``: parts, or
    one real value with the pair axis."""
    if is_complex(out):
        return nc.join(result).cast(value_type(out)[0]).name
    return result.squeeze([-1]).cast(out.type.dtype).name


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


def complex_pairs(builder, var, name, dtype) -> Value:
    """The input ``var`` (ONNX value ``name``) as complex values of parts of
    ``dtype``: a real ``var`` with imaginary parts 0."""
    if is_complex(var):
        return value_of(builder, var, name).cast(dtype)
    return nc.join(complex_operand(builder, var, name, dtype))


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


def convert_part_wise(op, node, builder, inputs, **kwargs):
    """The complex overload of an Op that acts on the real and imaginary parts
    alike, f(re + i im) = f(re) + i f(im): its real converter runs once per
    part."""
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


def convert_on_real_parts(op, node, builder, inputs, **kwargs):
    """The complex overload of an Op whose real result depends on the shapes
    of its complex inputs only: its real converter on their real parts."""
    parts = [
        nc.real(value_of(builder, var, name)) if is_complex(var) else name
        for var, name in zip(node.inputs, inputs, strict=True)
    ]
    return converted_on_parts(node, builder, parts, **kwargs)
