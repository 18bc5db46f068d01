import numpy as np
import onnx
import onnxruntime as ort
import pytensor.tensor as pt
import pytest
from pytensor.compile.mode import Mode
from pytensor.raise_op import Assert

import pytensor
from pytensor.link.onnx import export_onnx
from tests.link.onnx.test_basic import assert_same_values


def run_file(path, feed):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, feed)


def mlp_function(mode):
    rng = np.random.default_rng(0)
    w1 = pytensor.shared(rng.normal(size=(4, 8)), name="w1")
    b1 = pytensor.shared(rng.normal(size=8), name="b1")
    w2 = pytensor.shared(rng.normal(size=(8, 3)), name="w2")
    x = pt.matrix("x")
    hidden = pt.tanh(x @ w1 + b1)
    scores = pt.special.softmax(hidden @ w2, axis=-1)
    scores.name = "scores"
    return pytensor.function([x], scores, mode=mode)


@pytest.mark.parametrize(
    "mode",
    ["ONNX", "FAST_RUN", Mode(linker="cvm", optimizer="fast_run"), "FAST_COMPILE"],
    ids=["onnx", "default", "c", "fast_compile"],
)
def test_exported_file_is_self_contained_and_matches(tmp_path, mode):
    fn = mlp_function(mode)
    path = tmp_path / "mlp.onnx"
    model = export_onnx(fn, path)
    loaded = onnx.load(path)
    onnx.checker.check_model(loaded, full_check=True)
    assert [i.name for i in loaded.graph.input] == ["x"]
    assert [o.name for o in loaded.graph.output] == ["scores"]
    assert {"w1", "b1", "w2"} <= {t.name for t in loaded.graph.initializer}
    assert loaded == model
    x = np.random.default_rng(1).normal(size=(5, 4))
    [scores] = run_file(path, {"x": x})
    assert_same_values(scores, fn(x), rtol=1e-10)


def test_export_uses_current_shared_values_and_drops_updates(tmp_path):
    w = pytensor.shared(np.array([1.0, 2.0]), name="w")
    steps = pytensor.shared(np.int64(0), name="steps")
    x = pt.vector("x")
    fn = pytensor.function([x], x * w, updates={steps: steps + 1}, mode="ONNX")
    w.set_value(np.array([5.0, 6.0]))
    model = export_onnx(fn, tmp_path / "m.onnx")
    assert [t.name for t in model.graph.initializer if t.name in ("w", "steps")] == [
        "w"
    ]
    assert len(model.graph.output) == 1
    [out] = run_file(tmp_path / "m.onnx", {"x": np.ones(2)})
    np.testing.assert_array_equal(out, [5.0, 6.0])


def test_export_drops_runtime_assertions(tmp_path):
    sigma = pt.scalar("sigma")
    out = Assert("sigma must be positive")(sigma, pt.gt(sigma, 0)) * 2
    fn = pytensor.function([sigma], out, mode="ONNX")
    model = export_onnx(fn)
    assert len(model.graph.output) == 1
    session = ort.InferenceSession(model.SerializeToString())
    assert session.run(None, {"sigma": np.asarray(-1.0)})[0] == -2.0


def test_failed_export_leaves_no_file_and_keeps_existing(tmp_path):
    from pytensor.graph.basic import Apply
    from pytensor.graph.op import Op

    class Unconvertible(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0]

    x = pt.vector("x")
    fn = pytensor.function([x], Unconvertible()(x))
    path = tmp_path / "model.onnx"
    with pytest.raises(NotImplementedError, match="Unconvertible"):
        export_onnx(fn, path)
    assert list(tmp_path.iterdir()) == []

    path.write_bytes(b"previous good model")
    with pytest.raises(NotImplementedError):
        export_onnx(fn, path)
    assert path.read_bytes() == b"previous good model"
    assert list(tmp_path.iterdir()) == [path]
