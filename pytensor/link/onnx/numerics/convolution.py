"""Convolutions as ONNX graphs: padding, flips, and valid cross-correlations.

A true convolution (the kernel flipped) in "full" or "valid" mode is one
valid cross-correlation of the flipped kernel with the first operand
zero-padded on both sides by ``k - 1`` in "full" mode and ``max(k - n, 0)``
in "valid" mode (`padding`), where ``n`` and ``k`` are the lengths of the
operands along an axis.

Batch axes map onto a convolution layer (`BatchLayout`). `correlate_by_conv`
runs one (grouped) ONNX ``Conv``; `correlate_by_matmul` runs a ``Loop`` over
the kernel elements that slices the windows of the images, and one
``MatMul`` that multiplies them with the kernels, exact in every dtype that
has a ``MatMul`` kernel.
"""

from dataclasses import dataclass

import numpy as np


INT64_MIN = int(np.iinfo(np.int64).min)
SPATIAL = "spatial"


def int64_constant(builder, values, hint="axes"):
    return builder.constant(np.asarray(values, dtype="int64"), "int64", hint=hint)


def all_true(builder, conditions):
    """Whether all the elements of a boolean tensor are true, a 0-d bool."""
    as_uint8 = builder.cast(conditions, "bool", "uint8")
    holds = builder.add("ReduceMin", [as_uint8], keepdims=0, hint="all_true")
    return builder.cast(holds, "uint8", "bool")


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
    difference = builder.add("Sub", [k, n])
    zero = int64_constant(builder, [0], "zero")
    is_less = builder.add("Less", [difference, zero])
    valid_pads = builder.add("Where", [is_less, zero, difference], hint="max")
    if full is False:
        return valid_pads
    return builder.add("Where", [full, full_pads, valid_pads], hint="pads")


def check_one_operand_dominates(builder, full, n, k):
    """Raise like SciPy in "valid" mode unless one operand is at least as large on every axis."""
    n_dominates, k_dominates = (
        all_true(builder, builder.add("GreaterOrEqual", [a, b]))
        for a, b in ((n, k), (k, n))
    )
    condition = builder.add("Or", [n_dominates, k_dominates])
    if full is not False:
        condition = builder.add("Or", [condition, full])
    builder.require(
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
    def of(cls, in1_broadcastable, in2_broadcastable, n_batch, n_spatial):
        """The layout of operands whose axes of length 1 are ``*_broadcastable``."""
        in1_units, in2_units = (
            frozenset(axis for axis in range(n_batch) if broadcastable[axis])
            for broadcastable in (in1_broadcastable, in2_broadcastable)
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
