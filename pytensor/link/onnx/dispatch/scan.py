"""The ``Scan`` converter: one ONNX ``Loop`` per ``Scan``.

The body of the ``Loop`` is the (rewritten) inner graph of the ``Scan``. It
reads the step of each sequence with a ``Gather`` on the iteration number,
and the non-sequences from the enclosing graph by name. The ``Loop`` carries:

- the whole buffer of each mit-mot output (read and written at the taps);
- the last ``-min(taps)`` values of each mit-sot output (a window);
- the last value of each sit-sot and untraced sit-sot output: among these,
  the random generators of the steps, as keys (see
  `pytensor.link.onnx.dispatch.random`), so that each step draws from the
  key the previous one left.

The values of mit-sot, sit-sot and nit-sot outputs at every step are the
``Loop``'s scan outputs (stacked along a new first axis). After the ``Loop``,
each traced output is assembled as `Scan` returns it: the initial taps
followed by the steps, truncated to the length of its outer buffer (which the
``scan_save_mem_no_prealloc`` rewrite may have shortened).
"""

import weakref

from pytensor.compile.mode import get_mode
from pytensor.graph.basic import Constant
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.rewriting.db import RewriteDatabaseQuery
from pytensor.scan.op import Scan
from pytensor.tensor.subtensor import Subtensor, indices_from_subtensor

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.inner_graphs import convert_inner_graph
from pytensor.link.onnx.dispatch.variables import value_type
from pytensor.link.onnx.numerics.loops import ScanLoop, outer_buffer, traced_output
from pytensor.link.onnx.rewrites.configuration import onnx_rewrites
from pytensor.link.onnx.value import Value, concat, where


# By the identity of the Scan: equal Scans may have been built in other modes
REWRITTEN_INNER_GRAPHS: dict[int, tuple[weakref.ref, FunctionGraph]] = {}


def rewritten_inner_graph(op):
    """A copy of the inner graph of ``op`` rewritten for the ONNX backend.

    Like the other backends, the rewrites are those of the mode the ``Scan``
    was built with (``scan(..., mode=...)``), adapted to the ONNX linker.
    The copy is made once per ``Scan`` (the converters only read it):
    converting its graph again, to export it or for other shapes, reuses it.
    """
    cached = REWRITTEN_INNER_GRAPHS.get(id(op))
    if cached is not None and cached[0]() is op:
        return cached[1]
    fgraph = op.fgraph.clone()
    provided = get_mode(op.mode).provided_optimizer
    if isinstance(provided, RewriteDatabaseQuery):
        onnx_rewrites(provided).rewrite(fgraph)
    key = id(op)
    REWRITTEN_INNER_GRAPHS[key] = (
        weakref.ref(op, lambda _: REWRITTEN_INNER_GRAPHS.pop(key, None)),
        fgraph,
    )
    return fgraph


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


def needs_trace(buffer_var, taps) -> bool:
    """Whether the outer buffer of a mit-sot or sit-sot output may be longer
    than the window of its last ``-min(taps)`` values."""
    bound = length_bound(buffer_var)
    return bound is None or bound > -min(taps)


def check_steps(n_steps: Value, sequences, node):
    """Raise like ``Scan`` for a negative number of steps or too short sequences.

    Nothing is checked that the static lengths of ``node``'s sequences and a
    constant number of steps already settle. A sequence too short makes the
    ``Loop``'s ``Gather`` of a step fail, so its check costs a run only after
    a failure (see ``ONNXGraphBuilder.require``).
    """
    builder = n_steps.builder
    n_steps_var = node.inputs[0]
    known_steps = int(n_steps_var.data) if isinstance(n_steps_var, Constant) else None
    if known_steps is None or known_steps < 0:
        message = "Scan was asked to run for negative number of step"
        builder.require(n_steps >= 0, IndexError, message, is_scalar=True)
    for index, (sequence, var) in enumerate(
        zip(sequences, node.op.outer_seqs(node.inputs), strict=True)
    ):
        length = var.type.shape[0]
        if known_steps is not None and length is not None and length >= known_steps:
            continue
        builder.require(
            sequence.dim(0) >= n_steps,
            ValueError,
            f"Sequence {index} is shorter than the Scan's required number of steps",
            is_scalar=True,
            after_failure=True,
        )


def shifted(iteration: Value, offset: int) -> Value:
    """``iteration + offset``, without a node when ``offset`` is 0."""
    return iteration if offset == 0 else iteration + offset


def carry_mit_mot(loop, buffers, buffer_vars, in_taps):
    """Carry the mit-mot buffers; return them in the body and the inner tap values.

    The buffer of a mit-mot output is read at ``iteration + tap - min(taps)``.
    """
    carried, tap_values = [], []
    for buffer, var, taps in zip(buffers, buffer_vars, in_taps, strict=True):
        carried_buffer = loop.carry(buffer, "mit_mot", var.type.shape)
        carried.append(carried_buffer)
        for tap in taps:
            index = shifted(loop.iteration, tap - min(taps))
            tap_values.append(carried_buffer.take(index, axis=0))
    return carried, tap_values


def update_mit_mot(loop, buffers, in_taps, out_taps, new_values):
    """Write the new mit-mot values at ``iteration + tap - min(input taps)``."""
    new_values = iter(new_values)
    for buffer, taps, written_taps in zip(buffers, in_taps, out_taps, strict=True):
        position = loop.iteration.unsqueeze([0, 1])
        indices = position + position.indices(
            [[tap - min(taps)] for tap in written_taps]
        )
        written = [next(new_values).unsqueeze([0]) for _ in written_taps]
        if len(written) > 1:
            written = [concat(written, axis=0)]
        loop.update(buffer.apply("ScatterND", buffer, indices, *written))


def carry_windows(loop, buffers, buffer_vars, in_taps):
    """Carry the last ``-min(taps)`` values of each mit-sot or sit-sot output.

    Return the initial windows, their body values and the inner tap values.
    A sit-sot window is carried as its only value.
    """
    initial_windows, windows, tap_values = [], [], []
    for buffer, var, taps in zip(buffers, buffer_vars, in_taps, strict=True):
        depth = -min(taps)
        initial = buffer.slice(0, depth, axis=0)
        initial_windows.append(initial)
        if taps == (-1,):
            first = buffer.apply("Gather", buffer, buffer.constant(0, "int64"))
            windows.append(loop.carry(first, "sit_sot", var.type.shape[1:]))
            tap_values.append(windows[-1])
            continue
        window = loop.carry(initial, "mit_sot", (depth, *var.type.shape[1:]))
        windows.append(window)
        for tap in taps:
            tap_values.append(window.take(window.constant(depth + tap, "int64"), 0))
    return initial_windows, windows, tap_values


def update_windows(loop, windows, in_taps, new_values):
    for window, taps, value in zip(windows, in_taps, new_values, strict=True):
        if taps == (-1,):
            loop.update(value)
        else:
            loop.update(concat([window.slice(1), value.unsqueeze([0])], axis=0))


def carry_checks(loop, checks):
    """Carry whether each runtime check of the body held at every step so far."""
    true = loop.builder.value(loop.builder.constant(True, "bool"), "bool")
    for condition, _ in checks:
        held = loop.carry(true, "check", ())
        loop.update(held & loop.body.value(condition, "bool"))
    return [op for _, op in checks]


def steps_run_so_far(loop):
    """Carry the number of steps run, for while loops."""
    zero = loop.builder.value(loop.builder.constant(0, "int64"), "int64")
    count = loop.carry(zero, "n_steps_run", ())
    loop.update(count + 1)


def values_of(builder, names, variables):
    return [
        builder.value(name, value_type(var)[0])
        for name, var in zip(names, variables, strict=True)
    ]


@onnx_funcify.register(Scan)
def onnx_funcify_Scan(op, node, builder, inputs, **kwargs):
    info = op.info
    fgraph = rewritten_inner_graph(op)
    outer = values_of(builder, inputs, node.inputs)
    n_steps = outer[0].cast("int64")
    if builder.keep_checks:
        check_steps(n_steps, op.outer_seqs(outer), node)

    loop = ScanLoop(builder, f"{op.name or 'scan'}_body")
    body = loop.body
    if info.as_while:
        steps_run_so_far(loop)
    sequence_steps = [
        sequence.into(body).take(loop.iteration, axis=0)
        for sequence in op.outer_seqs(outer)
    ]
    mit_mot_buffers, mit_mot_tap_values = carry_mit_mot(
        loop,
        op.outer_mitmot(outer),
        op.outer_mitmot(node.inputs),
        info.mit_mot_in_slices,
    )
    tap_slices = info.mit_sot_in_slices + info.sit_sot_in_slices
    traced_buffers = op.outer_mitsot(outer) + op.outer_sitsot(outer)
    traced_vars = op.outer_mitsot(node.inputs) + op.outer_sitsot(node.inputs)
    initial_windows, windows, window_tap_values = carry_windows(
        loop, traced_buffers, traced_vars, tap_slices
    )
    untraced = [
        loop.carry(value, "untraced_sit_sot", value_type(var)[1])
        for value, var in zip(
            op.outer_untraced_sit_sot(outer),
            op.outer_untraced_sit_sot(node.inputs),
            strict=True,
        )
    ]

    inner_outputs = values_of(
        body,
        convert_inner_graph(
            body,
            fgraph.inputs,
            fgraph.outputs,
            [
                value.name
                for value in (
                    *sequence_steps,
                    *mit_mot_tap_values,
                    *window_tap_values,
                    *untraced,
                    *op.outer_non_seqs(outer),
                )
            ],
        ),
        fgraph.outputs,
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
        loop.trace(value, "trace", var.type.ndim - 1)
        if needs_trace(var, taps)
        else None
        for value, var, taps in zip(new_traced, traced_vars, tap_slices, strict=True)
    ]
    nit_sot_index = [
        loop.trace(value, "nit_sot", var.type.ndim - 1)
        for value, var in zip(
            op.inner_nitsot_outs(inner_outputs),
            op.outer_nitsot_outs(node.outputs),
            strict=True,
        )
    ]

    if info.as_while:
        keep_going = ~inner_outputs[-1].cast("bool")
        more_steps = n_steps.constant(True, "bool")
    else:
        keep_going = body.value(body.inputs[1].name, "bool")
        more_steps = None
    finals, traces = loop.add_loop(n_steps, keep_going, more_steps)

    finals = iter(finals)
    missing_steps = None
    if info.as_while:
        missing_steps = n_steps - next(finals)
    mit_mot_outputs = [next(finals) for _ in mit_mot_buffers]
    final_windows = [next(finals) for _ in windows]
    untraced_outputs = [next(finals) for _ in untraced]
    for passed, check_op in zip(finals, check_ops, strict=True):
        builder.checks.append((passed.name, check_op))

    traced_outputs = [
        traced_output(
            buffer.dim(0),
            initial,
            final if taps != (-1,) else final.unsqueeze([0]),
            None if index is None else traces[index],
            missing_steps,
        )
        for buffer, taps, initial, final, index in zip(
            traced_buffers,
            tap_slices,
            initial_windows,
            final_windows,
            trace_index,
            strict=True,
        )
    ]
    # As Scan.perform: without steps, nit-sot outputs are empty. A buffer of
    # n_steps entries holds exactly the steps run, which the trace is.
    nit_sot_outputs = [
        traces[index]
        if size.name == outer[0].name
        else outer_buffer(
            traces[index], where(n_steps > 0, size.cast("int64"), 0), missing_steps
        )
        for index, size in zip(nit_sot_index, op.outer_nitsot(outer), strict=True)
    ]
    outputs = [*mit_mot_outputs, *traced_outputs, *nit_sot_outputs, *untraced_outputs]
    return [output.name for output in outputs]
