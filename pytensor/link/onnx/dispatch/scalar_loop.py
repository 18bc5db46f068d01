"""Converter for ``ScalarLoop``, the scalar loop of gradients such as ``gammainc``'s.

An ``Elemwise`` of a ``ScalarLoop`` becomes one ONNX ``Loop`` over whole
tensors: each step computes the inner graph on every element and keeps the
new values only where that element is still running, like
``ScalarLoop.perform`` run element by element.
"""

from pytensor.graph.traversal import ancestors
from pytensor.scalar.loop import ScalarLoop

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.inner_graphs import convert_inner_graph
from pytensor.link.onnx.dispatch.lengths import may_be_smaller_than_output
from pytensor.link.onnx.dispatch.variables import variable_shape
from pytensor.link.onnx.value import concat, where


NEGATIVE_STEPS_MESSAGE = "ScalarLoop does not have a termination condition."


def elemwise_shape(builder, node, inputs):
    """The shape (int64 vector) to which the ``Elemwise`` ``node`` broadcasts ``inputs``."""
    static_shape = variable_shape(node.outputs[0])
    if None not in static_shape:
        return builder.constant(static_shape, "int64", hint="shape")
    for i, name in enumerate(inputs):
        if not may_be_smaller_than_output(node, [i]):
            return builder.add("Shape", [name], hint="shape")
    shape, *others = (
        builder.value(name, var.type.dtype).shape()
        for name, var in zip(inputs, node.inputs, strict=True)
    )
    for other in others:
        shape = where(shape.eq(1), other, shape)
    return shape.name


def is_single_value(var) -> bool:
    """Whether ``var`` holds one value for all elements (a scalar or all-broadcastable)."""
    return all(getattr(var.type, "broadcastable", ()))


def check_non_negative_steps(builder, steps, shape):
    """Raise like ``ScalarLoop.perform`` when a for loop gets a negative ``n_steps``."""
    steps, shape = builder.value(steps, "int64"), builder.value(shape, "int64")
    is_empty = shape.eq(0).any()
    builder.require((steps >= 0) | is_empty, ValueError, NEGATIVE_STEPS_MESSAGE)


def max_steps(builder, steps):
    """The largest of the int64 ``steps``, and 0 if none is positive."""
    steps = builder.value(steps, "int64")
    with_zero = concat([steps.reshape(steps.indices([-1])), steps.indices([0])], 0)
    return with_zero.apply("ReduceMax", with_zero, keepdims=0).name


def full_shape_outputs(fgraph, carries) -> set:
    """The outputs of ``fgraph`` computed from a carry, which have the full shape."""
    carries = set(carries)
    return {out for out in fgraph.outputs if carries & set(ancestors([out]))}


def while_control(body, done, until, steps, per_element_steps):
    """Which elements a while loop's step updates, their new ``done``, and
    whether any element can still run at the next step."""
    iteration = body.value(body.inputs[0].name, "int64")
    steps, done, until = map(
        body.value, (steps, done, until), ("int64", "bool", "bool")
    )
    running = ~done
    if per_element_steps:
        running = running & (iteration < steps)
    new_done = done | (running & until)
    can_continue = ~new_done
    if per_element_steps:
        can_continue = can_continue & (iteration + 1 < steps)
    return running.name, new_done.name, can_continue.any().name


@onnx_funcify.register(ScalarLoop)
def onnx_funcify_ScalarLoop(op, node, builder, inputs, **kwargs):
    # perform runs the loop's own inner graph, whatever the dtypes the
    # Elemwise was applied to, and casts its results to the output dtypes.
    fgraph = op.fgraph
    n_carries = len(fgraph.outputs) - int(op.is_while)
    name = op.name or "scalar_loop"
    steps_name, *outer_values = inputs
    steps = builder.cast(steps_name, node.inputs[0].type.dtype, "int64")
    values = [
        builder.cast(name, var.type.dtype, inner.type.dtype)
        for name, var, inner in zip(
            outer_values, node.inputs[1:], fgraph.inputs, strict=True
        )
    ]
    shape = elemwise_shape(builder, node, inputs)
    initial = [
        builder.add("Expand", [value, shape], hint="initial")
        if may_be_smaller_than_output(node, [i])
        else value
        for i, value in enumerate(values[:n_carries], start=1)
    ]
    if not op.is_while and builder.keep_checks:
        check_non_negative_steps(builder, steps, shape)

    loop_shape = variable_shape(node.outputs[0])
    per_element_steps = not is_single_value(node.inputs[0])
    body = builder.loop_body(f"{name}_body")
    iteration, condition = (info.name for info in body.inputs)
    carries = [
        body.add_input("carry", inner.type.dtype, loop_shape)
        for inner in fgraph.inputs[:n_carries]
    ]
    results = convert_inner_graph(
        body, fgraph.inputs, fgraph.outputs, [*carries, *values[n_carries:]]
    )
    updates = results[:n_carries]
    carry_types = [inner.type.dtype for inner in fgraph.inputs[:n_carries]]

    if op.is_while:
        done = body.add_input("done", "bool", loop_shape)
        running, new_done, keep_going = while_control(
            body, done, results[-1], steps, per_element_steps
        )
    elif per_element_steps:
        running = body.add("Less", [iteration, steps])
        keep_going = condition
    else:
        running = None
        keep_going = condition
        full_shape = full_shape_outputs(fgraph, fgraph.inputs[:n_carries])
        updates = [
            value
            if out in full_shape
            else body.add("Expand", [value, shape], hint="update")
            for value, out in zip(updates, fgraph.outputs, strict=True)
        ]

    if running is not None:
        running = body.value(running, "bool")
        updates = [
            where(running, body.value(new, dtype), body.value(old, dtype)).name
            for new, old, dtype in zip(updates, carries, carry_types, strict=True)
        ]
    body.add_output(keep_going, "keep_going", "bool", ())
    for value, carry, dtype in zip(updates, carries, carry_types, strict=True):
        body.add_output(value, carry, dtype, loop_shape)
    initial_condition = ""
    if op.is_while:
        body.add_output(new_done, "done", "bool", loop_shape)
        initial.append(
            builder.add("Expand", [builder.constant(False, "bool"), shape], hint="done")
        )
        initial_condition = builder.constant(True, "bool")
    if body.checks:
        raise NotImplementedError(
            "the inner graph of this ScalarLoop has runtime checks, which a Loop "
            "body cannot report"
        )

    finals = builder.add_multi(
        "Loop",
        [max_steps(builder, steps), initial_condition, *initial],
        n_outputs=len(initial),
        body=body.make_graph(),
        hint=name,
    )
    inner_dtypes = [out.type.dtype for out in fgraph.outputs]
    return [
        builder.cast(final, inner_dtype, out.type.dtype)
        for final, inner_dtype, out in zip(
            finals, inner_dtypes, node.outputs, strict=True
        )
    ]
