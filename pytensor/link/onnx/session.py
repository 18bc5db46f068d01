import re
from functools import partial

import numpy as np
from pytensor.scalar.basic import ScalarType
from pytensor.tensor.type import TensorType

from pytensor.link.onnx.complex_pairs import as_real_pairs, from_real_pairs, is_complex
from pytensor.link.onnx.generator_keys import GeneratorKeys


# onnxruntime's NoopElimination (1.31) drops a float Mul or Div by a constant
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


class ONNXRuntimeFailure(RuntimeError):
    """onnxruntime failed to run a converted graph where no runtime check
    (PyTensor's own errors) failed: a bug of the converter of ``node``."""

    def __init__(self, message, node=None):
        super().__init__(message)
        self.node = node

    @classmethod
    def of(cls, err, sources):
        match = re.search(r"running (\w+) node\. Name:'([^']*)'", str(err))
        node = sources.get(match.group(2)) if match else None
        if node is None:
            where = "a node of the converted graph"
        else:
            where = (
                f"the {match.group(1)} node converted from the PyTensor node {node} "
                f"(Op {type(node.op).__name__})"
            )
        return cls(
            f"onnxruntime failed to run {where}, for inputs that passed every "
            "runtime check PyTensor makes. This is a bug in the ONNX backend: "
            "please report it with the graph and the inputs. (onnxruntime's "
            "message is the cause of this exception.)",
            node,
        )


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
        # A failed run raises a PyTensor error (see `failure`); onnxruntime
        # would also print its own message to stderr
        self.run_options.log_severity_level = 4
        self.sources = converted.sources
        self.checks_only = None
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
        # Complex values cross the boundary as the real pairs of their parts
        self.complex_inputs = [
            (i, name, inp.type.dtype)
            for i, (name, inp) in enumerate(
                zip(self.input_names, fgraph.inputs, strict=True)
            )
            if is_complex(inp)
        ]
        self.complex_outputs = [
            (i, out.type.dtype)
            for i, out in enumerate(fgraph.outputs)
            if is_complex(out)
        ]
        self.checks = converted.checks
        self.failure_checks = converted.failure_checks
        self.diagnostic_model = converted.diagnostic_model or self.model
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

    def failure(self, feed, err) -> Exception:
        """The error of a failed run: the PyTensor exception of the first
        runtime check that fails on ``feed`` (the checks onnxruntime makes
        itself last), else an `ONNXRuntimeFailure` naming the PyTensor node
        whose converted node failed."""
        checks = self.checks + self.failure_checks
        if checks:
            for passed, (_, op) in zip(
                self.run_checks(feed, checks), checks, strict=True
            ):
                if not passed:
                    return op.exc_type(op.msg)
        return ONNXRuntimeFailure.of(err, self.sources)

    def run_checks(self, feed, checks):
        """The values of ``checks`` on ``feed``, all at once or, where one
        cannot run (it needs a value whose computation failed, and counts as
        passed), one after another as they are read."""
        names = [name for name, _ in checks]
        try:
            if self.checks_only is None:
                self.checks_only = self.checks_session(names)
            return self.checks_only.run(None, feed, self.run_options)
        except Exception:
            return (self.check_passes(name, feed) for name in names)

    def check_passes(self, check_name, feed) -> bool:
        try:
            [passed] = self.checks_session([check_name]).run(
                None, feed, self.run_options
            )
        except Exception:
            return True
        return bool(passed)

    def checks_session(self, check_names):
        """A session computing the outputs ``check_names`` of the model with
        every check, alone."""
        import onnxruntime as ort

        from onnx.utils import Extractor

        model = Extractor(self.diagnostic_model).extract_model(
            self.input_names, check_names
        )
        return ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )

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
                if values[i] is None:
                    raise TypeError(
                        f"mode ONNX takes arrays, not None, for the input {name}"
                    )
                feed[name] = np.asarray(values[i])
        for i, name, dtype in self.complex_inputs:
            feed[name] = as_real_pairs(np.asarray(values[i], dtype=dtype))
        try:
            results = self.run(feed, self.run_options)
        except Exception as err:
            raise self.failure(feed, err) from err
        if self.checks:
            for passed, (_, op) in zip(
                results[self.n_outputs :], self.checks, strict=True
            ):
                if not passed:
                    raise op.exc_type(op.msg)
            del results[self.n_outputs :]
        for i, dtype in self.retyped_outputs:
            results[i] = results[i].view(dtype)
        for i, dtype in self.complex_outputs:
            results[i] = from_real_pairs(results[i], dtype)
        for i in self.scalar_outputs:
            results[i] = results[i][()]
        if self.generator_keys is not None:
            self.generator_keys.replace_keys(results, drawn)
        return results
