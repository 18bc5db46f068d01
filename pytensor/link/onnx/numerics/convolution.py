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

from pytensor.link.onnx.value import Value, concat, maximum, where


INT64_MIN = -(2**63)
SPATIAL = "spatial"


def dims_at(shape: Value, axes) -> Value:
    """The entries ``axes`` of the int64 vector ``shape``."""
    if not axes:
        return shape.indices([])
    return shape.take(list(axes), axis=0)


def product_at(shape: Value, axes) -> Value:
    """The product of the entries ``axes`` of ``shape``, as a vector of one element."""
    if len(axes) == 1:
        return dims_at(shape, axes)
    return product_of(dims_at(shape, axes))


def product_of(dims: Value) -> Value:
    """The product of an int64 vector, as a vector of one element (1 if empty)."""
    return dims.apply("ReduceProd", dims, keepdims=1)


def reshaped(x: Value, parts) -> Value:
    """``x`` reshaped to the concatenation of the int64 vectors ``parts``."""
    return x.reshape(concat(parts, axis=0))


def padding(full, n: Value, k: Value) -> Value:
    """The zero-padding of the first operand on each side, for lengths ``n`` and ``k``.

    ``full`` is a bool or a bool tensor of one element.
    """
    full_pads = k - 1
    if full is True:
        return full_pads
    valid_pads = maximum(k - n, 0)
    if full is False:
        return valid_pads
    return where(full, full_pads, valid_pads)


def check_one_operand_dominates(full, n: Value, k: Value):
    """Raise like SciPy in "valid" mode unless one operand is at least as large on every axis."""
    condition = (n >= k).all() | (k >= n).all()
    if full is not False:
        condition = condition | full
    n.builder.require(
        condition,
        ValueError,
        "For 'valid' mode, one must be at least as large as the other in every "
        "dimension",
    )


def flip(x: Value, axes) -> Value:
    """``x`` reversed along ``axes``."""
    backwards = x.indices([-1] * len(axes))
    ends = x.indices([INT64_MIN] * len(axes))
    return x.apply("Slice", x, backwards, ends, x.indices(axes), backwards)


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

    def transposed(self, x: Value, order, units) -> Value:
        """``x`` with its axes in ``order``, to be reshaped next.

        Moving only axes in ``units`` (of length 1) keeps the data in place.
        """
        moved = [axis for axis in order if axis not in units]
        if moved == sorted(moved, key=self.sort_key):
            return x
        return x.transpose(self.axes(order))

    def sort_key(self, entry):
        return self.n_batch if entry == SPATIAL else entry

    def lengths(self, padded_shape, kernel_shape, out_lengths, group_lengths):
        """The lengths of a correlation's axes, by batch axis (and `SPATIAL`),
        as int64 vectors: those of ``group_lengths`` for the group axes."""
        dims = {
            SPATIAL: out_lengths,
            **dict(zip(self.groups, group_lengths, strict=True)),
        }
        dims.update((axis, dims_at(padded_shape, [axis])) for axis in self.images)
        dims.update((axis, dims_at(kernel_shape, [axis])) for axis in self.channels)
        return dims

    def in_batch_order(self, x: Value, order, dims, summed=()) -> Value:
        """``x``, whose axes are ``order`` with lengths ``dims[axis]``, in batch order.

        ``summed`` batch axes are not axes of ``x``.
        """
        batch_order = [a for a in range(self.n_batch) if a not in summed] + [SPATIAL]
        units = self.in1_units & self.in2_units
        moved = [axis for axis in order if axis not in units]
        if moved == sorted(moved, key=self.sort_key):
            return reshaped(x, [dims[axis] for axis in batch_order])
        x = reshaped(x, [dims[axis] for axis in order])
        return x.transpose(
            [self.axes(order).index(axis) for axis in self.axes(batch_order)]
        )


def row_major_strides(lengths: Value, n_axes: int) -> Value:
    """The element strides of a C-contiguous array of the int64 vector ``lengths``."""
    strides = [lengths.indices([1])]
    for axis in range(n_axes - 1, 0, -1):
        strides.insert(0, strides[0] * dims_at(lengths, [axis]))
    return concat(strides, axis=0)


def window_loop_body(images: Value, kernel_lengths, out_lengths, n_groups, n_spatial):
    """The body of a ``Loop`` over kernel elements that slices the windows they meet.

    ``images`` is ``(*groups, images, *lengths)``; the window of each kernel
    element is ``(*groups, images, *out_lengths)``.
    """
    strides = row_major_strides(kernel_lengths, n_spatial)
    body = images.builder.loop_body("window_body")
    element, condition = (info.name for info in body.inputs)
    element = body.value(element, "int64")
    offset = (element / strides.into(body)) % kernel_lengths.into(body)
    end = offset + out_lengths.into(body)
    axes = element.indices([n_groups + 1 + axis for axis in range(n_spatial)])
    window = images.into(body)
    window = window.apply("Slice", window, offset, end, axes)
    body.add_output(condition, "condition", "bool", ())
    ndim = n_groups + 1 + n_spatial
    body.add_output(window.name, "window", images.dtype, (None,) * ndim)
    return body


def correlate_by_matmul(padded: Value, kernel: Value, layout: BatchLayout) -> Value:
    """The valid cross-correlation of ``padded`` and ``kernel`` with one ``MatMul``.

    A ``Loop`` over the kernel elements slices the windows of the images they
    meet. The kernels form ``(*groups, channels, kernel_elements)`` matrices
    and the windows ``(*groups, kernel_elements, images * windows)`` ones.
    """
    images, channels, groups = layout.images, layout.channels, layout.groups
    padded_shape, kernel_shape = padded.shape(), kernel.shape()
    kernel_lengths = dims_at(kernel_shape, layout.spatial)
    out_lengths = dims_at(padded_shape, layout.spatial) - kernel_lengths + 1
    group_dims = dims_at(padded_shape, groups)
    n_images = product_at(padded_shape, images)
    n_kernel_elements = product_of(kernel_lengths)

    padded = layout.transposed(
        padded, [*groups, *images, *channels, SPATIAL], layout.in1_units
    )
    padded = reshaped(
        padded, [group_dims, n_images, dims_at(padded_shape, layout.spatial)]
    )
    body = window_loop_body(
        padded, kernel_lengths, out_lengths, len(groups), layout.n_spatial
    )
    windows = padded.apply(
        "Loop", n_kernel_elements.squeeze([0]), None, body=body.make_graph()
    )
    if groups:
        # (kernel_elements, *groups, images, *out_lengths) -> groups first
        n_groups = len(groups)
        windows = windows.transpose(
            [
                *range(1, n_groups + 1),
                0,
                *range(n_groups + 1, n_groups + 2 + layout.n_spatial),
            ]
        )
    n_windows = n_images * product_of(out_lengths)
    windows = reshaped(windows, [group_dims, n_kernel_elements, n_windows])
    kernel = layout.transposed(
        kernel, [*groups, *channels, *images, SPATIAL], layout.in2_units
    )
    kernel = reshaped(
        kernel,
        [
            dims_at(kernel_shape, groups),
            product_at(kernel_shape, channels),
            n_kernel_elements,
        ],
    )
    product = kernel @ windows
    product_shape = product.shape()
    group_lengths = [dims_at(product_shape, [i]) for i in range(len(groups))]
    dims = layout.lengths(padded_shape, kernel_shape, out_lengths, group_lengths)
    return layout.in_batch_order(product, [*groups, *channels, *images, SPATIAL], dims)


def correlate_by_conv(padded: Value, kernel: Value, layout, n_groups=None) -> Value:
    """The valid cross-correlation of ``padded`` and ``kernel`` as one ``Conv``.

    With ``n_groups``, a grouped ``Conv`` computes each group. Without, the
    group axes are the input channels of the ``Conv``, which sums over them:
    the result has the batch axes without them.
    """
    images, channels, groups = layout.images, layout.channels, layout.groups
    summed = n_groups is None
    padded_shape, kernel_shape = padded.shape(), kernel.shape()
    padded = layout.transposed(
        padded, [*images, *groups, *channels, SPATIAL], layout.in1_units
    )
    padded = reshaped(
        padded,
        [
            product_at(padded_shape, images),
            product_at(padded_shape, groups),
            dims_at(padded_shape, layout.spatial),
        ],
    )
    kernel_order = [*channels, *groups] if summed else [*groups, *channels]
    kernel = layout.transposed(
        kernel, [*kernel_order, *images, SPATIAL], layout.in2_units
    )
    kernel = reshaped(
        kernel,
        [
            product_at(kernel_shape, channels if summed else kernel_order),
            product_at(kernel_shape, groups) if summed else kernel.indices([1]),
            dims_at(kernel_shape, layout.spatial),
        ],
    )
    result = padded.apply("Conv", padded, kernel, group=n_groups or 1)
    group_lengths = [dims_at(kernel_shape, [axis]) for axis in groups]
    dims = layout.lengths(padded_shape, kernel_shape, result.shape(2), group_lengths)
    order = [*images, *(() if summed else groups), *channels, SPATIAL]
    return layout.in_batch_order(result, order, dims, summed=groups if summed else ())


def over_channels(padded: Value, kernel: Value, layout, contracted):
    """The operands and layout of a convolution summed over the ``contracted`` axes.

    Those axes become the group axes, along which both operands vary: an
    operand of length 1 along one is broadcast to the other's length.
    """
    contracted = tuple(sorted(contracted))
    unit_axes = (layout.in1_units, layout.in2_units)
    ndim = layout.n_batch + layout.n_spatial
    padded, kernel = (
        broadcast_along(operand, other, [a for a in contracted if a in units], ndim)
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


def broadcast_along(x: Value, other: Value, axes, ndim) -> Value:
    """``x``, of length 1 along ``axes``, repeated to ``other``'s lengths there."""
    if not axes:
        return x
    lengths = other.shape()
    target = [
        dims_at(lengths, [axis]) if axis in axes else x.indices([1])
        for axis in range(ndim)
    ]
    return x.expand(concat(target, axis=0))
