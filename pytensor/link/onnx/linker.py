from pytensor.link.basic import JITLinker

from pytensor.link.onnx.rewrites import INCOMPATIBLE_REWRITES, REQUIRED_REWRITES


class ONNXLinker(JITLinker):
    """A `Linker` that runs a whole `FunctionGraph` as one onnxruntime session.

    The rewritten graph is converted once into an ONNX ``ModelProto``
    (``self.onnx_model``) and loaded into a single
    ``onnxruntime.InferenceSession`` (``self.onnx_session``). Each call of the
    compiled function feeds the current input and shared-variable values to
    that session.

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
    """

    required_rewrites = REQUIRED_REWRITES
    incompatible_rewrites = INCOMPATIBLE_REWRITES

    def __init__(
        self, *args, opset=None, session_options=None, providers=None, **kwargs
    ):
        self.opset = opset
        self.session_options = session_options
        self.providers = providers
        self.onnx_model = None
        self.onnx_session = None
        super().__init__(*args, **kwargs)

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
        )

    def fgraph_convert(self, fgraph, **kwargs):
        from pytensor.link.onnx.builder import DEFAULT_OPSET
        from pytensor.link.onnx.dispatch import onnx_funcify

        converted = onnx_funcify(
            fgraph, opset=self.opset or DEFAULT_OPSET, random_generators=True
        )
        self.onnx_model = converted.model
        return converted

    def jit_compile(self, converted):
        from pytensor.link.onnx.session import ONNXFunction

        function = ONNXFunction(
            converted,
            self.fgraph,
            session_options=self.session_options,
            providers=self.providers,
        )
        self.onnx_session = function.session
        return function

    def create_thunk_inputs(self, storage_map):
        return [storage_map[inp] for inp in self.fgraph.inputs]
