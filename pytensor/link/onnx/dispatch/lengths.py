"""Lengths of axes: where they come from, the runtime checks that they
agree as PyTensor requires, and what broadcasting makes of them.

Shared by the converter modules, which import nothing from each other.
"""

import weakref

import numpy as np
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.math import Dot
from pytensor.tensor.type import TensorType

from pytensor.link.onnx.value import Value, concat, where


def dim_size(builder, x, axis):
    """Return the length of ``x`` along ``axis`` as an int64 vector of one element."""
    return builder.add("Shape", [x], start=axis, end=axis + 1, hint="dim")


RUNTIME_BROADCASTING = (
    "Runtime broadcasting not allowed. At least one input has a distinct dimension "
    "length of 1, but was not marked as broadcastable.\nIf broadcasting was "
    "intended, use `specify_broadcastable` on the relevant input."
)


RUNTIME_BATCH_BROADCASTING = (
    "Runtime broadcasting not allowed. At least one input has a distinct batch "
    "dimension length of 1, but was not marked as broadcastable.\nIf broadcasting "
    "was intended, use `specify_broadcastable` on the relevant input."
)


def may_be_smaller_than_output(node, dependencies) -> bool:
    """Whether a value broadcast only with the inputs ``dependencies`` of the
    ``Elemwise`` ``node`` can have fewer elements than the node's outputs."""
    if not dependencies:
        return True
    if not all(isinstance(inp.type, TensorType) for inp in node.inputs):
        return True
    patterns = [node.inputs[i].type.broadcastable for i in dependencies]
    return any(
        all(dims) and not output_dim
        for *dims, output_dim in zip(
            *patterns, node.outputs[0].type.broadcastable, strict=True
        )
    )


def require_reshapable(builder, x: Value, shape: Value):
    """Raise NumPy's ``ValueError`` unless ``x`` can take the ``shape`` (at
    most one -1 standing for the length left), after onnxruntime's
    ``Reshape`` fails as NumPy's does."""
    unknown = shape.eq(-1)
    known_size = where(unknown, 1, shape).prod([0], keepdims=False)
    size = x.shape().prod([0], keepdims=False)
    divisor = where(known_size.eq(0), 1, known_size)
    fits = where(
        unknown.any(),
        known_size.ne(0) & (size % divisor).eq(0),
        known_size.eq(size),
    )
    single_unknown = unknown.cast("int64").sum([0], keepdims=False) <= 1
    builder.require(
        (shape >= -1).all() & single_unknown & fits,
        ValueError,
        "cannot reshape the array into the shape asked",
        is_scalar=True,
        after_failure=True,
    )


# Runtime broadcasting: a length-1 axis that is not typed broadcastable must
# not broadcast (PyTensor raises). The checks compare where lengths come
# from (`length_source`), so that lengths equal by construction cost nothing.

MAX_TRACED_NODES = 64


def length_source(var, axis):
    """Where the length of ``axis`` of ``var`` comes from.

    Returns
    -------
    int or tuple
        The length if it is known statically, else ``(variable, axis)`` of
        the first variable up the graph that has the same length, through
        ``DimShuffle``, ``Elemwise`` (whose inputs' lengths are checked where
        it is converted) and ``Dot`` of matrices.
    """
    for _ in range(MAX_TRACED_NODES):
        if var.type.shape[axis] is not None:
            return var.type.shape[axis]
        owner = var.owner
        if owner is None:
            break
        if isinstance(owner.op, DimShuffle):
            var, axis = owner.inputs[0], owner.op.new_order[axis]
        elif isinstance(owner.op, Elemwise):
            # inputs typed more precisely than the output by a rewrite may
            # all have length 1 there
            var = next(
                (v for v in owner.inputs if not v.type.broadcastable[axis]), None
            )
            if var is None:
                return 1
        elif isinstance(owner.op, Dot) and var.type.ndim == owner.inputs[0].type.ndim:
            var = owner.inputs[axis]
        else:
            break
    return var, axis


def lengths(x: Value, axes) -> Value:
    """The lengths of ``axes`` (a list) of ``x``, an int64 vector."""
    if axes == list(range(axes[0], axes[-1] + 1)):
        return x.shape(axes[0], axes[-1] + 1)
    return x.shape().take(axes, 0)


def require_equal_lengths(builder, comparisons, message, *, after_failure=False):
    """Raise ``ValueError(message)`` at run time unless the lengths compared
    are equal, in one check (see ``ONNXGraphBuilder.require`` for
    ``after_failure``).

    ``comparisons`` maps pairs ``(x, y)`` of values to lists of axis pairs
    ``(x_axis, y_axis)``; ``y`` is None for an int length ``y_axis``.
    """
    equal = []
    for (x, y), pairs in comparisons.items():
        x_axes, y_axes = (list(axes) for axes in zip(*pairs, strict=True))
        expected = x.indices(y_axes) if y is None else lengths(y, y_axes)
        equal.append(lengths(x, x_axes).eq(expected))
    n_elements = sum(map(len, comparisons.values()))
    require_all(builder, equal, n_elements, message, after_failure=after_failure)


def require_all(builder, conditions, n_elements: int, message, *, after_failure=False):
    """Raise ``ValueError(message)`` at run time unless the bool vectors
    ``conditions``, of ``n_elements`` elements in all, are true."""
    if n_elements == 1:
        condition, is_scalar = conditions[0].squeeze([0]), True
    elif conditions:
        condition, is_scalar = concat(conditions, axis=0), False
    else:
        return
    builder.require(
        condition, ValueError, message, is_scalar=is_scalar, after_failure=after_failure
    )


def require_same_lengths(
    builder, variables, inputs, axes, message, value_names, *, broadcasting=True
):
    """Make the function raise ``ValueError(message)`` unless, along each of
    ``axes``, the ``variables`` (of ONNX values ``inputs``) have one length;
    with ``broadcasting``, those typed broadcastable there are left out.

    Lengths known statically or equal by construction are not compared:
    `length_source` is followed up to variables in ``value_names`` (the ONNX
    values of the graph's variables, None in inner graphs).
    """
    if not builder.keep_checks:
        return
    names = dict(zip(variables, inputs, strict=True))
    value_names = value_names or {}
    equal_lengths = EQUAL_LENGTHS.setdefault(builder, {})
    values = {}

    def value_of(var):
        if var not in values:
            name = names[var] if var in names else value_names[var]
            values[var] = builder.value(name, var.type.dtype)
        return values[var]

    def known(source):
        return isinstance(source, int) or source[0] in names or source[0] in value_names

    def source(var, axis):
        found = length_source(var, axis) if value_names else var.type.shape[axis]
        found = (var, axis) if found is None else found
        rooted = root(equal_lengths, found)
        return rooted if known(rooted) else found if known(found) else (var, axis)

    comparisons = {}
    for axis in axes:
        sources = []
        for var in variables:
            if not (broadcasting and var.type.broadcastable[axis]):
                found = source(var, axis)
                if found not in sources:
                    sources.append(found)
        static = [s for s in sources if isinstance(s, int)]
        symbolic = [s for s in sources if not isinstance(s, int)]
        if len(sources) < 2 or not symbolic:
            continue
        target = static[0] if static else symbolic.pop(0)
        for var, var_axis in symbolic:
            if (joined := root(equal_lengths, (var, var_axis))) != root(
                equal_lengths, target
            ):
                equal_lengths[joined] = target
            if isinstance(target, int):
                key, pair = (value_of(var), None), (var_axis, target)
            else:
                key, pair = (value_of(var), value_of(target[0])), (var_axis, target[1])
            comparisons.setdefault(key, []).append(pair)
    require_equal_lengths(builder, comparisons, message)


# Per graph builder: lengths a runtime check already equates, as a forest of
# length sources (see `length_source`) pointing to a source of equal length
EQUAL_LENGTHS = weakref.WeakKeyDictionary()


def root(equal_lengths, source):
    """The source that represents every length known to equal ``source``'s."""
    while source in equal_lengths:
        source = equal_lengths[source]
    return source


def reduced_axes(axis, ndim) -> tuple[int, ...]:
    return tuple(range(ndim)) if axis is None else tuple(axis)


def static_length(var, axes):
    """The number of elements reduced over ``axes`` of ``var`` if known statically."""
    lengths = [var.type.shape[axis] for axis in axes]
    return None if None in lengths else int(np.prod(lengths, dtype="int64"))


def require_not_empty(builder, node, x: Value, axes, message):
    """Make the function raise ``ValueError(message)`` if ``axes`` of ``x`` (the
    value of ``node.inputs[0]``) may be empty and are."""
    if builder.keep_checks and static_length(node.inputs[0], axes) in (None, 0):
        if len(axes) == 1:
            builder.require(x.dim(axes[0]) > 0, ValueError, message, is_scalar=True)
        else:
            builder.require(x.shape().take(list(axes), 0) > 0, ValueError, message)
