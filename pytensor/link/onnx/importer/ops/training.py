"""Optimizer steps of the ``ai.onnx.preview.training`` domain: Adagrad, Momentum, Adam.

Each takes a learning rate ``R``, an update count ``T``, then ``n`` tensors to
optimize, their ``n`` gradients and ``n`` of each optimizer state, and returns
the ``n`` new tensors followed by the ``n`` new states of each kind.
"""

import pytensor.tensor as pt

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype, like


DOMAIN = "ai.onnx.preview.training"


def groups(inputs, count):
    """``inputs`` cut into ``count`` lists of equal length."""
    n = len(inputs) // count
    return [inputs[i * n : (i + 1) * n] for i in range(count)]


def regularized(node, x, g):
    return like(node.attr("norm_coefficient", 0.0), x) * x + g


@onnx_op("Adagrad", domain=DOMAIN)
def adagrad(node, rate, count, *tensors):
    xs, gs, hs = groups(tensors, 3)
    decay = node.attr("decay_factor", 0.0)
    epsilon = node.attr("epsilon", 1e-6)
    new_xs, new_hs = [], []
    for x, g, h in zip(xs, gs, hs, strict=True):
        r = as_dtype(rate, x.dtype) / (1 + as_dtype(count, x.dtype) * like(decay, x))
        g = regularized(node, x, g)
        h_new = h + g * g
        new_xs.append(x - r * g / (pt.sqrt(h_new) + like(epsilon, x)))
        new_hs.append(h_new)
    return new_xs + new_hs


@onnx_op("Momentum", domain=DOMAIN)
def momentum(node, rate, count, *tensors):
    xs, gs, vs = groups(tensors, 3)
    alpha, beta = node.attr("alpha"), node.attr("beta")
    nesterov = node.attr("mode", "standard") == "nesterov"
    new_xs, new_vs = [], []
    for x, g, v in zip(xs, gs, vs, strict=True):
        r = as_dtype(rate, x.dtype)
        g = regularized(node, x, g)
        beta_now = pt.switch(pt.gt(count, 0), like(beta, x), like(1.0, x))
        v_new = like(alpha, x) * v + beta_now * g
        step = g + like(alpha, x) * v_new if nesterov else v_new
        new_xs.append(x - r * step)
        new_vs.append(v_new)
    return new_xs + new_vs


@onnx_op("Adam", domain=DOMAIN)
def adam(node, rate, count, *tensors):
    xs, gs, vs, hs = groups(tensors, 4)
    alpha, beta = node.attr("alpha", 0.9), node.attr("beta", 0.999)
    epsilon = node.attr("epsilon", 1e-6)
    keep = 1 - node.attr("norm_coefficient_post", 0.0)
    new_xs, new_vs, new_hs = [], [], []
    for x, g, v, h in zip(xs, gs, vs, hs, strict=True):
        r, t = as_dtype(rate, x.dtype), as_dtype(count, x.dtype)
        g = regularized(node, x, g)
        v_new = like(alpha, x) * v + like(1 - alpha, x) * g
        h_new = like(beta, x) * h + like(1 - beta, x) * g * g
        corrected = r * pt.sqrt(1 - like(beta, x) ** t) / (1 - like(alpha, x) ** t)
        r = pt.switch(pt.gt(count, 0), corrected, r)
        x_new = x - r * v_new / (pt.sqrt(h_new) + like(epsilon, x))
        new_xs.append(like(keep, x) * x_new)
        new_vs.append(v_new)
        new_hs.append(h_new)
    return new_xs + new_vs + new_hs
