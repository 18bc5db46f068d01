"""Helpers shared by the ONNX backend's test modules.

`compare_onnx_and_py` compiles a graph with ``mode="ONNX"`` and with the
Python linker and compares the results: dtypes, shapes and values. Every
compare helper computes its reference the same way (`python_reference`).
The importer's tests build small models (`make_model`, `single_node_model`)
and compare what the importer computes with ONNX's reference evaluator
(`assert_matches_reference`).
"""

import itertools
import tomllib
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytensor.tensor as pt
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator
from pytensor.compile.mode import Mode, get_mode

import pytensor
from pytensor.link.onnx import ONNXLinker
from pytensor.link.onnx.dispatch import onnx_funcify
from pytensor.link.onnx.passes.graphs import count_nodes, nodes_run


onnx_mode = get_mode("ONNX")


no_rewrites = Mode(ONNXLinker(), None)


py_mode = Mode(linker="py", optimizer=None)


FLOAT_DTYPES = ("float64", "float32")


INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


ALL_DTYPES = (*FLOAT_DTYPES, *INT_DTYPES, "bool")


# PyMC 5 pins PyTensor 2.38: scripts/_venv.sh installs it in .venv-2.38.3 only
PYMC_MISSING = (
    "PyMC is not installed here: the PyMC tests run in its environment, "
    "`PYTENSOR_VERSION=2.38.3 bash scripts/run_tests.sh`"
)


DEFAULT_RTOL = {"float16": 1e-3, "float32": 1e-5, "float64": 1e-12}


# Goodness-of-fit tests of draws: two-sided p-values below this fail; a
# correct sampler with a fixed seed passes deterministically, a wrong one
# gives p-values of ~1e-100.
MIN_P_VALUE = 1e-4


def random_variable(rv, *params, rng, size=None, dtype=None):
    """``(next_rng, draws)`` of ``rv``, built the same way in PyTensor 2 and 3."""
    kwargs = {} if dtype is None else {"dtype": dtype}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        draws = rv(*params, size=size, rng=rng, **kwargs)
    return draws.owner.outputs


def assert_same_values(onnx_value, py_value, *, rtol=None, atol=0.0):
    """Equal dtype, shape and values (floats within ``rtol``/``atol``, NaN == NaN)."""
    onnx_value, py_value = np.asarray(onnx_value), np.asarray(py_value)
    assert onnx_value.dtype == py_value.dtype, (onnx_value.dtype, py_value.dtype)
    assert onnx_value.shape == py_value.shape, (onnx_value.shape, py_value.shape)
    if py_value.dtype.kind == "c":
        for part in (np.real, np.imag):
            assert_same_values(part(onnx_value), part(py_value), rtol=rtol, atol=atol)
    elif py_value.dtype.kind == "f":
        rtol = DEFAULT_RTOL[py_value.dtype.name] if rtol is None else rtol
        np.testing.assert_allclose(onnx_value, py_value, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(onnx_value, py_value)


def random_values(rng, shape, dtype):
    """Random test values of ``dtype``: normal floats, small ints, fair bools."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 50, shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def assert_sums_close(onnx_value, py_value):
    """Equal up to the rounding of sums taken in a different order."""
    atol = {"float32": 1e-5, "float64": 1e-14}.get(np.asarray(py_value).dtype.name, 0)
    assert_same_values(onnx_value, py_value, atol=atol)


def python_reference():
    """The flags every compare helper compiles and runs its reference under.

    The reference is the graph compiled with `py_mode` (the Python linker, no
    rewrites). The inner graphs of OpFromGraphs (Einsum, Pad, ...) are
    compiled in the default mode when evaluated: ``FAST_COMPILE`` keeps them
    in Python too.
    """
    return pytensor.config.change_flags(mode="FAST_COMPILE")


def compare_onnx_and_py(
    graph_inputs,
    graph_outputs,
    test_inputs,
    *,
    assert_fn=None,
    onnx_mode=onnx_mode,
    py_mode=py_mode,
):
    """Compile the graph with the ONNX mode and the Python linker and compare.

    Also checks the ONNX model with ``onnx.checker`` (full check). Returns the
    ONNX-compiled function and its results.
    """
    onnx_fn, [onnx_res] = compare_cases(
        graph_inputs,
        graph_outputs,
        [test_inputs],
        assert_fn=assert_fn or assert_same_values,
        onnx_mode=onnx_mode,
        py_mode=py_mode,
    )
    return onnx_fn, onnx_res


def compare_cases(graph_inputs, graph_outputs, cases, *, assert_fn, onnx_mode, py_mode):
    """`compare_onnx_and_py` for each list of test inputs of ``cases``,
    compiling the functions once; returns the ONNX function and its results."""
    if any(inp.owner is not None for inp in graph_inputs):
        raise ValueError("Inputs must be root variables")
    onnx_fn = pytensor.function(graph_inputs, graph_outputs, mode=onnx_mode)
    onnx.checker.check_model(onnx_model_of(onnx_fn), full_check=True)
    with python_reference():
        py_fn = pytensor.function(graph_inputs, graph_outputs, mode=py_mode)
    all_results = []
    for case in cases:
        onnx_res = onnx_fn(*case)
        with python_reference():
            py_res = py_fn(*case)
        if isinstance(graph_outputs, list | tuple):
            assert len(onnx_res) == len(py_res)
            for onnx_value, py_value in zip(onnx_res, py_res, strict=True):
                assert_fn(onnx_value, py_value)
        else:
            assert_fn(onnx_res, py_res)
        all_results.append(onnx_res)
    return onnx_fn, all_results


def onnx_model_of(fn):
    return fn.maker.linker.onnx_model


NODE_BUDGETS = tomllib.loads(Path(__file__).with_name("node_budgets.toml").read_text())


def node_counts(model, inputs) -> dict[str, int]:
    """The nodes of ``model`` (If branches and Loop bodies included), and
    those onnxruntime runs on ``inputs``."""
    return {"converted": count_nodes(model.graph), "run": nodes_run(model, inputs)}


def measured_node_counts(case: str) -> dict[str, int]:
    """The counts `NODE_BUDGETS` records for ``case`` in this PyTensor version."""
    version = f"pytensor{pytensor.__version__.split('.')[0]}"
    return {
        kind: count[version] if isinstance(count, dict) else count
        for kind, count in NODE_BUDGETS["cases"][case].items()
    }


def assert_within_node_budget(case: str, model, inputs):
    """``model``'s `node_counts` exceed those measured for ``case`` by at most
    the tolerance of ``node_budgets.toml``."""
    counts, measured = node_counts(model, inputs), measured_node_counts(case)
    limit = 1 + NODE_BUDGETS["tolerance"]
    over = [kind for kind in counts if counts[kind] > measured[kind] * limit]
    assert not over, (
        f"{case}: {counts} nodes, measured {measured}: more than "
        f"{limit:.2f} times the measured {over} (re-measure in node_budgets.toml "
        "if the added nodes are worth it)"
    )


def values_of(fn, test_inputs):
    """The outputs of the compiled ``fn``, computed by running its rewritten
    graph with the Python linker: without the C or Numba compilation of its
    first call (a minute for some graphs), unless an inner graph holds
    in-place Ops, which only ``fn`` itself runs."""
    fgraph = fn.maker.fgraph.clone()
    with python_reference():
        python_fn = pytensor.function(
            fgraph.inputs,
            fgraph.outputs[: len(fn.maker.outputs)],
            mode=py_mode,
            accept_inplace=True,
            on_unused_input="ignore",
        )
    try:
        with python_reference():
            return python_fn(*[np.copy(value) for value in test_inputs])
    except TypeError:  # "Graph must not contain inplace operations"
        expected = fn(*[np.copy(value) for value in test_inputs])
        return expected if isinstance(expected, list) else [expected]


def compare_converted_graph(fn, test_inputs):
    """Convert the graph of the already compiled ``fn`` and compare with ``fn``.

    This is how graphs rewritten for other linkers (BLAS Ops, in-place Ops,
    fused ``Composite``) reach the converter, e.g. in ``export_onnx``.
    """
    converted = onnx_funcify(fn.maker.fgraph)
    onnx.checker.check_model(converted.model, full_check=True)
    session = ort.InferenceSession(
        converted.model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    input_names = [info.name for info in converted.model.graph.input]
    results = session.run(
        None, dict(zip(input_names, map(np.asarray, test_inputs), strict=True))
    )
    expected = values_of(fn, test_inputs)
    for result, value in zip(results[: len(expected)], expected, strict=True):
        assert_same_values(result, value)


RTOL = {"float64": 1e-8, "float32": 1e-4}


SIZES = [0, 1, 2, 3, 5, 12]


PYTENSOR_2 = pytensor.__version__.startswith("2.")


MODES = [
    pytest.param(onnx_mode, id="rewrites"),
    pytest.param(no_rewrites, id="no_rewrites"),
]


rng = np.random.default_rng(20240607)


def linalg_close(onnx_value, py_value):
    """Equal dtype and shape, values within `RTOL` of the largest (finite) one.

    NaN must be at the same places.
    """
    onnx_value, py_value = np.asarray(onnx_value), np.asarray(py_value)
    rtol = RTOL.get(py_value.dtype.name)
    if rtol is None:
        return assert_same_values(onnx_value, py_value)
    finite = np.abs(py_value[np.isfinite(py_value)])
    scale = finite.max(initial=0.0)
    assert_same_values(onnx_value, py_value, rtol=rtol, atol=rtol * scale)


def compare_for_each(
    graph_inputs, graph_outputs, cases, *, onnx_mode=onnx_mode, assert_fn=linalg_close
):
    """`compare_onnx_and_py` for each list of test inputs of ``cases``, compiling
    the functions once."""
    onnx_fn, _ = compare_cases(
        graph_inputs,
        graph_outputs,
        cases,
        assert_fn=assert_fn,
        onnx_mode=onnx_mode,
        py_mode=py_mode,
    )
    return onnx_fn


def orthogonal(n, batch=()):
    q, r = np.linalg.qr(rng.normal(size=(*batch, n, n)))
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]


def spread(k, batch=()):
    """``k`` values from 1 to 4, evenly spaced, in random order along the last axis.

    As singular values or eigenvalues: well-conditioned, with singular
    vectors and eigenvectors well determined by the gaps between them.
    """
    values = np.broadcast_to(np.linspace(1, 4, k), (*batch, 1, k))
    return rng.permuted(values, axis=-1)


def well_conditioned(n, dtype="float64", batch=(), m=None):
    """A random ``n x m`` matrix with singular values `spread` from 1 to 4."""
    m = n if m is None else m
    k = min(n, m)
    left = orthogonal(n, batch)[..., :k] * spread(k, batch)
    return (left @ orthogonal(m, batch)[..., :k, :]).astype(dtype)


def symmetric_matrix(n, dtype="float64", positive=False):
    """A random symmetric matrix with eigenvalues ``±`spread```."""
    q = orthogonal(n)
    eigenvalues = spread(n) * (1 if positive else rng.choice([-1, 1], size=n))
    return ((q * eigenvalues) @ q.T).astype(dtype)


def positive_definite(n, dtype="float64", batch=()):
    q = orthogonal(n, batch)
    return ((q * spread(n, batch)) @ np.swapaxes(q, -1, -2)).astype(dtype)


def triangular(n, lower, dtype="float64", unused=np.nan, unit_diagonal=False):
    """A well-conditioned triangular matrix with ``unused`` outside its triangle."""
    t = rng.normal(size=(n, n)) / max(n, 1) + np.diag(rng.uniform(1, 2, n))
    keep = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    if unit_diagonal:
        keep &= ~np.eye(n, dtype=bool)
    return np.where(keep, t, unused).astype(dtype)


def with_unused_triangle(a, lower):
    """``a`` with large numbers in the triangle that a reader of the ``lower`` one
    ignores (SciPy rejects NaN in some of them)."""
    n = a.shape[-1]
    unused = (
        np.triu(np.ones((n, n), bool), 1)
        if lower
        else np.tril(np.ones((n, n), bool), -1)
    )
    garbage = rng.normal(1e3, 1e3, size=a.shape)
    return np.where(unused, garbage, a).astype(a.dtype)


def matrix(name, dtype, static_n=None):
    return pt.tensor(name, dtype=dtype, shape=(static_n, static_n))


def has_converter(op_class):
    return onnx_funcify.dispatch(op_class) is not onnx_funcify.dispatch(object)


def evaluate_numerics(function, *arrays, output_ndim=None, keep_checks=False):
    """Run ``function``, a function of :class:`~pytensor.link.onnx.value.Value`
    (a numerics algorithm), on ``arrays`` in onnxruntime and return its results.

    ``function`` returns one value or a tuple of them; ``output_ndim`` (by
    default that of the first array) is the rank declared for each output.
    """
    from pytensor.link.onnx.builder import ONNXGraphBuilder
    from pytensor.link.onnx.session import DISABLED_OPTIMIZERS, default_session_options

    arrays = [np.asarray(array) for array in arrays]
    builder = ONNXGraphBuilder(keep_checks=keep_checks)
    args = [
        builder.value(builder.add_input(f"x{i}", a.dtype, (None,) * a.ndim), a.dtype)
        for i, a in enumerate(arrays)
    ]
    results = function(*args)
    single = not isinstance(results, tuple | list)
    ndim = arrays[0].ndim if output_ndim is None else output_ndim
    for result in [results] if single else results:
        builder.add_output(result.name, "result", result.dtype, (None,) * ndim)
    model = builder.make_model()
    onnx.checker.check_model(model, full_check=True)
    session = ort.InferenceSession(
        model.SerializeToString(),
        sess_options=default_session_options(),
        providers=["CPUExecutionProvider"],
        disabled_optimizers=list(DISABLED_OPTIMIZERS),
    )
    outputs = session.run(None, {f"x{i}": a for i, a in enumerate(arrays)})
    return outputs[0] if single else outputs


def probe_kernels():
    """The kernel probe script, ``scripts/probe_kernels.py``, as a module."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "scripts" / "probe_kernels.py"
    spec = importlib.util.spec_from_file_location("probe_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def n_runtime_checks(fn) -> int:
    """How many runtime checks (``builder.require``) the ONNX function ``fn`` makes."""
    return len(fn.maker.linker.onnx_graph.checks)


def exported_op_types(fn) -> list[str]:
    """The operators of ``fn`` exported with `export_onnx` (without runtime checks)."""
    from pytensor.link.onnx import export_onnx

    return [node.op_type for node in export_onnx(fn).graph.node]


# The static sizes of the values a special function is converted for: the
# converters choose their algorithm by it (`dispatch.special.SMALL_SIZE`)
STATIC_SIZES = {"symbolic": (None,), "few": (64,), "one": ()}


def elementwise_function(build, dtype, size="symbolic", mode="ONNX"):
    """``build(x)`` of an elementwise ``build``, compiled in ``mode`` for
    values ``x`` of a ``STATIC_SIZES`` size, as a function of a flat array.

    ``"symbolic"``: one call on a vector of unknown length; ``"few"``: calls
    on chunks of 64 values (the last one padded); ``"one"``: a call per value.
    """
    x = pt.tensor("x", dtype=dtype, shape=STATIC_SIZES[size])
    fn = pytensor.function([x], build(x), mode=mode)
    if size == "symbolic":
        return fn
    if size == "one":
        return lambda values: np.array([fn(v) for v in values])

    [length] = STATIC_SIZES[size]

    def in_chunks(values):
        padded = np.resize(values, -(-len(values) // length) * length)
        chunks = [fn(chunk) for chunk in padded.reshape(-1, length)]
        return np.concatenate([np.empty(0, dtype), *chunks])[: len(values)]

    return in_chunks


def compare_elementwise_at_size(build, values, size, assert_fn=assert_same_values):
    """`compare_onnx_and_py` of ``build(x)`` for ``x`` of a ``STATIC_SIZES``
    size, on the 1-d array ``values``."""
    if size == "symbolic":
        x = pt.vector("x", dtype=values.dtype)
        compare_onnx_and_py([x], build(x), [values], assert_fn=assert_fn)
        return
    result = elementwise_function(build, values.dtype, size)(values)
    with python_reference():
        expected = elementwise_function(build, values.dtype, mode=py_mode)(values)
    assert_fn(result, expected)


# Complex numbers


COMPLEX_DTYPES = ("complex128", "complex64")


def complex_values(rng, shape, dtype):
    """Complex numbers of standard normal parts."""
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def parts_rtol(dtype):
    """The relative tolerance of the parts of the complex ``dtype``."""
    return DEFAULT_RTOL[np.finfo(np.dtype(dtype)).dtype.name]


SPECIAL_PARTS = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e300, -1e-310, 0.75]


def special_grid(dtype, n_operands):
    """Every complex number of `SPECIAL_PARTS` parts, and with two operands
    every pair of them."""
    numbers = [complex(a, b) for a, b in itertools.product(SPECIAL_PARTS, repeat=2)]
    columns = zip(*itertools.product(numbers, repeat=n_operands), strict=True)
    return [np.array(column, dtype=dtype) for column in columns]


def close(dtype):
    """An `assert_fn` for `compare_onnx_and_py`: same dtypes and shapes,
    values within the tolerance of the parts of ``dtype``."""
    rtol = parts_rtol(dtype) if np.dtype(dtype).kind in "fc" else 0

    def assert_close(onnx_value, py_value):
        onnx_value, py_value = np.asarray(onnx_value), np.asarray(py_value)
        assert onnx_value.dtype == py_value.dtype
        assert onnx_value.shape == py_value.shape
        np.testing.assert_allclose(onnx_value, py_value, rtol=rtol, atol=rtol)

    return assert_close


def same_special(dtype):
    """Equal parts within rtol, with the same signs of zeros and infinities."""
    rtol = parts_rtol(dtype)

    def assert_same(onnx_value, py_value):
        assert onnx_value.dtype == py_value.dtype
        for part in (np.real, np.imag) if py_value.dtype.kind == "c" else (np.real,):
            actual, expected = part(onnx_value), part(py_value)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                same = np.isclose(actual, expected, rtol=rtol, atol=0, equal_nan=True)
            same &= np.isnan(expected) | (np.signbit(actual) == np.signbit(expected))
            assert same.all(), (actual[~same], expected[~same])

    return assert_same


# Importing: small models run through the importer and through ONNX's
# reference evaluator


FAST_MODE = Mode(linker="py", optimizer="fast_compile")
IR_VERSION = 10


def make_model(nodes, inputs, outputs, *, opset=18, initializers=(), domains=()):
    """A model of ``nodes``; ``inputs``/``outputs`` are ``(name, elem_type, shape)``."""
    graph = helper.make_graph(
        nodes,
        "test",
        [helper.make_tensor_value_info(*i) for i in inputs],
        [value_info(*o) for o in outputs],
        initializer=list(initializers),
    )
    opsets = [helper.make_opsetid("", opset), *domains]
    return helper.make_model(graph, opset_imports=opsets, ir_version=IR_VERSION)


def value_info(name, elem_type, shape):
    if not elem_type:
        return helper.make_empty_tensor_value_info(name)
    return helper.make_tensor_value_info(name, elem_type, shape)


def single_node_model(op_type, feeds, n_outputs=1, opset=18, **attributes):
    """A model of one ``op_type`` node whose inputs are typed after ``feeds`` and
    outputs after what ONNX's reference evaluator computes from them (a feed of
    ``None`` is an omitted optional input)."""
    names = [n if v is not None else "" for n, v in feeds.items()]
    feeds = {n: v for n, v in feeds.items() if v is not None}
    outputs = [f"out{i}" for i in range(n_outputs)]
    node = helper.make_node(op_type, names, outputs, **attributes)
    inputs = [(n, elem_type(v), np.shape(v)) for n, v in feeds.items()]
    untyped = make_model([node], inputs, [(o, 0, None) for o in outputs], opset=opset)
    results = reference_outputs(untyped, feeds)
    typed = [
        (o, elem_type(r), np.shape(r)) for o, r in zip(outputs, results, strict=True)
    ]
    return make_model([node], inputs, typed, opset=opset)


def elem_type(value):
    return helper.np_dtype_to_tensor_dtype(np.asarray(value).dtype)


def run_imported(model, feeds, mode=FAST_MODE, **options):
    """The outputs of ``model`` on ``feeds`` (by input name), imported and compiled."""
    from pytensor.link.onnx import import_onnx

    imported = import_onnx(model, **options)
    function = pytensor.function(
        imported.inputs, imported.outputs, mode=mode, on_unused_input="ignore"
    )
    values = function(*(feeds[name] for name in imported.input_names))
    return [np.asarray(v) for v in values]


def reference_outputs(model, feeds):
    return ReferenceEvaluator(model).run(None, feeds)


def assert_same_imported(actual, expected, rtol=1e-6, atol=0.0):
    """Same dtype, shape and values (NaN equal to NaN)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(actual, expected)


def assert_matches_reference(model, feeds, rtol=1e-6, atol=0.0, **options):
    onnx.checker.check_model(model)
    expected = reference_outputs(model, feeds)
    actual = run_imported(model, feeds, **options)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        assert_same_imported(a, e, rtol=rtol, atol=atol)


def verify_imported_grad(model, values, rng, wrt=None):
    """The gradient of the model's first output with respect to its inputs at
    ``wrt`` (all by default) matches finite differences at ``values``."""
    from pytensor.gradient import verify_grad

    from pytensor.link.onnx import import_onnx

    wrt = range(len(values)) if wrt is None else wrt
    fixed = {i: v for i, v in enumerate(values) if i not in wrt}

    def first_output(*variables):
        variables = iter(variables)
        inputs = [
            pytensor.tensor.constant(fixed[i]) if i in fixed else next(variables)
            for i in range(len(values))
        ]
        return import_onnx(model, inputs=inputs).outputs[0]

    verify_grad(first_output, [values[i] for i in wrt], rng=rng, mode=FAST_MODE)
