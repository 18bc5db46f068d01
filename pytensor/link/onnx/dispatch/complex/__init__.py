"""Complex overloads: the converters of the nodes that take or return complex values.

ONNX holds a complex value as the real pair of its parts along a trailing
axis of length 2 (`pytensor.link.onnx.complex_pairs`). Only the Ops with a
complex overload (``onnx_funcify.register(SomeOp, complex=True)``) accept
complex values; any other Op meeting one fails to convert, naming itself.
"""

# isort: off
import pytensor.link.onnx.dispatch.complex.elementwise
import pytensor.link.onnx.dispatch.complex.order
import pytensor.link.onnx.dispatch.complex.part_wise
import pytensor.link.onnx.dispatch.complex.products

# isort: on
