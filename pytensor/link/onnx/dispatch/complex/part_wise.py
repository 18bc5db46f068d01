"""Complex overloads of the Ops that move, select or combine values without
computing with them: each runs its real converter on the real and on the
imaginary parts (f(re + i im) = f(re) + i f(im)), or on the real parts when
its result only depends on shapes.
"""

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
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.extra_ops import FillDiagonal, FillDiagonalOffset, Repeat
from pytensor.tensor.math import Sum
from pytensor.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from pytensor.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
)

from pytensor.link.onnx.dispatch.basic import (
    onnx_funcify,
    onnx_funcify_CheckAndRaise,
    onnx_funcify_identity_like,
)
from pytensor.link.onnx.dispatch.complex.operands import (
    convert_on_real_parts,
    convert_part_wise,
    converted_on_parts,
    output_dtypes,
    value_of,
)
from pytensor.link.onnx.numerics.complex import arithmetic as nc


for op_class in (DeepCopyOp, TypeCastingOp, ScalarFromTensor, TensorFromScalar):
    onnx_funcify.register(op_class, complex=True)(onnx_funcify_identity_like)
onnx_funcify.register(CheckAndRaise, complex=True)(onnx_funcify_CheckAndRaise)


PART_WISE_OPS = (
    *(DimShuffle, Reshape, SpecifyShape, Alloc, Join, Split, MakeVector),
    *(Subtensor, AdvancedSubtensor, AdvancedSubtensor1, ExtractDiag),
    *(IncSubtensor, AdvancedIncSubtensor, AdvancedIncSubtensor1, Sum),
    *(Repeat, FillDiagonal, FillDiagonalOffset),
)
for op_class in PART_WISE_OPS:
    onnx_funcify.register(op_class, complex=True)(convert_part_wise)
for op_class in (Shape, Shape_i):
    onnx_funcify.register(op_class, complex=True)(convert_on_real_parts)


@onnx_funcify.register(Nonzero, complex=True)
def onnx_funcify_complex_Nonzero(op, node, builder, inputs, **kwargs):
    z = nc.split(value_of(builder, node.inputs[0], inputs[0]))
    is_nonzero = nc.not_equal(z, (0.0, 0.0)).squeeze([-1])
    return converted_on_parts(node, builder, [is_nonzero], **kwargs)


@onnx_funcify.register(Eye, complex=True)
@onnx_funcify.register(AllocEmpty, complex=True)
def onnx_funcify_complex_real_part_of(op, node, builder, inputs, **kwargs):
    # the Op of real dtype for the real part, zeros for the imaginary part
    [dtype] = output_dtypes(node)
    real_op = type(op)(dtype=dtype)
    real_node = real_op.make_node(*node.inputs)
    [re] = onnx_funcify(real_op, node=real_node, builder=builder, inputs=inputs)
    re = builder.value(re, dtype).unsqueeze([-1])
    return [nc.join((re, re.full_like(0.0))).name]
