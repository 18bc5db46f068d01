"""Switches on constant masks that read constants uniform where taken."""

import numpy as np
from pytensor.compile.mode import optdb
from pytensor.graph.basic import Constant
from pytensor.graph.rewriting.basic import copy_stack_trace, node_rewriter
from pytensor.scalar import Switch
from pytensor.tensor.basic import constant, switch
from pytensor.tensor.elemwise import Elemwise

from pytensor.link.onnx.rewrites.configuration import ONNX_TAG
from pytensor.link.onnx.rewrites.elementwise import (
    elementwise_inputs,
    elementwise_nodes,
)


@node_rewriter([Elemwise])
def local_switch_uniform_constants(fgraph, node):
    """``switch(mask, a, b)`` with a constant ``mask``: a constant that ``a``
    (or ``b``) computes with element by element, and whose elements are all
    equal where ``mask`` takes ``a`` (``b``), becomes that one value.

    PyMC's censored log-densities are ``switch(observed == lower, logcdf(observed),
    ...)`` on observed data: the log-CDF, its gradient and the special
    functions in them are then computed once instead of for every observation.
    Equal means equal bits (``0.0`` and ``-0.0`` differ); only the elements
    the branch is taken for are compared, so the result is the same. The
    branch is read through the checked values of ``CheckAndRaise`` (PyMC's
    parameter checks), whose conditions stay as they are.
    """
    if not isinstance(node.op.scalar_op, Switch):
        return None
    mask, if_true, if_false = node.inputs
    if not isinstance(mask, Constant) or mask.type.ndim == 0:
        return None
    takes_true = np.asarray(mask.data).astype(bool)
    if takes_true.all() or not takes_true.any():
        return None
    new_true = with_uniform_constants(if_true, takes_true)
    new_false = with_uniform_constants(if_false, ~takes_true)
    if new_true is if_true and new_false is if_false:
        return None
    new_switch = switch(mask, new_true, new_false)
    copy_stack_trace(node.outputs[0], new_switch)
    return [new_switch]


def with_uniform_constants(var, taken):
    """``var`` with the constants of its elementwise graph that have the shape
    of ``taken`` and one value where it is true replaced by that value."""
    if isinstance(var, Constant):
        uniform = uniform_constant(var, taken)
        return var if uniform is None else uniform
    new = {}
    for node in elementwise_nodes(var, checks=True):
        read = elementwise_inputs(node)
        for inp in read:
            if isinstance(inp, Constant) and inp not in new:
                uniform = uniform_constant(inp, taken)
                if uniform is not None:
                    new[inp] = uniform
        inputs = [new.get(inp, inp) for inp in read] + node.inputs[len(read) :]
        if any(inp in new for inp in read):
            new.update(
                zip(node.outputs, node.op.make_node(*inputs).outputs, strict=True)
            )
    return new.get(var, var)


def uniform_constant(var, taken):
    """The one value of the constant ``var`` where ``taken`` is true, as a
    constant of ``var``'s dtype with one element on each axis; None when
    ``var`` does not have the shape of ``taken`` or its values there differ."""
    values = np.asarray(var.data)
    if values.shape != taken.shape:
        return None
    chosen = np.ascontiguousarray(values[taken])
    as_bytes = chosen.view(np.uint8).reshape(chosen.size, -1)
    if not (as_bytes == as_bytes[0]).all():
        return None
    return constant(chosen[:1].reshape((1,) * values.ndim), dtype=var.dtype)


optdb["specialize"].register(
    "local_switch_uniform_constants", local_switch_uniform_constants, ONNX_TAG
)
