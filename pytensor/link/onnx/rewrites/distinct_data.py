"""Costly elementwise functions of observed data computed once per distinct value."""

import numpy as np
from pytensor.compile.mode import optdb
from pytensor.graph.basic import Constant
from pytensor.tensor.basic import constant

from pytensor.link.onnx.rewrites.configuration import (
    CALLS_ON_DISTINCT_DATA_POSITION,
    ONNX_TAG,
)
from pytensor.link.onnx.rewrites.cost import (
    ELEMENTS_PER_NODE,
    ConvertedSizeRewriter,
    converted_size,
)
from pytensor.link.onnx.rewrites.elementwise import (
    elementwise_nodes,
    is_batchable_call,
    is_one_value,
)


class CallsOnDistinctData(ConvertedSizeRewriter):
    """Compute a costly elementwise function of observed data once per
    distinct value of the data.

    PyMC's log-densities of count data call ``gammaln`` and, in their
    gradients, ``psi`` on every observation (``gammaln(counts + alpha)`` in a
    negative binomial, ``gammaln(counts + alpha[None])`` with a parameter per
    category in a Dirichlet-multinomial), though counts take few distinct
    values. The elementwise graph of such a call (the ``Elemwise`` nodes it
    is computed by) reads constants, the data (of its output's shape, or
    broadcast to it, as in a log-density evaluated for several chains at
    once), and values broadcast along some axes, the parameters. It is computed once per
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
            if converted_size(node.op, dtypes) < COSTLY_CALL:
                continue
            [out] = node.outputs
            replacement = on_distinct_data(out)
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


def on_distinct_data(out):
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
        leaf for leaf in leaves if isinstance(leaf, Constant) and not is_one_value(leaf)
    ]
    broadcast = [leaf for leaf in leaves if leaf not in data and not is_one_value(leaf)]
    if not data or not all(
        length in (1, full)
        for leaf in data + broadcast
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
    columns = [np.broadcast_to(leaf.data, shape).reshape(size) for leaf in data]
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


optdb.register(
    "calls_on_distinct_data",
    CallsOnDistinctData(),
    ONNX_TAG,
    position=CALLS_ON_DISTINCT_DATA_POSITION,
)
