"""The cost model of the rewrites that weigh ``Elemwise`` calls by the ONNX
nodes their converters add."""

from pytensor.graph.features import ReplaceValidate
from pytensor.graph.rewriting.basic import GraphRewriter


# onnxruntime's Concat and Split copy about this many elements in the time it
# dispatches a node (with 1,000, batching the two softplus calls on 2,000
# values of a logistic regression made its gradient about 10% slower)
ELEMENTS_PER_NODE = 250


def converted_size(op, input_dtypes) -> int:
    """ONNX nodes of one call of the ``Elemwise`` ``op`` on inputs of
    ``input_dtypes``.

    The converters (and onnx with them) load when a graph is first weighed,
    not when the ONNX mode is registered.
    """
    from pytensor.link.onnx.dispatch.elemwise import converted_size

    return converted_size(op, input_dtypes)


class ConvertedSizeRewriter(GraphRewriter):
    """A graph rewriter that replaces whole calls, weighed by `converted_size`."""

    def add_requirements(self, fgraph):
        fgraph.attach_feature(ReplaceValidate())
