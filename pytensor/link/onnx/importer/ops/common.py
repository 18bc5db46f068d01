"""Helpers that several op families share."""

import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Constant
from pytensor.graph.traversal import graph_inputs

import pytensor


def like(value, x):
    """A constant ``value`` with the dtype of ``x``."""
    return pt.constant(np.asarray(value, dtype=x.dtype))


def as_dtype(x, dtype):
    return x if x.dtype == np.dtype(dtype) else pt.cast(x, np.dtype(dtype).name)


def as_int64(x):
    return as_dtype(x, "int64")


def constant_value(x):
    """The NumPy value of ``x`` if it depends on constants only, else ``None``.

    Graphs of constants (shapes and axes computed from ``Constant`` nodes) are
    evaluated once here.
    """
    if x is None:
        return None
    if isinstance(x, Constant):
        return np.asarray(x.data)
    if not all(isinstance(v, Constant) for v in graph_inputs([x])):
        return None
    from pytensor.compile.mode import Mode

    return np.asarray(
        pytensor.function([], x, mode=Mode(linker="py", optimizer=None))()
    )


def scalar(x):
    """A scalar input, also given (as some models do) as a 1-element tensor."""
    return x.ravel()[0] if x.ndim else x


def static_ints(x, what="this input"):
    """The integer values of a constant input, as a tuple."""
    value = constant_value(x)
    if value is None:
        raise NotImplementedError(
            f"{what} must be a constant, not computed at run time"
        )
    return tuple(int(v) for v in value.ravel())


def entries(x):
    """The entries of a 1-D input: Python ints if constant, else scalar variables."""
    value = constant_value(x)
    if value is not None:
        return [int(v) for v in value.ravel()]
    length = x.type.shape[0]
    if length is None:
        raise NotImplementedError("the length of a shape-like input must be static")
    return [x[i] for i in range(length)]


def normalize_axis(axis, ndim):
    return axis + ndim if axis < 0 else axis


def static_axes(node, axes_input, ndim, attribute="axes"):
    """The axes an op reads from its input (newer opsets) or attribute (older)."""
    if axes_input is not None:
        axes = static_ints(axes_input, "axes")
    else:
        axes = node.attr(attribute)
        if axes is None:
            return None
    return tuple(normalize_axis(a, ndim) for a in axes)


def broadcast(*inputs):
    """``inputs`` made to broadcast as ONNX does, also where a dim that PyTensor
    does not know to be 1 turns out to be 1 at run time."""
    ndim = max(x.ndim for x in inputs)
    inputs = [pt.shape_padleft(x, ndim - x.ndim) for x in inputs]
    ambiguous = [
        d for d in range(ndim) if is_ambiguous([x.type.shape[d] for x in inputs])
    ]
    if not ambiguous:
        return inputs
    result = []
    for x in inputs:
        for d in ambiguous:
            if x.type.shape[d] != 1:
                length = broadcast_length([y.shape[d] for y in inputs])
                stays = as_int64(pt.neq(x.shape[d], 1))
                x = pt.take(x, pt.arange(length) * stays, axis=d)
        result.append(x)
    return result


def is_ambiguous(lengths):
    varying = [n for n in lengths if n != 1]
    return len(varying) > 1 and None in varying


def broadcast_length(lengths):
    result = lengths[0]
    for n in lengths[1:]:
        result = pt.switch(pt.eq(result, 1), n, result)
    return result


def broadcasting(function):
    """``function`` applied to its inputs after ONNX broadcasting."""

    def apply(*inputs):
        return function(*broadcast(*inputs))

    return apply


def run_time_axes(axes, ndim):
    """Axes given at run time, made non-negative."""
    return pt.switch(axes < 0, axes + ndim, axes)


def per_dim(axes, values, ndim, default):
    """For each dim, the entry of ``values`` at the position where the run-time
    ``axes`` name it, else ``default``."""
    axes = run_time_axes(axes, ndim)
    result = []
    for d in range(ndim):
        hits = pt.eq(axes, d)
        result.append(pt.switch(pt.any(hits), values[pt.argmax(hits)], default))
    return result


def dims_where(x, keep):
    """The shape of ``x`` without the dims whose ``keep`` is false (run-time bools)."""
    kept = pt.nonzero(pt.stack([pt.as_tensor(k) for k in keep]))[0]
    return pt.as_tensor(x.shape)[kept]
