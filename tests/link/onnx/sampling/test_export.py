"""A chunk of the sampler exported as a model that plain onnxruntime runs."""

import numpy as np
import onnxruntime as ort

from pytensor.link.onnx import export_onnx, random_key
from pytensor.link.onnx.sampling import nuts_chunk_function


def test_exported_chunk_takes_state_and_key_and_returns_draws_and_next_state(
    tmp_path, normal_target
):
    logp, x, _ = normal_target
    chunk, state = nuts_chunk_function(logp, [x], [np.zeros((2, 2))], random_seed=3)
    settings = [np.int64(40), np.bool_(True), np.bool_(False), np.int64(10)]
    expected = chunk.function(*state.inputs(), *settings)

    path = tmp_path / "nuts_chunk.onnx"
    model = export_onnx(chunk.function, path)
    session = ort.InferenceSession(str(path))
    feeds = [*state.inputs()[:-1], random_key(state.rng), *settings]
    names = [i.name for i in session.get_inputs()]
    outputs = session.run(
        None, {n: np.asarray(v) for n, v in zip(names, feeds, strict=True)}
    )

    assert [o.name for o in model.graph.output][:2] == ["draws", "diverging"]
    assert outputs[0].shape == (40, 2, 2)
    for got, want in zip(outputs[:-1], expected[:-1], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert outputs[-1].dtype == np.uint64
