from pytensor.tensor.elemwise import Elemwise

from pytensor.link.onnx.dispatch.basic import onnx_funcify


@onnx_funcify.register(Elemwise)
def onnx_funcify_Elemwise(op, node, builder, inputs, **kwargs):
    # ONNX elementwise operators broadcast like NumPy, so the scalar Op's
    # converter applies to whole tensors unchanged.
    return onnx_funcify(op.scalar_op, node=node, builder=builder, inputs=inputs)
