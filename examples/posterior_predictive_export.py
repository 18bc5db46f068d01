"""Deploy a posterior predictive: fit, export with the posterior baked in, run in onnxruntime.

    python examples/posterior_predictive_export.py [model.onnx]

1. Fit a linear regression ``y ~ Normal(a + b x, sigma)`` to 40 points: with
   PyMC installed, by NUTS (2 chains of 500 draws); without PyMC, from the
   conjugate posterior of ``(a, b)`` at a known ``sigma`` (NumPy draws).
2. Export the posterior predictive of ``y`` at new covariates ``x``, one draw
   per posterior draw, the posterior draws stored in the file: with PyMC, in
   one call, ``export_predictive(model, idata, path)`` (the model's
   ``pm.Data`` container ``x`` becomes the file's input); without PyMC, the
   same graph written by hand and exported with ``export_onnx``. Either file
   takes ``x`` and a random key, and returns the draws and the advanced key.
3. Run the file with a plain ``onnxruntime.InferenceSession`` and compare its
   means and standard deviations at each new ``x`` with
   ``pm.sample_posterior_predictive`` (or, without PyMC, NumPy's draws from
   the same posterior) within Monte Carlo error.
"""

import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytensor.tensor as pt

import pytensor
from pytensor.link.onnx import export_onnx, random_key


OUTPUT = Path(__file__).parent / "output" / "posterior_predictive.onnx"
TRUE_A, TRUE_B, TRUE_SIGMA = 1.0, 2.0, 0.5
X_NEW = np.array([-2.0, 0.0, 1.5, 4.0])
STANDARD_ERRORS = 6


def make_data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 3, size=n)
    return x, TRUE_A + TRUE_B * x + rng.normal(scale=TRUE_SIGMA, size=n)


def pymc_predictive(x, y, output):
    """Fit by NUTS, export the predictive; return the model file and PyMC's own
    predictive draws at `X_NEW`."""
    import pymc as pm

    from pytensor.link.onnx.pymc import export_predictive

    with pm.Model() as model:
        x_data = pm.Data("x", x)
        a = pm.Normal("a", 0.0, 5.0)
        b = pm.Normal("b", 0.0, 5.0)
        sigma = pm.HalfNormal("sigma", 2.0)
        pm.Normal("y", a + b * x_data, sigma, observed=y, shape=x_data.shape)
        idata = pm.sample(
            draws=500, tune=500, chains=2, cores=1, random_seed=1, progressbar=False
        )
    model_proto = export_predictive(model, idata, output)
    with model:
        pm.set_data({"x": X_NEW})
        expected = pm.sample_posterior_predictive(
            idata, random_seed=2, progressbar=False
        ).posterior_predictive["y"]
    return model_proto, expected.values.reshape(-1, X_NEW.size)


def conjugate_predictive(x, y, n_draws=1000, seed=1):
    """The same with the conjugate posterior of ``(a, b)`` at ``sigma = TRUE_SIGMA``
    (flat prior), for environments without PyMC."""
    rng = np.random.default_rng(seed)
    design = np.stack([np.ones_like(x), x], axis=1)
    covariance = TRUE_SIGMA**2 * np.linalg.inv(design.T @ design)
    mean = np.linalg.solve(design.T @ design, design.T @ y)
    a, b = rng.multivariate_normal(mean, covariance, size=n_draws).T
    x_new = pt.vector("x")
    generator = pytensor.shared(np.random.default_rng(seed), name="key")
    mu = pt.constant(a)[:, None] + pt.constant(b)[:, None] * x_new
    next_generator, draws = pt.random.normal(
        mu, TRUE_SIGMA, rng=generator
    ).owner.outputs
    draws.name = "y"
    function = pytensor.function([x_new], draws, updates={generator: next_generator})
    expected = rng.normal(a[:, None] + b[:, None] * X_NEW, TRUE_SIGMA)
    return function, expected


def summaries(draws):
    """Means and standard deviations at each ``x_new``, and their standard errors."""
    n = len(draws)
    deviations = (draws - draws.mean(0)) ** 2
    return (
        draws.mean(0),
        draws.std(0),
        draws.std(0) / np.sqrt(n),
        deviations.std(0) / np.sqrt(n) / (2 * draws.std(0)),
    )


def main(output=OUTPUT):
    x, y = make_data()
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    try:
        import pymc  # noqa: F401
    except ImportError:
        print("PyMC is not installed: the conjugate posterior stands in for NUTS")
        function, expected = conjugate_predictive(x, y)
        model = export_onnx(function, output)
    else:
        model, expected = pymc_predictive(x, y, output)

    metadata = {prop.key: prop.value for prop in model.metadata_props}
    [(key_name, next_key_name)] = json.loads(metadata["random_keys"]).items()
    print(f"exported {output}: {output.stat().st_size / 1e3:.0f} kB")
    print(f"inputs {[i.name for i in model.graph.input]}, key input {key_name!r}")
    print(f"outputs {[o.name for o in model.graph.output]}, next key {next_key_name!r}")

    session = ort.InferenceSession(str(output), providers=["CPUExecutionProvider"])
    key = random_key(2026)
    draws, next_key = session.run(None, {"x": X_NEW, key_name: key})
    again, _ = session.run(None, {"x": X_NEW, key_name: key})
    assert np.array_equal(draws, again), "the same key must give the same draws"
    more, _ = session.run(None, {"x": X_NEW, key_name: next_key})
    assert not np.array_equal(draws, more), "the next key must give new draws"

    onnx_mean, onnx_std, onnx_mean_se, onnx_std_se = summaries(draws)
    mean, std, mean_se, std_se = summaries(expected)
    print(
        f"{'x_new':>6} {'mean (onnxruntime)':>19} {'mean (reference)':>17}"
        f" {'std (onnxruntime)':>18} {'std (reference)':>16}"
    )
    for row in zip(X_NEW, onnx_mean, mean, onnx_std, std, strict=True):
        print("{:6.2f} {:19.3f} {:17.3f} {:18.3f} {:16.3f}".format(*row))
    assert np.all(
        np.abs(onnx_mean - mean) < STANDARD_ERRORS * np.hypot(onnx_mean_se, mean_se)
    )
    assert np.all(
        np.abs(onnx_std - std) < STANDARD_ERRORS * np.hypot(onnx_std_se, std_se)
    )
    print(
        f"{len(draws)} draws per call agree with the reference within Monte Carlo error"
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
