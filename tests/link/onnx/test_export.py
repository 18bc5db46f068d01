import getpass
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytensor.tensor as pt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx.reference import ReferenceEvaluator
from pytensor.compile.mode import Mode
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.graph.utils import MissingInputError
from pytensor.raise_op import Assert
from pytensor.sparse import csr_from_dense

import pytensor
from pytensor.link.onnx import (
    ONNXVerificationError,
    UnsupportedGraphError,
    export_onnx,
    onnx_support_report,
)
from pytensor.link.onnx.dispatch import onnx_funcify
from pytensor.link.onnx.export.targets import TARGETS
from tests.link.onnx.utils import assert_same_values, probe_kernels, py_mode


REPO_ROOT = Path(__file__).resolve().parents[3]
FLOAT32_RTOL = 1e-5


def run_file(path, feed):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, feed)


def run_model(model, feed):
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feed)


def mlp_graph(dtype="float64", batch=None):
    rng = np.random.default_rng(0)
    w1 = pytensor.shared(rng.normal(size=(4, 8)).astype(dtype), name="w1")
    b1 = pytensor.shared(rng.normal(size=8).astype(dtype), name="b1")
    w2 = pytensor.shared(rng.normal(size=(8, 3)).astype(dtype), name="w2")
    x = pt.tensor("x", shape=(batch, 4), dtype=dtype)
    hidden = pt.tanh(x @ w1 + b1)
    scores = pt.special.softmax(hidden @ w2, axis=-1)
    scores.name = "scores"
    return [x], [scores]


def python_reference(inputs, output):
    return pytensor.function(inputs, output, mode=py_mode)


def shared_named(outputs, name):
    from pytensor.graph.traversal import graph_inputs

    [shared] = [v for v in graph_inputs(outputs) if v.name == name]
    return shared


def mlp_function(mode):
    inputs, outputs = mlp_graph()
    return pytensor.function(inputs, outputs[0], mode=mode)


class Mystery(Op):
    """An Op without ONNX converter."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]


class Triple(Op):
    """Its converter below is wrong on purpose: it doubles."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * 3


@onnx_funcify.register(Triple)
def onnx_funcify_Triple(op, node, builder, inputs, **kwargs):
    [x] = inputs
    return [builder.add("Add", [x, x])]


class IllTyped(Op):
    """Its converter adds an int64 constant to a float tensor (invalid ONNX)."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] + 1


@onnx_funcify.register(IllTyped)
def onnx_funcify_IllTyped(op, node, builder, inputs, **kwargs):
    return [builder.add("Add", [inputs[0], builder.constant(1, "int64")])]


# ----------------------------------------------------------------- sources


@pytest.mark.parametrize(
    "mode",
    ["ONNX", "FAST_RUN", Mode(linker="cvm", optimizer="fast_run"), "FAST_COMPILE"],
    ids=["onnx", "default", "c", "fast_compile"],
)
def test_exported_file_is_self_contained_and_matches(tmp_path, mode):
    fn = mlp_function(mode)
    path = tmp_path / "mlp.onnx"
    model = export_onnx(fn, path, verify=True)
    loaded = onnx.load(path)
    onnx.checker.check_model(loaded, full_check=True)
    assert [i.name for i in loaded.graph.input] == ["x"]
    assert [o.name for o in loaded.graph.output] == ["scores"]
    assert {"w1", "b1", "w2"} <= {t.name for t in loaded.graph.initializer}
    assert loaded == model
    x = np.random.default_rng(1).normal(size=(5, 4))
    [scores] = run_file(path, {"x": x})
    assert_same_values(scores, fn(x), rtol=1e-10)


def test_symbolic_graph_is_rewritten_like_onnx_mode(tmp_path):
    inputs, outputs = mlp_graph()
    model = export_onnx((inputs, outputs), tmp_path / "mlp.onnx", verify=True)
    compiled = export_onnx(pytensor.function(inputs, outputs, mode="ONNX"))
    assert model == compiled
    x = np.random.default_rng(1).normal(size=(2, 4))
    [scores] = run_file(tmp_path / "mlp.onnx", {"x": x})
    assert_same_values(scores, python_reference(inputs, outputs[0])(x), rtol=1e-10)


def test_symbolic_graph_with_missing_input_is_refused():
    x, y = pt.vector("x"), pt.vector("y")
    with pytest.raises(MissingInputError):
        export_onnx(([x], x + y))


@pytest.mark.parametrize(
    "source", [42, "model", (1, 2, 3)], ids=["number", "string", "triple"]
)
def test_unknown_source_is_refused(source):
    with pytest.raises(TypeError):
        export_onnx(source)


def test_export_uses_current_shared_values_and_drops_updates(tmp_path):
    w = pytensor.shared(np.array([1.0, 2.0]), name="w")
    steps = pytensor.shared(np.int64(0), name="steps")
    x = pt.vector("x")
    fn = pytensor.function([x], x * w, updates={steps: steps + 1}, mode="ONNX")
    w.set_value(np.array([5.0, 6.0]))
    model = export_onnx(fn, tmp_path / "m.onnx")
    assert [t.name for t in model.graph.initializer] == ["w"]
    assert len(model.graph.output) == 1
    [out] = run_file(tmp_path / "m.onnx", {"x": np.ones(2)})
    np.testing.assert_array_equal(out, [5.0, 6.0])


def test_export_drops_runtime_assertions():
    sigma = pt.scalar("sigma")
    out = Assert("sigma must be positive")(sigma, pt.gt(sigma, 0)) * 2
    fn = pytensor.function([sigma], out, mode="ONNX")
    model = export_onnx(fn)
    assert len(model.graph.output) == 1
    assert run_model(model, {"sigma": np.asarray(-1.0)})[0] == -2.0


# ------------------------------------------------------------------- names


def test_names_are_sanitized_unique_and_stable():
    a, b, c = pt.vector("x.T"), pt.vector("x.T"), pt.vector()
    total = (a + b + c).copy(name="add")  # also an internal name hint
    outputs = [total, total * 2, a]
    model = export_onnx(([a, b, c], outputs))
    assert [i.name for i in model.graph.input] == ["x_T", "x_T_1", "input_2"]
    assert [o.name for o in model.graph.output] == ["add", "output_1", "x_T_2"]
    again = export_onnx(([a, b, c], outputs))
    assert again == model
    ones = np.ones(2)
    _, doubled, alias = run_model(model, {"x_T": ones, "x_T_1": ones, "input_2": ones})
    np.testing.assert_array_equal(doubled, [6.0, 6.0])
    np.testing.assert_array_equal(alias, ones)


@pytest.mark.parametrize(
    "input_names, output_names",
    [
        (["features"], ["probabilities"]),
        ({"x": "features"}, {"scores": "probabilities"}),
    ],
    ids=["list", "dict"],
)
def test_inputs_and_outputs_can_be_renamed(input_names, output_names):
    model = export_onnx(
        mlp_graph(), input_names=input_names, output_names=output_names, verify=True
    )
    assert [i.name for i in model.graph.input] == ["features"]
    assert [o.name for o in model.graph.output] == ["probabilities"]


@pytest.mark.parametrize(
    "input_names, output_names, message",
    [
        (["1x"], None, "not a valid input name"),
        (["a b"], None, "not a valid input name"),
        (["x", "y"], None, "has 2 names for 1 inputs"),
        ({"z": "y"}, None, "No input called"),
        (["w1"], None, "must be unique"),
        (["scores"], None, "must be unique"),
        (None, [""], "not a valid output name"),
    ],
)
def test_invalid_names_are_refused(input_names, output_names, message):
    with pytest.raises(ValueError, match=message):
        export_onnx(mlp_graph(), input_names=input_names, output_names=output_names)


# ------------------------------------------------------------------ shapes


def dims_of(info):
    return [
        d.dim_value if d.HasField("dim_value") else d.dim_param
        for d in info.type.tensor_type.shape.dim
    ]


def test_static_dims_are_kept_and_unknown_ones_named():
    x = pt.tensor("x", shape=(None, 3))
    y = pt.matrix("y")
    model = export_onnx(([x, y], [x.sum(axis=1), y.T]))
    assert [dims_of(i) for i in model.graph.input] == [
        ["x_dim0", 3],
        ["y_dim0", "y_dim1"],
    ]
    assert [dims_of(o) for o in model.graph.output] == [
        ["x_dim0"],
        ["y_dim1", "y_dim0"],
    ]


def test_dims_can_be_named_and_fixed():
    x, y = pt.matrix("x"), pt.matrix("y")
    model = export_onnx(
        ([x, y], (x + y).sum(axis=1)),
        dims={"x": ("batch", None), "y": ("batch", 5)},
        verify=True,
    )
    assert [dims_of(i) for i in model.graph.input] == [
        ["batch", "x_dim1"],
        ["batch", 5],
    ]
    assert dims_of(model.graph.output[0]) == ["batch"]


@pytest.mark.parametrize(
    "dims, message",
    [
        ({"x": ("batch",)}, "1 entries for an input of rank 2"),
        ({"x": (None, 4)}, "contradicts the static size 3"),
        ({"z": (None, None)}, "no input 'z'"),
        ({"x": (-1, None)}, "must be a name, a size or None"),
    ],
)
def test_invalid_dims_are_refused(dims, message):
    x = pt.tensor("x", shape=(None, 3))
    with pytest.raises(ValueError, match=message):
        export_onnx(([x], x * 2), dims=dims)


@pytest.mark.parametrize("batch", [0, 1, 7])
def test_dynamic_batch_runs_at_any_size(tmp_path, batch):
    inputs, outputs = mlp_graph()
    export_onnx((inputs, outputs), tmp_path / "m.onnx", dims={"x": ("batch", 4)})
    x = np.random.default_rng(batch).normal(size=(batch, 4))
    [scores] = run_file(tmp_path / "m.onnx", {"x": x})
    assert_same_values(scores, python_reference(inputs, outputs[0])(x), rtol=1e-10)


def test_verify_reports_a_dim_baked_into_a_constant(tmp_path):
    # Declared (4, 3) in PyTensor, the rewrites bake the batch size 4 into
    # the reshape; the model cannot have a symbolic batch.
    x = pt.tensor("x", shape=(4, 3))
    flat = x.reshape((x.shape[0] * 3,))
    with pytest.raises(
        ONNXVerificationError, match=r"(?s)batch=0 \(x axis 0\).*batch=1.*batch=7"
    ):
        export_onnx(
            ([x], flat), tmp_path / "m.onnx", dims={"x": ("batch", 3)}, verify=True
        )
    assert list(tmp_path.iterdir()) == []


def test_a_static_dim_made_symbolic_is_declared_symbolic_in_the_outputs():
    x = pt.tensor("x", shape=(4, 3))
    model = export_onnx(([x], pt.exp(x)), dims={"x": ("batch", 3)}, verify=True)
    assert dims_of(model.graph.output[0]) == ["batch", 3]


# ----------------------------------------------------------------- opsets


@pytest.mark.parametrize("opset", TARGETS["onnxruntime"].opsets)
def test_every_opset_onnxruntime_loads(opset):
    inputs, outputs = mlp_graph()
    model = export_onnx((inputs, outputs), opset=opset, verify=True)
    [version] = [o.version for o in model.opset_import if o.domain == ""]
    assert version == opset
    assert model.ir_version == onnx.helper.find_min_ir_version_for(
        list(model.opset_import)
    )


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_max_opset_is_the_newest_onnxruntime_loads(target):
    newest = TARGETS[target].max_opset
    with pytest.raises(ValueError, match=f"between 17 and {newest}"):
        export_onnx(mlp_graph(), opset=newest + 1, target=target)
    with pytest.raises(ValueError, match="between 17"):
        export_onnx(mlp_graph(), opset=16, target=target)


def test_installed_onnxruntime_loads_the_measured_max_opset_and_not_the_next():
    probe = probe_kernels()
    opset_model, run_onnxruntime = probe.opset_model, probe.run_onnxruntime

    newest = TARGETS["onnxruntime"].max_opset
    # The probe cannot build models beyond the newest opset onnx knows
    known = onnx.defs.onnx_opset_version()
    assert newest <= known
    models = [opset_model(opset) for opset in range(newest, min(newest + 1, known) + 1)]
    results, _ = run_onnxruntime(models)
    assert results[0] == "ok"
    if newest < known:
        assert "opset" in results[1].lower()


def test_without_target_any_opset_onnx_knows_is_accepted():
    newest = onnx.defs.onnx_opset_version()
    model = export_onnx(mlp_graph(), opset=newest, target=None)
    assert model.opset_import[0].version == newest


# ----------------------------------------------------------------- targets


def test_web_target_rejects_a_missing_kernel_and_says_where():
    flags = pt.vector("flags", dtype="int8")
    magnitude = pt.switch(flags > 0, flags, -flags)
    magnitude.name = "magnitude"
    export_onnx(([flags], magnitude), target="onnxruntime", verify=True)
    with pytest.raises(UnsupportedGraphError) as error:
        export_onnx(([flags], magnitude), target="onnxruntime-web")
    [problem] = error.value.report.problems
    assert problem.kind == "missing_kernel"
    assert (problem.variable, problem.onnx_op) == ("magnitude", "Where")
    assert problem.onnx_dtypes == {"B": "bool", "T": "int8"}
    assert any(__file__ in line for line in problem.traceback)


@pytest.mark.parametrize(
    "target, op_type, opset, dtype, has_kernel",
    [
        ("onnxruntime", "Erf", 18, "float64", False),
        ("onnxruntime", "Erf", 18, "float32", True),
        ("onnxruntime", "Conv", 18, "float64", False),
        ("onnxruntime", "Atanh", 18, "float64", False),
        ("onnxruntime", "Exp", 18, "float64", True),
        ("onnxruntime", "ReduceMax", 18, "bool", False),
        ("onnxruntime", "ReduceMax", 20, "bool", True),
        ("onnxruntime", "Where", 18, "int8", True),
        ("onnxruntime-web", "Where", 18, "int8", False),
        ("onnxruntime-web", "AveragePool", 18, "float64", False),
        ("onnxruntime-web", "Det", 18, "float64", False),
        # Softplus has no float64 kernel; at opset 18 only, onnxruntime runs
        # the operator's function body instead.
        ("onnxruntime-web", "Softplus", 17, "float64", False),
        ("onnxruntime-web", "Softplus", 18, "float64", True),
        ("onnxruntime-web", "Softplus", 22, "float64", False),
        ("onnxruntime-web", "Tan", 18, "float64", False),
    ],
)
def test_kernel_tables_hold_measured_facts(target, op_type, opset, dtype, has_kernel):
    assert TARGETS[target].has_kernel(op_type, opset, {"T": dtype}) is has_kernel


def probe_sample():
    bindings = probe_kernels().bindings

    table = TARGETS["onnxruntime"]
    sample = []
    for op_type in [
        "Erf",
        "Where",
        "Max",
        "Cast",
        "MatMul",
        "Softplus",
        "Loop",
        "QuantizeLinear",
    ]:
        for opset in (17, 18, 21):
            schema = onnx.defs.get_schema(op_type, opset, "")
            for binding in bindings(schema):
                sample.append((op_type, opset, binding))
    return table, sample


def test_kernel_table_agrees_with_installed_onnxruntime():
    probe = probe_kernels()
    run_onnxruntime, single_node_model = probe.run_onnxruntime, probe.single_node_model

    table, sample = probe_sample()
    measured_with = table.description.split()[1]
    if ort.__version__ != measured_with:
        pytest.skip(
            f"table measured with onnxruntime {measured_with}, not {ort.__version__}"
        )
    models = [
        single_node_model(
            onnx.defs.get_schema(op, opset, ""), binding, opset
        ).SerializeToString()
        for op, opset, binding in sample
    ]
    results, _ = run_onnxruntime(models)
    for (op, opset, binding), result in zip(sample, results, strict=True):
        assert table.has_kernel(op, opset, binding) == (result == "ok"), (
            op,
            opset,
            binding,
        )


def test_float32_model_for_the_web():
    inputs, outputs = mlp_graph()
    model = export_onnx(
        (inputs, outputs), target="onnxruntime-web", dtype="float32", verify=True
    )
    values = [*model.graph.input, *model.graph.output]
    assert {v.type.tensor_type.elem_type for v in values} == {onnx.TensorProto.FLOAT}
    assert {
        t.data_type for t in model.graph.initializer if t.name.startswith(("w", "b"))
    } == {onnx.TensorProto.FLOAT}
    x = np.random.default_rng(2).normal(size=(6, 4))
    [scores] = run_model(model, {"x": x.astype("float32")})
    assert scores.dtype == np.float32
    np.testing.assert_allclose(
        scores, python_reference(inputs, outputs[0])(x), rtol=1e-5, atol=1e-6
    )


def test_float32_conversion_of_a_fused_default_mode_graph():
    x = pt.vector("x")
    shift = pytensor.shared(np.array(0.5), name="shift")
    y = pt.exp(-((x - shift) ** 2)) / (1 + pt.abs(x)) + pt.sqrt(pt.abs(x) + 1)
    fn = pytensor.function([x], y)
    model = export_onnx(fn, dtype="float32", verify=["onnxruntime", "reference"])
    assert model.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    values = np.linspace(-3, 3, 7)
    [result] = run_model(model, {"x": values.astype("float32")})
    np.testing.assert_allclose(result, fn(values), rtol=FLOAT32_RTOL)


def test_float32_conversion_follows_dtype_arguments_and_integer_division():
    x = pt.vector("x")
    counts = pt.vector("counts", dtype="int64")
    y = x * counts.sum(dtype="float64") + pt.true_div(counts, 2).sum()
    model = export_onnx(([x, counts], y), dtype="float32", verify=True)
    assert model.graph.output[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    values = [np.array([0.5, 1.5, -2.0]), np.array([1, 2, 4])]
    [result] = run_model(model, {"x": values[0].astype("float32"), "counts": values[1]})
    np.testing.assert_allclose(
        result, python_reference([x, counts], y)(*values), rtol=FLOAT32_RTOL
    )


def test_docs_list_the_measured_kernel_limits():
    from pytensor.link.onnx.export.targets import kernel_limits_rst

    page = (REPO_ROOT / "docs" / "exporting.rst").read_text()
    begin = page.index("\n", page.index(".. BEGIN KERNEL LIMITS")) + 2
    end = page.index(".. END KERNEL LIMITS")
    assert page[begin:end] == kernel_limits_rst() + "\n"


def test_unknown_target_and_dtype_are_refused():
    with pytest.raises(ValueError, match="Unknown target"):
        export_onnx(mlp_graph(), target="tensorrt")
    with pytest.raises(ValueError, match="dtype must be"):
        export_onnx(mlp_graph(), dtype="bfloat16")


# ----------------------------------------------------------------- weights


def test_equal_weights_are_stored_once():
    first = pytensor.shared(np.arange(6.0), name="first")
    same = pytensor.shared(np.arange(6.0), name="same")
    other = pytensor.shared(np.arange(6.0) + 1, name="other")
    x = pt.vector("x")
    model = export_onnx(([x], [x * first + same, x * other]), verify=True)
    assert sorted(t.name for t in model.graph.initializer) == ["first", "other"]
    summed, scaled = run_model(model, {"x": np.ones(6)})
    np.testing.assert_array_equal(summed, 2 * np.arange(6.0))
    np.testing.assert_array_equal(scaled, np.arange(6.0) + 1)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=6))
def test_one_initializer_per_distinct_weight(choices):
    values = [np.full(3, float(c)) for c in choices]
    weights = [pytensor.shared(v, name=f"w{i}") for i, v in enumerate(values)]
    x = pt.vector("x")
    outputs = [x * (i + 2) + w for i, w in enumerate(weights)]
    model = export_onnx(([x], outputs))
    stored = [t.name for t in model.graph.initializer if t.name.startswith("w")]
    assert len(stored) == len(set(choices))
    results = run_model(model, {"x": np.ones(3)})
    for i, (result, value) in enumerate(zip(results, values, strict=True)):
        np.testing.assert_array_equal(result, value + i + 2)


def test_negative_zero_is_not_merged_with_zero():
    zero = pytensor.shared(np.zeros(2), name="zero")
    negative = pytensor.shared(-np.zeros(2), name="negative")
    x = pt.vector("x")
    model = export_onnx(([x], [x / zero, x / negative]))
    positive_inf, negative_inf = run_model(model, {"x": np.ones(2)})
    np.testing.assert_array_equal(positive_inf, [np.inf, np.inf])
    np.testing.assert_array_equal(negative_inf, [-np.inf, -np.inf])


def test_weights_kept_as_inputs_can_be_swapped():
    inputs, outputs = mlp_graph()
    model = export_onnx((inputs, outputs), weights_as_inputs=["w2"], verify=True)
    assert [i.name for i in model.graph.input] == ["x", "w2"]
    assert "w2" not in {t.name for t in model.graph.initializer}
    x = np.random.default_rng(3).normal(size=(2, 4))
    new_w2 = np.random.default_rng(4).normal(size=(8, 3))
    [scores] = run_model(model, {"x": x, "w2": new_w2})
    shared_named(outputs, "w2").set_value(new_w2)
    assert_same_values(scores, python_reference(inputs, outputs[0])(x), rtol=1e-10)
    with pytest.raises(ValueError, match="no weight 'w3'"):
        export_onnx((inputs, outputs), weights_as_inputs=["w3"])


def test_model_over_2gb_is_written_with_external_data(tmp_path):
    size = (2**31 + 2**24) // 4
    value = np.zeros(size, dtype="float32")  # lazily allocated: cheap
    value[:4] = [1, 2, 3, 4]
    value[-4:] = [5, 6, 7, 8]
    big = pytensor.shared(value, name="big", borrow=True)
    x = pt.tensor("x", shape=(4,), dtype="float32")
    y = big[:4] + big[-4:] + x
    y.name = "y"
    path = tmp_path / "big.onnx"
    export_onnx(([x], y), path)
    [data_file] = [p for p in tmp_path.iterdir() if p.name.endswith(".data")]
    assert data_file.name.startswith("big.onnx.")
    assert data_file.stat().st_size > 2**31
    assert path.stat().st_size < 10_000
    structure = onnx.load(path, load_external_data=False)
    [tensor] = [t for t in structure.graph.initializer if t.name == "big"]
    assert tensor.data_location == onnx.TensorProto.EXTERNAL
    assert {e.key: e.value for e in tensor.external_data}["location"] == data_file.name
    options = ort.SessionOptions()
    # Without graph optimizations onnxruntime maps the data file instead of
    # copying 2 GiB; the model is the same either way.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options)
    [result] = session.run(None, {"x": np.ones(4, dtype="float32")})
    np.testing.assert_array_equal(result, [7, 9, 11, 13])


def test_external_data_round_trips_and_replaces_the_previous_file(tmp_path):
    w = pytensor.shared(np.arange(1000.0), name="w")
    x = pt.vector("x")
    path = tmp_path / "m.onnx"
    export_onnx(([x], x + w), path, external_data=True, verify=True)
    [first_data] = [p.name for p in tmp_path.iterdir() if p.suffix == ".data"]
    [result] = run_file(path, {"x": np.ones(1000)})
    np.testing.assert_array_equal(result, np.arange(1000.0) + 1)
    [stored] = onnx.load(path).graph.initializer
    np.testing.assert_array_equal(onnx.numpy_helper.to_array(stored), np.arange(1000.0))
    w.set_value(np.arange(1000.0) * 2)
    export_onnx(([x], x + w), path, external_data=True)
    [second_data] = [p.name for p in tmp_path.iterdir() if p.suffix == ".data"]
    assert second_data != first_data
    [result] = run_file(path, {"x": np.ones(1000)})
    np.testing.assert_array_equal(result, np.arange(1000.0) * 2 + 1)


# --------------------------------------------------- metadata, determinism


def test_metadata():
    model = export_onnx(
        mlp_graph(), doc_string="Iris classifier", model_version=3, opset=19
    )
    assert (model.producer_name, model.producer_version) == ("pytensor-onnx", "0.1.0")
    assert {p.key: p.value for p in model.metadata_props} == {
        "pytensor_version": pytensor.__version__
    }
    assert (model.doc_string, model.model_version) == ("Iris classifier", 3)
    assert model.opset_import[0].version == 19


def test_metadata_of_the_caller_is_stored_next_to_the_exporters():
    model = export_onnx(mlp_graph(), metadata={"dataset": "iris", "units": "cm"})

    props = {p.key: p.value for p in model.metadata_props}
    assert props == {
        "pytensor_version": pytensor.__version__,
        "dataset": "iris",
        "units": "cm",
    }
    with pytest.raises(ValueError, match="writes \\['pytensor_version'\\] itself"):
        export_onnx(mlp_graph(), metadata={"pytensor_version": "mine"})
    with pytest.raises(TypeError, match="strings"):
        export_onnx(mlp_graph(), metadata={"version": 2})


def test_file_holds_no_path_user_or_host_name(tmp_path):
    inputs, outputs = mlp_graph()
    path = tmp_path / "m.onnx"
    export_onnx((inputs, outputs), path, external_data=True)
    contents = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    for secret in {
        str(tmp_path),
        os.getcwd(),
        str(Path.home()),
        socket.gethostname(),
        getpass.getuser(),
        str(REPO_ROOT),
    }:
        assert secret.encode() not in contents, secret


EXPORT_SCRIPT = """
import sys
import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.link.onnx import export_onnx
from tests.link.onnx.test_export import mlp_graph

export_onnx(mlp_graph(), sys.argv[1], doc_string="same", external_data=True)
"""


def test_same_graph_gives_byte_identical_files(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        export_onnx(
            mlp_graph(),
            tmp_path / name / "m.onnx",
            doc_string="same",
            external_data=True,
        )
    (tmp_path / "c").mkdir()
    subprocess.run(
        [sys.executable, "-c", EXPORT_SCRIPT, str(tmp_path / "c" / "m.onnx")],
        cwd=REPO_ROOT,
        check=True,
    )
    files = [
        sorted((p.name, p.read_bytes()) for p in (tmp_path / n).iterdir())
        for n in "abc"
    ]
    assert files[0] == files[1] == files[2]
    assert len(files[0]) == 2


# ------------------------------------------------------------------ safety


def test_failed_export_leaves_no_file_and_keeps_existing(tmp_path):
    x = pt.vector("x")
    fn = pytensor.function([x], Mystery()(x))
    path = tmp_path / "model.onnx"
    with pytest.raises(NotImplementedError, match="Mystery"):
        export_onnx(fn, path)
    assert list(tmp_path.iterdir()) == []

    path.write_bytes(b"previous good model")
    with pytest.raises(NotImplementedError):
        export_onnx(fn, path)
    assert path.read_bytes() == b"previous good model"
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("external_data", [False, True])
@pytest.mark.parametrize("test_data", [False, True])
def test_interrupted_write_keeps_the_previous_files(
    tmp_path, monkeypatch, external_data, test_data
):
    from pytensor.link.onnx.export import files

    inputs, outputs = mlp_graph()
    path = tmp_path / "m.onnx"
    export_onnx(
        (inputs, outputs), path, external_data=external_data, test_data=test_data
    )
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    calls = []

    def write_half_then_fail(target, chunks):
        calls.append(target)
        Path(target).write_bytes(b"".join(chunks)[:10])
        raise OSError("disk full")

    monkeypatch.setattr(files, "write_synced", write_half_then_fail)
    w2 = shared_named(outputs, "w2")
    w2.set_value(w2.get_value() * 2)
    with pytest.raises(OSError, match="disk full"):
        export_onnx(
            (inputs, outputs), path, external_data=external_data, test_data=test_data
        )
    assert calls
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before


def test_written_files_get_the_usual_permissions(tmp_path):
    (tmp_path / "reference").touch()
    usual = (tmp_path / "reference").stat().st_mode
    export_onnx(mlp_graph(), tmp_path / "m.onnx", external_data=True, test_data=True)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert path.stat().st_mode == usual, path
    existing = tmp_path / "m.onnx"
    existing.chmod(0o640)
    export_onnx(mlp_graph(), existing)
    assert existing.stat().st_mode & 0o777 == 0o640


def test_invalid_model_is_rejected_before_writing(tmp_path):
    x = pt.vector("x")
    with pytest.raises(
        (onnx.checker.ValidationError, onnx.shape_inference.InferenceError)
    ):
        export_onnx(([x], IllTyped()(x)), tmp_path / "m.onnx")
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------ verification


def test_verify_names_the_first_diverging_node(tmp_path):
    x = pt.vector("x")
    tripled = Triple()(pt.exp(x))
    tripled.name = "tripled"
    y = pt.log(tripled) + 1
    with pytest.raises(ONNXVerificationError) as error:
        export_onnx(([x], y), tmp_path / "m.onnx", verify=True)
    message = str(error.value)
    assert "first diverging value is tripled" in message
    assert "Triple" in message and __file__ in message
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("runtime", ["onnxruntime", "reference"])
def test_verify_with_the_reference_evaluator_too(runtime):
    x = pt.vector("x")
    with pytest.raises(ONNXVerificationError, match=f"run by {runtime}"):
        export_onnx(([x], Triple()(x)), verify=[runtime])


@pytest.mark.parametrize(
    "example_inputs",
    [[np.full((2, 4), 0.5)], {"x": np.full((2, 4), 0.5)}],
    ids=["list", "dict"],
)
def test_verify_on_example_inputs(tmp_path, example_inputs):
    path = tmp_path / "m.onnx"
    export_onnx(
        mlp_graph(), path, verify=True, example_inputs=example_inputs, test_data=True
    )
    inputs = onnx.load_tensor(str(tmp_path / "test_data_set_0" / "input_0.pb"))
    np.testing.assert_array_equal(
        onnx.numpy_helper.to_array(inputs), np.full((2, 4), 0.5)
    )


def test_verify_explains_inputs_pytensor_cannot_evaluate():
    x = pt.vector("x")
    indices = pt.vector("indices", dtype="int64")
    with pytest.raises(ONNXVerificationError, match="Pass valid example_inputs"):
        export_onnx(([x, indices], x[indices + 10]), verify=True)
    export_onnx(
        ([x, indices], x[indices + 10]),
        verify=True,
        example_inputs=[np.arange(12.0), np.array([0, 1])],
    )


# ---------------------------------------------------------- support report


def test_support_report_lists_every_problem_at_once():
    x = pt.vector("x")
    first = Mystery()(x)
    first.name = "first"
    second = pt.exp(Mystery()(first * 2))
    sparse_x = csr_from_dense(x[None])
    report = onnx_support_report(([x], [second, sparse_x]))
    assert not report.ok
    kinds = [(p.kind, p.op) for p in report.problems]
    assert ("unsupported_op", "Mystery") in kinds
    assert kinds.count(("unsupported_op", "Mystery")) == 2
    assert any(kind == "unsupported_type" for kind, _ in kinds)
    assert report.problems[
        [p.variable for p in report.problems].index("first")
    ].traceback
    data = json.loads(json.dumps(report.to_dict()))
    assert data["ok"] is False and len(data["problems"]) == len(report.problems)
    text = str(report)
    assert f"{len(report.problems)} problem(s)" in text and "first" in text

    with pytest.raises(UnsupportedGraphError) as error:
        export_onnx(([x], [second, sparse_x]))
    assert error.value.report == report


def test_support_report_includes_kernel_gaps_of_the_convertible_part():
    flags = pt.vector("flags", dtype="int8")
    magnitude = pt.switch(flags > 0, flags, -flags)
    report = onnx_support_report(
        ([flags], [Mystery()(flags), magnitude]), target="onnxruntime-web"
    )
    assert sorted(p.kind for p in report.problems) == [
        "missing_kernel",
        "unsupported_op",
    ]


def test_support_report_of_a_supported_function():
    report = onnx_support_report(mlp_function("FAST_RUN"), target="onnxruntime-web")
    assert report.ok and report.to_dict()["problems"] == []
    assert "can be exported" in str(report)


# ------------------------------------------------------------ test vectors


def test_test_data_lets_any_runtime_check_itself(tmp_path):
    inputs, outputs = mlp_graph()
    path = tmp_path / "m.onnx"
    export_onnx((inputs, outputs), path, test_data=True, dims={"x": ("batch", 4)})
    data = tmp_path / "test_data_set_0"
    assert sorted(p.name for p in data.iterdir()) == ["input_0.pb", "output_0.pb"]
    [x] = [onnx.numpy_helper.to_array(onnx.load_tensor(str(data / "input_0.pb")))]
    expected = onnx.load_tensor(str(data / "output_0.pb"))
    assert expected.name == "scores"
    [scores] = run_file(path, {"x": x})
    assert_same_values(scores, onnx.numpy_helper.to_array(expected), rtol=1e-12)
    assert_same_values(scores, python_reference(inputs, outputs[0])(x), rtol=1e-10)
    with pytest.raises(ValueError, match="needs a path"):
        export_onnx((inputs, outputs), test_data=True)


# --------------------------------------------------------------- model zoo


def zoo():
    x = pt.matrix("x")
    v = pt.vector("v")
    i = pt.vector("i", dtype="int64")
    b = pt.vector("b", dtype="bool")
    return {
        "reductions": ([x], [x.max(axis=0), x.sum(), pt.argmax(x, axis=1)]),
        "indexing": ([x, i], [x[i % 3], x[1:, ::-1], x[0]]),
        "integers": ([i], [i // 3, i % 3, i * i - 1]),
        "booleans": ([b, v], [pt.switch(b, v, -v), b.any(), ~b]),
        "mlp": mlp_graph(),
        "float32_mlp": mlp_graph("float32"),
    }


@pytest.mark.parametrize("name", list(zoo()))
def test_models_agree_in_onnxruntime_and_reference_evaluator(name):
    inputs, outputs = zoo()[name]
    model = export_onnx((inputs, outputs), verify=["onnxruntime", "reference"])
    rng = np.random.default_rng(5)
    feeds = {}
    for info in model.graph.input:
        shape = [d.dim_value or 3 for d in info.type.tensor_type.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(info.type.tensor_type.elem_type)
        feeds[info.name] = rng.integers(0, 3, size=shape).astype(dtype)
    for ort_value, reference_value in zip(
        run_model(model, feeds), ReferenceEvaluator(model).run(None, feeds), strict=True
    ):
        assert_same_values(ort_value, reference_value, rtol=1e-6)


def test_float32_export_of_a_default_mode_convolution():
    # The default (Numba) mode wraps Blockwise Ops in an OpFromGraph whose inner
    # graph is typed float64: the float32 rebuild must inline it.
    x = pt.tensor("x", shape=(None, 1, 8, 8))
    kernels = pytensor.shared(
        np.random.default_rng(0).normal(size=(4, 1, 3, 3)), name="kernels"
    )
    y = pt.signal.convolve2d(x[:, None], kernels[None], mode="valid")
    y.name = "y"
    fn = pytensor.function([x], y)
    model = export_onnx(fn, dtype="float32", verify=True)
    images = np.random.default_rng(1).normal(size=(5, 1, 8, 8))
    session = ort.InferenceSession(model.SerializeToString())
    [out] = session.run(None, {"x": images.astype("float32")})
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, fn(images), rtol=1e-5, atol=1e-5)


def test_output_dims_shape_inference_cannot_relate_get_readable_names():
    x = pt.tensor("x", shape=(None, 1, 8, 8))
    y = pt.signal.convolve2d(x[:, None], np.ones((4, 1, 3, 3))[None], mode="valid")
    y.name = "y"
    model = export_onnx((([x], [y])), dims={"x": ("batch", 1, 8, 8)})
    dims = [d.dim_param for d in model.graph.output[0].type.tensor_type.shape.dim]
    assert not any(name.startswith("unk__") for name in dims), dims
