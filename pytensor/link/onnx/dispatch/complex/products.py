"""Complex overloads of the matrix products, from the real products of the
parts."""

from pytensor.tensor.blas import BatchedDot
from pytensor.tensor.math import Dot

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.complex.operands import (
    converted_on_parts,
    input_parts,
    output_dtypes,
)
from pytensor.link.onnx.numerics.complex import arithmetic as nc


@onnx_funcify.register(Dot, complex=True)
@onnx_funcify.register(BatchedDot, complex=True)
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
