"""The log-density of a batch of points, from the log-density graph of one point."""

import itertools
from dataclasses import dataclass, field

import numpy as np
import pytensor.tensor as pt
from pytensor.compile.mode import get_mode
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.basic import Constant, clone_get_equiv
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.replace import clone_replace, vectorize_graph
from pytensor.graph.rewriting.basic import in2out, node_rewriter
from pytensor.graph.traversal import graph_inputs
from pytensor.tensor.basic import Split

import pytensor
from pytensor.link.onnx.linker import ONNXLinker


FLOAT_DTYPES = ("float16", "float32", "float64")


@dataclass(frozen=True)
class RaveledLogDensity:
    """A log-density of one flat position vector of ``size`` entries.

    ``logp`` and ``grad`` are graphs of ``position``; `batched` evaluates
    them at a batch of positions ``(chains, size)``.
    """

    position: pt.TensorVariable
    logp: pt.TensorVariable
    grad: pt.TensorVariable
    shapes: tuple[tuple[int, ...], ...]
    vectorized: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        return self.position.type.shape[0]

    def batched(self, positions):
        """The log-densities ``(chains,)`` and gradients ``(chains, size)`` at ``positions``.

        The graph is vectorized once per type of ``positions`` (vectorizing
        infers static shapes, which is slow on large graphs) and copied onto
        ``positions`` at each call. The graph of ``positions`` itself is not
        copied: inside a loop, a copy of what it is computed from would no
        longer be the loop's input of that name, and would be computed anew
        at every iteration.
        """
        if positions.type not in self.vectorized:
            placeholder = positions.type()
            self.vectorized[positions.type] = (placeholder, self.vectorize(placeholder))
        placeholder, outputs = self.vectorized[positions.type]
        equiv = clone_get_equiv(
            [placeholder],
            outputs,
            copy_inputs=False,
            copy_orphans=False,
            memo={placeholder: positions},
        )
        return tuple(equiv[out] for out in outputs)

    def vectorize(self, positions):
        try:
            return vectorize_graph(
                [self.logp, self.grad], replace={self.position: positions}
            )
        except NotImplementedError as error:
            raise NotImplementedError(
                "The log-density cannot be evaluated for several chains at once: "
                f"{error}. Write it with Ops that PyTensor can vectorize."
            ) from error

    def split(self, positions: np.ndarray, dtypes) -> list[np.ndarray]:
        """The values, each ``(*batch, *shape)``, of raveled ``positions``."""
        batch = positions.shape[:-1]
        bounds = np.cumsum([0] + [int(np.prod(shape)) for shape in self.shapes])
        return [
            positions[..., start:stop].reshape(*batch, *shape).astype(dtype)
            for start, stop, shape, dtype in zip(
                bounds[:-1], bounds[1:], self.shapes, dtypes, strict=True
            )
        ]


def check_log_density(logp, values):
    if not isinstance(logp, pt.TensorVariable) or logp.type.ndim != 0:
        raise ValueError(
            f"logp must be a scalar tensor (the log-density), got {logp!r} "
            f"of type {getattr(logp, 'type', type(logp))}."
        )
    if logp.type.dtype not in FLOAT_DTYPES:
        raise TypeError(f"logp must be a float scalar, got dtype {logp.type.dtype}.")
    for value in values:
        if value.owner is not None:
            raise ValueError(
                f"Value {value} is computed from other variables: values must be "
                "root variables of the logp graph (e.g. pt.vector('x'))."
            )
        if value.type.dtype not in FLOAT_DTYPES:
            raise TypeError(
                f"Value {value} has dtype {value.type.dtype}: NUTS samples "
                "continuous values only (float32 or float64)."
            )
    others = [
        var
        for var in graph_inputs([logp])
        if not isinstance(var, Constant | SharedVariable) and var not in values
    ]
    if others:
        raise ValueError(
            f"logp depends on inputs that are not among the values: {others}. "
            "Make them values, constants or shared variables."
        )


def flat_piece(position, start, shape):
    """The entries of ``position`` from ``start`` as an array of ``shape``.

    Scalars and vectors are an index and a slice, whose shapes PyTensor knows
    once batched over chains; only arrays of two dimensions or more need a
    reshape.
    """
    if not shape:
        return position[start]
    size = int(np.prod(shape))
    piece = position[start : start + size]
    return piece if len(shape) == 1 else piece.reshape(shape)


def flattened(x):
    if x.type.ndim == 0:
        return x[None]
    return x if x.type.ndim == 1 else x.ravel()


def raveled_log_density(logp, values, shapes, dtype, mode=None) -> RaveledLogDensity:
    """``logp`` as a function of one flat vector holding every value.

    ``shapes`` are the shapes of the values; the vector has ``dtype``. Under
    an ONNX ``mode``, the log-density and gradient of one point are
    rewritten once, as the mode rewrites a graph, before any vectorizing: the
    batched copies then reach the sampler's loops nearly in their final form.
    """
    check_log_density(logp, values)
    sizes = [int(np.prod(shape)) for shape in shapes]
    position = pt.vector("position", shape=(sum(sizes),), dtype=dtype)
    pieces = []
    start = 0
    for value, shape, size in zip(values, shapes, sizes, strict=True):
        pieces.append(flat_piece(position, start, shape).astype(value.type.dtype))
        start += size
    grads = pytensor.grad(logp, values)
    grad = pt.concatenate([flattened(g.astype(dtype)) for g in grads])
    point_logp, grad = clone_replace(
        [logp.astype(dtype), grad], replace=dict(zip(values, pieces, strict=True))
    )
    point_logp, grad = rewritten([point_logp, grad], mode)
    return RaveledLogDensity(position, point_logp, grad, tuple(shapes))


# They join scalar calls into vector ones split afterwards, and PyTensor
# vectorizes a ``Split`` into a ``Blockwise`` that loses its static shapes
# (and with them the broadcasting of length-1 pieces). They rewrite the
# batched graph when the sampler compiles.
BATCHED_GRAPH_REWRITES = ("batch_scalar_calls", "calls_on_distinct_data")


@node_rewriter([Split])
def split_as_slices(fgraph, node):
    """A ``Split`` of constant axis and sizes as the slices it takes, which
    PyTensor vectorizes with their static shapes: the rewrites may have
    merged a length-1 piece into an elementwise call that broadcasts it."""
    array, axis, sizes = node.inputs
    if not isinstance(axis, Constant) or not isinstance(sizes, Constant):
        return None
    leading = (slice(None),) * (int(axis.data) % array.type.ndim)
    bounds = np.cumsum([0, *sizes.data]).tolist()
    pieces = [array[(*leading, slice(a, b))] for a, b in itertools.pairwise(bounds)]
    return [
        out.type.filter_variable(piece)
        for out, piece in zip(node.outputs, pieces, strict=True)
    ]


def converts_to_onnx(mode) -> bool:
    """Whether ``mode`` (a mode or its name; None: none) compiles to ONNX."""
    return mode is not None and isinstance(get_mode(mode).linker, ONNXLinker)


def excluding_under_onnx(mode, tags):
    """``mode`` without the rewrites of ``tags`` if it converts to ONNX, else
    ``mode`` itself: the sampler's cheaper compile applies to ONNX modes only."""
    return get_mode(mode).excluding(*tags) if converts_to_onnx(mode) else mode


def rewritten(outputs, mode):
    """``outputs`` rewritten by ``mode``'s rewrites if it converts to ONNX."""
    if not converts_to_onnx(mode):
        return outputs
    fgraph = FunctionGraph(outputs=outputs, clone=False)
    get_mode(mode).excluding(*BATCHED_GRAPH_REWRITES).optimizer.rewrite(fgraph)
    in2out(split_as_slices).rewrite(fgraph)
    return list(fgraph.outputs)
