"""Converters for ``Blockwise``: a core Op applied over broadcast batch dimensions.

Core Ops with a natively batched ONNX form register it as their batched
overload (``onnx_funcify.register(SomeOp, batched=True)``); any other core Op
that has a converter runs once per batch element in an ONNX ``Loop``.
"""

from pytensor.graph.basic import Constant
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.math import Dot

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.batches import (
    batch_ndim,
    broadcast_batch_shape,
    core_node_of,
    drop_batch_dims,
    flatten_batch,
    is_unbatched,
)
from pytensor.link.onnx.dispatch.lengths import (
    RUNTIME_BATCH_BROADCASTING,
    require_same_lengths,
)
from pytensor.link.onnx.dispatch.operands import cast_all, output_dtype
from pytensor.link.onnx.numerics.matmul import matmul


@onnx_funcify.register(Blockwise)
def onnx_funcify_Blockwise(op, node, builder, inputs, value_names=None, **kwargs):
    require_same_lengths(
        builder,
        node.inputs,
        inputs,
        range(batch_ndim(node)),
        RUNTIME_BATCH_BROADCASTING,
        value_names,
    )
    core_op = op.core_op
    if not onnx_funcify.has(type(core_op), batched=True):
        return loop_over_batch(core_op, node, builder, inputs)
    convert = onnx_funcify.dispatch(type(core_op), batched=True)
    return convert(core_op, node=node, builder=builder, inputs=inputs)


@onnx_funcify.register(Dot, batched=True)
def onnx_funcify_batched_Dot(core_op, node, builder, inputs, **kwargs):
    # ONNX MatMul broadcasts the batch dimensions of stacks of matrices
    dtype = output_dtype(node)
    x, y = cast_all(builder, node, inputs, dtype)
    ndim = node.outputs[0].type.ndim
    return [matmul(builder, x, y, dtype, ndim, ndim)]


def loop_over_batch(core_op, node, builder, inputs):
    """Compute the ``Blockwise`` ``node`` with one run of the core converter per batch element.

    Batched inputs are broadcast and flattened to ``(batch_size, *core_shape)``;
    a ``Loop`` body takes element ``i`` of each, applies the core converter
    and stacks its results, which are then reshaped to the batch shape.
    """
    n_batch_dims = batch_ndim(node)
    core_node = core_node_of(node)
    batch_shape = broadcast_batch_shape(builder, node, inputs)
    batch_size = builder.add("ReduceProd", [batch_shape], keepdims=1, hint="batch_size")

    body = builder.loop_body("blockwise_body")
    iteration, condition = (info.name for info in body.inputs)
    core_values = []
    for name, var, core_var in zip(inputs, node.inputs, core_node.inputs, strict=True):
        if isinstance(core_var, Constant):
            core_values.append(builder.constant(core_var.data, core_var.type.dtype))
        elif is_unbatched(var, n_batch_dims):
            core_values.append(drop_batch_dims(builder, name, n_batch_dims))
        else:
            flat = flatten_batch(
                builder, name, var, n_batch_dims, batch_shape, batch_size
            )
            core_values.append(body.add("Gather", [flat, iteration], axis=0))
    try:
        core_outputs = onnx_funcify(
            core_op, node=core_node, builder=body, inputs=core_values
        )
    except NotImplementedError as err:
        raise NotImplementedError(
            f"the core Op {core_op} of this Blockwise cannot be converted: {err}"
        ) from err
    body.add_output(condition, "condition", "bool", ())
    for value, var in zip(core_outputs, core_node.outputs, strict=True):
        body.add_output(value, "core_output", var.type.dtype, var.type.shape)
    for check, _ in body.checks:
        body.add_output(check, "check", "bool", ())

    loop_outputs = builder.add_multi(
        "Loop",
        [builder.add("Squeeze", [batch_size]), ""],
        n_outputs=len(core_outputs) + len(body.checks),
        body=body.make_graph(),
        hint="stacked",
    )
    stacked = loop_outputs[: len(core_outputs)]
    for passed, (_, op) in zip(
        loop_outputs[len(core_outputs) :], body.checks, strict=True
    ):
        builder.checks.append((builder.value(passed, "bool").all().name, op))
    outputs = []
    for value in stacked:
        core_shape = builder.add("Shape", [value], start=1, hint="core_shape")
        shape = builder.add("Concat", [batch_shape, core_shape], axis=0)
        outputs.append(builder.add("Reshape", [value, shape], allowzero=1))
    return outputs
