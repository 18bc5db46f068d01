"""The dims an exported model declares for its inputs and outputs."""

from collections.abc import Mapping

import numpy as np

import onnx
from pytensor.link.onnx.passes.graphs import model_without


def set_input_dims(model, dims: Mapping) -> bool:
    """Name or fix input dims as ``dims`` says; return whether a static one became symbolic."""
    inputs = {info.name: info for info in model.graph.input}
    relaxed = False
    for name, sizes in dims.items():
        if name not in inputs:
            raise ValueError(
                f"dims: the model has no input {name!r}; its inputs are {list(inputs)}"
            )
        shape = inputs[name].type.tensor_type.shape
        sizes = list(sizes)
        if len(sizes) != len(shape.dim):
            raise ValueError(
                f"dims[{name!r}] has {len(sizes)} entries for an input of rank "
                f"{len(shape.dim)}"
            )
        for axis, (dim, size) in enumerate(zip(shape.dim, sizes, strict=True)):
            if size is None:
                continue
            if isinstance(size, str) and size:
                relaxed |= dim.HasField("dim_value")
                dim.dim_param = size
            elif isinstance(size, int | np.integer) and size >= 0:
                if dim.HasField("dim_value") and dim.dim_value != size:
                    raise ValueError(
                        f"dims[{name!r}][{axis}] = {size} contradicts the static size "
                        f"{dim.dim_value} of the variable's type"
                    )
                dim.dim_value = int(size)
            else:
                raise ValueError(
                    f"dims[{name!r}][{axis}] must be a name, a size or None, not "
                    f"{size!r}"
                )
    return relaxed


def name_output_dims(model, skeleton, static_dims_relaxed: bool):
    """Declare the output dims that shape inference derives from the inputs.

    Replaces the default symbolic dims, and also the static ones (which come
    from PyTensor's types) when some input dims the types fix were made
    symbolic. The dims inference cannot derive stay or become
    ``<output>_dim<axis>``.
    """
    probe = model_without(skeleton, ())
    cleared = []
    for index, info in enumerate(probe.graph.output):
        for axis, dim in enumerate(info.type.tensor_type.shape.dim):
            default = dim.dim_param == f"{info.name}_dim{axis}"
            if default or (static_dims_relaxed and dim.HasField("dim_value")):
                cleared.append((index, axis))
                dim.Clear()
    if not cleared:
        return
    inferred = onnx.shape_inference.infer_shapes(probe, data_prop=True)
    for index, axis in cleared:
        dim = inferred.graph.output[index].type.tensor_type.shape.dim[axis]
        for declaring in (model, skeleton):
            info = declaring.graph.output[index]
            declared = info.type.tensor_type.shape.dim[axis]
            if dim.HasField("dim_value"):
                declared.dim_value = dim.dim_value
            else:
                # shape inference names dims it cannot relate "unk__<n>"
                inferred_name = dim.dim_param.removeprefix("unk__") != dim.dim_param
                declared.dim_param = (
                    dim.dim_param
                    if dim.dim_param and not inferred_name
                    else f"{info.name}_dim{axis}"
                )
