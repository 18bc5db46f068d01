"""int8 and float16 exports against float32, and scoring on Dask (issue 27).

Side by side in one process, on onnxruntime's CPU provider with one thread
(the sessions the export's verification creates):

- the browser demo's MLP and CNN (``examples/onnx_demo/train.py``, trained on
  scikit-learn's digits) exported in float32, with ``quantize="static"``
  (calibrated on 512 training digits), ``quantize="dynamic"`` and
  ``dtype="float16"``: file size, test accuracy, and the median latency of a
  call at batch 1 and 256, round-robin over the variants;
- the rows per second ``examples/score_at_scale.py`` scores on a local Dask
  cluster of 1 and 2 worker processes (one thread each), the table already
  on the workers, the scores left there (without the ``scale`` extra, the
  reason is printed instead). ::

    python benchmarks/quantization.py [--repeats 7] [--quick]
"""

import argparse
import contextlib
import importlib.util
import io
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from run import limit_threads


ROOT = Path(__file__).resolve().parents[1]
VARIANTS = {
    "float32": {},
    "int8 static": {"quantize": "static"},
    "int8 dynamic": {"quantize": "dynamic"},
    "float16": {"dtype": "float16"},
}
BATCHES = (1, 256)


def example_module(relative):
    path = ROOT / "examples" / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def demo_models(quick):
    """``{(model, variant): (model bytes, test accuracy)}`` and the test digits."""
    import warnings

    import numpy as np
    import onnxruntime as ort

    from pytensor.link.onnx import export_onnx

    warnings.filterwarnings("ignore", message="Numba will use object mode")
    train = example_module("onnx_demo/train.py")
    data = train.load_data()
    (train_images, _), (test_images, test_labels) = data
    calibration = [(train_images[i : i + 64],) for i in range(0, 512, 64)]
    models = {}
    for name in train.MODELS:
        epochs = 1 if quick else train.EPOCHS[name]
        with contextlib.redirect_stdout(io.StringIO()):  # its progress bar
            params = train.train(name, data, epochs)
        predictor = train.predictor(name, params, "float32")
        for variant, options in VARIANTS.items():
            options = {"dtype": "float32", **options}
            if "quantize" in options or options["dtype"] == "float16":
                options["calibration"] = calibration
            model = export_onnx(
                predictor, dims={"images": ("batch", 8, 8)}, **options
            ).SerializeToString()
            session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
            [probabilities] = session.run(
                None, {"images": test_images.astype("float32")}
            )
            accuracy = float(np.mean(probabilities.argmax(-1) == test_labels))
            models[name, variant] = (model, accuracy)
    return models, test_images.astype("float32")


def latencies(models, images, repeats, target_seconds):
    """Median seconds per call of every model at every batch size, interleaved."""
    from functools import partial

    import numpy as np
    import onnxruntime as ort
    from runner import interleaved_samples

    from pytensor.link.onnx.session import default_session_options

    calls = {}
    for key, (model, _) in models.items():
        session = ort.InferenceSession(
            model,
            sess_options=default_session_options(),
            providers=["CPUExecutionProvider"],
        )
        for batch in BATCHES:
            feed = {"images": np.resize(images, (batch, 8, 8))}
            calls[(*key, batch)] = partial(session.run, None, feed)
    samples, _ = interleaved_samples(calls, repeats, target_seconds)
    return {key: float(np.median(times)) for key, times in samples.items()}


def dask_rows_per_second(rows, repeats):
    """``{workers: rows per second}`` of the scoring example, or the reason it cannot run."""
    if importlib.util.find_spec("distributed") is None:
        return "Dask distributed is not installed: pip install -e '.[scale]'"
    from distributed import Client, wait

    example = example_module("score_at_scale.py")
    model_bytes = example.export_classifier()
    result = {}
    for workers in (1, 2):
        with example.local_cluster(workers) as cluster, Client(cluster) as client:
            example.register_sessions(client, model_bytes)
            features = client.persist(example.table(rows))
            wait(features)
            wait(client.persist(example.scored(features)))  # warm-up
            seconds = []
            for _ in range(repeats):
                start = time.perf_counter()
                wait(client.persist(example.scored(features)))
                seconds.append(time.perf_counter() - start)
        result[workers] = rows / sorted(seconds)[len(seconds) // 2]
    return result


def main(repeats, quick):
    import onnxruntime

    import pytensor

    print(
        f"benchmarks/quantization.py, {datetime.now(UTC):%Y-%m-%d}: pytensor "
        f"{pytensor.__version__}, onnxruntime {onnxruntime.__version__}; median per "
        f"call over {repeats} round-robin repeats, one thread\n"
    )
    models, images = demo_models(quick)
    medians = latencies(models, images, repeats, 0.01 if quick else 0.2)
    print(
        f"{'model':5} {'variant':13} {'bytes':>7} {'accuracy':>8} "
        f"{'batch 1':>10} {'x float32':>9} {'batch 256':>10} {'x float32':>9}"
    )
    for (name, variant), (model, accuracy) in models.items():
        cells = []
        for batch in BATCHES:
            seconds = medians[name, variant, batch]
            ratio = seconds / medians[name, "float32", batch]
            cells.append(f"{seconds * 1e6:8.1f}us {ratio:8.2f}x")
        print(
            f"{name:5} {variant:13} {len(model):7} {accuracy:8.1%} " + " ".join(cells)
        )
    rows = 200_000 if quick else 2_000_000
    print(f"\nexamples/score_at_scale.py on a local Dask cluster, {rows:,} rows:")
    scored = dask_rows_per_second(rows, 1 if quick else repeats)
    if isinstance(scored, str):
        print(scored)
        return
    for workers, rate in scored.items():
        print(f"{workers} worker(s) {rate:14,.0f} rows/s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="1 epoch, short repeats")
    args = parser.parse_args()
    limit_threads(1)  # before NumPy loads
    main(args.repeats, args.quick)
