"""Check an exported model against PyTensor before it ships."""

import re
from dataclasses import dataclass

import numpy as np
from pytensor.compile.mode import Mode
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.utils import get_variable_trace_string

import onnx
from pytensor.link.onnx.complex_pairs import as_onnx_array, from_real_pairs, is_complex
from pytensor.link.onnx.dispatch import onnx_funcify
from pytensor.link.onnx.dispatch.variables import unsupported_type_reason
from pytensor.link.onnx.export.exportable import fresh_op, rebuild
from pytensor.link.onnx.session import default_session_options


DEFAULT_RTOL = {"float16": 1e-2, "float32": 1e-4, "float64": 1e-9}
DIM_SIZES = (0, 1, 7)
BASE_SIZE = 3


class ONNXVerificationError(RuntimeError):
    """The exported model does not compute what the PyTensor graph computes."""


@dataclass(frozen=True)
class DimProblem:
    """A symbolic dimension the model does not follow."""

    dim: str
    size: int
    axes: tuple[tuple[str, int], ...]
    issue: str

    def __str__(self):
        where = ", ".join(f"{name} axis {axis}" for name, axis in self.axes)
        return f"at {self.dim}={self.size} ({where}): {self.issue}"


def verify_export(
    prepared, runnable, *, runtimes=("onnxruntime",), example_inputs=None, seed=0
):
    """Compare the model with PyTensor on example or generated inputs.

    Parameters
    ----------
    prepared
        The :class:`~pytensor.link.onnx.export.PreparedExport` of the model.
    runnable
        The serialized model, or the path of its file (external data).
    runtimes
        ``"onnxruntime"`` and/or ``"reference"`` (``onnx.reference.ReferenceEvaluator``).
        With onnxruntime, every symbolic input dimension is also tried at the
        sizes :data:`DIM_SIZES`.
    example_inputs
        Values of the explicit inputs (a list, or a dict by ONNX name);
        generated from the input types by default.

    Returns
    -------
    feeds, expected
        The model inputs by name, and PyTensor's outputs for them.

    Raises
    ------
    ONNXVerificationError
        Naming the first PyTensor node whose value the model gets wrong, or
        the symbolic dimensions it does not follow.
    """
    rng = np.random.default_rng(seed)
    reference = PyTensorReference(prepared)
    feeds, expected = evaluable_feeds(prepared, reference, example_inputs, rng)
    for runtime in runtimes:
        run = runner(runtime, runnable)
        actual = run(feeds)
        problem = first_mismatch(prepared.output_names, actual, expected)
        if problem is not None:
            raise ONNXVerificationError(
                f"The model run by {runtime} differs from PyTensor on "
                f"{describe(feeds)}: {problem}.\n"
                + locate_divergence(prepared, feeds, runtime)
            )
        if runtime == "onnxruntime":
            problems = dim_problems(prepared, run, reference, feeds, rng)
            if problems:
                raise ONNXVerificationError(
                    "The model does not follow its symbolic dimensions (a size "
                    "baked into a constant?):\n" + "\n".join(f"- {p}" for p in problems)
                )
    return feeds, expected


def describe(feeds) -> str:
    return ", ".join(f"{n}: {v.dtype}{list(v.shape)}" for n, v in feeds.items())


class PyTensorReference:
    """PyTensor's Python implementation of the exported graph, fed by ONNX input name."""

    def __init__(self, prepared, outputs=None):
        import pytensor

        graph = prepared.graph
        fgraph = graph.fgraph
        memo = {
            v: v.type(name=v.name) if isinstance(v, SharedVariable) else v
            for v in fgraph.inputs
        }
        inputs = list(memo.values())
        outputs = rebuild(
            list(fgraph.outputs if outputs is None else outputs),
            memo,
            fresh_op,
            lambda constant: constant,
            lambda new: new,
        )
        # complex values are fed and compared as ONNX holds them: real pairs
        self.complex_dtypes = [
            inp.type.dtype if is_complex(inp) else None for inp in inputs
        ]
        self.fn = pytensor.function(
            inputs,
            outputs,
            mode=Mode(linker="py", optimizer=None),
            accept_inplace=True,
            on_unused_input="ignore",
        )
        baked = iter(graph.weights)
        self.sources = []
        for position, name in enumerate(prepared.input_names):
            if position >= graph.n_inputs:
                value = next(baked)
                if name is None:
                    self.sources.append(value)
                    continue
            self.sources.append(name)

    def input_values(self, feeds) -> list[np.ndarray]:
        """The values of the graph inputs (copies of ``feeds``: the graph may work in place)."""
        return [
            (
                s
                if not isinstance(s, str)
                else np.array(feeds[s])
                if dtype is None
                else from_real_pairs(feeds[s], dtype).copy()
            )
            for s, dtype in zip(self.sources, self.complex_dtypes, strict=True)
        ]

    def __call__(self, feeds):
        return [as_onnx_array(out) for out in self.fn(*self.input_values(feeds))]


def evaluable_feeds(prepared, reference, example_inputs, rng):
    """Inputs PyTensor can evaluate the graph on, and its outputs for them.

    Symbolic dimensions that no example input sets are tried at a few sizes
    in turn (all at once): 3, then each static size of the model's inputs
    and weights, since dimensions often have to match a weight's.
    """
    failures = []
    for size in candidate_sizes(prepared):
        feeds = model_feeds(prepared, example_inputs, rng, size)
        try:
            return feeds, reference(feeds)
        except Exception as err:
            failures.append((feeds, err))
        if not generated_dims(prepared, feeds, example_inputs):
            break
    feeds, err = failures[0]
    origin = "given" if example_inputs is not None else "generated"
    raise ONNXVerificationError(
        f"PyTensor cannot evaluate the graph on the {origin} inputs "
        f"({describe(feeds)}): {err}\nPass valid example_inputs to verify the "
        "export."
    ) from err


def candidate_sizes(prepared, limit=6) -> list[int]:
    static = sorted(
        {
            dim.dim_value
            for info in prepared.skeleton.graph.input
            for dim in info.type.tensor_type.shape.dim
            if dim.HasField("dim_value") and dim.dim_value > 1
        }
        - {BASE_SIZE}
    )
    return [BASE_SIZE, *static][:limit]


def generated_dims(prepared, feeds, example_inputs) -> bool:
    given = set(example_inputs or ()) if isinstance(example_inputs, dict) else None
    explicit = list(prepared.structure.graph.input)[: prepared.graph.n_inputs]
    if given is None:
        return example_inputs is None
    return any(info.name not in given for info in explicit)


def pytensor_static_sizes(prepared) -> dict[str, int]:
    """Static sizes of the PyTensor types on axes the model declares symbolic."""
    sizes = {}
    for var, info in zip(
        prepared.graph.explicit_inputs, prepared.structure.graph.input, strict=False
    ):
        for size, dim in zip(
            getattr(var.type, "shape", ()),
            info.type.tensor_type.shape.dim,
            strict=False,
        ):
            if size is not None and dim.dim_param:
                sizes[dim.dim_param] = size
    return sizes


def model_feeds(prepared, example_inputs, rng, size=BASE_SIZE) -> dict[str, np.ndarray]:
    """Values for every input of the model, by name."""
    infos = list(prepared.structure.graph.input)
    explicit = [info.name for info in infos][: prepared.graph.n_inputs]
    if example_inputs is None:
        given = {}
    elif isinstance(example_inputs, dict):
        given = dict(example_inputs)
    else:
        given = dict(zip(explicit, example_inputs, strict=True))
    unknown = set(given) - {info.name for info in infos}
    if unknown:
        raise ValueError(f"example_inputs: the model has no input {sorted(unknown)}")
    kept_values = kept_weight_values(prepared)
    sizes = pytensor_static_sizes(prepared)
    feeds = {}
    for info in infos:
        dtype = onnx.helper.tensor_dtype_to_np_dtype(info.type.tensor_type.elem_type)
        if info.name in given:
            feeds[info.name] = np.asarray(as_onnx_array(given[info.name]), dtype=dtype)
        elif info.name in kept_values:
            feeds[info.name] = np.asarray(kept_values[info.name], dtype=dtype)
        else:
            continue
        for dim, value_size in zip(
            info.type.tensor_type.shape.dim, feeds[info.name].shape, strict=False
        ):
            if dim.dim_param:
                sizes.setdefault(dim.dim_param, value_size)
    for info in infos:
        if info.name not in feeds:
            shape = [
                dim.dim_value
                if dim.HasField("dim_value")
                else sizes.setdefault(dim.dim_param, size)
                for dim in info.type.tensor_type.shape.dim
            ]
            dtype = onnx.helper.tensor_dtype_to_np_dtype(
                info.type.tensor_type.elem_type
            )
            feeds[info.name] = random_array(rng, shape, dtype)
    return {info.name: feeds[info.name] for info in infos}


def kept_weight_values(prepared) -> dict[str, np.ndarray]:
    graph = prepared.graph
    names = prepared.input_names[graph.n_inputs :]
    return {
        name: value
        for name, value in zip(names, graph.weights, strict=True)
        if name is not None
    }


def random_array(rng, shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    return rng.integers(0, 4, size=shape).astype(dtype)


def runner(runtime, runnable):
    """A function running the model in ``runtime`` on feeds by name."""
    if runtime == "reference":
        from onnx.reference import ReferenceEvaluator

        model = (
            onnx.load_model_from_string(runnable)
            if isinstance(runnable, bytes)
            else onnx.load(runnable)
        )
        evaluator = ReferenceEvaluator(model)
        return lambda feeds: [np.asarray(v) for v in evaluator.run(None, feeds)]
    import onnxruntime as ort

    options = default_session_options()
    options.log_severity_level = 4  # failures are reported, not logged
    session = ort.InferenceSession(
        runnable, sess_options=options, providers=["CPUExecutionProvider"]
    )
    return lambda feeds: session.run(None, feeds)


def first_mismatch(names, actual, expected) -> str | None:
    for name, got, wanted in zip(names, actual, expected, strict=True):
        problem = mismatch(got, wanted)
        if problem is not None:
            return f"output {name!r} {problem}"
    return None


def mismatch(actual, expected, rtol=None) -> str | None:
    """How ``actual`` differs from ``expected``, or ``None`` if they agree.

    Floats agree within ``rtol`` (per dtype, :data:`DEFAULT_RTOL`) relative to
    the largest finite magnitude of ``expected``, with NaN and infinities in
    the same places; other dtypes must be equal.
    """
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype:
        return f"has dtype {actual.dtype} instead of {expected.dtype}"
    if actual.shape != expected.shape:
        return f"has shape {actual.shape} instead of {expected.shape}"
    if expected.dtype.kind == "f":
        rtol = DEFAULT_RTOL[expected.dtype.name] if rtol is None else rtol
        finite = np.isfinite(expected)
        scale = np.abs(expected[finite]).max() if finite.any() else 0.0
        close = np.isclose(
            actual, expected, rtol=rtol, atol=rtol * scale, equal_nan=True
        )
    else:
        close = actual == expected
    if close.all():
        return None
    index = tuple(int(i) for i in np.argwhere(~close)[0])
    return (
        f"differs at {index}: {actual[index]!r} instead of {expected[index]!r} "
        f"({int((~close).sum())} of {close.size} elements differ)"
    )


def locate_divergence(prepared, feeds, runtime) -> str:
    """Name the first PyTensor node whose value the converted graph gets wrong.

    Every intermediate value becomes an output of a debug model, compared
    with the value PyTensor's Python implementation computes for it.
    """
    fgraph = prepared.graph.fgraph
    values = [
        out
        for node in fgraph.toposort()
        for out in node.outputs
        if unsupported_type_reason(out) is None
    ]
    if not values:
        return ""
    debug_graph = FunctionGraph(fgraph.inputs, values, clone=False, features=[])
    opset = next(o.version for o in prepared.structure.opset_import if o.domain == "")
    debug = onnx_funcify(
        debug_graph,
        opset=max(opset, 18),
        input_names=[f"input_{i}" for i in range(len(fgraph.inputs))],
        output_names=[f"value_{i}" for i in range(len(values))],
        keep_checks=False,
    ).model
    reference = PyTensorReference(prepared, outputs=values)
    debug_feeds = dict(
        zip(
            [info.name for info in debug.graph.input],
            reference.input_values(feeds),
            strict=True,
        )
    )
    actual = runner(runtime, debug.SerializeToString())(debug_feeds)
    expected = reference(feeds)
    for var, got, wanted in zip(values, actual, expected, strict=True):
        problem = mismatch(got, wanted)
        if problem is not None:
            node = var.owner
            return (
                f"The first diverging value is {var} of type {var.type}, computed by "
                f"the Op {node.op} (from {', '.join(map(str, node.inputs))}): it "
                f"{problem}.{get_variable_trace_string(var)}"
            )
    return "Every intermediate value agrees; only the outputs differ."


def dim_problems(prepared, run, reference, feeds, rng) -> list[DimProblem]:
    """Run the model with each symbolic dimension of the explicit inputs at :data:`DIM_SIZES`.

    Where PyTensor's own types allow the size, the model must agree with
    PyTensor (a size PyTensor cannot evaluate either is skipped); on axes
    PyTensor declares static, the model must run and give outputs of the
    declared shapes.
    """
    explicit = list(prepared.structure.graph.input)[: prepared.graph.n_inputs]
    static = pytensor_static_sizes(prepared)
    axes: dict[str, list[tuple[str, int]]] = {}
    for info in explicit:
        for axis, dim in enumerate(info.type.tensor_type.shape.dim):
            if dim.dim_param:
                axes.setdefault(dim.dim_param, []).append((info.name, axis))
    problems = []
    for dim, positions in axes.items():
        for size in DIM_SIZES:
            resized = dict(feeds)
            for name, axis in positions:
                resized[name] = resize(resized[name], axis, size, rng)
            expected = None
            if dim not in static:
                try:
                    expected = reference(resized)
                except Exception:
                    continue
            try:
                actual = run(resized)
            except Exception as err:
                issue = f"onnxruntime failed{failing_node(err, prepared)}: {err}"
            else:
                issue = declared_shape_mismatch(
                    prepared.structure, actual, dim_sizes(explicit, resized)
                )
                if issue is None and expected is not None:
                    issue = first_mismatch(prepared.output_names, actual, expected)
            if issue is not None:
                problems.append(DimProblem(dim, size, tuple(positions), issue))
    return problems


def failing_node(error, prepared) -> str:
    """`` in <ONNX node> (computing <PyTensor variable>)`` if ``error`` names the node."""
    match = re.search(r"Name:'([^']+)'", str(error))
    if match is None:
        return ""
    node = prepared.sources.get(match.group(1))
    computing = f" computing {node.outputs[0]}" if node is not None else ""
    return f" in {match.group(1)}{computing}"


def resize(value, axis, size, rng):
    """``value`` with ``size`` entries along ``axis``, cycling through the existing ones."""
    if value.shape[axis] == 0:
        shape = list(value.shape)
        shape[axis] = size
        return random_array(rng, shape, value.dtype)
    indices = np.arange(size) % value.shape[axis]
    return np.take(value, indices, axis=axis)


def dim_sizes(infos, feeds) -> dict[str, int]:
    sizes = {}
    for info in infos:
        for dim, size in zip(
            info.type.tensor_type.shape.dim, feeds[info.name].shape, strict=False
        ):
            if dim.dim_param:
                sizes[dim.dim_param] = size
    return sizes


def declared_shape_mismatch(model, actual, sizes) -> str | None:
    for info, value in zip(model.graph.output, actual, strict=True):
        dims = info.type.tensor_type.shape.dim
        expected = [
            d.dim_value if d.HasField("dim_value") else sizes.get(d.dim_param)
            for d in dims
        ]
        shape = np.shape(value)
        if len(shape) != len(expected) or any(
            e is not None and e != s for e, s in zip(expected, shape, strict=True)
        ):
            declared = [
                d.dim_value if d.HasField("dim_value") else d.dim_param for d in dims
            ]
            return (
                f"output {info.name!r} has shape {shape}, not the declared "
                f"{declared} = {[e if e is not None else '?' for e in expected]}"
            )
    return None
