"""Passes over assembled ONNX graphs.

`GRAPH_PASSES` is the one list of passes, in the order they run. Each takes
the ``GraphProto`` and a `PassContext`; every graph and subgraph an
`~pytensor.link.onnx.builder.ONNXGraphBuilder` assembles goes through them,
and an export runs them once more on its model with the values of the
weights, which constant folding needs (`~pytensor.link.onnx.export`).
Converters never rewrite assembled graphs themselves: they mark the nodes a
pass should look at (``builder.mark``).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from pytensor.link.onnx.passes.dense_layers import fuse_dense_layers
from pytensor.link.onnx.passes.descending_ranges import negated_ranges
from pytensor.link.onnx.passes.fold_constants import fold_constants
from pytensor.link.onnx.passes.graphs import remove_unread
from pytensor.link.onnx.passes.if_branches import move_into_branches
from pytensor.link.onnx.passes.kept_axes import keep_reduced_axes
from pytensor.link.onnx.passes.reshape_chains import remove_reshape_chains


@dataclass
class PassContext:
    """What passes know besides the graph.

    Attributes
    ----------
    marks
        Node names converters marked for a pass, by mark (see ``builder.mark``).
    model
        The model whose main graph is being passed over, when it is one (export).
    weights
        ``{name: array}``, the initializers an export keeps out of ``model``;
        ``None`` while a model is being built. Passes that remove readers of
        weights update it.
    """

    marks: Mapping[str, set[str]] = field(default_factory=dict)
    model: object = None
    weights: dict | None = None


def fold_export_constants(graph, context: PassContext):
    """Constant folding, on exported models (onnxruntime folds at load time)."""
    if context.weights is not None:
        context.weights = fold_constants(context.model, context.weights)


def remove_unread_values(graph, context: PassContext):
    remove_unread(graph)


GRAPH_PASSES = (
    negated_ranges,
    fuse_dense_layers,
    keep_reduced_axes,
    move_into_branches,
    fold_export_constants,
    remove_reshape_chains,
    remove_unread_values,
)


def run_graph_passes(graph, context: PassContext):
    """Run `GRAPH_PASSES` on ``graph`` in order."""
    for graph_pass in GRAPH_PASSES:
        graph_pass(graph, context)
