"""PyTensor rewrites that the graph conversion applies first: patterns of
several nodes that ONNX computes with one operator become one Op, which a
converter handles like any other.

- max-pooling written with ``reshape`` and ``max`` becomes `MaxPool`;
- the sum of a batched convolution over its input channels becomes
  `ConvolutionOverChannels`;
- ``a.T @ v``, for a vector or column ``v``, becomes ``(v.T @ a).T``.

The conversion of a ``FunctionGraph`` runs them (`with_fused_patterns`) on a
copy of the graph, whichever mode compiled it, so that functions compiled in
any mode and their exports get the same operators; inner graphs (``Scan``
bodies, ``OpFromGraph``) keep their nodes. The Ops exist only in that copy:
PyTensor never runs them.
"""

import pytensor.scalar.basic as ps
from pytensor.graph.basic import Apply, Constant
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.op import Op
from pytensor.graph.rewriting.basic import in2out, node_rewriter
from pytensor.tensor.basic import MakeVector, get_underlying_scalar_constant_value
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.elemwise import CAReduce, DimShuffle
from pytensor.tensor.exceptions import NotScalarConstantError
from pytensor.tensor.math import Dot
from pytensor.tensor.shape import Reshape
from pytensor.tensor.signal.conv import Convolve1d, Convolve2d

from pytensor.link.onnx.kernels import kernel_dtypes
from pytensor.link.onnx.passes.dense_layers import GEMM_DTYPES


class ConversionOnlyOp(Op):
    """An Op that stands for a pattern of nodes in the graph being converted."""

    def make_node(self, *inputs, output_type):
        return Apply(self, list(inputs), [output_type()])

    def perform(self, node, inputs, outputs):
        raise NotImplementedError(
            f"{type(self).__name__} only exists while a graph is converted to ONNX"
        )


class MaxPool(ConversionOnlyOp):
    """``x.reshape(target).max(axis)``, max-pooling of the trailing axes of ``x``
    over windows of shape ``window``; ``lengths`` are the static lengths of
    its channel and spatial axes that the reshape implies."""

    __props__ = ("window", "lengths")

    def __init__(self, window, lengths):
        self.window = tuple(window)
        self.lengths = tuple(lengths)


class ConvolutionOverChannels(ConversionOnlyOp):
    """The sum over the batch ``axes`` of the ``Blockwise`` of ``core_op``
    (a ``Convolve1d`` or ``Convolve2d``) with ``n_batch`` batch axes, taking
    its inputs, as one convolution over channels."""

    __props__ = ("core_op", "n_batch", "axes")

    def __init__(self, core_op, n_batch, axes):
        self.core_op = core_op
        self.n_batch = n_batch
        self.axes = tuple(axes)


POOLING_DTYPES = kernel_dtypes("MaxPool") & {"float32", "float64"}


def target_entry(split, target, axis) -> int | None:
    """The length of ``split``, a reshape to ``target``, along ``axis`` if static."""
    if split.type.shape[axis] is not None:
        return split.type.shape[axis]
    if isinstance(target, Constant):
        return int(target.data[axis])
    if target.owner is None or not isinstance(target.owner.op, MakeVector):
        return None
    try:
        return int(get_underlying_scalar_constant_value(target.owner.inputs[axis]))
    except NotScalarConstantError:
        return None


@node_rewriter([CAReduce])
def local_max_pool(fgraph, node):
    """``x.reshape((n, c, h // k, k, w // k, k)).max(axis=(3, 5))`` as `MaxPool`.

    ``MaxPool`` then pools ``x`` reshaped to ``(n, c, (h // k) * k, (w // k) * k)``:
    that reshape succeeds exactly when the original does, and the original is a
    reshape of its result whose window axes ``max`` reduces. All lengths but the
    batch must be static and positive (onnxruntime's ``MaxPool`` refuses empty
    inputs unless the batch is empty).
    """
    if not isinstance(node.op, CAReduce) or not isinstance(
        node.op.scalar_op, ps.Maximum
    ):
        return None
    [split] = node.inputs
    reshape = split.owner
    if reshape is None or not isinstance(reshape.op, Reshape):
        return None
    x, target = reshape.inputs
    n_spatial = x.type.ndim - 2
    axes = node.op.axis
    pairs = [(2 + 2 * i, 3 + 2 * i) for i in range(n_spatial)]
    if (
        n_spatial not in (1, 2, 3)
        or split.type.ndim != x.type.ndim + n_spatial
        or axes is None
        or sorted(axes) != [window_axis for _, window_axis in pairs]
        or x.type.dtype not in POOLING_DTYPES
        or node.outputs[0].type.dtype != x.type.dtype
    ):
        return None
    window = [target_entry(split, target, axis) for _, axis in pairs]
    windows = [target_entry(split, target, axis) for axis, _ in pairs]
    channels = target_entry(split, target, 1)
    if any(n is None or n <= 0 for n in (channels, *windows, *window)):
        return None
    lengths = [channels, *(n * k for n, k in zip(windows, window, strict=True))]
    pool = MaxPool(window, lengths)
    return [pool(x, target, output_type=node.outputs[0].type)]


CONV_DTYPES = kernel_dtypes("Conv") & {"float32", "float64"}


@node_rewriter([CAReduce])
def local_convolution_over_channels(fgraph, node):
    """The sum of a float32 ``Blockwise`` convolution as `ConvolutionOverChannels`.

    That is when it sums into float32 over batch axes only, and over every
    batch axis along which both operands vary: as a convolution layer with
    input channels is written, ``convolve2d(x[:, None], k[None]).sum(2)``.
    ``Conv`` then accumulates in float32 what PyTensor accumulates in float64
    (``acc_dtype``) before rounding to float32.
    """
    if not isinstance(node.op, CAReduce) or not isinstance(node.op.scalar_op, ps.Add):
        return None
    [summed] = node.inputs
    conv = summed.owner
    if conv is None or not isinstance(conv.op, Blockwise):
        return None
    core = conv.op.core_op
    if not isinstance(core, Convolve1d | Convolve2d):
        return None
    n_batch = summed.type.ndim - core.ndim
    in1, in2 = (var.type.broadcastable for var in conv.inputs[:2])
    both_vary = {axis for axis in range(n_batch) if in1[axis] == in2[axis]}
    axis = node.op.axis
    axes = set(range(summed.type.ndim) if axis is None else axis)
    dtype = conv.outputs[0].type.dtype
    if (
        not axes
        or max(axes) >= n_batch
        or not both_vary <= axes
        or dtype not in CONV_DTYPES
        or node.outputs[0].type.dtype != dtype
    ):
        return None
    convolution = ConvolutionOverChannels(core, n_batch, sorted(axes))
    return [convolution(*conv.inputs, output_type=node.outputs[0].type)]


@node_rewriter([Dot])
def local_transposed_matrix_times_vector(fgraph, node):
    """``a.T @ v``, for a float vector or column ``v``, as ``(v.T @ a).T``.

    onnxruntime multiplies a row by a matrix faster than a transposed matrix
    by a column (about 1.5 times in float64, as the gradient of a linear
    model needs it).
    """
    if not isinstance(node.op, Dot):
        return None
    transposed, v = node.inputs
    dtype = node.outputs[0].type.dtype
    owner = transposed.owner
    if (
        dtype not in GEMM_DTYPES
        or owner is None
        or not isinstance(owner.op, DimShuffle)
        or owner.op.new_order != (1, 0)
        or v.type.ndim not in (1, 2)
        or (v.type.ndim == 2 and v.type.shape[1] != 1)
        or any(var.type.dtype != dtype for var in (transposed, v))
    ):
        return None
    [a] = owner.inputs
    if v.type.ndim == 2:
        return [node.op(v.T, a).T]
    return [node.op(v.dimshuffle("x", 0), a).dimshuffle(1)]


FUSIONS = (
    local_max_pool,
    local_convolution_over_channels,
    local_transposed_matrix_times_vector,
)


def with_fused_patterns(fgraph: FunctionGraph) -> FunctionGraph:
    """``fgraph``, or a copy of it in which `FUSIONS` replaced the patterns
    they recognise."""
    if not any(
        fusion.transform(fgraph, node)
        for node in fgraph.apply_nodes
        for fusion in FUSIONS
    ):
        return fgraph
    fused = FunctionGraph(fgraph.inputs, fgraph.outputs, clone=True)
    in2out(*FUSIONS, ignore_newtrees=True).rewrite(fused)
    return fused
