"""The PyTensor rewrites the ONNX backend requires, those it excludes, and its own.

`ONNXLinker` declares the first two (PyTensor's ``Mode`` applies a linker's
``required_rewrites`` and ``incompatible_rewrites`` to any optimizer it is
given); the ``Scan`` converter applies the same ones to inner graphs. The
rewrites tagged `ONNX_TAG` (`local_dimshuffle_unit_slice`,
`local_switch_uniform_constants`, `MERGE_DIMSHUFFLED_TWINS`,
`CallsOnDistinctData`, `BatchScalarCalls`) run in ``mode="ONNX"`` and in
inner graphs.
"""

import functools
import operator
from collections import defaultdict

import numpy as np
from pytensor.compile.mode import optdb
from pytensor.graph.basic import Constant
from pytensor.graph.features import ReplaceValidate
from pytensor.graph.rewriting.basic import (
    GraphRewriter,
    MergeOptimizer,
    SequentialGraphRewriter,
    copy_stack_trace,
    in2out,
    node_rewriter,
)
from pytensor.graph.rewriting.db import RewriteDatabaseQuery
from pytensor.scalar import Switch
from pytensor.tensor.basic import concatenate, constant, split, switch
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.extra_ops import broadcast_to
from pytensor.tensor.subtensor import Subtensor, get_idx_list
from pytensor.tensor.type import TensorType


ONNX_TAG = "onnx"
REQUIRED_REWRITES = ("minimum_compile",)
INCOMPATIBLE_REWRITES = (
    # C-only Ops and the BLAS Ops they specialize into
    "cxx_only",
    "BlasOpt",
    # onnxruntime manages its own buffers; in-place Ops gain nothing
    "inplace",
    # Composite scalar graphs are expanded back into one ONNX node per
    # scalar Op, so fusing them first would only cost compile time
    "fusion",
    "local_careduce_fusion",
    # Scan buffers cannot be pre-allocated in ONNX
    "scan_save_mem_prealloc",
    # wrong for negative steps (x[:-2:-1] of one row read as x[0]);
    # local_dimshuffle_unit_slice does its work
    "local_dimshuffle_subtensor",
)
# `scan_save_mem_no_prealloc` trims Scan buffers the way backends without
# pre-allocated outputs need (PyTensor tags it for JAX and Numba too).
DEFAULT_QUERY = RewriteDatabaseQuery(
    include=["fast_run", "scan_save_mem_no_prealloc", ONNX_TAG]
)


def onnx_rewrites(query: RewriteDatabaseQuery):
    """The graph rewriter of ``query`` adapted to the ONNX backend."""
    adapted = query.including(
        "scan_save_mem_no_prealloc", ONNX_TAG, *REQUIRED_REWRITES
    ).excluding(*INCOMPATIBLE_REWRITES)
    return optdb.query(adapted)


class ConvertedSizeRewriter(GraphRewriter):
    """A graph rewriter that weighs ``Elemwise`` calls by the ONNX nodes
    their converters add.

    Parameters
    ----------
    converted_size
        ``converted_size(elemwise_op, input_dtypes)``: the number of ONNX
        nodes converting one call adds.
    """

    def __init__(self, converted_size):
        self.converted_size = converted_size

    def add_requirements(self, fgraph):
        fgraph.attach_feature(ReplaceValidate())


class CallsOnDistinctData(ConvertedSizeRewriter):
    """Compute a costly elementwise function of observed data once per
    distinct value of the data.

    PyMC's log-densities of count data call ``gammaln`` and, in their
    gradients, ``psi`` on every observation (``gammaln(counts + alpha)`` in a
    negative binomial, ``gammaln(counts + alpha[None])`` with a parameter per
    category in a Dirichlet-multinomial), though counts take few distinct
    values. The elementwise graph of such a call (the ``Elemwise`` nodes it
    is computed by) reads constants of its output's shape, the data, and
    values broadcast along some axes, the parameters. It is computed once per
    distinct element: per distinct combination of the data's values
    (compared by their bits) and of the positions along the parameters'
    axes. One ``Gather`` reads the result back for every element, and each
    element's value is the one computed before.

    Applied to calls that convert to at least `COSTLY_CALL` nodes where at
    most `MAX_DISTINCT_SHARE` of the elements are distinct and the elements
    saved, times the nodes of the graph, outweigh the gathers (in the units
    of `batching_cost`). It runs before `BatchScalarCalls`, so that the
    smaller call can join a batch.
    """

    def apply(self, fgraph):
        for node in reversed(fgraph.toposort()):
            if node not in fgraph.apply_nodes or not is_batchable_call(node):
                continue
            dtypes = tuple(inp.type.dtype for inp in node.inputs)
            if self.converted_size(node.op, dtypes) < COSTLY_CALL:
                continue
            [out] = node.outputs
            replacement = on_distinct_data(out, self.converted_size)
            if replacement is not None:
                fgraph.replace_all_validate(
                    [(out, replacement)], reason="calls_on_distinct_data"
                )


# Only a special function is worth the Gather: the cheap elementwise graphs
# of PyMC's bounds checks, computed on distinct data, made its models slower
# (the cheap nodes that others read then run on all the data as well)
COSTLY_CALL = 25
# With more distinct elements, the Gather and the copies of the constants
# cost about what the smaller call saves
MAX_DISTINCT_SHARE = 0.25
# The elements whose distinct share decides first whether the data's is
# worth counting (continuous data: 0.5 s of compile time saved per call of a
# special function on a million values)
DISTINCT_SAMPLE = 4096


def is_one_value(var) -> bool:
    return all(length == 1 for length in var.type.shape)


def on_distinct_data(out, converted_size):
    """``out`` computed on the distinct elements of the constants its
    elementwise graph reads, or None where that is not possible or not worth
    it (see `CallsOnDistinctData`)."""
    shape = out.type.shape
    if None in shape or out.type.ndim == 0:
        return None
    nodes = elementwise_nodes(
        out, through=lambda node: not is_one_value(node.outputs[0])
    )
    outputs = {var for node in nodes for var in node.outputs}
    leaves = list(
        dict.fromkeys(
            inp for node in nodes for inp in node.inputs if inp not in outputs
        )
    )
    data = [
        leaf
        for leaf in leaves
        if isinstance(leaf, Constant) and leaf.type.shape == shape
    ]
    broadcast = [leaf for leaf in leaves if leaf not in data and not is_one_value(leaf)]
    if not data or not all(
        length in (1, full)
        for leaf in broadcast
        for length, full in zip(leaf.type.shape, shape, strict=True)
    ):
        return None
    size = int(np.prod(shape))
    positions = np.indices(shape).reshape(len(shape), size)
    varying = sorted(
        {
            axis
            for leaf in broadcast
            for axis, length in enumerate(leaf.type.shape)
            if length != 1
        }
    )
    columns = [np.asarray(leaf.data).reshape(size) for leaf in data]
    columns += [positions[axis] for axis in varying]
    if size > DISTINCT_SAMPLE:
        sample_first, _ = distinct([column[:DISTINCT_SAMPLE] for column in columns])
        if len(sample_first) > DISTINCT_SAMPLE * MAX_DISTINCT_SHARE:
            return None
    first, where_from = distinct(columns)
    nodes_per_element = sum(
        converted_size(node.op, tuple(inp.type.dtype for inp in node.inputs))
        for node in nodes
    )
    gathers = 1 + (out.type.ndim != 1)
    gathers += 2 * sum(not isinstance(leaf, Constant) for leaf in broadcast)
    saved = (size - len(first)) * nodes_per_element
    if (
        len(first) > size * MAX_DISTINCT_SHARE
        or saved <= gathers * ELEMENTS_PER_NODE + size
    ):
        return None
    new = {}
    for leaf in leaves:
        if not is_one_value(leaf):
            at = np.ravel_multi_index(
                tuple(
                    positions[axis, first] if length != 1 else 0
                    for axis, length in enumerate(leaf.type.shape)
                ),
                leaf.type.shape,
            )
            new[leaf] = gathered(leaf, at)
        elif leaf.type.ndim != 1:
            new[leaf] = leaf.reshape((1,))
    for node in nodes:
        if any(inp in new for inp in node.inputs):
            inputs = [new.get(inp, inp) for inp in node.inputs]
            new.update(
                zip(node.outputs, node.op.make_node(*inputs).outputs, strict=True)
            )
    on_distinct = new[out][constant(where_from)]
    return on_distinct if out.type.ndim == 1 else on_distinct.reshape(shape)


def distinct(columns):
    """The distinct rows of the table whose ``columns`` are equally long
    arrays, compared by their bits, in ``numpy.unique``'s order: the index of
    each one's first occurrence and, for every row, the index of its
    distinct row (int64)."""
    table = np.hstack(
        [
            np.ascontiguousarray(column).view(np.uint8).reshape(len(column), -1)
            for column in columns
        ]
    )
    rows = np.ascontiguousarray(table).view(f"V{table.shape[1]}").ravel()
    _, first, where_from = np.unique(rows, return_index=True, return_inverse=True)
    return first, where_from.reshape(-1).astype("int64")


def gathered(leaf, flat_positions):
    """The elements of ``leaf`` at ``flat_positions`` (of its flattened
    array), as a vector."""
    if isinstance(leaf, Constant):
        return constant(
            np.asarray(leaf.data).reshape(-1)[flat_positions], dtype=leaf.dtype
        )
    return leaf.reshape((-1,))[constant(flat_positions.astype("int64"))]


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
            signature: self.converted_size(*signature)
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


def is_batchable_call(node) -> bool:
    """Whether ``node`` is a one-output ``Elemwise`` whose output shape needs
    no runtime check: along each axis, its inputs' lengths are all static or
    only one of them is not a static 1."""
    if not isinstance(node.op, Elemwise) or len(node.outputs) != 1:
        return False
    if not all(isinstance(inp.type, TensorType) for inp in node.inputs):
        return False
    for lengths in zip(*(inp.type.shape for inp in node.inputs), strict=True):
        not_one = [length for length in lengths if length != 1]
        if None in not_one and len(not_one) > 1:
            return False
    return True


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


# onnxruntime's Concat and Split copy about this many elements in the time it
# dispatches a node (with 1,000, batching the two softplus calls on 2,000
# values of a logistic regression made its gradient about 10% slower)
ELEMENTS_PER_NODE = 250
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


def equal_constants(x, y) -> bool:
    return isinstance(x, Constant) and isinstance(y, Constant) and x.equals(y)


def batching_cost(batch) -> float:
    """Estimated cost, in nodes, of concatenating the inputs of ``batch`` and
    splitting its result: one ``Split``, a ``Concat`` per input (none for
    constants), an ``Expand`` per broadcast input, a ``Reshape`` per input and
    output that is not a vector, about two nodes of shape arithmetic per
    symbolic length and, when lengths are symbolic, a runtime check of equal
    lengths per concatenated input; plus the copies of the elements."""
    outputs = [node.outputs[0] for node in batch]
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
                nodes += (x.type.shape != out.type.shape) + (out.type.ndim != 1)
    for out in outputs:
        nodes += (out.type.ndim != 1) + 2 * out.type.shape.count(None)
    return nodes + copied / ELEMENTS_PER_NODE


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
    concatenation of the calls' inputs."""
    outputs = [node.outputs[0] for node in batch]
    shapes = [output_shape(node) for node in batch]
    sizes = [functools.reduce(operator.mul, shape, 1) for shape in shapes]
    arguments = []
    for column in zip(*(node.inputs for node in batch), strict=True):
        if is_shared_scalar(column):
            x = column[0]
            if isinstance(x, Constant):
                arguments.append(constant(x.data.reshape(1), dtype=x.dtype))
            else:
                arguments.append(x.reshape((1,)))
            continue
        flat = [
            flat_input(x, out, shape, size)
            for x, out, shape, size in zip(column, outputs, shapes, sizes, strict=True)
        ]
        if all(isinstance(x, np.ndarray) for x in flat):
            arguments.append(constant(np.concatenate(flat), dtype=column[0].dtype))
        else:
            arguments.append(concatenate(flat))
    result = batch[0].op(*arguments)
    pieces = split(result, sizes, n_splits=len(batch))
    return [
        back_to_shape(piece, out, shape)
        for piece, out, shape in zip(pieces, outputs, shapes, strict=True)
    ]


def back_to_shape(piece, out, shape):
    """``piece`` of the batched result, as ``out`` of ``shape``."""
    if piece.type == out.type:
        return piece
    if out.type.ndim == 0 and piece.type.shape == (1,):
        return piece.dimshuffle(())
    return piece.reshape(shape)


@node_rewriter([Elemwise])
def local_switch_uniform_constants(fgraph, node):
    """``switch(mask, a, b)`` with a constant ``mask``: a constant that ``a``
    (or ``b``) computes with element by element, and whose elements are all
    equal where ``mask`` takes ``a`` (``b``), becomes that one value.

    PyMC's censored log-densities are ``switch(observed == lower, logcdf(observed),
    ...)`` on observed data: the log-CDF, its gradient and the special
    functions in them are then computed once instead of for every observation.
    Equal means equal bits (``0.0`` and ``-0.0`` differ); only the elements
    the branch is taken for are compared, so the result is the same.
    """
    if not isinstance(node.op.scalar_op, Switch):
        return None
    mask, if_true, if_false = node.inputs
    if not isinstance(mask, Constant) or mask.type.ndim == 0:
        return None
    takes_true = np.asarray(mask.data).astype(bool)
    if takes_true.all() or not takes_true.any():
        return None
    new_true = with_uniform_constants(if_true, takes_true)
    new_false = with_uniform_constants(if_false, ~takes_true)
    if new_true is if_true and new_false is if_false:
        return None
    new_switch = switch(mask, new_true, new_false)
    copy_stack_trace(node.outputs[0], new_switch)
    return [new_switch]


def with_uniform_constants(var, taken):
    """``var`` with the constants of its elementwise graph that have the shape
    of ``taken`` and one value where it is true replaced by that value."""
    if isinstance(var, Constant):
        uniform = uniform_constant(var, taken)
        return var if uniform is None else uniform
    new = {}
    for node in elementwise_nodes(var):
        for inp in node.inputs:
            if isinstance(inp, Constant) and inp not in new:
                uniform = uniform_constant(inp, taken)
                if uniform is not None:
                    new[inp] = uniform
        inputs = [new.get(inp, inp) for inp in node.inputs]
        if any(inp in new for inp in node.inputs):
            new.update(
                zip(node.outputs, node.op.make_node(*inputs).outputs, strict=True)
            )
    return new.get(var, var)


def elementwise_nodes(var, through=lambda node: True) -> list:
    """The ``Elemwise`` nodes that compute ``var`` from the outputs of other
    nodes through ``Elemwise`` nodes only (and only those ``through`` accepts),
    each after those it reads."""
    order, seen = [], set()
    stack = [(var.owner, False)]
    while stack:
        node, inputs_done = stack.pop()
        if node is None or not isinstance(node.op, Elemwise) or not through(node):
            continue
        if inputs_done:
            order.append(node)
        elif node not in seen:
            seen.add(node)
            stack.append((node, True))
            stack.extend((inp.owner, False) for inp in node.inputs)
    return order


def uniform_constant(var, taken):
    """The one value of the constant ``var`` where ``taken`` is true, as a
    constant of ``var``'s dtype with one element on each axis; None when
    ``var`` does not have the shape of ``taken`` or its values there differ."""
    values = np.asarray(var.data)
    if values.shape != taken.shape:
        return None
    chosen = np.ascontiguousarray(values[taken])
    as_bytes = chosen.view(np.uint8).reshape(chosen.size, -1)
    if not (as_bytes == as_bytes[0]).all():
        return None
    return constant(chosen[:1].reshape((1,) * values.ndim), dtype=var.dtype)


@node_rewriter([DimShuffle])
def local_dimshuffle_unit_slice(fgraph, node):
    """``x[a:b:c].dimshuffle(...)`` that drops the axis the slice cut to one
    element becomes ``x[i].dimshuffle(...)``, ``i`` that element's index.

    PyMC's raveled inputs read a scalar as ``joined[i:i + 1]`` reshaped to
    ``()`` in one place and as ``joined[i]`` in another; in this form the
    two merge. It replaces PyTensor's ``local_dimshuffle_subtensor``, which
    takes the slice's start (or 0) as the index whatever the step, so that
    ``x[:-2:-1]`` becomes ``x[0]`` instead of ``x[-1]``. Only slices of
    constant bounds on axes of static length are rewritten.
    """
    [sliced] = node.inputs
    if sliced.owner is None or not isinstance(sliced.owner.op, Subtensor):
        return None
    dropped = node.op.drop
    if not dropped:
        return None
    x = sliced.owner.inputs[0]
    indices = list(get_idx_list(sliced.owner.inputs, sliced.owner.op.idx_list))
    indices += [slice(None)] * (x.type.ndim - len(indices))
    slice_axes = [
        axis for axis, index in enumerate(indices) if isinstance(index, slice)
    ]
    for axis in (slice_axes[axis] for axis in dropped):
        element = only_element(indices[axis], x.type.shape[axis])
        if element is None:
            return None
        indices[axis] = element
    remaining = [axis for axis in range(sliced.type.ndim) if axis not in dropped]
    order = [
        axis if axis == "x" else remaining.index(axis) for axis in node.op.new_order
    ]
    indexed = x[tuple(indices)].dimshuffle(order)
    copy_stack_trace(node.outputs[0], indexed)
    return [indexed]


def only_element(index: slice, length: int | None) -> int | None:
    """The index of the one element ``index`` takes from an axis of
    ``length``, or None if that is not known before run time."""
    bounds = [index.start, index.stop, index.step]
    if length is None or not all(
        bound is None or isinstance(bound, Constant) for bound in bounds
    ):
        return None
    taken = range(
        *slice(
            *(None if bound is None else int(bound.data) for bound in bounds)
        ).indices(length)
    )
    return taken[0] if len(taken) == 1 else None


@node_rewriter([DimShuffle])
def local_dimshuffle_to_lifted_twin(fgraph, node):
    """``dimshuffle(f(x, ...))`` for an elementwise graph ``f`` becomes
    ``f(dimshuffle(x), ...)`` where the graph already holds that form.

    PyTensor's gradients build both forms of one value (``exp(v)[None,
    None]`` next to ``exp(v[None, None])``) and its own lifting of
    ``DimShuffle`` stops where a value has several clients, so the two, and
    everything computed from them, never merge: PyMC's GP computes its
    covariance matrix and its Cholesky factor twice. Only existing nodes are
    reused, so the graph never grows.
    """
    [shuffled] = node.inputs
    twin = lifted_twin(fgraph, shuffled, node.op, depth=LIFTED_TWIN_DEPTH)
    if twin is None or twin is node.outputs[0] or twin.type != node.outputs[0].type:
        return None
    return [twin]


LIFTED_TWIN_DEPTH = 16


def lifted_twin(fgraph, var, shuffle, depth):
    """A variable of ``fgraph`` equal to ``shuffle(var)``, through the
    elementwise graph of ``var`` (at most ``depth`` nodes deep), or None.

    ``var`` itself is looked up among its clients only below the first
    level, so that the node asking is not its own twin.
    """
    node = var.owner
    if node is None or not isinstance(node.op, Elemwise) or len(node.outputs) > 1:
        return None
    lifted = []
    for inp in node.inputs:
        if isinstance(inp, Constant):
            lifted.append(constant(dimshuffled(inp.data, shuffle), dtype=inp.dtype))
            continue
        twin = next(
            (
                client.outputs[0]
                for client, _ in fgraph.clients[inp]
                if client.op == shuffle
            ),
            None,
        )
        if twin is None and depth > 1:
            twin = lifted_twin(fgraph, inp, shuffle, depth - 1)
        if twin is None:
            return None
        lifted.append(twin)
    anchor = next((inp for inp in lifted if not isinstance(inp, Constant)), None)
    if anchor is None:
        return None
    for client, _ in fgraph.clients[anchor]:
        if (
            client.op == node.op
            and len(client.inputs) == len(lifted)
            and all(
                inp is twin or equal_constants(inp, twin)
                for inp, twin in zip(client.inputs, lifted, strict=True)
            )
        ):
            return client.outputs[0]
    return None


def dimshuffled(data, shuffle: DimShuffle) -> np.ndarray:
    """``data`` shuffled as ``shuffle`` does (its dropped axes have length one)."""
    data = np.asarray(data)
    shape = [1 if axis == "x" else data.shape[axis] for axis in shuffle.new_order]
    return data.transpose([*shuffle.shuffle, *shuffle.drop]).reshape(shape)


MERGE_DIMSHUFFLED_TWINS = SequentialGraphRewriter(
    MergeOptimizer(),
    in2out(local_dimshuffle_to_lifted_twin, name="local_dimshuffle_to_lifted_twin"),
    MergeOptimizer(),
)
