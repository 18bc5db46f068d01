"""The converter of max-pooling written with ``reshape`` and ``max``.

PyTensor has no pooling Op: max-pooling over ``k``-long windows of the
trailing axes of ``x``, ``(n, c, h, w)``, is written
``x.reshape((n, c, h // k, k, w // k, k)).max(axis=(3, 5))``, which the graph
conversion makes one `~pytensor.link.onnx.fusions.MaxPool` (see
`~pytensor.link.onnx.fusions.local_max_pool`). It becomes one ``MaxPool``
of ``x`` reshaped to ``(n, c, (h // k) * k, (w // k) * k)``; an export folds
that reshape away when it keeps ``x``'s shape.
"""

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.lengths import require_reshapable
from pytensor.link.onnx.fusions import MaxPool
from pytensor.link.onnx.numerics.pooling import max_pool
from pytensor.link.onnx.value import concat


@onnx_funcify.register(MaxPool)
def onnx_funcify_MaxPool(op, node, builder, inputs, **kwargs):
    x_var, target_var = node.inputs
    x = builder.value(inputs[0], x_var.type.dtype)
    target = builder.value(inputs[1], target_var.type.dtype).cast("int64")
    if builder.keep_checks:
        require_reshapable(builder, x, target)
    merged = concat([target.slice(0, 1), x.indices(op.lengths)], axis=0)
    return [max_pool(x.reshape(merged), list(op.window)).name]
