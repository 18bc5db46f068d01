"""``BitCast``: the bytes of a tensor read as another dtype of the same width.

PyTensor has no such Op, so this module defines one. It runs its ``perform``
in every mode with a Python fallback (C, Numba); mode ONNX has no conversion
for it, as ONNX's ``BitCast`` needs opset 26 and models are written at 18.
"""

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import grad_undefined
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

from pytensor.link.onnx.importer.dtypes import numpy_dtype
from pytensor.link.onnx.importer.ops import onnx_op


class BitCast(Op):
    """Reinterpret the bytes of ``x`` as ``dtype``, of the same item size."""

    __props__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype).name

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        if np.dtype(x.dtype).itemsize != np.dtype(self.dtype).itemsize:
            raise TypeError(
                f"BitCast from {x.dtype} to {self.dtype}: the item sizes differ"
            )
        return Apply(self, [x], [pt.tensor(dtype=self.dtype, shape=x.type.shape)])

    def perform(self, node, inputs, outputs):
        [x] = inputs
        outputs[0][0] = np.require(x, requirements="C").view(self.dtype)

    def infer_shape(self, fgraph, node, shapes):
        return shapes

    def grad(self, inputs, output_grads):
        return [grad_undefined(self, 0, inputs[0], "BitCast is not differentiable")]


@onnx_op("BitCast")
def bitcast(node, x):
    # The bytes fix the dtype: float_dtype does not apply.
    return BitCast(numpy_dtype(node.attr("to")))(x)
