"""An ``onnx.backend`` that imports models with :func:`import_onnx` and runs
them with a PyTensor mode of the caller's choice.

>>> import pytensor.link.onnx.backend as backend  # doctest: +SKIP
>>> rep = backend.prepare(model, mode="NUMBA")  # doctest: +SKIP
>>> outputs = rep.run([x])  # doctest: +SKIP
"""

import numpy as np

import onnx
from onnx import helper
from onnx.backend.base import Backend, BackendRep


class PyTensorRep(BackendRep):
    """A model imported into PyTensor and compiled into one function.

    Attributes
    ----------
    imported
        The :class:`~pytensor.link.onnx.importer.ImportedModel`.
    function
        The compiled PyTensor function of its outputs.
    """

    def __init__(self, imported, function):
        self.imported = imported
        self.function = function

    def run(self, inputs, **kwargs):
        """Run the model on ``inputs`` (a list in input order, a dict by name,
        or a single array) and return its outputs as a tuple of arrays
        (lists of arrays for sequences)."""
        names = self.imported.input_names
        values = self.function(*in_order(inputs, names))
        return tuple(as_output(value) for value in values)


def in_order(inputs, names):
    """``inputs`` (a list, a dict by name or one array) as a list in ``names``' order."""
    if isinstance(inputs, dict):
        return [inputs[name] for name in names]
    if isinstance(inputs, np.ndarray) and len(names) == 1:
        return [inputs]
    return list(inputs[: len(names)])


def as_output(value):
    if isinstance(value, list):
        return [np.asarray(v) for v in value]
    return np.asarray(value)


class RankDeferredRep(BackendRep):
    """A model with inputs of undeclared rank, imported and compiled for the
    ranks of the values of each run (once per combination of ranks)."""

    def __init__(self, model, mode, kwargs):
        self.model = model
        self.mode = mode
        self.kwargs = kwargs
        self.compiled = {}

    def run(self, inputs, **kwargs):
        names = [i.name for i in real_inputs(self.model)]
        inputs = in_order(inputs, names)
        shapes = dict(zip(names, map(any_shape, inputs), strict=False))
        shapes |= self.kwargs.get("input_shapes") or {}
        key = tuple(sorted((n, len(s)) for n, s in shapes.items()))
        if key not in self.compiled:
            options = self.kwargs | {"input_shapes": shapes}
            self.compiled[key] = compile_model(self.model, self.mode, options)
        return self.compiled[key].run(inputs)


def any_shape(value):
    """A shape of the rank of ``value`` (of its elements for a list)."""
    if isinstance(value, list | tuple):
        if not value:
            raise ValueError("a sequence input of undeclared rank cannot be empty")
        value = value[0]
    return (None,) * np.ndim(value)


def real_inputs(model):
    initializers = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initializers]


def undeclared_ranks(model):
    """The names of the inputs of ``model`` whose rank is not declared."""
    names = []
    for info in real_inputs(model):
        tensor = info.type.tensor_type
        if info.type.WhichOneof("value") == "sequence_type":
            tensor = info.type.sequence_type.elem_type.tensor_type
        if not tensor.HasField("shape"):
            names.append(info.name)
    return names


def compile_model(model, mode, kwargs):
    import pytensor
    from pytensor.link.onnx.importer import import_onnx

    imported = import_onnx(model, **kwargs)
    function = pytensor.function(
        imported.inputs,
        imported.outputs,
        mode=mode,
        updates=imported.updates,
        on_unused_input="ignore",
        accept_inplace=True,
    )
    return PyTensorRep(imported, function)


class PyTensorBackend(Backend):
    """``onnx.backend.base.Backend`` running imported models with PyTensor.

    Subclasses may set ``mode``, the PyTensor mode used when ``prepare`` is
    not given one (``None``: PyTensor's default mode).
    """

    mode = None

    @classmethod
    def prepare(cls, model, device="CPU", mode=None, **kwargs):
        """Import ``model`` and compile it.

        A model with inputs of undeclared rank (and no ``input_shapes`` for
        them) is imported at its first run, with the ranks of the values given.

        Parameters
        ----------
        model
            A ``ModelProto``, its bytes or a path.
        device
            Only ``"CPU"``.
        mode
            The PyTensor mode to compile with (a name or a ``Mode``); the
            class's ``mode`` when ``None``.
        **kwargs
            Passed to :func:`~pytensor.link.onnx.import_onnx`
            (``input_shapes``, ``float_dtype``, ...).

        Returns
        -------
        PyTensorRep
        """
        from pytensor.link.onnx.importer.loading import load_model

        if not cls.supports_device(device):
            raise ValueError(f"the PyTensor backend runs on the CPU, not {device}")
        mode = cls.mode if mode is None else mode
        model = load_model(model, base_dir=kwargs.pop("base_dir", None))
        given = kwargs.get("input_shapes") or {}
        if any(name not in given for name in undeclared_ranks(model)):
            return RankDeferredRep(model, mode, kwargs)
        return compile_model(model, mode, kwargs)

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        """Run one ``NodeProto`` on ``inputs`` (arrays, in the node's input order)."""
        opset = kwargs.pop("opset_version", onnx.defs.onnx_opset_version())
        names = [name for name in node.input if name]
        value_infos = [
            helper.make_tensor_value_info(
                name, helper.np_dtype_to_tensor_dtype(np.asarray(x).dtype), np.shape(x)
            )
            for name, x in zip(names, inputs, strict=True)
        ]
        outputs = [helper.make_empty_tensor_value_info(n) for n in node.output if n]
        graph = helper.make_graph([node], "run_node", value_infos, outputs)
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid(node.domain or "", opset)],
            ir_version=onnx.IR_VERSION,
        )
        model = onnx.shape_inference.infer_shapes(model)
        return cls.prepare(model, device, **kwargs).run(list(inputs))

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device.upper() == "CPU"


prepare = PyTensorBackend.prepare
run_model = PyTensorBackend.run_model
run_node = PyTensorBackend.run_node
supports_device = PyTensorBackend.supports_device
