"""Converters for the convolutions of ``pytensor.tensor.signal``.

``Convolve1d`` and ``Convolve2d`` compute true convolutions (the kernel is
flipped) in "full" or "valid" mode; "valid" swaps the operands when the second
one is the larger, like NumPy and SciPy. Both are one valid cross-correlation
of the flipped kernel with the first operand zero-padded on both sides by

- ``k - 1`` in "full" mode,
- ``max(k - n, 0)`` in "valid" mode,

where ``n`` and ``k`` are the lengths of the operands along an axis.

Of the batch dimensions of a ``Blockwise`` convolution, those along which only
the first operand varies act as the images of a convolution layer, those
along which only the kernel varies as its output channels, and those along
which both vary as groups. float32 runs as one grouped ONNX ``Conv`` when the
number of groups is static. Otherwise (onnxruntime has no float64 ``Conv``) a
``Loop`` over the kernel elements slices the windows of the images and one
``MatMul`` multiplies them with the kernels, exact in every dtype that has a
``MatMul`` kernel.
"""

import numpy as np
from pytensor.graph.basic import Constant
from pytensor.tensor.basic import get_underlying_scalar_constant_value
from pytensor.tensor.exceptions import NotScalarConstantError
from pytensor.tensor.signal.conv import Convolve1d, Convolve2d

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.lengths import (
    RUNTIME_BATCH_BROADCASTING,
    require_same_lengths,
)
from pytensor.link.onnx.fusions import ConvolutionOverChannels
from pytensor.link.onnx.kernels import kernel_dtypes, widened_kernel_dtype
from pytensor.link.onnx.numerics.convolution import (
    BatchLayout,
    check_one_operand_dominates,
    correlate_by_conv,
    correlate_by_matmul,
    flip,
    over_channels,
    padding,
)
from pytensor.link.onnx.value import concat


CONV_DTYPES = kernel_dtypes("Conv") & {"float32", "float64"}


def static_full_mode(var):
    """The constant value of the ``full_mode`` input, or None if it is symbolic."""
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        if data.size and (data == data.flat[0]).all():
            return bool(data.flat[0])
        return None
    try:
        return bool(get_underlying_scalar_constant_value(var))
    except NotScalarConstantError:
        return None


def convolve(builder, node, inputs, n_batch, n_spatial, contracted=()):
    """The convolution computed by ``node``, a ``Convolve1d``/``2d`` or a ``Blockwise`` of one.

    With ``contracted`` group axes (see `BatchLayout`), the sum of the
    convolution over those axes, as one convolution over channels.
    """
    in1_var, in2_var, mode_var = node.inputs
    dtype = node.outputs[0].type.dtype
    if dtype == "bool" and n_spatial != 1:
        raise NotImplementedError(
            "2-D convolutions of booleans are not supported (SciPy rejects them)"
        )
    compute = widened_kernel_dtype("MatMul", "int64" if dtype == "bool" else dtype)
    in1, in2, full_mode = inputs
    in1 = builder.value(in1, in1_var.type.dtype).cast(compute)
    in2 = builder.value(in2, in2_var.type.dtype).cast(compute)

    full = static_full_mode(mode_var)
    if full is None:
        mode = builder.value(full_mode, mode_var.type.dtype)
        full = mode.reshape(mode.indices([-1])).slice(0, 1)
    n, k = in1.shape(n_batch), in2.shape(n_batch)
    if n_spatial > 1 and full is not True and builder.keep_checks:
        check_one_operand_dominates(full, n, k)

    pads, no_pads = padding(full, n, k), in1.indices([0] * n_batch)
    padded = in1.apply("Pad", in1, concat([no_pads, pads, no_pads, pads], axis=0))
    layout = BatchLayout.of(
        in1_var.type.broadcastable, in2_var.type.broadcastable, n_batch, n_spatial
    )
    kernel = flip(in2, layout.spatial)
    n_groups = static_group_count(layout, in1_var, in2_var)
    if contracted:
        padded, kernel, layout = over_channels(padded, kernel, layout, contracted)
        result = correlate_by_conv(padded, kernel, layout)
    elif compute in CONV_DTYPES and n_groups is not None:
        result = correlate_by_conv(padded, kernel, layout, n_groups)
    else:
        result = correlate_by_matmul(padded, kernel, layout)
    if dtype == "bool":
        return (result > 0).name
    return result.cast(dtype).name


def static_group_count(layout, in1_var, in2_var):
    """The number of groups if it is known statically, else None."""
    count = 1
    for axis in layout.groups:
        dim = in1_var.type.shape[axis] or in2_var.type.shape[axis]
        if dim is None:
            return None
        count *= dim
    return count


@onnx_funcify.register(ConvolutionOverChannels)
def onnx_funcify_ConvolutionOverChannels(
    op, node, builder, inputs, value_names=None, **kwargs
):
    # the runtime checks of the Blockwise convolution it sums
    require_same_lengths(
        builder,
        node.inputs,
        inputs,
        range(op.n_batch),
        RUNTIME_BATCH_BROADCASTING,
        value_names,
    )
    return [convolve(builder, node, inputs, op.n_batch, op.core_op.ndim, op.axes)]


@onnx_funcify.register(Convolve1d)
@onnx_funcify.register(Convolve2d)
def onnx_funcify_Convolve(op, node, builder, inputs, **kwargs):
    return [convolve(builder, node, inputs, 0, op.ndim)]


@onnx_funcify.register(Convolve1d, batched=True)
@onnx_funcify.register(Convolve2d, batched=True)
def onnx_funcify_batched_Convolve(core_op, node, builder, inputs, **kwargs):
    n_batch = node.outputs[0].type.ndim - core_op.ndim
    return [convolve(builder, node, inputs, n_batch, core_op.ndim)]
