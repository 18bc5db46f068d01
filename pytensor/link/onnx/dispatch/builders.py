"""Converters for ``OpFromGraph``.

An ``OpFromGraph`` is inlined: the nodes of its inner graph are converted
into the graph being built (`~pytensor.link.onnx.dispatch.inner_graphs`).

Random generators in inner graphs are keys like everywhere else (see
`pytensor.link.onnx.dispatch.random`): an ``OpFromGraph`` that takes and
returns a generator, as PyMC's ``SymbolicRandomVariable`` does, passes the
key to the ``RandomVariable`` nodes inside and returns their next key. An
inner graph can only receive a generator from the Op that holds it, which
the outer graph accepted as taking generators.
"""

from pytensor.compile.builders import OpFromGraph

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.inner_graphs import convert_inner_graph


@onnx_funcify.register(OpFromGraph)
@onnx_funcify.register(OpFromGraph, complex=True)
def onnx_funcify_OpFromGraph(op, node, builder, inputs, **kwargs):
    return convert_inner_graph(builder, op.inner_inputs, op.inner_outputs, inputs)
