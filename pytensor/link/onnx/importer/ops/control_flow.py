"""Control flow: ``If`` as ``IfElse``, ``Loop`` and ``Scan`` as PyTensor ``Scan``.

Subgraphs see the values of the graphs around them; PyTensor's ``scan`` finds
those it uses and passes them to its inner function.
"""

import numpy as np
import pytensor.tensor as pt
from pytensor.ifelse import ifelse
from pytensor.raise_op import Assert
from pytensor.scan.utils import until

import pytensor
from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import (
    as_dtype,
    as_int64,
    constant_value,
    scalar,
)


LOOP_LIMIT = 10_000


@onnx_op("If")
def if_then_else(node, condition):
    known = constant_value(condition)
    if known is not None:
        return node.subgraph("then_branch" if known.all() else "else_branch")()
    then_outputs = node.subgraph("then_branch")()
    else_outputs = node.subgraph("else_branch")()
    if any(
        getattr(a, "ndim", None) != getattr(b, "ndim", None)
        for a, b in zip(then_outputs, else_outputs, strict=True)
    ):
        raise NotImplementedError(
            f"{node.label}: If whose branches return values of different ranks "
            "(PyTensor's IfElse gives each output one type)"
        )
    chosen = ifelse(scalar(condition), then_outputs, else_outputs)
    return chosen if isinstance(chosen, list | tuple) else [chosen]


def like_state(output, state):
    """``output`` with the type of the loop-carried ``state`` it updates."""
    output = as_dtype(output, state.dtype)
    if output.type.shape != state.type.shape:
        output = pt.specify_shape(output, state.type.shape)
    return output


def scan(step, outputs_info, n_steps, sequences=()):
    """The outputs of ``pytensor.scan`` as a list (it has no updates here)."""
    return pytensor.scan(
        step,
        sequences=list(sequences),
        outputs_info=outputs_info,
        n_steps=n_steps,
        return_list=True,
        return_updates=False,
    )


def is_always_true(condition):
    value = constant_value(condition)
    return value is not None and bool(value.all())


def keeps_going(body, initial):
    """Whether a Loop body's condition output is always true (a for loop)."""
    iteration, condition = pt.scalar(dtype="int64"), pt.scalar(dtype="bool")
    outputs = body(iteration, condition, *(state.type() for state in initial))
    return outputs[0] is condition or is_always_true(outputs[0])


@onnx_op("Loop")
def loop(node, trip_count=None, condition=None, *initial):
    body = node.subgraph("body")
    n_states = len(initial)
    if not all(isinstance(state, pt.TensorVariable) for state in initial):
        raise NotImplementedError(
            f"{node.label}: Loop carrying sequences (PyTensor's Scan carries tensors)"
        )
    if is_always_true(condition) and keeps_going(body, initial):
        condition = None
    running = (
        pt.constant(np.bool_(True))
        if condition is None
        else as_dtype(scalar(condition), "bool")
    )
    if trip_count is None:
        n_steps = pt.constant(LOOP_LIMIT, dtype="int64")
    elif condition is None:
        n_steps = as_int64(scalar(trip_count))
    else:
        n_steps = pt.minimum(as_int64(scalar(trip_count)), LOOP_LIMIT)

    n_steps = pt.switch(running, n_steps, 0)

    def step(iteration, keep_going, *states):
        outputs = body(iteration, keep_going, *states)
        keep_going = as_dtype(scalar(outputs[0]), "bool")
        carried = [
            like_state(o, s)
            for o, s in zip(outputs[1 : 1 + n_states], states, strict=True)
        ]
        stacked = outputs[1 + n_states :]
        return [iteration + 1, keep_going, *carried, *stacked], until(
            pt.invert(keep_going)
        )

    n_scan_outputs = len(body.graph.output) - 1 - n_states
    outputs_info = [pt.constant(np.int64(0)), running, *initial] + [
        None
    ] * n_scan_outputs
    results = scan(step, outputs_info, n_steps)
    ran = results[0].shape[0]
    finals = [
        ifelse(pt.gt(ran, 0), history[-1], start)
        for history, start in zip(results[2 : 2 + n_states], initial, strict=True)
    ]
    if condition is not None:
        stopped = pt.lt(ran, LOOP_LIMIT) | pt.invert(results[1][-1])
        limit = Assert(f"{node.label}: Loop ran more than {LOOP_LIMIT} iterations")
        finals = [limit(final, stopped) for final in finals]
    return finals + results[2 + n_states :]


@onnx_op("Scan", since=9)
def scan_op(node, *inputs):
    n_inputs = node.attr("num_scan_inputs")
    n_states = len(inputs) - n_inputs
    states, sequences = inputs[:n_states], inputs[n_states:]
    n_outputs = len(node.subgraph("body").graph.output) - n_states
    in_axes = node.attr("scan_input_axes") or [0] * n_inputs
    in_directions = node.attr("scan_input_directions") or [0] * n_inputs
    out_axes = node.attr("scan_output_axes") or [0] * n_outputs
    out_directions = node.attr("scan_output_directions") or [0] * n_outputs
    sequences = [
        along_first_axis(x, axis, reverse)
        for x, axis, reverse in zip(sequences, in_axes, in_directions, strict=True)
    ]
    finals, stacked = scan_body(node, states, sequences)
    stacked = [
        from_first_axis(y, axis, reverse)
        for y, axis, reverse in zip(stacked, out_axes, out_directions, strict=True)
    ]
    return finals + stacked


@onnx_op("Scan", until=8)
def batched_scan(node, sequence_lens, *inputs):
    """Scan-8: every state and scan input has a leading batch axis, scanned
    one batch entry after the other (the batch must have a static size)."""
    if sequence_lens is not None:
        raise NotImplementedError(f"{node.label}: Scan-8 with sequence_lens")
    n_states = len(inputs) - node.attr("num_scan_inputs")
    batch = inputs[0].type.shape[0]
    if batch is None:
        raise NotImplementedError(f"{node.label}: Scan-8 over a batch of unknown size")
    directions = node.attr("directions") or [0] * (len(inputs) - n_states)
    per_entry = []
    for b in range(batch):
        sequences = [
            along_first_axis(x[b], 0, reverse)
            for x, reverse in zip(inputs[n_states:], directions, strict=True)
        ]
        finals, stacked = scan_body(node, [x[b] for x in inputs[:n_states]], sequences)
        per_entry.append(finals + stacked)
    return [pt.stack(outputs) for outputs in zip(*per_entry, strict=True)]


def scan_body(node, states, sequences):
    """The final states and the stacked scan outputs of ``node``'s body run
    over the first axis of ``sequences``."""
    body = node.subgraph("body")
    n_states, n_inputs = len(states), len(sequences)
    n_outputs = len(body.graph.output) - n_states

    def step(*args):
        elements, carried = args[:n_inputs], args[n_inputs:]
        outputs = body(*carried, *elements)
        return [
            like_state(o, s) for o, s in zip(outputs[:n_states], carried, strict=True)
        ] + list(outputs[n_states:])

    results = scan(
        step, [*states] + [None] * n_outputs, sequences[0].shape[0], sequences
    )
    return [history[-1] for history in results[:n_states]], results[n_states:]


def along_first_axis(x, axis, reverse):
    x = pt.moveaxis(x, axis, 0) if axis else x
    return x[::-1] if reverse else x


def from_first_axis(y, axis, reverse):
    y = y[::-1] if reverse else y
    return pt.moveaxis(y, 0, axis) if axis else y
