"""An exported model's weights: which are stored, merged when equal, and how."""

from collections.abc import Mapping

import numpy as np
from pytensor.compile.sharedvalue import SharedVariable

import onnx
from onnx import helper, numpy_helper
from pytensor.link.onnx.complex_pairs import as_onnx_array
from pytensor.link.onnx.passes.graphs import (
    model_without,
    names_used_inside,
    replace_uses,
)


def kept_weights(weight_names, weights_as_inputs) -> set[str]:
    kept = set()
    for weight in weights_as_inputs:
        name = weight.name if isinstance(weight, SharedVariable) else weight
        if name not in weight_names:
            raise ValueError(
                f"weights_as_inputs: the graph has no weight {name!r}; its weights "
                f"are {weight_names}"
            )
        kept.add(name)
    return kept


def bake_weights(model, weight_names, values, kept) -> dict[str, np.ndarray]:
    """Remove the weights from the inputs and merge equal values.

    Returns the distinct weights to store as initializers, by name; weights
    and constants equal to an earlier one are replaced by it, and unused
    constants are dropped.
    """
    graph = model.graph
    stored = {
        name: as_onnx_array(value)
        for name, value in zip(weight_names, values, strict=True)
        if name not in kept
    }
    inputs = [info for info in graph.input if info.name not in stored]
    del graph.input[:]
    graph.input.extend(inputs)
    constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    first_use = names_used_inside(graph)
    same_as = duplicates({n: stored[n] for n in first_use if n in stored} | constants)
    replace_uses(graph, same_as)
    used = names_used_inside(graph)
    kept_constants = [
        t for t in graph.initializer if t.name not in same_as and t.name in used
    ]
    del graph.initializer[:]
    graph.initializer.extend(kept_constants)
    return {n: stored[n] for n in used if n in stored and n not in same_as}


def add_initializer(graph, name, value):
    """Append ``value`` to the initializers, copying its data only once."""
    tensor = graph.initializer.add()
    tensor.name = name
    tensor.data_type = helper.np_dtype_to_tensor_dtype(value.dtype)
    tensor.dims.extend(value.shape)
    tensor.raw_data = np.asarray(
        value, dtype=value.dtype.newbyteorder("<"), order="C"
    ).tobytes()


def duplicates(arrays: Mapping[str, np.ndarray]) -> dict[str, str]:
    """``{name: name of the first array with the same dtype, shape and bytes}``."""
    same_as = {}
    first_of_kind: dict[tuple, list[str]] = {}
    for name, array in arrays.items():
        candidates = first_of_kind.setdefault((array.dtype.str, array.shape), [])
        for other in candidates:
            if same_bytes(array, arrays[other]):
                same_as[name] = other
                break
        else:
            candidates.append(name)
    return same_as


def same_bytes(a, b) -> bool:
    return np.array_equal(
        np.ascontiguousarray(a).reshape(-1).view(np.uint8),
        np.ascontiguousarray(b).reshape(-1).view(np.uint8),
    )


def skeleton_of(model, weights) -> onnx.ModelProto:
    """``model`` with each weight declared as an input of its type and shape."""
    skeleton = model_without(model, ())
    skeleton.graph.input.extend(
        helper.make_tensor_value_info(
            name, helper.np_dtype_to_tensor_dtype(value.dtype), value.shape
        )
        for name, value in weights.items()
    )
    return skeleton
