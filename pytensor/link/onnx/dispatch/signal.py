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

from dataclasses import dataclass

import numpy as np
import pytensor.scalar.basic as ps
from pytensor.graph.basic import Constant
from pytensor.tensor.basic import get_underlying_scalar_constant_value
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.exceptions import NotScalarConstantError
from pytensor.tensor.signal.conv import Convolve1d, Convolve2d

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.blockwise import onnx_funcify_batched
from pytensor.link.onnx.dispatch.shape import (
    add_runtime_check,
    all_true,
    int64_constant,
    int64_max,
)
from pytensor.link.onnx.kernels import widened_kernel_dtype


INT64_MIN = int(np.iinfo(np.int64).min)
CONV_DTYPES = frozenset(("float32",))
SPATIAL = "spatial"


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


def dims_at(builder, shape, axes):
    """The entries ``axes`` of the int64 vector ``shape``."""
    if not axes:
        return int64_constant(builder, np.zeros(0, dtype="int64"), "no_dims")
    return builder.add("Gather", [shape, int64_constant(builder, axes)], hint="dims")


def product_at(builder, shape, axes):
    """The product of the entries ``axes`` of ``shape``, as a vector of one element."""
    if len(axes) == 1:
        return dims_at(builder, shape, axes)
    return product_of(builder, dims_at(builder, shape, axes))


def product_of(builder, dims):
    """The product of an int64 vector, as a vector of one element (1 if empty)."""
    return builder.add("ReduceProd", [dims], keepdims=1, hint="product")


def one(builder):
    return int64_constant(builder, [1], "one")


def reshaped(builder, x, parts):
    """``x`` reshaped to the concatenation of the int64 vectors ``parts``."""
    shape = builder.add("Concat", parts, axis=0, hint="shape")
    return builder.add("Reshape", [x, shape], allowzero=1)


def padding(builder, full, n, k):
    """The zero-padding of the first operand on each side, for lengths ``n`` and ``k``.

    ``full`` is a bool or a bool tensor of one element.
    """
    full_pads = builder.add("Sub", [k, one(builder)], hint="full_pads")
    if full is True:
        return full_pads
    valid_pads = int64_max(
        builder, builder.add("Sub", [k, n]), int64_constant(builder, [0], "zero")
    )
    if full is False:
        return valid_pads
    return builder.add("Where", [full, full_pads, valid_pads], hint="pads")


def check_one_operand_dominates(builder, full, n, k):
    """Raise like SciPy in "valid" mode unless one operand is at least as large on every axis."""
    n_dominates = all_true(builder, builder.add("GreaterOrEqual", [n, k]))
    k_dominates = all_true(builder, builder.add("GreaterOrEqual", [k, n]))
    condition = builder.add("Or", [n_dominates, k_dominates])
    if full is not False:
        condition = builder.add("Or", [condition, full])
    add_runtime_check(
        builder,
        condition,
        ValueError,
        "For 'valid' mode, one must be at least as large as the other in every "
        "dimension",
    )


def flip(builder, x, axes):
    """``x`` reversed along ``axes``."""
    n_axes = len(axes)
    return builder.add(
        "Slice",
        [
            x,
            int64_constant(builder, [-1] * n_axes, "starts"),
            int64_constant(builder, [INT64_MIN] * n_axes, "ends"),
            int64_constant(builder, axes),
            int64_constant(builder, [-1] * n_axes, "steps"),
        ],
        hint="flipped",
    )


@dataclass(frozen=True)
class BatchLayout:
    """How the batch axes of a convolution map onto a convolution layer.

    Along ``images`` axes only the first operand varies, along ``channels``
    axes only the kernel, along ``groups`` axes both (or neither). Axis orders
    list batch axes and `SPATIAL` for all the spatial axes.
    """

    images: tuple[int, ...]
    channels: tuple[int, ...]
    groups: tuple[int, ...]
    n_spatial: int
    in1_units: frozenset[int]
    in2_units: frozenset[int]

    @classmethod
    def of(cls, in1_var, in2_var, n_batch, n_spatial):
        in1_units, in2_units = (
            frozenset(axis for axis in range(n_batch) if var.type.broadcastable[axis])
            for var in (in1_var, in2_var)
        )
        images = tuple(a for a in range(n_batch) if a in in2_units - in1_units)
        channels = tuple(a for a in range(n_batch) if a in in1_units - in2_units)
        groups = tuple(a for a in range(n_batch) if a not in (*images, *channels))
        return cls(images, channels, groups, n_spatial, in1_units, in2_units)

    @property
    def n_batch(self):
        return len(self.images) + len(self.channels) + len(self.groups)

    @property
    def spatial(self):
        return list(range(self.n_batch, self.n_batch + self.n_spatial))

    def axes(self, order):
        return [
            axis
            for entry in order
            for axis in (self.spatial if entry == SPATIAL else [entry])
        ]

    def transposed(self, builder, x, order, units):
        """``x`` with its axes in ``order``, to be reshaped next.

        Moving only axes in ``units`` (of length 1) keeps the data in place.
        """
        moved = [axis for axis in order if axis not in units]
        if moved == sorted(moved, key=self.sort_key):
            return x
        return builder.add("Transpose", [x], perm=self.axes(order), hint="transposed")

    def sort_key(self, entry):
        return self.n_batch if entry == SPATIAL else entry

    def in_batch_order(self, builder, x, order, dims, summed=()):
        """``x``, whose axes are ``order`` with lengths ``dims[axis]``, in batch order.

        ``summed`` batch axes are not axes of ``x``.
        """
        batch_order = [a for a in range(self.n_batch) if a not in summed] + [SPATIAL]
        units = self.in1_units & self.in2_units
        moved = [axis for axis in order if axis not in units]
        if moved == sorted(moved, key=self.sort_key):
            return reshaped(builder, x, [dims[axis] for axis in batch_order])
        x = reshaped(builder, x, [dims[axis] for axis in order])
        perm = [self.axes(order).index(axis) for axis in self.axes(batch_order)]
        return builder.add("Transpose", [x], perm=perm, hint="batch_order")


def row_major_strides(builder, lengths, n_axes):
    """The element strides of a C-contiguous array of the int64 vector ``lengths``."""
    strides = [one(builder)]
    for axis in range(n_axes - 1, 0, -1):
        strides.insert(
            0, builder.add("Mul", [strides[0], dims_at(builder, lengths, [axis])])
        )
    return builder.add("Concat", strides, axis=0, hint="strides")


def window_loop_body(
    builder, images, kernel_lengths, out_lengths, n_groups, n_spatial, dtype
):
    """The body of a ``Loop`` over kernel elements that slices the windows they meet.

    ``images`` is ``(*groups, images, *lengths)``; the window of each kernel
    element is ``(*groups, images, *out_lengths)``.
    """
    body = builder.loop_body("window_body")
    element, condition = (info.name for info in body.inputs)
    strides = row_major_strides(builder, kernel_lengths, n_spatial)
    offset = body.add(
        "Mod", [body.add("Div", [element, strides]), kernel_lengths], hint="offset"
    )
    end = body.add("Add", [offset, out_lengths])
    axes = int64_constant(builder, [n_groups + 1 + axis for axis in range(n_spatial)])
    window = body.add("Slice", [images, offset, end, axes], hint="window")
    body.add_output(condition, "condition", "bool", ())
    body.add_output(window, "window", dtype, (None,) * (n_groups + 1 + n_spatial))
    return body


def correlate_by_matmul(builder, padded, kernel, layout, dtype):
    """The valid cross-correlation of ``padded`` and ``kernel`` with one ``MatMul``.

    A ``Loop`` over the kernel elements slices the windows of the images they
    meet. The kernels form ``(*groups, channels, kernel_elements)`` matrices
    and the windows ``(*groups, kernel_elements, images * windows)`` ones.
    """
    images, channels, groups = layout.images, layout.channels, layout.groups
    padded_shape = builder.add("Shape", [padded], hint="padded_shape")
    kernel_shape = builder.add("Shape", [kernel], hint="kernel_shape")
    kernel_lengths = dims_at(builder, kernel_shape, layout.spatial)
    out_lengths = builder.add(
        "Add",
        [
            builder.add(
                "Sub", [dims_at(builder, padded_shape, layout.spatial), kernel_lengths]
            ),
            one(builder),
        ],
        hint="out_lengths",
    )
    group_dims = dims_at(builder, padded_shape, groups)
    n_images = product_at(builder, padded_shape, images)
    n_kernel_elements = product_of(builder, kernel_lengths)

    padded = layout.transposed(
        builder, padded, [*groups, *images, *channels, SPATIAL], layout.in1_units
    )
    padded = reshaped(
        builder,
        padded,
        [group_dims, n_images, dims_at(builder, padded_shape, layout.spatial)],
    )
    body = window_loop_body(
        builder,
        padded,
        kernel_lengths,
        out_lengths,
        len(groups),
        layout.n_spatial,
        dtype,
    )
    windows = builder.add(
        "Loop",
        [builder.add("Squeeze", [n_kernel_elements]), ""],
        body=body.make_graph(),
        hint="windows",
    )
    if groups:
        # (kernel_elements, *groups, images, *out_lengths) -> groups first
        n_groups = len(groups)
        windows = builder.add(
            "Transpose",
            [windows],
            perm=[
                *range(1, n_groups + 1),
                0,
                *range(n_groups + 1, n_groups + 2 + layout.n_spatial),
            ],
        )
    n_windows = builder.add("Mul", [n_images, product_of(builder, out_lengths)])
    windows = reshaped(builder, windows, [group_dims, n_kernel_elements, n_windows])
    kernel = layout.transposed(
        builder, kernel, [*groups, *channels, *images, SPATIAL], layout.in2_units
    )
    kernel = reshaped(
        builder,
        kernel,
        [
            dims_at(builder, kernel_shape, groups),
            product_at(builder, kernel_shape, channels),
            n_kernel_elements,
        ],
    )
    product = builder.add("MatMul", [kernel, windows], hint="correlation")
    product_shape = builder.add("Shape", [product], hint="product_shape")
    dims = {SPATIAL: out_lengths}
    dims.update(
        (axis, dims_at(builder, product_shape, [i])) for i, axis in enumerate(groups)
    )
    dims.update((axis, dims_at(builder, padded_shape, [axis])) for axis in images)
    dims.update((axis, dims_at(builder, kernel_shape, [axis])) for axis in channels)
    return layout.in_batch_order(
        builder, product, [*groups, *channels, *images, SPATIAL], dims
    )


def static_group_count(layout, in1_var, in2_var):
    """The number of groups if it is known statically, else None."""
    count = 1
    for axis in layout.groups:
        dim = in1_var.type.shape[axis] or in2_var.type.shape[axis]
        if dim is None:
            return None
        count *= dim
    return count


def correlate_by_conv(builder, padded, kernel, layout, n_groups=None):
    """The valid cross-correlation of ``padded`` and ``kernel`` as one ``Conv``.

    With ``n_groups``, a grouped ``Conv`` computes each group. Without, the
    group axes are the input channels of the ``Conv``, which sums over them:
    the result has the batch axes without them.
    """
    images, channels, groups = layout.images, layout.channels, layout.groups
    summed = n_groups is None
    padded_shape = builder.add("Shape", [padded], hint="padded_shape")
    kernel_shape = builder.add("Shape", [kernel], hint="kernel_shape")
    padded = layout.transposed(
        builder, padded, [*images, *groups, *channels, SPATIAL], layout.in1_units
    )
    padded = reshaped(
        builder,
        padded,
        [
            product_at(builder, padded_shape, images),
            product_at(builder, padded_shape, groups),
            dims_at(builder, padded_shape, layout.spatial),
        ],
    )
    kernel_order = [*channels, *groups] if summed else [*groups, *channels]
    kernel = layout.transposed(
        builder, kernel, [*kernel_order, *images, SPATIAL], layout.in2_units
    )
    kernel = reshaped(
        builder,
        kernel,
        [
            product_at(builder, kernel_shape, channels if summed else kernel_order),
            product_at(builder, kernel_shape, groups) if summed else one(builder),
            dims_at(builder, kernel_shape, layout.spatial),
        ],
    )
    result = builder.add(
        "Conv", [padded, kernel], group=n_groups or 1, hint="correlation"
    )
    dims = {SPATIAL: builder.add("Shape", [result], start=2, hint="out_lengths")}
    dims.update((axis, dims_at(builder, padded_shape, [axis])) for axis in images)
    dims.update((axis, dims_at(builder, kernel_shape, [axis])) for axis in groups)
    dims.update((axis, dims_at(builder, kernel_shape, [axis])) for axis in channels)
    order = [*images, *(() if summed else groups), *channels, SPATIAL]
    return layout.in_batch_order(
        builder, result, order, dims, summed=groups if summed else ()
    )


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
    in1 = builder.cast(in1, in1_var.type.dtype, compute)
    in2 = builder.cast(in2, in2_var.type.dtype, compute)

    full = static_full_mode(mode_var)
    if full is None:
        full = builder.add(
            "Slice",
            [
                builder.add("Reshape", [full_mode, int64_constant(builder, [-1])]),
                int64_constant(builder, [0]),
                one(builder),
            ],
            hint="full_mode",
        )
    n = builder.add("Shape", [in1], start=n_batch, hint="n")
    k = builder.add("Shape", [in2], start=n_batch, hint="k")
    if n_spatial > 1 and full is not True and builder.keep_checks:
        check_one_operand_dominates(builder, full, n, k)

    pads = padding(builder, full, n, k)
    no_pads = int64_constant(builder, [0] * n_batch, "no_pads")
    padded = builder.add(
        "Pad", [in1, builder.add("Concat", [no_pads, pads, no_pads, pads], axis=0)]
    )
    layout = BatchLayout.of(in1_var, in2_var, n_batch, n_spatial)
    kernel = flip(builder, in2, layout.spatial)
    n_groups = static_group_count(layout, in1_var, in2_var)
    if contracted:
        padded, kernel, layout = over_channels(
            builder, padded, kernel, layout, contracted
        )
        result = correlate_by_conv(builder, padded, kernel, layout)
    elif compute in CONV_DTYPES and n_groups is not None:
        result = correlate_by_conv(builder, padded, kernel, layout, n_groups)
    else:
        result = correlate_by_matmul(builder, padded, kernel, layout, compute)
    if dtype == "bool":
        return builder.add("Greater", [result, builder.constant(0, compute)])
    return builder.cast(result, compute, dtype)


def over_channels(builder, padded, kernel, layout, contracted):
    """The operands and layout of a convolution summed over the ``contracted`` axes.

    Those axes become the group axes, along which both operands vary: an
    operand of length 1 along one is broadcast to the other's length.
    """
    contracted = tuple(sorted(contracted))
    unit_axes = (layout.in1_units, layout.in2_units)
    ndim = layout.n_batch + layout.n_spatial
    padded, kernel = (
        broadcast_along(
            builder, operand, other, [a for a in contracted if a in units], ndim
        )
        for operand, other, units in zip(
            (padded, kernel), (kernel, padded), unit_axes, strict=True
        )
    )
    layout = BatchLayout(
        images=tuple(a for a in layout.images if a not in contracted),
        channels=tuple(a for a in layout.channels if a not in contracted),
        groups=contracted,
        n_spatial=layout.n_spatial,
        in1_units=layout.in1_units - set(contracted),
        in2_units=layout.in2_units - set(contracted),
    )
    return padded, kernel, layout


def broadcast_along(builder, x, other, axes, ndim):
    """``x``, of length 1 along ``axes``, repeated to ``other``'s lengths there."""
    if not axes:
        return x
    lengths = builder.add("Shape", [other], hint="other_shape")
    target = [
        dims_at(builder, lengths, [axis]) if axis in axes else one(builder)
        for axis in range(ndim)
    ]
    shape = builder.add("Concat", target, axis=0, hint="shape")
    return builder.add("Expand", [x, shape], hint="broadcast")


def summed_convolution(builder, node, value_names):
    """``node``, a sum, computed as one convolution over channels, if it can be.

    That is when it sums a float32 ``Blockwise`` convolution into float32
    over batch axes only, and over every batch axis along which both operands
    vary: as a convolution layer with input channels is written,
    ``convolve2d(x[:, None], k[None]).sum(2)``. ``Conv`` then accumulates in
    float32 what PyTensor accumulates in float64 (``acc_dtype``) before
    rounding to float32.
    """
    if value_names is None or not isinstance(node.op.scalar_op, ps.Add):
        return None
    [summed] = node.inputs
    conv = summed.owner
    if conv is None or not isinstance(conv.op, Blockwise):
        return None
    core = conv.op.core_op
    if not isinstance(core, Convolve1d | Convolve2d):
        return None
    n_batch = summed.type.ndim - core.ndim
    layout = BatchLayout.of(*conv.inputs[:2], n_batch, core.ndim)
    axis = node.op.axis
    axes = set(range(summed.type.ndim) if axis is None else axis)
    dtype = conv.outputs[0].type.dtype
    if (
        not axes
        or max(axes) >= n_batch
        or not set(layout.groups) <= axes
        or dtype not in CONV_DTYPES
        or node.outputs[0].type.dtype != dtype
    ):
        return None
    inputs = [value_names[var] for var in conv.inputs]
    return convolve(builder, conv, inputs, n_batch, core.ndim, tuple(axes))


@onnx_funcify.register(Convolve1d)
@onnx_funcify.register(Convolve2d)
def onnx_funcify_Convolve(op, node, builder, inputs, **kwargs):
    return [convolve(builder, node, inputs, 0, op.ndim)]


@onnx_funcify_batched.register(Convolve1d)
@onnx_funcify_batched.register(Convolve2d)
def onnx_funcify_batched_Convolve(core_op, node, builder, inputs, **kwargs):
    n_batch = node.outputs[0].type.ndim - core_op.ndim
    return [convolve(builder, node, inputs, n_batch, core_op.ndim)]
