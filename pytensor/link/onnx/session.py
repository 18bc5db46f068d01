from functools import partial

import numpy as np
from pytensor.scalar.basic import ScalarType
from pytensor.tensor.type import TensorType

from pytensor.link.onnx.generator_keys import GeneratorKeys


# onnxruntime 1.31's NoopElimination drops a float Mul or Div by a constant
# within about 1e-8 of 1, changing float64 results: x * (1 + 1e-9) becomes x.
DISABLED_OPTIMIZERS = ("NoopElimination",)


def default_session_options():
    """Session options used when the linker is given none."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return options


class ONNXFunction:
    """Call an ``InferenceSession`` with positional values, PyTensor-style.

    Returns the graph outputs in order, after raising the exception of the
    first failed runtime assertion (``CheckAndRaise``) if any. Random
    generators are fed and returned as `GeneratorKeys` describes.
    """

    def __init__(self, converted, fgraph, session_options=None, providers=None):
        import onnxruntime as ort

        self.model = converted.model
        providers = providers or ["CPUExecutionProvider"]
        try:
            self.session = ort.InferenceSession(
                self.model.SerializeToString(),
                sess_options=session_options or default_session_options(),
                providers=providers,
                disabled_optimizers=list(DISABLED_OPTIMIZERS),
            )
        except Exception as err:
            raise RuntimeError(
                "onnxruntime could not load the model converted from this graph. "
                "This is a bug in the ONNX backend's converters; please report it "
                f"with the graph.\nonnxruntime said: {err}"
            ) from err
        self.input_names = [info.name for info in self.model.graph.input]
        self.output_names = [info.name for info in self.model.graph.output]
        self.run_options = ort.RunOptions()
        self.run = self._runner(providers)
        # Values of tensor and scalar inputs that need np.asarray: Python
        # scalars, and array-likes when the function trusts its input
        self.array_inputs = [
            (i, name)
            for i, (name, inp) in enumerate(
                zip(self.input_names, fgraph.inputs, strict=True)
            )
            if isinstance(inp.type, ScalarType | TensorType)
        ]
        self.checks = converted.checks
        self.n_outputs = len(fgraph.outputs)
        self.scalar_outputs = [
            i
            for i, out in enumerate(fgraph.outputs)
            if isinstance(out.type, ScalarType)
        ]
        # onnxruntime returns 64-bit integers as long long, where NumPy's int64
        # is long: same values, another scalar type (numpy.longlong)
        self.retyped_outputs = [
            (i, np.dtype(out.type.dtype))
            for i, out in enumerate(fgraph.outputs)
            if getattr(out.type, "dtype", None) in ("int64", "uint64")
        ]
        self.generator_keys = GeneratorKeys.of(fgraph)

    def _runner(self, providers):
        """``session.run`` for this model's outputs, as cheap per call as possible.

        On the CPU provider, ``InferenceSession.run`` only validates, in
        Python, what this class guarantees (every input named, no ``OrtValue``
        of another device), and the binding it calls builds a default
        ``RunOptions`` when given none: together about 1.3 µs of the 3.4 µs a
        tiny model takes. The binding is called directly, with one
        ``RunOptions``. Other providers keep the public method and its
        fallback between providers.
        """
        binding = getattr(self.session, "_sess", None)
        if binding is None or list(providers) != ["CPUExecutionProvider"]:
            binding = self.session
        return partial(binding.run, self.output_names)

    def __call__(self, *values):
        if self.generator_keys is not None:
            values, drawn = self.generator_keys.keys(values)
        feed = dict(zip(self.input_names, values, strict=True))
        for i, name in self.array_inputs:
            if type(values[i]) is not np.ndarray:
                feed[name] = np.asarray(values[i])
        results = self.run(feed, self.run_options)
        if self.checks:
            for passed, (_, op) in zip(
                results[self.n_outputs :], self.checks, strict=True
            ):
                if not passed:
                    raise op.exc_type(op.msg)
            del results[self.n_outputs :]
        for i, dtype in self.retyped_outputs:
            results[i] = results[i].view(dtype)
        for i in self.scalar_outputs:
            results[i] = results[i][()]
        if self.generator_keys is not None:
            self.generator_keys.replace_keys(results, drawn)
        return results
