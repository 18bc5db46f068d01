"""Quantized and float16 exports: onnxruntime's tools, the usual checks, a report."""

import numpy as np
import onnx
import onnxruntime as ort
import pytensor.tensor as pt
import pytest

import pytensor
from pytensor.link.onnx import export_onnx
from pytensor.link.onnx.export import PrecisionReport, precision_report


RNG_SEED = 2026


def dense_classifier(dtype="float32", n_in=64, hidden=128, classes=5):
    """x -> relu(x W1 + b1) W2 -> softmax, with fixed random weights, as
    ``(inputs, outputs)``."""
    rng = np.random.default_rng(RNG_SEED)
    x = pt.matrix("x", dtype=dtype)
    w1 = rng.normal(size=(n_in, hidden)) / np.sqrt(n_in)
    w2 = rng.normal(size=(hidden, classes)) / np.sqrt(hidden)
    w1 = pytensor.shared(w1.astype(dtype), name="w1")
    b1 = pytensor.shared(rng.normal(size=hidden).astype(dtype), name="b1")
    w2 = pytensor.shared(w2.astype(dtype), name="w2")
    h = pt.maximum(x @ w1 + b1, 0)
    probabilities = pt.special.softmax(h @ w2, axis=-1)
    probabilities.name = "probabilities"
    return [x], probabilities


def conv_classifier(channels=4, classes=3):
    """A 3x3 convolution (as the browser demo's CNN), ReLU, dense, softmax."""
    rng = np.random.default_rng(RNG_SEED)
    images = pt.tensor3("images", dtype="float32")
    kernels = pytensor.shared(
        rng.normal(size=(channels, 1, 3, 3)).astype("float32"), name="kernels"
    )
    w = pytensor.shared(
        rng.normal(size=(channels * 36, classes)).astype("float32"), name="w"
    )
    maps = pt.signal.convolve2d(images[:, None, None], kernels[None], mode="valid")
    maps = pt.maximum(maps.sum(axis=2), 0)
    logits = maps.reshape((images.shape[0], channels * 36)) @ w
    return [images], pt.special.softmax(logits, axis=-1)


def batches(shape, n=4, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=shape).astype("float32"),) for _ in range(n)]


def op_types(model):
    return {node.op_type for node in model.graph.node}


def restated_defaults(model):
    """``(operator, attribute)`` of every attribute set to its operator's default."""
    opset = {o.domain: o.version for o in model.opset_import}
    restated = []
    for node in model.graph.node:
        schema = onnx.defs.get_schema(node.op_type, opset[node.domain], node.domain)
        restated += [
            (node.op_type, a.name)
            for a in node.attribute
            if schema.attributes[a.name].default_value == a
        ]
    return restated


def run(path, feeds):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def test_static_quantization_is_qdq_int8_and_reports_its_cost(tmp_path):
    path = tmp_path / "dense.onnx"
    float_path = tmp_path / "float.onnx"
    calibration = batches((64, 64))
    function = dense_classifier()

    model = export_onnx(function, path, quantize="static", calibration=calibration)
    export_onnx(function, float_path)

    assert {"QuantizeLinear", "DequantizeLinear"} <= op_types(model)
    int8_weights = [
        t for t in model.graph.initializer if t.data_type == onnx.TensorProto.INT8
    ]
    assert {t.dims[0] for t in int8_weights if len(t.dims) == 2} == {64, 128}
    report = precision_report(path)
    assert report == precision_report(model)
    assert report.conversion == "quantize='static'"
    assert report.data == "calibration" and report.batches == 4
    assert report.bytes_before == float_path.stat().st_size
    assert report.bytes_after < report.bytes_before / 2
    assert report.details["per_channel"] and report.details["format"] == "QDQ"
    [output] = report.outputs
    assert output.name == "probabilities"
    [quantized] = run(path, {"x": calibration[0][0]})
    [reference] = run(float_path, {"x": calibration[0][0]})
    assert output.max_abs_error >= np.abs(quantized - reference).max()
    assert 0 < output.max_abs_error < 0.2
    assert output.max_rel_error == pytest.approx(
        output.max_abs_error
        / max(np.abs(run(float_path, {"x": b[0]})[0]).max() for b in calibration)
    )
    assert output.argmax_agreement >= 0.8


def test_static_quantization_for_the_browser_has_no_integer_convolution(tmp_path):
    path = tmp_path / "cnn.onnx"
    calibration = [(np.abs(x) * 4,) for (x,) in batches((32, 8, 8))]

    model = export_onnx(
        conv_classifier(),
        path,
        target="onnxruntime-web",
        quantize="static",
        calibration=calibration,
        calibration_method="percentile",
    )

    assert "Conv" in op_types(model)
    assert not op_types(model) & {"ConvInteger", "MatMulInteger"}
    # quant_pre_process writes out Conv's, Reshape's and ReduceSum's defaults
    assert restated_defaults(model) == []
    assert precision_report(model).details["calibration_method"] == "percentile"
    [probabilities] = run(path, {"images": calibration[0][0]})
    np.testing.assert_allclose(probabilities.sum(-1), 1, rtol=1e-5)


def test_dynamic_quantization_quantizes_dense_layers_at_run_time(tmp_path):
    path = tmp_path / "dense.onnx"
    x = np.random.default_rng(1).normal(size=(8, 64)).astype("float32")

    model = export_onnx(
        dense_classifier(), path, quantize="dynamic", example_inputs=[x]
    )

    assert {"DynamicQuantizeLinear", "MatMulInteger"} <= op_types(model)
    assert restated_defaults(model) == []
    report = precision_report(path)
    assert report.data == "example_inputs" and report.batches == 1
    assert report.outputs[0].max_abs_error < 0.2
    assert run(path, {"x": x})[0].shape == (8, 5)


@pytest.mark.parametrize("float16_io", [False, True])
def test_float16_keeps_float32_inputs_and_outputs_unless_asked(tmp_path, float16_io):
    path = tmp_path / "half.onnx"
    x = np.random.default_rng(2).normal(size=(8, 64))

    model = export_onnx(
        dense_classifier("float64"), path, dtype="float16", float16_io=float16_io
    )

    io_dtype = onnx.TensorProto.FLOAT16 if float16_io else onnx.TensorProto.FLOAT
    for info in [*model.graph.input, *model.graph.output]:
        assert info.type.tensor_type.elem_type == io_dtype
    assert all(
        t.data_type != onnx.TensorProto.FLOAT or not t.dims
        for t in model.graph.initializer
    )
    report = precision_report(model)
    assert report.conversion == "dtype='float16'" and report.data == "generated"
    assert report.bytes_after < 0.6 * report.bytes_before
    assert 0 < report.outputs[0].max_rel_error < 1e-2
    [half] = run(path, {"x": x.astype("float16" if float16_io else "float32")})
    assert half.dtype == ("float16" if float16_io else "float32")


def test_report_is_plain_data_and_printable(tmp_path):
    model = export_onnx(
        dense_classifier(), None, quantize="static", calibration=batches((4, 64), 2)
    )
    report = precision_report(model)

    assert PrecisionReport.from_dict(report.to_dict()) == report
    text = str(report)
    assert "quantize='static'" in text and "probabilities" in text
    assert "argmax agrees" in text


def test_exports_without_conversion_have_no_report():
    assert precision_report(export_onnx(dense_classifier(), None)) is None


def scalar_graph():
    x = pt.vector("x", dtype="float32")
    return [x], x * 2 + 1


BAD_EXPORTS = {
    "float64 graph": (
        lambda: dense_classifier("float64"),
        {"quantize": "dynamic"},
        ValueError,
        "needs a float32 model.*dtype='float32'",
    ),
    "nothing to quantize": (
        scalar_graph,
        {"quantize": "dynamic"},
        ValueError,
        "nothing to quantize",
    ),
    "static without calibration": (
        dense_classifier,
        {"quantize": "static"},
        ValueError,
        "needs calibration data",
    ),
    "calibration of the wrong dtype": (
        dense_classifier,
        {"quantize": "static", "calibration": [(np.ones((4, 64), dtype="int64"),)]},
        ValueError,
        "input 'x' is float32.*int64",
    ),
    "calibration of the wrong rank": (
        dense_classifier,
        {"quantize": "static", "calibration": [(np.ones(64, dtype="float32"),)]},
        ValueError,
        "input 'x' has shape .*given for it has shape \\[64\\]",
    ),
    "calibration with a wrong fixed size": (
        dense_classifier,
        {
            "quantize": "static",
            "calibration": [{"x": np.ones((4, 3), dtype="float32")}],
            "dims": {"x": ("batch", 64)},
        },
        ValueError,
        "input 'x' has shape \\['batch', 64\\]",
    ),
    "calibration for an unknown input": (
        dense_classifier,
        {"quantize": "static", "calibration": [{"x": np.ones((4, 64)), "y": 1}]},
        ValueError,
        "no input \\['y'\\]",
    ),
    "calibration not a list of input sets": (
        dense_classifier,
        {"quantize": "static", "calibration": np.ones((4, 64))},
        TypeError,
        "iterable of input sets",
    ),
    "unknown quantize": (
        dense_classifier,
        {"quantize": "int4"},
        ValueError,
        "quantize must be",
    ),
    "unknown calibration method": (
        dense_classifier,
        {"quantize": "static", "calibration": [], "calibration_method": "mse"},
        ValueError,
        "calibration_method must be",
    ),
    "quantize and float16": (
        dense_classifier,
        {"quantize": "dynamic", "dtype": "float16"},
        ValueError,
        "cannot be combined",
    ),
    "float16_io without float16": (
        dense_classifier,
        {"float16_io": True},
        ValueError,
        "float16_io=True is an option of dtype='float16'",
    ),
    "unknown dtype": (
        dense_classifier,
        {"dtype": "bfloat16"},
        ValueError,
        "dtype must be",
    ),
}


@pytest.mark.parametrize("case", BAD_EXPORTS, ids=list(BAD_EXPORTS))
def test_bad_input_is_a_clear_error_and_no_file(tmp_path, case):
    make, options, error, message = BAD_EXPORTS[case]
    path = tmp_path / "model.onnx"

    with pytest.raises(error, match=message):
        export_onnx(make(), path, **options)

    assert list(tmp_path.iterdir()) == []


def test_target_without_a_float16_kernel_names_the_node_and_writes_nothing(
    tmp_path, monkeypatch
):
    # The measured runtimes load every float16 node the converters emit, so
    # a runtime without a float16 Softmax stands in for one that lacks kernels.
    from dataclasses import replace

    from pytensor.link.onnx import UnsupportedGraphError
    from pytensor.link.onnx.export import targets

    cpu = targets.TARGETS["onnxruntime"]
    kernels = {**cpu.kernels, "Softmax": {17: "T: float32 float64"}}
    monkeypatch.setitem(
        targets.TARGETS, "no-float16-softmax", replace(cpu, kernels=kernels)
    )
    path = tmp_path / "half.onnx"

    with pytest.raises(UnsupportedGraphError, match="no Softmax kernel for T=float16"):
        export_onnx(
            dense_classifier(), path, dtype="float16", target="no-float16-softmax"
        )

    assert list(tmp_path.iterdir()) == []
