"""While loops of the sampler: a ``Scan`` that carries only the last value of each state.

The sampler reads only the final value of each recurrent value of its loops.
PyTensor 3 turns such a ``Scan`` output into an untraced one with a rewrite
(``scan_sit_sot_to_untraced``) once its buffer is known to hold one value;
PyTensor 2.38 has no such rewrite and keeps a buffer whose length it computes
at run time, which the ``Loop`` of the ONNX backend must then fill and trim
after every run (about 30 ONNX nodes per value, paid at every run of an inner
loop). `loop` builds the untraced form directly, so every PyTensor version
and mode gets the same ``Scan``.

It builds the ``Scan`` itself rather than through ``pytensor.scan``, which
would allocate a buffer for each state (inferring its shape from the graph of
the initial value), copy the body twice and build a first ``Scan`` to throw
away: with the sampler's three nested loops, that was most of the time taken
to build its graph.
"""

import pytensor.tensor as pt
from pytensor.configdefaults import config
from pytensor.graph.basic import Constant
from pytensor.graph.traversal import graph_inputs
from pytensor.scan.op import Scan, ScanInfo
from pytensor.scan.utils import until

from pytensor.link.onnx.sampling.logdensity import excluding_under_onnx


# Under an ONNX mode the body of every loop skips the ``Scan`` rewrites: the
# sampler's loops are built as the rewrites would leave them (no buffers, the
# loop-invariant values passed in), and on the ten benchmark workloads they
# changed no loop body while taking most of the time of rewriting the loops
# (measured in the sampling documentation)
LOOP_EXCLUDED = ("scan",)


def loop(step, *, outputs_info, n_steps, sequences=(), non_sequences=(), mode=None):
    """A ``Scan`` of ``step``, returning a list: the final value of each
    recurrent output and the trace of each other output.

    As ``pytensor.scan``: ``step`` takes a step of each sequence, the current
    value of each recurrent output (``outputs_info`` holds their initial
    values, ``None`` for an output that is only traced) and the
    non-sequences, and returns the outputs, optionally with an ``until``
    condition. Sequences may be longer than ``n_steps``. Pass the ``mode`` the
    sampler is compiled in: the inner functions of a ``Scan`` are compiled in
    the mode it is built with. Each recurrent output keeps the static shape of
    its initial value (with a single chain, some Ops lose the static length 1
    of the chain axis).
    """
    n_steps = pt.as_tensor_variable(n_steps)
    sequences = [pt.as_tensor_variable(s) for s in sequences]
    non_sequences = list(non_sequences)
    initial = [init for init in outputs_info if init is not None]
    inner_steps = [
        pt.tensor(dtype=s.type.dtype, shape=s.type.shape[1:]) for s in sequences
    ]
    inner_states = [init.type() for init in initial]
    inner_non_sequences = [var.type() for var in non_sequences]
    outputs = step(*inner_steps, *inner_states, *inner_non_sequences)
    stop = None
    if isinstance(outputs, tuple) and isinstance(outputs[-1], until):
        outputs, stop = outputs
    outputs = list(outputs) if isinstance(outputs, list | tuple) else [outputs]
    states = [
        typed_like(out, init)
        for out, init in zip(outputs, outputs_info, strict=True)
        if init is not None
    ]
    traced = [
        out for out, init in zip(outputs, outputs_info, strict=True) if init is None
    ]
    inner_outputs = [*traced, *states, *([stop.condition] if stop else [])]

    explicit = [*inner_steps, *inner_states, *inner_non_sequences]
    implicit = implicit_inputs(inner_outputs, explicit)
    op = Scan(
        [*inner_steps, *inner_states, *inner_non_sequences, *implicit],
        inner_outputs,
        ScanInfo(
            n_seqs=len(sequences),
            mit_mot_in_slices=(),
            mit_mot_out_slices=(),
            mit_sot_in_slices=(),
            sit_sot_in_slices=(),
            n_untraced_sit_sot=len(states),
            n_nit_sot=len(traced),
            n_non_seqs=len(non_sequences) + len(implicit),
            as_while=stop is not None,
        ),
        mode=excluding_under_onnx(mode, LOOP_EXCLUDED),
        name="scan_fn",
        allow_gc=config.scan__allow_gc,
        strict=False,
    )
    results = op(
        n_steps,
        *sequences,
        *(
            inner.type.filter_variable(init)
            for inner, init in zip(inner_states, initial, strict=True)
        ),
        *([n_steps] * len(traced)),
        *non_sequences,
        *implicit,
        return_list=True,
    )
    traces, finals = iter(results[: len(traced)]), iter(results[len(traced) :])
    return [next(traces) if init is None else next(finals) for init in outputs_info]


def typed_like(out, init):
    """``out`` with the static shape of ``init`` (a tensor) when it lost it."""
    if isinstance(init.type, pt.TensorType) and out.type.shape != init.type.shape:
        return pt.specify_shape(out, init.type.shape)
    return out


def implicit_inputs(outputs, explicit):
    """The root variables ``outputs`` read besides ``explicit`` and constants:
    the variables of enclosing graphs the body uses, shared variables among them."""
    known = set(explicit)
    return [
        var
        for var in graph_inputs(outputs)
        if var not in known and not isinstance(var, Constant)
    ]
