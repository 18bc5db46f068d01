"""How a function compiled with mode="ONNX" feeds and returns random generators.

The model takes each random generator as a uint64 key (see
`pytensor.link.onnx.numerics.random`) and returns keys where the function
returns generators; `GeneratorKeys` reads a ``FunctionGraph`` to convert
between the two around each call.
"""

from dataclasses import dataclass

import numpy as np
from pytensor.compile.ops import DeepCopyOp, ViewOp
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.random.type import RandomType
from pytensor.tensor.random.utils import custom_rng_deepcopy

from pytensor.link.onnx.numerics.random import draw_key


def random_key(seed=None) -> np.ndarray:
    """The key that stands for a random generator in a model, as a 0-d uint64 array.

    A function compiled with mode="ONNX" feeds each generator ``rng`` to its
    model as ``random_key(rng)``, and an exported model takes the key as an
    input: a model run with the same key draws the same numbers, in
    onnxruntime, onnxruntime-web or mode="ONNX".

    Parameters
    ----------
    seed
        A ``numpy.random.Generator`` (left unchanged), or anything
        ``numpy.random.default_rng`` accepts: ``random_key(seed)`` is the key
        of ``numpy.random.default_rng(seed)``.

    Returns
    -------
    numpy.ndarray
        The next 64 random bits of (a copy of) the generator.

    Examples
    --------
    >>> import numpy as np
    >>> from pytensor.link.onnx import random_key
    >>> key = random_key(42)
    >>> key.dtype, key.shape
    (dtype('uint64'), ())
    >>> bool(key == random_key(np.random.default_rng(42)))
    True
    """
    if isinstance(seed, np.random.Generator):
        generator = custom_rng_deepcopy(seed)
    else:
        generator = np.random.default_rng(seed)
    return np.asarray(draw_key(generator))


def generator_origin(var, inputs) -> tuple[int, int] | None:
    """Which input generator ``var`` is, advanced by how many ``RandomVariable`` nodes.

    ``None`` if ``var`` comes from anything else.
    """
    advances = 0
    while var.owner is not None:
        node = var.owner
        if isinstance(node.op, RandomVariable) and var is node.outputs[0]:
            advances += 1
        elif not isinstance(node.op, DeepCopyOp | ViewOp):
            return None
        var = node.inputs[0]
    return (inputs.index(var), advances) if var in inputs else None


@dataclass(frozen=True)
class GeneratorKeys:
    """How a function compiled with mode="ONNX" takes and returns random generators.

    The model takes each random generator input as a key: the next 64 random
    bits of a copy of the generator, which itself stays unchanged (so, as in
    PyTensor, a generator that no update replaces gives the same draws at
    every call).

    A random generator output that is an input generator advanced by ``n``
    ``RandomVariable`` nodes is returned as a copy of that generator advanced
    by ``n`` keys, the first of which is the key the model got: with
    ``updates={rng: next_rng}``, successive calls take successive keys of the
    generator's own stream. Any other generator output is a new PCG64
    generator seeded with the key the model computed for it.

    Attributes
    ----------
    inputs
        Positions of the random generator inputs.
    outputs
        Position of each random generator output and its `generator_origin`.
    """

    inputs: tuple[int, ...]
    outputs: tuple[tuple[int, tuple[int, int] | None], ...]

    @classmethod
    def of(cls, fgraph) -> "GeneratorKeys | None":
        """The `GeneratorKeys` of ``fgraph``, ``None`` if it has no random generators."""
        inputs = tuple(
            i for i, var in enumerate(fgraph.inputs) if isinstance(var.type, RandomType)
        )
        outputs = tuple(
            (i, generator_origin(var, fgraph.inputs))
            for i, var in enumerate(fgraph.outputs)
            if isinstance(var.type, RandomType)
        )
        return cls(inputs, outputs) if inputs or outputs else None

    def keys(self, values):
        """``values`` with keys in place of generators, and what was drawn.

        The second result maps each generator input's position to the
        generator and the copy of it that its key was drawn from.
        """
        values = list(values)
        drawn = {}
        for i in self.inputs:
            advanced = custom_rng_deepcopy(values[i])
            drawn[i] = (values[i], advanced)
            values[i] = np.asarray(draw_key(advanced))
        return values, drawn

    def replace_keys(self, outputs, drawn):
        """Replace the keys of the generator outputs by generators, in place."""
        handed_out = set()
        for position, origin in self.outputs:
            if origin is None:
                outputs[position] = np.random.default_rng(int(outputs[position]))
                continue
            i, advances = origin
            generator, advanced = drawn[i]
            if advances == 0:
                outputs[position] = custom_rng_deepcopy(generator)
                continue
            if i in handed_out:
                advanced = custom_rng_deepcopy(generator)
                draw_key(advanced)
            handed_out.add(i)
            for _ in range(advances - 1):
                draw_key(advanced)
            outputs[position] = advanced
