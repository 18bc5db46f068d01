"""Export of graphs that draw random numbers: a key input per generator, the
advanced key as an output, the same draws as mode="ONNX" for the same key."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytensor.tensor as pt
import pytest

import pytensor
from pytensor.link.onnx import export_onnx, random_key


ONNXRUNTIME_WEB = Path(__file__).parents[3] / "examples" / "onnx_demo" / "node_modules"


def run_model(model, feed):
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feed)


def random_keys(model) -> dict:
    return json.loads({p.key: p.value for p in model.metadata_props}["random_keys"])


def key_inputs(model) -> dict:
    return {
        info.name: (
            info.type.tensor_type.elem_type,
            len(info.type.tensor_type.shape.dim),
        )
        for info in model.graph.input
        if info.type.tensor_type.elem_type == onnx.TensorProto.UINT64
    }


def noisy_sum(rng):
    """``x`` plus a normal and a gamma draw, chained on ``rng``; the next generator."""
    x = pt.vector("x")
    next_rng, noise = pt.random.normal(size=x.shape, rng=rng).owner.outputs
    next_rng, scale = pt.random.gamma(
        2.0, scale=1.0, size=x.shape, rng=next_rng
    ).owner.outputs
    y = x + noise * scale
    y.name = "y"
    return x, y, next_rng


@pytest.mark.parametrize("compile_mode", [None, "ONNX"])
def test_shared_generator_becomes_a_key_input_and_its_update_a_key_output(
    compile_mode,
):
    rng = pytensor.shared(np.random.default_rng(1), name="rng")
    x, y, next_rng = noisy_sum(rng)
    fn = pytensor.function([x], y, updates={rng: next_rng}, mode=compile_mode)

    model = export_onnx(fn)

    assert [i.name for i in model.graph.input] == ["x", "rng"]
    assert [o.name for o in model.graph.output] == ["y", "rng_next"]
    assert key_inputs(model) == {"rng": (onnx.TensorProto.UINT64, 0)}
    assert random_keys(model) == {"rng": "rng_next"}
    x_value = np.arange(5.0)
    key = random_key(rng.get_value())
    draws, next_key = run_model(model, {"x": x_value, "rng": key})
    onnx_fn = pytensor.function([x], y, updates={rng: next_rng}, mode="ONNX")
    np.testing.assert_array_equal(draws, onnx_fn(x_value))
    assert next_key.dtype == np.uint64 and next_key.shape == ()
    assert next_key != key


def test_updates_of_other_shared_variables_stay_out_of_the_model():
    rng = pytensor.shared(np.random.default_rng(1), name="rng")
    calls = pytensor.shared(np.int64(0), name="calls")
    x, y, next_rng = noisy_sum(rng)
    fn = pytensor.function([x], y, updates={rng: next_rng, calls: calls + 1})

    model = export_onnx(fn)

    assert [o.name for o in model.graph.output] == ["y", "rng_next"]


def test_the_advanced_key_continues_the_stream_of_the_draws_that_follow():
    rng = pytensor.shared(np.random.default_rng(2), name="rng")
    next_rng, first = pt.random.normal(size=4, rng=rng).owner.outputs
    _, second = pt.random.normal(size=4, rng=next_rng).owner.outputs
    first.name = "z"
    once = export_onnx(pytensor.function([], first, updates={rng: next_rng}))
    twice = pytensor.function([], [first, second], mode="ONNX")

    key = random_key(rng.get_value())
    first_draws, next_key = run_model(once, {"rng": key})
    second_draws, _ = run_model(once, {"rng": next_key})

    expected_first, expected_second = twice()
    np.testing.assert_array_equal(first_draws, expected_first)
    np.testing.assert_array_equal(second_draws, expected_second)


def test_the_key_of_a_seed_is_the_key_mode_onnx_feeds_for_its_generator():
    rng = pytensor.shared(np.random.default_rng(123))
    draws = pt.random.uniform(size=3, rng=rng)
    model = export_onnx(pytensor.function([], draws))

    [exported] = run_model(model, {"key_0": random_key(123)})

    onnx_fn = pytensor.function([], draws, mode="ONNX")
    np.testing.assert_array_equal(exported, onnx_fn())
    np.testing.assert_array_equal(
        random_key(123), random_key(np.random.default_rng(123))
    )


def test_a_generator_without_update_has_a_key_input_and_no_advanced_key():
    rng = pytensor.shared(np.random.default_rng(3))
    fn = pytensor.function([], pt.random.normal(size=3, rng=rng))

    model = export_onnx(fn)

    assert [i.name for i in model.graph.input] == ["key_0"]
    assert [o.name for o in model.graph.output] == ["output_0"]
    assert random_keys(model) == {"key_0": None}
    key = random_key(7)
    first, again = run_model(model, {"key_0": key}), run_model(model, {"key_0": key})
    np.testing.assert_array_equal(first, again)
    [other] = run_model(model, {"key_0": random_key(8)})
    assert not np.array_equal(first[0], other)


def test_unnamed_generators_are_numbered_keys_apart_from_weights():
    x = pt.vector("x")
    scale = pytensor.shared(np.array(2.0))
    first, second = (pytensor.shared(np.random.default_rng(i)) for i in range(2))
    draws = pt.random.normal(size=x.shape, rng=first) + pt.random.normal(rng=second)
    fn = pytensor.function([x], x + scale * draws)

    model = export_onnx(fn)

    assert [i.name for i in model.graph.input] == ["x", "key_0", "key_1"]
    assert "weight_0" in {t.name for t in model.graph.initializer}
    assert random_keys(model) == {"key_0": None, "key_1": None}


def test_default_updates_give_the_advanced_key():
    rng = pytensor.shared(np.random.default_rng(0))
    x, y, rng.default_update = noisy_sum(rng)
    fn = pytensor.function([x], y)

    model = export_onnx(fn)

    assert random_keys(model) == {"key_0": "key_0_next"}
    _, next_key = run_model(model, {"x": np.zeros(3), "key_0": random_key(0)})
    assert next_key.dtype == np.uint64


def test_explicit_generator_input_and_output_are_keys():
    rng = pt.random.type.random_generator_type("rng")
    x, y, next_rng = noisy_sum(rng)
    next_rng.name = "rng_after"
    fn = pytensor.function([x, rng], [y, next_rng])

    model = export_onnx(fn, input_names={"rng": "seed_key"})

    assert key_inputs(model) == {"seed_key": (onnx.TensorProto.UINT64, 0)}
    assert random_keys(model) == {"seed_key": "rng_after"}
    generator = np.random.default_rng(4)
    draws, next_key = run_model(
        model, {"x": np.ones(3), "seed_key": random_key(generator)}
    )
    onnx_draws, onnx_next = pytensor.function([x, rng], [y, next_rng], mode="ONNX")(
        np.ones(3), generator
    )
    np.testing.assert_array_equal(draws, onnx_draws)
    assert isinstance(onnx_next, np.random.Generator)
    assert next_key.dtype == np.uint64


def test_symbolic_graph_exports_the_default_update_of_a_shared_generator():
    rng = pytensor.shared(np.random.default_rng(5), name="rng")
    next_rng, draws = pt.random.normal(size=3, rng=rng).owner.outputs
    rng.default_update = next_rng

    model = export_onnx(([], draws))

    assert [o.name for o in model.graph.output] == ["output_0", "rng_next"]
    assert random_keys(model) == {"rng": "rng_next"}


def test_float32_export_draws_the_float64_draws_rounded():
    rng = pytensor.shared(np.random.default_rng(6), name="rng")
    x, y, next_rng = noisy_sum(rng)
    fn = pytensor.function([x], y, updates={rng: next_rng})
    feed = {"x": np.linspace(-1, 1, 6), "rng": random_key(9)}

    [draws64, key64] = run_model(export_onnx(fn), feed)
    model32 = export_onnx(fn, dtype="float32")
    [draws32, key32] = run_model(model32, feed | {"x": feed["x"].astype("float32")})

    assert draws32.dtype == np.float32
    np.testing.assert_allclose(draws32, draws64, rtol=1e-5, atol=1e-6)
    assert key32 == key64


@pytest.mark.parametrize("check", [{"verify": True}, {"test_data": True}])
def test_verify_and_test_data_refuse_random_draws(check, tmp_path):
    fn = pytensor.function([], pt.random.normal(size=3))

    with pytest.raises(ValueError, match="mode='ONNX'"):
        export_onnx(fn, tmp_path / "model.onnx", **check)

    assert not (tmp_path / "model.onnx").exists()


WEB_SCRIPT = """
import { createRequire } from "module";
const require = createRequire(process.argv[2] + "/");
const ort = require("onnxruntime-web");
const session = await ort.InferenceSession.create(process.argv[3]);
const rng = new ort.Tensor("uint64", BigUint64Array.from([BigInt(process.argv[4])]), []);
const x = new ort.Tensor("float64", Float64Array.from(JSON.parse(process.argv[5])), [5]);
const out = await session.run({ x, rng });
console.log(JSON.stringify({ y: Array.from(out.y.data), next: out.rng_next.data[0].toString() }));
"""


@pytest.mark.slow
def test_onnxruntime_web_draws_what_onnxruntime_draws(tmp_path):
    missing = [
        what
        for what, present in (
            ("Node.js", shutil.which("node") is not None),
            (
                f"onnxruntime-web (npm ci in {ONNXRUNTIME_WEB.parent})",
                (ONNXRUNTIME_WEB / "onnxruntime-web" / "dist").is_dir(),
            ),
        )
        if not present
    ]
    if missing:
        message = "the onnxruntime-web check needs " + " and ".join(missing)
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    rng = pytensor.shared(np.random.default_rng(7), name="rng")
    x, y, next_rng = noisy_sum(rng)
    next_rng, counts = pt.random.poisson(3.0, size=x.shape, rng=next_rng).owner.outputs
    y = y + counts
    y.name = "y"
    path = tmp_path / "model.onnx"
    model = export_onnx(
        pytensor.function([x], y, updates={rng: next_rng}),
        path,
        target="onnxruntime-web",
    )
    script = tmp_path / "run.mjs"
    script.write_text(WEB_SCRIPT)
    x_value, key = np.arange(5.0), random_key(10)

    web = subprocess.run(
        [
            "node",
            script,
            ONNXRUNTIME_WEB,
            path,
            str(int(key)),
            json.dumps(x_value.tolist()),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )

    result = json.loads(web.stdout)
    draws, next_key = run_model(model, {"x": x_value, "rng": key})
    np.testing.assert_allclose(result["y"], draws, rtol=1e-12)
    assert int(result["next"]) == int(next_key)


@pytest.mark.slow
def test_posterior_predictive_example_runs_its_export_in_onnxruntime(tmp_path):
    model = tmp_path / "posterior_predictive.onnx"
    script = Path(__file__).parents[3] / "examples" / "posterior_predictive_export.py"

    result = subprocess.run(
        [sys.executable, script, model], cwd=tmp_path, capture_output=True, text=True
    )

    assert result.returncode == 0, result.stderr
    assert "agree with the reference within Monte Carlo error" in result.stdout
    assert model.exists()
