from threading import Lock

from pytensor.link.basic import JITLinker
from pytensor.link.utils import raise_with_op

from pytensor.link.onnx.rewrites.configuration import (
    INCOMPATIBLE_REWRITES,
    REQUIRED_REWRITES,
)
from pytensor.link.onnx.session import ONNXRuntimeFailure
from pytensor.link.onnx.shared_shapes import (
    ShapeGuardedFunction,
    shared_shapes,
    with_static_shapes,
)


class ONNXLinker(JITLinker):
    """A `Linker` that runs a whole `FunctionGraph` as one onnxruntime session.

    The rewritten graph is converted once into an ONNX ``ModelProto``
    (``self.onnx_model``) and loaded into a single
    ``onnxruntime.InferenceSession`` (``self.onnx_session``). Each call of the
    compiled function feeds the current input and shared-variable values to
    that session.

    The model is built for the shapes the shared values have when the
    function is compiled (where their types leave lengths other than 1
    unknown), so that converters choose the code of those sizes. A call on
    shared values of other shapes runs a model for any shape, converted on
    the first such call.

    A compiled function pickles with its model; unpickling loads the model
    into a new session without converting the graph again.

    The thunk writes the updated values of shared variables itself, after the
    session has run and every runtime assertion has held, under a lock that
    all ONNX functions with updates share: like calls in PyTensor's other
    modes, which hold the GIL throughout, concurrent calls cannot lose
    updates. A failed assertion leaves every shared variable unchanged.

    Parameters
    ----------
    opset
        Opset version of the default ONNX domain used for the model.
    session_options
        ``onnxruntime.SessionOptions`` for the session; by default one
        intra-op thread (faster than a thread pool for typical PyTensor
        graphs on small machines) and all graph optimizations.
    providers
        onnxruntime execution providers, ``["CPUExecutionProvider"]`` by default.
    specialize_shared_shapes
        Whether the model is built for the shapes of the shared values
        (``True``, the default) or for any shape (``False``).
    """

    required_rewrites = REQUIRED_REWRITES
    incompatible_rewrites = INCOMPATIBLE_REWRITES

    def __init__(
        self,
        *args,
        opset=None,
        session_options=None,
        providers=None,
        specialize_shared_shapes=True,
        **kwargs,
    ):
        self.opset = opset
        self.session_options = session_options
        self.providers = providers
        self.specialize_shared_shapes = specialize_shared_shapes
        self.static_shapes = {}
        self.onnx_graph = None
        self.onnx_session = None
        self.updated_vars = {}
        super().__init__(*args, **kwargs)

    @property
    def onnx_model(self):
        """The ONNX ``ModelProto`` of the function, once converted."""
        return None if self.onnx_graph is None else self.onnx_graph.model

    def __getstate__(self):
        state = self.__dict__.copy()
        state["onnx_session"] = None
        if self.session_options is not None:
            state["session_options"] = session_options_settings(self.session_options)
        return state

    def __setstate__(self, state):
        settings = state["session_options"]
        if settings is not None:
            state["session_options"] = session_options_from(settings)
        self.__dict__.update(state)

    def accept(self, fgraph, no_recycling=None, profile=None):
        if self.fgraph is not None and self.fgraph is not fgraph:
            # One linker per compiled function; keep the ONNX settings
            return self.unbound_copy().accept(fgraph, no_recycling, profile)
        return super().accept(fgraph, no_recycling, profile)

    def unbound_copy(self):
        return type(self)(
            allow_gc=self.allow_gc,
            opset=self.opset,
            session_options=self.session_options,
            providers=self.providers,
            specialize_shared_shapes=self.specialize_shared_shapes,
        )

    def fgraph_convert(self, fgraph, storage_map=None, **kwargs):
        """The ONNX graph of ``fgraph``, converted once, for the shapes of
        the shared values in ``storage_map`` (see the class)."""
        if self.onnx_graph is None:
            specialized = None
            if self.specialize_shared_shapes and storage_map is not None:
                shapes = shared_shapes(fgraph, storage_map)
                specialized = with_static_shapes(fgraph, shapes) if shapes else None
                self.static_shapes = shapes if specialized else {}
            self.onnx_graph = self.convert(specialized or fgraph)
        return self.onnx_graph

    def convert(self, fgraph):
        from pytensor.link.onnx.builder import DEFAULT_OPSET
        from pytensor.link.onnx.dispatch import onnx_funcify
        from pytensor.link.onnx.pymc import register_converters

        register_converters()
        return onnx_funcify(
            fgraph, opset=self.opset or DEFAULT_OPSET, random_generators=True
        )

    def jit_compile(self, converted):
        function = self.session_function(converted)
        self.onnx_session = function.session
        if self.static_shapes:
            return ShapeGuardedFunction(
                function,
                self.static_shapes,
                lambda: self.session_function(self.convert(self.fgraph)),
            )
        return function

    def session_function(self, converted):
        from pytensor.link.onnx.session import ONNXFunction

        return ONNXFunction(
            converted,
            self.fgraph,
            session_options=self.session_options,
            providers=self.providers,
        )

    def create_thunk_inputs(self, storage_map):
        return [storage_map[inp] for inp in self.fgraph.inputs]

    def accept_var_updates(self, updated_vars):
        """Take ``{shared input: its new value}``: the thunk writes the updates."""
        self.updated_vars = updated_vars

    def create_jitable_thunk(
        self, compute_map, order, input_storage, output_storage, storage_map
    ):
        """One thunk running the session: it reads this call's inputs, returns
        its own outputs and, atomically, writes the updates (see the class)."""
        converted = self.fgraph_convert(self.fgraph, storage_map=storage_map)
        run = self.jit_compile(converted)
        fgraph = self.fgraph
        input_cells = self.create_thunk_inputs(storage_map)
        output_cells = [storage_map[out] for out in fgraph.outputs]
        updates = [
            (fgraph.inputs.index(inp), fgraph.outputs.index(out))
            for inp, out in self.updated_vars.items()
        ]
        output_nodes = [out.owner for out in fgraph.outputs if out.owner][:1]

        def thunk():
            values = [cell[0] for cell in input_cells]
            try:
                if updates:
                    return run_and_update(run, values, cells, updates)
                return store(run(*values), output_cells)
            except ONNXRuntimeFailure:
                raise  # it names the node already; PyTensor 2's raise_with_op
                # would re-create it from its message, without its `node`
            except Exception:
                if not output_nodes:
                    raise
                raise_with_op(fgraph, output_nodes[0], thunk)

        cells = (input_cells, output_cells)

        thunk.inputs, thunk.outputs, thunk.lazy = input_cells, output_cells, False
        thunk.need_update_inputs = False
        return [thunk], output_nodes, run


def session_options_settings(options) -> dict:
    """The settings of ``onnxruntime.SessionOptions``, which do not pickle."""
    return {
        name: getattr(options, name)
        for name in dir(type(options))
        if isinstance(getattr(type(options), name), property)
        and not name.startswith("_")
    }


def session_options_from(settings: dict):
    import onnxruntime as ort

    options = ort.SessionOptions()
    for name, value in settings.items():
        setattr(options, name, value)
    return options


# Held by a call of an ONNX function with updates from reading its shared
# inputs to writing their new values (onnxruntime releases the GIL while a
# session runs, so without it concurrent calls would lose updates)
UPDATES_LOCK = Lock()


def store(outputs, output_cells):
    for cell, value in zip(output_cells, outputs, strict=True):
        cell[0] = value
    return outputs


def run_and_update(run, values, cells, updates):
    """``run(*values)`` on the current values of the updated inputs, writing
    their new values before any other call can read them."""
    input_cells, output_cells = cells
    with UPDATES_LOCK:
        for position, _ in updates:
            values[position] = input_cells[position][0]
        outputs = store(run(*values), output_cells)
        for position, output in updates:
            input_cells[position][0] = outputs[output]
    return outputs
