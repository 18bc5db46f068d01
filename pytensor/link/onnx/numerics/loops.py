"""The ONNX ``Loop`` of a ``Scan`` and the outer buffers of its traced outputs.

`ScanLoop` collects the values a ``Loop`` carries and stacks while its body
is built; `traced_output` and `outer_buffer` lay out what the ``Loop``
returns as ``Scan`` returns it (see `pytensor.link.onnx.dispatch.scan`).
"""

from pytensor.link.onnx.value import Value, concat, maximum, where


def with_rows_like(trace: Value, like: Value) -> Value:
    """``trace`` reshaped to its length followed by the other dimensions of ``like``.

    A ``Loop`` that runs no step returns scan outputs whose dimensions
    onnxruntime does not know; this gives them the dimensions of the state.
    """
    return trace.reshape(concat([trace.shape(0, 1), like.shape(1)], axis=0))


def outer_buffer(trace: Value, size: Value, missing_steps=None) -> Value:
    """A traced output as ``Scan`` returns it in an outer buffer of ``size`` entries.

    ``trace`` holds the initial taps followed by the value of every step (or
    only the last entries of that). It is the last ``size`` entries of it,
    or, for a shorter ``trace``, ``trace`` padded with zeros then shortened by
    ``missing_steps``, the steps a while loop did not run.
    """
    length = trace.dim(0)
    n_zeros = maximum(size - length, size.constant(0))
    zeros = trace.constant(0, trace.dtype).expand(
        concat([n_zeros.unsqueeze([0]), trace.shape(1)], 0)
    )
    padded = concat([trace, zeros], axis=0)
    start = maximum(length - size, size.constant(0))
    end = start + size
    if missing_steps is not None:
        shortened = maximum(size - missing_steps, size.constant(0))
        end = where(n_zeros > 0, shortened, end)
    return padded.slice(start.unsqueeze([0]), end.unsqueeze([0]), axis=0)


def traced_output(size, initial, final, steps, missing_steps) -> Value:
    """A mit-sot or sit-sot output in an outer buffer of ``size`` entries.

    ``initial`` and ``final`` are its first and last windows of values and
    ``steps`` its values at every step, if the buffer needs them.
    """
    if steps is None:
        return outer_buffer(final, size)
    trace = concat([initial, with_rows_like(steps, initial)], axis=0)
    return outer_buffer(trace, size, missing_steps)


class ScanLoop:
    """The ONNX ``Loop`` of a ``Scan`` while its body is being built.

    Loop-carried values are declared with `carry` before the inner graph is
    converted and given their new values with `update` afterwards, in the same
    order; per-step outputs are declared with `trace`.
    """

    def __init__(self, builder, hint):
        self.builder = builder
        self.body = builder.loop_body(hint)
        self.iteration = self.body.value(self.body.inputs[0].name, "int64")
        self.initial_values = []
        self.carried_shapes = []
        self.updates = []
        self.traces = []

    def carry(self, initial: Value, hint, shape) -> Value:
        """Declare a loop-carried value; return it in the body."""
        self.initial_values.append(initial)
        self.carried_shapes.append((hint, shape))
        return self.body.value(
            self.body.add_input(hint, initial.dtype, shape), initial.dtype
        )

    def update(self, value: Value):
        self.updates.append(value)

    def trace(self, value: Value, hint, ndim):
        """Stack ``value`` over the steps; return the index of the stacked output."""
        self.traces.append((value, hint, (None,) * ndim))
        return len(self.traces) - 1

    def add_loop(self, n_steps: Value, keep_going: Value, more_steps):
        """Add the ``Loop``; return the final carried values and the stacked traces."""
        body = self.body
        body.add_output(keep_going.name, "keep_going", "bool", ())
        for value, (hint, shape) in zip(self.updates, self.carried_shapes, strict=True):
            body.add_output(value.name, hint, value.dtype, shape)
        for value, hint, shape in self.traces:
            body.add_output(value.name, hint, value.dtype, shape)
        outputs = n_steps.apply_multi(
            "Loop",
            n_steps,
            more_steps,
            *self.initial_values,
            dtypes=[v.dtype for v in self.updates]
            + [v.dtype for v, _, _ in self.traces],
            body=body.make_graph(),
        )
        n_carried = len(self.updates)
        return outputs[:n_carried], outputs[n_carried:]
