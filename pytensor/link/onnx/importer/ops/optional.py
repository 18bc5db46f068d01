"""Optional values where the model gives them plainly: ``OptionalHasElement``
and ``OptionalGetElement`` of a tensor, a sequence or an omitted input.

PyTensor has no optional type, so values of ONNX's ``optional`` types (which
may be empty at run time) are not imported.
"""

import numpy as np
import pytensor.tensor as pt

from pytensor.link.onnx.importer.ops import onnx_op


@onnx_op("OptionalHasElement")
def optional_has_element(node, x=None):
    return pt.constant(np.bool_(x is not None))


@onnx_op("OptionalGetElement")
def optional_get_element(node, x):
    return x
