import numpy as np
from pytensor.scalar.basic import ScalarType

from pytensor.link.onnx.dispatch.random import GeneratorKeys


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
        try:
            self.session = ort.InferenceSession(
                self.model.SerializeToString(),
                sess_options=session_options or default_session_options(),
                providers=providers or ["CPUExecutionProvider"],
            )
        except Exception as err:
            raise RuntimeError(
                "onnxruntime could not load the model converted from this graph. "
                "This is a bug in the ONNX backend's converters; please report it "
                f"with the graph.\nonnxruntime said: {err}"
            ) from err
        self.input_names = [info.name for info in self.model.graph.input]
        self.checks = converted.checks
        self.n_outputs = len(fgraph.outputs)
        self.scalar_outputs = [
            i
            for i, out in enumerate(fgraph.outputs)
            if isinstance(out.type, ScalarType)
        ]
        self.generator_keys = GeneratorKeys.of(fgraph)

    def __call__(self, *values):
        if self.generator_keys is not None:
            values, drawn = self.generator_keys.keys(values)
        feed = {
            name: np.asarray(value)
            for name, value in zip(self.input_names, values, strict=True)
        }
        results = self.session.run(None, feed)
        for passed, (_, op) in zip(results[self.n_outputs :], self.checks, strict=True):
            if not passed:
                raise op.exc_type(op.msg)
        outputs = results[: self.n_outputs]
        for i in self.scalar_outputs:
            outputs[i] = outputs[i][()]
        if self.generator_keys is not None:
            self.generator_keys.replace_keys(outputs, drawn)
        return outputs
