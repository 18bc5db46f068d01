"""Random ops as PyTensor random variables: RandomUniform(Like),
RandomNormal(Like) (and Bernoulli, through its function body), Dropout in
training mode.

Each node gets its own generator, a shared variable seeded with the node's
``seed`` if it has one; :attr:`ImportedModel.updates` advances them at every
call. PyTensor's generators are NumPy's ``Generator``: the same seed does not
give the numbers of ONNX's reference or onnxruntime.
"""

import numpy as np
import pytensor.tensor as pt

import pytensor
from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import cast, constant_value, like


def draw(node, distribution, *parameters, shape):
    """A draw of ``distribution`` with a new generator of ``node``."""
    seed = node.attr("seed")
    rng = pytensor.shared(
        np.random.default_rng(None if seed is None else int(seed)),
        name=f"{node.label} generator",
    )
    value = distribution(*parameters, size=shape, rng=rng)
    node.scope.updates[rng] = value.owner.outputs[0]
    return value


def dtype_of(node, default):
    to = node.attr("dtype")
    return default if to is None else node.dtype(to)


@onnx_op("RandomUniform")
def random_uniform(node):
    value = draw(
        node,
        pt.random.uniform,
        node.attr("low", 0.0),
        node.attr("high", 1.0),
        shape=node.attr("shape"),
    )
    return cast(value, dtype_of(node, node.dtype(1)))


@onnx_op("RandomUniformLike")
def random_uniform_like(node, x):
    value = draw(
        node,
        pt.random.uniform,
        node.attr("low", 0.0),
        node.attr("high", 1.0),
        shape=x.shape,
    )
    return cast(value, dtype_of(node, x.dtype))


@onnx_op("RandomNormal")
def random_normal(node):
    value = draw(
        node,
        pt.random.normal,
        node.attr("mean", 0.0),
        node.attr("scale", 1.0),
        shape=node.attr("shape"),
    )
    return cast(value, dtype_of(node, node.dtype(1)))


@onnx_op("RandomNormalLike")
def random_normal_like(node, x):
    value = draw(
        node,
        pt.random.normal,
        node.attr("mean", 0.0),
        node.attr("scale", 1.0),
        shape=x.shape,
    )
    return cast(value, dtype_of(node, x.dtype))


@onnx_op("Dropout")
def dropout(node, x, ratio=None, training_mode=None):
    """Identity outside training; in training, entries zeroed with probability
    ``ratio`` and the others scaled by ``1 / (1 - ratio)``."""
    training = pt.constant(False) if training_mode is None else training_mode
    if constant_value(training) is not None and not constant_value(training).any():
        return [x, pt.ones_like(x, dtype="bool")]
    ratio = like(node.attr("ratio", 0.5), x) if ratio is None else cast(ratio, x.dtype)
    kept = pt.ge(draw(node, pt.random.uniform, 0.0, 1.0, shape=x.shape), ratio)
    mask = pt.or_(kept, pt.invert(cast(training, "bool")))
    scale = pt.switch(cast(training, "bool"), 1 / (1 - ratio), like(1, x))
    return [pt.switch(mask, x * scale, like(0, x)), mask]
