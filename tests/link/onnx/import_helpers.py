"""Shared helpers of the ONNX import tests: build small models, run them
through the importer and through ONNX's reference evaluator."""

import numpy as np
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator
from pytensor.compile.mode import Mode

import pytensor


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


def assert_same(actual, expected, rtol=1e-6, atol=0.0):
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
        assert_same(a, e, rtol=rtol, atol=atol)


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
