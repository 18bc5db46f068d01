"""While loops of the sampler: ``scan`` that carries only the last value of each state.

The sampler reads only the final value of each recurrent value of its loops.
PyTensor 3 turns such a ``Scan`` output into an untraced one with a rewrite
(``scan_sit_sot_to_untraced``) once its buffer is known to hold one value;
PyTensor 2.38 has no such rewrite and keeps a buffer whose length it computes
at run time, which the ``Loop`` of the ONNX backend must then fill and trim
after every run (about 30 ONNX nodes per value, paid at every run of an inner
loop). `loop` builds the untraced form directly, so every PyTensor version
and mode gets the same ``Scan``.
"""

import dataclasses

import pytensor.tensor as pt
from pytensor.scan.op import Scan
from pytensor.scan.utils import until

import pytensor


def loop(step, *, outputs_info, **kwargs):
    """``pytensor.scan`` of ``step``, returning a list: the final value of
    each recurrent output and the trace of each other output.

    Pass the ``mode`` the sampler is compiled in: the inner functions of a
    ``Scan`` are compiled in the mode it is built with. Each recurrent output
    keeps the static shape of its initial value (with a single chain, some Ops
    lose the static length 1 of the chain axis).
    """

    def typed_step(*args):
        outputs = step(*args)
        stop = None
        if isinstance(outputs, tuple) and isinstance(outputs[-1], until):
            outputs, stop = outputs
        outputs = [
            pt.specify_shape(out, init.type.shape)
            if isinstance(init, pt.TensorVariable) and out.type.shape != init.type.shape
            else out
            for out, init in zip(outputs, outputs_info, strict=True)
        ]
        return outputs if stop is None else (outputs, stop)

    outputs = pytensor.scan(
        typed_step, outputs_info=outputs_info, return_updates=False, **kwargs
    )
    outputs = list(outputs) if isinstance(outputs, list | tuple) else [outputs]
    node = scan_node(outputs)
    tensor_initial = [
        init
        for init in outputs_info
        if init is not None and isinstance(init.type, pt.TensorType)
    ]
    new_outputs = untraced_scan(node, tensor_initial)
    return [
        new_outputs[node.outputs.index(scan_output(node, out))]
        if init is not None
        else rebuilt(out, node, new_outputs)
        for out, init in zip(outputs, outputs_info, strict=True)
    ]


def scan_output(node, out):
    """The output of ``node`` that ``out`` is a view of (``scan`` returns views)."""
    while out.owner is not node:
        out = out.owner.inputs[0]
    return out


def rebuilt(out, node, new_outputs):
    """``out``, a view of an output of ``node``, taken of its new output."""
    if out.owner is node:
        return new_outputs[node.outputs.index(out)]
    owner = out.owner
    source = rebuilt(owner.inputs[0], node, new_outputs)
    new_node = owner.op.make_node(source, *owner.inputs[1:])
    return new_node.outputs[owner.outputs.index(out)]


def scan_node(outputs):
    out = outputs[0]
    while not isinstance(out.owner.op, Scan):
        out = out.owner.inputs[0]
    return out.owner


def untraced_scan(node, tensor_initial) -> dict[int, pt.TensorVariable]:
    """``node`` rebuilt with each single-tap recurrent output untraced.

    Returns, for each output of ``node`` (by its index in ``node.outputs``),
    its replacement: the final value of a recurrent output, the trace of the
    others. ``tensor_initial`` are the initial values of the traced recurrent
    outputs, in their order.
    """
    op, info = node.op, node.op.info
    if info.n_mit_mot or info.n_mit_sot:
        raise NotImplementedError("loop carries single-tap outputs only")
    inner_inputs, inner_outputs = list(op.inner_inputs), list(op.inner_outputs)
    n_sit_sot = info.n_sit_sot
    new_info = dataclasses.replace(
        info,
        sit_sot_in_slices=(),
        n_untraced_sit_sot=info.n_untraced_sit_sot + n_sit_sot,
    )
    new_op = Scan(
        [
            *op.inner_seqs(inner_inputs),
            *op.inner_untraced_sit_sot(inner_inputs),
            *op.inner_sitsot(inner_inputs),
            *op.inner_non_seqs(inner_inputs),
        ],
        [
            *op.inner_nitsot_outs(inner_outputs),
            *op.inner_untraced_sit_sot_outs(inner_outputs),
            *op.inner_sitsot_outs(inner_outputs),
            *([inner_outputs[-1]] if info.as_while else []),
        ],
        new_info,
        mode=op.mode,
        truncate_gradient=op.truncate_gradient,
        name=op.name,
        allow_gc=op.allow_gc,
    )
    new_outputs = new_op(
        node.inputs[0],
        *op.outer_seqs(node.inputs),
        *op.outer_untraced_sit_sot(node.inputs),
        *(
            inner.type.filter_variable(init)
            for inner, init in zip(
                op.inner_sitsot(inner_inputs), tensor_initial, strict=True
            )
        ),
        *op.outer_nitsot(node.inputs),
        *op.outer_non_seqs(node.inputs),
        return_list=True,
    )
    n_nit_sot, n_untraced = info.n_nit_sot, info.n_untraced_sit_sot
    replacements = {}
    for i in range(n_sit_sot):
        replacements[i] = new_outputs[n_nit_sot + n_untraced + i]
    for i in range(n_nit_sot):
        replacements[n_sit_sot + i] = new_outputs[i]
    for i in range(n_untraced):
        replacements[n_sit_sot + n_nit_sot + i] = new_outputs[n_nit_sot + i]
    return dict(sorted(replacements.items()))
