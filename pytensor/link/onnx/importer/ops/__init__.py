"""The table of ONNX op handlers, one module per op family.

A handler turns one ONNX node into PyTensor variables. It receives the node
(a :class:`~pytensor.link.onnx.importer.graph.Node`: attributes with
``node.attr(name, default)``, the opset with ``node.opset``, subgraphs with
``node.subgraph(name)``) followed by the node's inputs as PyTensor variables
(``None`` for an omitted optional input; trailing omitted inputs are not
passed, so give them defaults). It returns one variable or a list of them,
one per node output::

    @onnx_op("Relu")
    def relu(node, x):
        return pt.maximum(x, pt.zeros((), dtype=x.dtype))

``@onnx_op("Squeeze", until=12)`` / ``@onnx_op("Squeeze", since=13)``
register handlers for a range of opset versions (both ends included). A new op
family is a new module of this package, added to ``FAMILIES``. Ops without a
handler whose ONNX schema defines a function body are imported by expanding
that body.
"""

from importlib import import_module


FAMILIES = [
    "elementwise",
    "logic",
    "reduction",
    "shape",
    "indexing",
    "nn",
    "linalg",
    "rnn",
    "control_flow",
    "sequence",
    "random",
    "signal",
    "image",
    "quantization",
    "sampling",
    "detection",
    "convolution",
    "text",
    "training",
    "ml",
    "bitcast",
    "optional",
]

HANDLERS: dict[tuple[str, str], list[tuple[int, float, object]]] = {}


def onnx_op(*op_types, since=1, until=float("inf"), domain=""):
    """Register the decorated function as the handler of ``op_types``."""

    def register(handler):
        for op_type in op_types:
            HANDLERS.setdefault((domain, op_type), []).append((since, until, handler))
        return handler

    return register


def find_handler(op_type: str, opset: int, domain: str = ""):
    """The handler of ``op_type`` at ``opset``, or ``None``."""
    load_families()
    domain = "" if domain == "ai.onnx" else domain
    for since, until, handler in HANDLERS.get((domain, op_type), ()):
        if since <= opset <= until:
            return handler
    return None


def load_families():
    for family in FAMILIES:
        import_module(f"{__name__}.{family}")
