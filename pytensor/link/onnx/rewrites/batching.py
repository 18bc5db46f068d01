"""Independent calls of one costly scalar function evaluated as one call."""

import functools
import operator
from collections import defaultdict

import numpy as np
from pytensor.compile.mode import optdb
from pytensor.graph.basic import Constant
from pytensor.tensor.basic import concatenate, constant, split
from pytensor.tensor.extra_ops import broadcast_to

from pytensor.link.onnx.rewrites.configuration import (
    BATCH_SCALAR_CALLS_POSITION,
    ONNX_TAG,
)
from pytensor.link.onnx.rewrites.cost import (
    ELEMENTS_PER_NODE,
    ConvertedSizeRewriter,
    converted_size,
)
from pytensor.link.onnx.rewrites.elementwise import (
    equal_constants,
    is_batchable_call,
    is_one_value,
)


class BatchScalarCalls(ConvertedSizeRewriter):
    """Evaluate independent calls of one costly scalar function as one call.

    onnxruntime runs every node on its own (about 0.3-0.5 µs each, whatever
    the size of its input), so a special function that converts to a hundred
    nodes costs as much on one element as on thousands. PyMC's log-densities
    and their gradients call such functions several times on small values
    (``erfcx`` in ``log_ndtr`` and in its gradient, ``gammaln`` and ``psi``
    of several parameters). This rewrite gathers the ``Elemwise`` calls of
    one scalar Op on inputs of the same dtypes that do not depend on each
    other, and replaces them by a single call on the concatenation of their
    flattened (broadcast) inputs, whose result is split back into the
    original shapes.

    A group of calls is batched only when the nodes saved outweigh what the
    concatenation adds: ``(calls - 1) * converted_size(op, dtypes)`` against
    an estimate of the ``Concat``/``Split``/``Reshape``/``Expand`` nodes, the
    shape arithmetic and the elements copied (`batching_cost`). The size of
    one call comes from the converter itself, so a one-node Op is batched only
    when many of its calls on small values share a level. Only small calls are
    batched (`MAX_BATCH_ELEMENTS` in all): on large values the nodes' dispatch
    no longer dominates, and one large call runs slower than several smaller
    ones. A call joins a batch only if its output shape follows from its
    inputs' types without the runtime check of unequal lengths that
    ``Elemwise`` makes: batching never changes which inputs raise.

    Calls are grouped by their depth in chains of the same function (one
    call reading another's result is one level deeper), so calls in one
    batch never depend on each other and batches of one function never
    form a cycle.

    This is a PyTensor rewrite rather than a pass over the ONNX graph: the
    one call goes through its converter like any other node, whatever that
    converter emits, and PyTensor's types say which lengths are static.
    """

    def apply(self, fgraph):
        calls = defaultdict(list)
        for node in fgraph.toposort():
            if is_batchable_call(node):
                calls[call_signature(node)].append(node)
        sizes = {
            signature: converted_size(*signature)
            for signature, nodes in calls.items()
            if len(nodes) > 1
        }
        # Costly functions first: batching one function can make calls of
        # another depend on each other
        for signature in sorted(sizes, key=sizes.get, reverse=True):
            for level in call_levels(fgraph, calls[signature]):
                batch = smallest_calls(level)
                if are_the_same_call(batch):
                    continue
                if (len(batch) - 1) * sizes[signature] > batching_cost(batch):
                    outputs = [node.outputs[0] for node in batch]
                    fgraph.replace_all_validate(
                        list(zip(outputs, one_call(batch), strict=True)),
                        reason="batch_scalar_calls",
                    )


def call_signature(node):
    return node.op, tuple(inp.type.dtype for inp in node.inputs)


def call_levels(fgraph, nodes) -> list[list]:
    """``nodes`` grouped by how many of them lie on a path to each (itself
    included): no node of a group is an ancestor of another."""
    members = set(nodes)
    depth = {}
    levels = defaultdict(list)
    for node in fgraph.toposort():
        level = max((depth.get(inp, 0) for inp in node.inputs), default=0)
        if node in members:
            level += 1
            levels[level].append(node)
        depth.update(dict.fromkeys(node.outputs, level))
    return list(levels.values())


def output_shape(node) -> tuple:
    """The output shape of the batchable call ``node``, static lengths as ints."""
    shape = []
    for axis, length in enumerate(node.outputs[0].type.shape):
        if length is None:
            [inp] = [inp for inp in node.inputs if inp.type.shape[axis] != 1]
            length = inp.shape[axis]
        shape.append(length)
    return tuple(shape)


# The length a symbolic dimension is assumed to have
SYMBOLIC_LENGTH = 1000

# Larger batches compute more slowly than their calls one by one (measured on
# erfcx: 3 calls of 10,000 float64 values took 1.2 times as long batched)
MAX_BATCH_ELEMENTS = 4096


def elements(out) -> int:
    """The elements of ``out``, a symbolic length counting as `SYMBOLIC_LENGTH`."""
    return int(np.prod([SYMBOLIC_LENGTH if n is None else n for n in out.type.shape]))


def smallest_calls(nodes) -> list:
    """The smallest of ``nodes``, up to `MAX_BATCH_ELEMENTS` outputs in all."""
    batch, total = [], 0
    for node in sorted(nodes, key=lambda node: elements(node.outputs[0])):
        total += elements(node.outputs[0])
        if total > MAX_BATCH_ELEMENTS:
            break
        batch.append(node)
    return batch


def is_shared_scalar(column) -> bool:
    """Whether one input of every call is the same single-element value."""
    first = column[0]
    return all(
        x is first or equal_constants(x, first) for x in column
    ) and is_one_value(first)


def are_the_same_call(batch) -> bool:
    """Whether every input is the same single value in all calls of ``batch``
    (calls that PyTensor's merge has not yet made one)."""
    columns = zip(*(node.inputs for node in batch), strict=True)
    return all(is_shared_scalar(column) for column in columns)


def batching_cost(batch) -> float:
    """Estimated cost, in nodes, of concatenating the inputs of ``batch`` and
    splitting its result: one ``Split``, a ``Concat`` per input (none for
    constants), an ``Expand`` per broadcast input, a ``Reshape`` per input and
    output that is not a vector (none when the calls join along their last
    axis, see `joins_along_last_axis`), about two nodes of shape arithmetic
    per symbolic length and, when lengths are symbolic, a runtime check of
    equal lengths per concatenated input; plus the copies of the elements."""
    outputs = [node.outputs[0] for node in batch]
    reshaped = not joins_along_last_axis(batch)
    total = sum(map(elements, outputs))
    symbolic = any(None in out.type.shape for out in outputs)
    nodes, copied = 1, total
    for column in zip(*(node.inputs for node in batch), strict=True):
        if is_shared_scalar(column):
            nodes += 1
        elif not all(isinstance(x, Constant) for x in column):
            nodes += 1 + symbolic
            copied += total
            for x, out in zip(column, outputs, strict=True):
                nodes += (x.type.shape != out.type.shape) + reshaped * (
                    out.type.ndim != 1
                )
    for out in outputs:
        nodes += reshaped * (out.type.ndim != 1) + 2 * out.type.shape.count(None)
    return nodes + copied / ELEMENTS_PER_NODE


def joins_along_last_axis(batch) -> bool:
    """Whether the calls of ``batch`` all compute one static shape of two axes
    or more, as a batched log-density's calls do (one row per chain): their
    inputs then join along the last axis and the result splits back into
    that shape, with no reshape."""
    shapes = {node.outputs[0].type.shape for node in batch}
    if len(shapes) != 1:
        return False
    [shape] = shapes
    return len(shape) >= 2 and None not in shape


def flat_input(x, out, shape, size):
    """``x``, an input of the call computing ``out`` of ``shape``, broadcast
    to that shape and flattened to ``size`` elements."""
    if isinstance(x, Constant) and None not in out.type.shape:
        return np.broadcast_to(x.data, out.type.shape).ravel()
    if x.type.shape != out.type.shape:
        x = broadcast_to(x, shape)
    return x if x.type.ndim == 1 else x.reshape((size,))


def one_call(batch) -> list:
    """The outputs of ``batch``, computed by one call of its Op on the
    concatenation of the calls' inputs: flattened, or along their last axis
    when `joins_along_last_axis`."""
    if joins_along_last_axis(batch):
        return one_call_along_last_axis(batch)
    outputs = [node.outputs[0] for node in batch]
    shapes = [output_shape(node) for node in batch]
    sizes = [functools.reduce(operator.mul, shape, 1) for shape in shapes]
    arguments = []
    for column in zip(*(node.inputs for node in batch), strict=True):
        if is_shared_scalar(column):
            arguments.append(shared_argument(column[0]))
            continue
        flat = [
            flat_input(x, out, shape, size)
            for x, out, shape, size in zip(column, outputs, shapes, sizes, strict=True)
        ]
        arguments.append(joined(flat, column[0].dtype, axis=0))
    result = batch[0].op(*arguments)
    pieces = split(result, sizes, n_splits=len(batch))
    return [
        back_to_shape(piece, out, shape)
        for piece, out, shape in zip(pieces, outputs, shapes, strict=True)
    ]


def one_call_along_last_axis(batch) -> list:
    """The outputs of ``batch``, all of one static shape, computed by one call
    on its inputs joined along their last axis."""
    shape = batch[0].outputs[0].type.shape
    arguments = []
    for column in zip(*(node.inputs for node in batch), strict=True):
        if is_shared_scalar(column):
            arguments.append(shared_argument(column[0]))
            continue
        pieces = [
            np.broadcast_to(x.data, shape)
            if isinstance(x, Constant)
            else x
            if x.type.shape == shape
            else broadcast_to(x, shape)
            for x in column
        ]
        arguments.append(joined(pieces, column[0].dtype, axis=-1))
    result = batch[0].op(*arguments)
    return split(result, [shape[-1]] * len(batch), n_splits=len(batch), axis=-1)


def shared_argument(x):
    """The one value every call of a batch takes as an input, as a vector."""
    if isinstance(x, Constant):
        return constant(x.data.reshape(1), dtype=x.dtype)
    return x.reshape((1,))


def joined(pieces, dtype, axis):
    """``pieces`` concatenated along ``axis``: a constant if all are arrays."""
    if all(isinstance(x, np.ndarray) for x in pieces):
        return constant(np.concatenate(pieces, axis=axis), dtype=dtype)
    return concatenate(pieces, axis=axis)


def back_to_shape(piece, out, shape):
    """``piece`` of the batched result, as ``out`` of ``shape``."""
    if piece.type == out.type:
        return piece
    if out.type.ndim == 0 and piece.type.shape == (1,):
        return piece.dimshuffle(())
    return piece.reshape(shape)


optdb.register(
    "batch_scalar_calls",
    BatchScalarCalls(),
    ONNX_TAG,
    position=BATCH_SCALAR_CALLS_POSITION,
)
