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
from pytensor.link.onnx.importer.ops.common import as_dtype, constant_value, like


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


DISTRIBUTIONS = {
    "RandomUniform": (pt.random.uniform, ("low", 0.0), ("high", 1.0)),
    "RandomNormal": (pt.random.normal, ("mean", 0.0), ("scale", 1.0)),
}


def parameters(node, first, second):
    return [node.attr(*first), node.attr(*second)]


for op_type, (distribution, first, second) in DISTRIBUTIONS.items():

    @onnx_op(op_type)
    def random(node, distribution=distribution, first=first, second=second):
        shape = node.attr("shape")
        value = draw(node, distribution, *parameters(node, first, second), shape=shape)
        return as_dtype(value, dtype_of(node, node.dtype(1)))

    @onnx_op(f"{op_type}Like")
    def random_like(node, x, distribution=distribution, first=first, second=second):
        value = draw(
            node, distribution, *parameters(node, first, second), shape=x.shape
        )
        return as_dtype(value, dtype_of(node, x.dtype))


@onnx_op("Dropout")
def dropout(node, x, ratio=None, training_mode=None):
    """Identity outside training; in training, entries zeroed with probability
    ``ratio`` and the others scaled by ``1 / (1 - ratio)``."""
    training = pt.constant(False) if training_mode is None else training_mode
    if constant_value(training) is not None and not constant_value(training).any():
        return [x, pt.ones_like(x, dtype="bool")]
    ratio = (
        like(node.attr("ratio", 0.5), x) if ratio is None else as_dtype(ratio, x.dtype)
    )
    kept = pt.ge(draw(node, pt.random.uniform, 0.0, 1.0, shape=x.shape), ratio)
    mask = pt.or_(kept, pt.invert(as_dtype(training, "bool")))
    scale = pt.switch(as_dtype(training, "bool"), 1 / (1 - ratio), like(1, x))
    return [pt.switch(mask, x * scale, like(0, x)), mask]
