"""Converters of PyTensor's FFT Ops (``pytensor.tensor.fft``), whose complex
values are already real pairs along a trailing axis."""

from pytensor.tensor.fft import IRFFTOp, RFFTOp

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.numerics import fourier


@onnx_funcify.register(RFFTOp)
def onnx_funcify_RFFTOp(op, node, builder, inputs, **kwargs):
    a, lengths = transform_operands(
        node, builder, inputs, n_axes=node.inputs[0].ndim - 1
    )
    return [fourier.rfftn(a, lengths).name]


@onnx_funcify.register(IRFFTOp)
def onnx_funcify_IRFFTOp(op, node, builder, inputs, **kwargs):
    z, lengths = transform_operands(
        node, builder, inputs, n_axes=node.inputs[0].ndim - 2
    )
    return [fourier.irfftn(z, lengths).name]


def transform_operands(node, builder, inputs, n_axes):
    """The transformed values and the ``n_axes`` lengths (0-d int64 values)
    of their transform."""
    values, lengths = node.inputs
    dtype = values.type.dtype
    if dtype not in ("float32", "float64"):
        raise NotImplementedError(
            f"the ONNX backend transforms float32 and float64 values, not {dtype}"
        )
    s = builder.value(inputs[1], lengths.type.dtype).cast("int64")
    return builder.value(inputs[0], dtype), [
        s.take(s.indices(i), 0) for i in range(n_axes)
    ]
