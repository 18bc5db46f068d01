# isort: off
from pytensor.link.onnx.dispatch.basic import onnx_funcify, onnx_typify

# Load dispatch specializations
import pytensor.link.onnx.dispatch.bessel
import pytensor.link.onnx.dispatch.blas
import pytensor.link.onnx.dispatch.blockwise
import pytensor.link.onnx.dispatch.builders
import pytensor.link.onnx.dispatch.complex
import pytensor.link.onnx.dispatch.composite
import pytensor.link.onnx.dispatch.einsum
import pytensor.link.onnx.dispatch.elemwise
import pytensor.link.onnx.dispatch.extra_ops
import pytensor.link.onnx.dispatch.fft
import pytensor.link.onnx.dispatch.ifelse
import pytensor.link.onnx.dispatch.math
import pytensor.link.onnx.dispatch.linalg
import pytensor.link.onnx.dispatch.pad
import pytensor.link.onnx.dispatch.pooling
import pytensor.link.onnx.dispatch.random
import pytensor.link.onnx.dispatch.scalar
import pytensor.link.onnx.dispatch.scalar_loop
import pytensor.link.onnx.dispatch.scan
import pytensor.link.onnx.dispatch.shape
import pytensor.link.onnx.dispatch.signal
import pytensor.link.onnx.dispatch.sort
import pytensor.link.onnx.dispatch.special
import pytensor.link.onnx.dispatch.subtensor
import pytensor.link.onnx.dispatch.tensor_basic
import pytensor.link.onnx.dispatch.typed_list

# isort: on
