"""The ONNX names of an exported model's inputs, weights and outputs."""

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

from pytensor.link.onnx.builder import UniqueNames, sanitize_name
from pytensor.link.onnx.export.exportable import ExportableGraph, is_random_generator
from pytensor.link.onnx.generator_keys import generator_origin


@dataclass(frozen=True)
class InputOutputNames:
    """The ONNX names of the explicit inputs, the weights and the outputs.

    ``random_keys`` maps the name of each random generator's key input to the
    name of the output that returns its advanced key (``None`` if the
    function neither updates nor returns that generator).
    """

    inputs: list[str]
    weights: list[str]
    outputs: list[str]
    random_keys: dict[str, str | None]

    @property
    def all_inputs(self) -> list[str]:
        return self.inputs + self.weights

    @classmethod
    def of(cls, graph: ExportableGraph, input_renames, output_renames):
        """Default names (unnamed random generators are ``key_<i>``), then renames."""
        unique = UniqueNames()
        keys = (f"key_{i}" for i in itertools.count())

        def defaults(names, prefix, variables=None):
            def default(i):
                if variables is not None and is_random_generator(variables[i]):
                    return next(keys)
                return f"{prefix}_{i}"

            return [unique.reserve(name or default(i)) for i, name in enumerate(names)]

        weight_names = [w.name for w in graph.weight_inputs]
        inputs = defaults(graph.input_names, "input", graph.explicit_inputs)
        weights = defaults(weight_names, "weight", graph.weight_inputs)
        outputs = defaults(graph.output_names, "output")
        inputs = renamed(inputs, input_renames, "input")
        outputs = renamed(outputs, output_renames, "output")
        all_inputs = inputs + weights
        outputs += [
            unique.reserve(f"{all_inputs[i]}_next") for i in graph.updated_generators
        ]
        random_keys = advanced_keys(graph, all_inputs, outputs)
        all_names = all_inputs + outputs
        duplicates = sorted({n for n in all_names if all_names.count(n) > 1})
        if duplicates:
            raise ValueError(f"Input and output names must be unique: {duplicates}")
        return cls(inputs, weights, outputs, random_keys)


def advanced_keys(graph: ExportableGraph, input_names, output_names):
    """``{key input: the output of its advanced key, or None}``.

    The new value of a generator the function updates, else the first output
    that is the generator advanced by the function's draws.
    """
    fgraph = graph.fgraph
    advanced = {}
    for position, out in enumerate(fgraph.outputs):
        origin = generator_origin(out, fgraph.inputs)
        if origin is not None and origin[1] > 0:
            advanced.setdefault(origin[0], output_names[position])
    n_own = len(graph.output_names)
    for offset, generator in enumerate(graph.updated_generators):
        advanced[generator] = output_names[n_own + offset]
    return {input_names[i]: advanced.get(i) for i in graph.generator_inputs}


def renamed(names, renames, role):
    if renames is None:
        return names
    if isinstance(renames, Mapping):
        unknown = set(renames) - set(names)
        if unknown:
            raise ValueError(
                f"No {role} called {sorted(unknown)}; the {role}s are {names}"
            )
        new = [renames.get(name, name) for name in names]
    else:
        new = list(renames)
        if len(new) != len(names):
            raise ValueError(
                f"{role}_names has {len(new)} names for {len(names)} {role}s {names}"
            )
    for name in new:
        if not isinstance(name, str) or sanitize_name(name) != name:
            raise ValueError(
                f"{name!r} is not a valid {role} name: use letters, digits and "
                "underscores, not starting with a digit"
            )
    return new
