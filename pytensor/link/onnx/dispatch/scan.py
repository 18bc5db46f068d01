"""The ``Scan`` converter: one ONNX ``Loop`` per ``Scan``.

The body of the ``Loop`` is the (rewritten) inner graph of the ``Scan``. It
reads the step of each sequence with a ``Gather`` on the iteration number,
and the non-sequences from the enclosing graph by name. The ``Loop`` carries:

- the whole buffer of each mit-mot output (read and written at the taps);
- the last ``-min(taps)`` values of each mit-sot output (a window);
- the last value of each sit-sot and untraced sit-sot output.

The values of mit-sot, sit-sot and nit-sot outputs at every step are the
``Loop``'s scan outputs (stacked along a new first axis). After the ``Loop``,
each traced output is assembled as `Scan` returns it: the initial taps
followed by the steps, truncated to the length of its outer buffer (which the
``scan_save_mem_no_prealloc`` rewrite may have shortened).
"""

from pytensor.compile.mode import get_mode
from pytensor.graph.basic import Constant
from pytensor.graph.rewriting.db import RewriteDatabaseQuery
from pytensor.scan.op import Scan
from pytensor.tensor.subtensor import Subtensor, indices_from_subtensor

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.builders import convert_inner_graph
from pytensor.link.onnx.dispatch.extra_ops import along_axis, to_scalar
from pytensor.link.onnx.dispatch.shape import (
    add_runtime_check,
    dim_size,
    int64_constant,
    int64_max,
)
from pytensor.link.onnx.rewrites import onnx_rewrites


def rewritten_inner_graph(op):
    """A copy of the inner graph of ``op`` rewritten for the ONNX backend.

    Like the other backends, the rewrites are those of the mode the ``Scan``
    was built with (``scan(..., mode=...)``), adapted to the ONNX linker.
    """
    fgraph = op.fgraph.clone()
    provided = get_mode(op.mode).provided_optimizer
    if isinstance(provided, RewriteDatabaseQuery):
        onnx_rewrites(provided).rewrite(fgraph)
    return fgraph


def first_length(builder, x):
    """The length of the first axis of ``x`` as a 0-d int64."""
    return to_scalar(builder, dim_size(builder, x, 0))


def length_bound(var) -> int | None:
    """An upper bound, known when the graph is built, of the length of ``var``."""
    if var.type.shape[0] is not None:
        return var.type.shape[0]
    if var.owner is not None and isinstance(var.owner.op, Subtensor):
        first, *_ = indices_from_subtensor(var.owner.inputs[1:], var.owner.op.idx_list)
        if (
            isinstance(first, slice)
            and first.start is None
            and first.step is None
            and isinstance(first.stop, Constant)
            and int(first.stop.data) >= 0
        ):
            return int(first.stop.data)
    return None


def stack_one(builder, value):
    """``value[None]``."""
    return builder.add("Unsqueeze", [value, int64_constant(builder, [0])])


def with_rows_like(builder, trace, like):
    """``trace`` reshaped to its length followed by the other dimensions of ``like``.

    A ``Loop`` that runs no step returns scan outputs whose dimensions
    onnxruntime does not know; this gives them the dimensions of the state.
    """
    shape = builder.add(
        "Concat",
        [dim_size(builder, trace, 0), builder.add("Shape", [like], start=1)],
        axis=0,
    )
    return builder.add("Reshape", [trace, shape], allowzero=1)


def outer_buffer(builder, trace, size, dtype, missing_steps=None):
    """A traced output as ``Scan`` returns it in an outer buffer of ``size`` entries.

    ``trace`` holds the initial taps followed by the value of every step (or
    only the last entries of that). It is the last ``size`` entries of it,
    or, for a shorter ``trace``, ``trace`` padded with zeros then shortened by
    ``missing_steps``, the steps a while loop did not run.
    """
    zero = builder.constant(0, "int64")
    length = first_length(builder, trace)
    n_zeros = int64_max(builder, builder.add("Sub", [size, length]), zero)
    zeros_shape = builder.add(
        "Concat",
        [stack_one(builder, n_zeros), builder.add("Shape", [trace], start=1)],
        axis=0,
    )
    zeros = builder.add("Expand", [builder.constant(0, dtype), zeros_shape])
    padded = builder.add("Concat", [trace, zeros], axis=0)
    start = int64_max(builder, builder.add("Sub", [length, size]), zero)
    end = builder.add("Add", [start, size])
    if missing_steps is not None:
        shortened = int64_max(builder, builder.add("Sub", [size, missing_steps]), zero)
        is_padded = builder.add("Greater", [n_zeros, zero])
        end = builder.add("Where", [is_padded, shortened, end])
    return along_axis(
        builder, padded, stack_one(builder, start), stack_one(builder, end)
    )


def needs_trace(buffer_var, taps) -> bool:
    """Whether the outer buffer of a mit-sot or sit-sot output may be longer
    than the window of its last ``-min(taps)`` values."""
    bound = length_bound(buffer_var)
    return bound is None or bound > -min(taps)


def traced_output(builder, size, dtype, initial, final, steps, missing_steps):
    """A mit-sot or sit-sot output in an outer buffer of ``size`` entries.

    ``initial`` and ``final`` are its first and last windows of values and
    ``steps`` its values at every step, if the buffer needs them.
    """
    if steps is None:
        return outer_buffer(builder, final, size, dtype)
    steps = with_rows_like(builder, steps, initial)
    trace = builder.add("Concat", [initial, steps], axis=0)
    return outer_buffer(builder, trace, size, dtype, missing_steps)


class ScanLoop:
    """The ONNX ``Loop`` of a ``Scan`` while its body is being built.

    Loop-carried values are declared with `carry` before the inner graph is
    converted and given their new values with `update` afterwards, in the same
    order; per-step outputs are declared with `trace`.
    """

    def __init__(self, builder, hint):
        self.builder = builder
        self.body = builder.loop_body(hint)
        self.iteration = self.body.inputs[0].name
        self.initial_values = []
        self.carried_types = []
        self.updates = []
        self.traces = []

    def carry(self, initial, hint, dtype, shape):
        """Declare a loop-carried value; return its name in the body."""
        self.initial_values.append(initial)
        self.carried_types.append((hint, dtype, shape))
        return self.body.add_input(hint, dtype, shape)

    def update(self, value):
        self.updates.append(value)

    def trace(self, value, hint, dtype, ndim):
        """Stack ``value`` over the steps; return the index of the stacked output."""
        self.traces.append((value, hint, dtype, (None,) * ndim))
        return len(self.traces) - 1

    def add_loop(self, n_steps, keep_going, more_steps):
        """Add the ``Loop``; return the final carried values and the stacked traces."""
        body = self.body
        body.add_output(keep_going, "keep_going", "bool", ())
        for value, (hint, dtype, shape) in zip(
            self.updates, self.carried_types, strict=True
        ):
            body.add_output(value, hint, dtype, shape)
        for value, hint, dtype, shape in self.traces:
            body.add_output(value, hint, dtype, shape)
        outputs = self.builder.add_multi(
            "Loop",
            [n_steps, more_steps, *self.initial_values],
            n_outputs=len(self.updates) + len(self.traces),
            body=body.make_graph(),
            hint="scan",
        )
        n_carried = len(self.updates)
        return outputs[:n_carried], outputs[n_carried:]


def check_steps(builder, n_steps, sequences):
    """Raise like ``Scan`` for a negative number of steps or too short sequences."""
    zero = builder.constant(0, "int64")
    add_runtime_check(
        builder,
        builder.add("GreaterOrEqual", [n_steps, zero]),
        IndexError,
        "Scan was asked to run for negative number of step",
    )
    for index, sequence in enumerate(sequences):
        add_runtime_check(
            builder,
            builder.add("GreaterOrEqual", [first_length(builder, sequence), n_steps]),
            ValueError,
            f"Sequence {index} is shorter than the Scan's required number of steps",
        )


def shifted(builder, iteration, offset):
    """``iteration + offset`` (an int64 value), without a node when ``offset`` is 0."""
    if offset == 0:
        return iteration
    return builder.add("Add", [iteration, builder.constant(offset, "int64")])


def carry_mit_mot(loop, buffers, buffer_vars, in_taps):
    """Carry the mit-mot buffers; return their body names and the inner tap values.

    The buffer of a mit-mot output is read at ``iteration + tap - min(taps)``.
    """
    body, carried, tap_values = loop.body, [], []
    for buffer, var, taps in zip(buffers, buffer_vars, in_taps, strict=True):
        carried_buffer = loop.carry(buffer, "mit_mot", var.type.dtype, var.type.shape)
        carried.append(carried_buffer)
        for tap in taps:
            index = shifted(body, loop.iteration, tap - min(taps))
            tap_values.append(body.add("Gather", [carried_buffer, index], axis=0))
    return carried, tap_values


def update_mit_mot(loop, buffers, in_taps, out_taps, new_values):
    """Write the new mit-mot values at ``iteration + tap - min(input taps)``."""
    body = loop.body
    new_values = iter(new_values)
    for buffer, taps, written_taps in zip(buffers, in_taps, out_taps, strict=True):
        position = body.add("Unsqueeze", [loop.iteration, int64_constant(body, [0, 1])])
        offsets = [[tap - min(taps)] for tap in written_taps]
        indices = body.add("Add", [position, int64_constant(body, offsets)])
        written = [stack_one(body, next(new_values)) for _ in written_taps]
        if len(written) > 1:
            written = [body.add("Concat", written, axis=0)]
        loop.update(body.add("ScatterND", [buffer, indices, *written]))


def carry_windows(loop, buffers, buffer_vars, in_taps):
    """Carry the last ``-min(taps)`` values of each mit-sot or sit-sot output.

    Return the initial windows, their body names and the inner tap values.
    A sit-sot window is carried as its only value.
    """
    builder, body = loop.builder, loop.body
    initial_windows, windows, tap_values = [], [], []
    for buffer, var, taps in zip(buffers, buffer_vars, in_taps, strict=True):
        depth = -min(taps)
        initial = along_axis(builder, buffer, 0, depth)
        initial_windows.append(initial)
        dtype = var.type.dtype
        if taps == (-1,):
            first = builder.add("Gather", [buffer, builder.constant(0, "int64")])
            windows.append(loop.carry(first, "sit_sot", dtype, var.type.shape[1:]))
            tap_values.append(windows[-1])
            continue
        window = loop.carry(initial, "mit_sot", dtype, (depth, *var.type.shape[1:]))
        windows.append(window)
        for tap in taps:
            index = body.constant(depth + tap, "int64")
            tap_values.append(body.add("Gather", [window, index], axis=0))
    return initial_windows, windows, tap_values


def update_windows(loop, windows, in_taps, new_values):
    body = loop.body
    for window, taps, value in zip(windows, in_taps, new_values, strict=True):
        if taps == (-1,):
            loop.update(value)
        else:
            older = along_axis(body, window, 1)
            loop.update(body.add("Concat", [older, stack_one(body, value)], axis=0))


def carry_checks(loop, checks):
    """Carry whether each runtime check of the body held at every step so far."""
    for condition, _ in checks:
        held = loop.carry(loop.builder.constant(True, "bool"), "check", "bool", ())
        loop.update(loop.body.add("And", [held, condition]))
    return [op for _, op in checks]


def steps_run_so_far(loop):
    """Carry the number of steps run, for while loops."""
    body = loop.body
    count = loop.carry(loop.builder.constant(0, "int64"), "n_steps_run", "int64", ())
    loop.update(body.add("Add", [count, body.constant(1, "int64")]))


@onnx_funcify.register(Scan)
def onnx_funcify_Scan(op, node, builder, inputs, **kwargs):
    info = op.info
    fgraph = rewritten_inner_graph(op)
    n_steps = builder.cast(inputs[0], node.inputs[0].type.dtype, "int64")
    if builder.keep_checks:
        check_steps(builder, n_steps, op.outer_seqs(inputs))

    loop = ScanLoop(builder, f"{op.name or 'scan'}_body")
    body = loop.body
    if info.as_while:
        steps_run_so_far(loop)
    sequence_steps = [
        body.add("Gather", [sequence, loop.iteration], axis=0, hint="sequence_step")
        for sequence in op.outer_seqs(inputs)
    ]
    mit_mot_buffers, mit_mot_tap_values = carry_mit_mot(
        loop,
        op.outer_mitmot(inputs),
        op.outer_mitmot(node.inputs),
        info.mit_mot_in_slices,
    )
    tap_slices = info.mit_sot_in_slices + info.sit_sot_in_slices
    traced_buffers = op.outer_mitsot(inputs) + op.outer_sitsot(inputs)
    traced_vars = op.outer_mitsot(node.inputs) + op.outer_sitsot(node.inputs)
    initial_windows, windows, window_tap_values = carry_windows(
        loop, traced_buffers, traced_vars, tap_slices
    )
    untraced = [
        loop.carry(value, "untraced_sit_sot", var.type.dtype, var.type.shape)
        for value, var in zip(
            op.outer_untraced_sit_sot(inputs),
            op.outer_untraced_sit_sot(node.inputs),
            strict=True,
        )
    ]

    inner_outputs = convert_inner_graph(
        body,
        fgraph.inputs,
        fgraph.outputs,
        [
            *sequence_steps,
            *mit_mot_tap_values,
            *window_tap_values,
            *untraced,
            *op.outer_non_seqs(inputs),
        ],
    )

    update_mit_mot(
        loop,
        mit_mot_buffers,
        info.mit_mot_in_slices,
        info.mit_mot_out_slices,
        op.inner_mitmot_outs(inner_outputs),
    )
    new_traced = op.inner_mitsot_outs(inner_outputs) + op.inner_sitsot_outs(
        inner_outputs
    )
    update_windows(loop, windows, tap_slices, new_traced)
    for value in op.inner_untraced_sit_sot_outs(inner_outputs):
        loop.update(value)
    check_ops = carry_checks(loop, body.checks)

    trace_index = [
        loop.trace(value, "trace", var.type.dtype, var.type.ndim - 1)
        if needs_trace(var, taps)
        else None
        for value, var, taps in zip(new_traced, traced_vars, tap_slices, strict=True)
    ]
    nit_sot_index = [
        loop.trace(value, "nit_sot", var.type.dtype, var.type.ndim - 1)
        for value, var in zip(
            op.inner_nitsot_outs(inner_outputs),
            op.outer_nitsot_outs(node.outputs),
            strict=True,
        )
    ]

    if info.as_while:
        until = body.cast(inner_outputs[-1], fgraph.outputs[-1].type.dtype, "bool")
        keep_going = body.add("Not", [until])
        more_steps = builder.constant(True, "bool")
    else:
        keep_going = body.inputs[1].name
        more_steps = ""
    finals, traces = loop.add_loop(n_steps, keep_going, more_steps)

    finals = iter(finals)
    missing_steps = None
    if info.as_while:
        missing_steps = builder.add("Sub", [n_steps, next(finals)])
    mit_mot_outputs = [next(finals) for _ in mit_mot_buffers]
    final_windows = [next(finals) for _ in windows]
    untraced_outputs = [next(finals) for _ in untraced]
    for passed, check_op in zip(finals, check_ops, strict=True):
        builder.checks.append((passed, check_op))

    traced_outputs = [
        traced_output(
            builder,
            first_length(builder, buffer),
            var.type.dtype,
            initial,
            final if taps != (-1,) else stack_one(builder, final),
            None if index is None else traces[index],
            missing_steps,
        )
        for buffer, var, taps, initial, final, index in zip(
            traced_buffers,
            traced_vars,
            tap_slices,
            initial_windows,
            final_windows,
            trace_index,
            strict=True,
        )
    ]
    nit_sot_outputs = [
        outer_buffer(
            builder,
            traces[index],
            builder.cast(size, var.type.dtype, "int64"),
            out.type.dtype,
            missing_steps,
        )
        for index, size, var, out in zip(
            nit_sot_index,
            op.outer_nitsot(inputs),
            op.outer_nitsot(node.inputs),
            op.outer_nitsot_outs(node.outputs),
            strict=True,
        )
    ]
    return [*mit_mot_outputs, *traced_outputs, *nit_sot_outputs, *untraced_outputs]
