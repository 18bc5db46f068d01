"""Export compiled PyTensor functions as self-contained ONNX files."""

import os
import tempfile
from pathlib import Path

import numpy as np
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.fg import FunctionGraph

import onnx
from onnx import numpy_helper
from pytensor.link.onnx.builder import DEFAULT_OPSET


def export_onnx(fn, path=None, *, opset: int = DEFAULT_OPSET) -> onnx.ModelProto:
    """Convert a compiled PyTensor function into a self-contained ONNX model.

    The model computes the function's outputs from its explicit inputs. The
    current values of the shared variables it reads become initializers
    (weights baked in); updates are not part of the model. Runtime assertions
    (``CheckAndRaise``/``Assert``) are dropped: the model computes the outputs
    as if every assertion held.

    Parameters
    ----------
    fn
        A function returned by ``pytensor.function``, compiled in any mode.
    path
        Where to write the ``.onnx`` file. The file is written atomically: on
        failure no partial file is left and an existing file is untouched.
    opset
        Opset version of the default ONNX domain.

    Returns
    -------
    onnx.ModelProto
        The model, checked with ``onnx.checker.check_model(full_check=True)``.

    Examples
    --------
    >>> import numpy as np, pytensor, pytensor.tensor as pt
    >>> from pytensor.link.onnx import export_onnx
    >>> x = pt.vector("x")
    >>> w = pytensor.shared(np.array([1.0, 2.0]), name="w")
    >>> f = pytensor.function([x], (x * w).sum())
    >>> model = export_onnx(f)
    >>> [i.name for i in model.graph.input], [t.name for t in model.graph.initializer]
    (['x'], ['w'])
    """
    from pytensor.link.onnx.dispatch import onnx_funcify

    fgraph = fn.maker.fgraph
    n_outputs = len(fn.maker.outputs)
    user_fgraph = FunctionGraph(
        fgraph.inputs, fgraph.outputs[:n_outputs], clone=False, features=[]
    )
    output_names = [
        out.variable.name or f"output_{i}" for i, out in enumerate(fn.maker.outputs)
    ]
    converted = onnx_funcify(
        user_fgraph, opset=opset, output_names=output_names, keep_checks=False
    )
    model = converted.model
    _bake_shared_variables(model, fgraph.inputs, fn)
    onnx.checker.check_model(model, full_check=True)
    if path is not None:
        _write_atomically(model, Path(path))
    return model


def _bake_shared_variables(model, inputs, fn):
    """Turn shared-variable inputs into initializers holding their current value.

    Shared variables that only feed updates are dropped.
    """
    graph = model.graph
    used = {name for node in graph.node for name in node.input}
    shared_values = {
        info.name: storage.data
        for info, var, storage in zip(
            list(graph.input), inputs, fn.input_storage, strict=True
        )
        if isinstance(var, SharedVariable)
    }
    explicit_inputs = [info for info in graph.input if info.name not in shared_values]
    del graph.input[:]
    graph.input.extend(explicit_inputs)
    graph.initializer.extend(
        numpy_helper.from_array(np.asarray(value), name)
        for name, value in shared_values.items()
        if name in used
    )


def _write_atomically(model, path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(model.SerializeToString())
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
