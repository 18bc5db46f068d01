"""export_predictive: a fitted PyMC model's posterior predictive as one file.

Each model's file, run in plain onnxruntime at new data, must draw what
``pm.sample_posterior_predictive`` draws from the same posterior, within Monte
Carlo error (6 standard errors of the difference of the means and of the
standard deviations, estimated from the draws; fixed seeds make it
deterministic). The posteriors are synthetic (``az.from_dict``), so no test
samples. PyMC 5.28.5 pins PyTensor 2.38: these run in .venv-2.38.3.
"""

import importlib.util
import json
import subprocess
import sys

import numpy as np
import onnx
import pytest


pytestmark = pytest.mark.slow

PYMC_INSTALLED = importlib.util.find_spec("pymc") is not None
requires_pymc = pytest.mark.skipif(
    not PYMC_INSTALLED, reason="PyMC is not installed (the pymc extra, PyTensor 2.38)"
)
STANDARD_ERRORS = 6
CHAINS, DRAWS = 2, 250
SEED = 20261206


def test_the_package_imports_without_pymc():
    code = (
        "import sys; sys.modules['pymc'] = None\n"
        "import pytensor.link.onnx.pymc as p\n"
        "assert callable(p.export_predictive)\n"
        "assert 'pymc' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def posterior(coords=None, dims=None, **draws):
    """A synthetic posterior: ``draws`` maps each variable to ``make(rng, shape)``.

    Variables with dims need them (and the coords) here too, else
    ``pm.sample_posterior_predictive`` takes them for changed and draws them anew.
    """
    import arviz as az

    rng = np.random.default_rng(SEED)
    return az.from_dict(
        posterior={name: make(rng, (CHAINS, DRAWS)) for name, make in draws.items()},
        coords=coords,
        dims=dims,
    )


def run(path, feeds, seed=1):
    import onnxruntime as ort

    from pytensor.link.onnx import random_key

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {**feeds, "key": random_key(seed)})


def pymc_draws(model, idata, new_data, var_name, coords=None):
    import pymc as pm

    with model:
        pm.set_data(new_data, coords=coords)
        predictive = pm.sample_posterior_predictive(
            idata,
            var_names=[var_name],
            random_seed=SEED,
            progressbar=False,
            compile_kwargs={"mode": "FAST_COMPILE"},  # no C compilation
        )
    draws = predictive.posterior_predictive[var_name].values
    return draws.reshape(CHAINS * DRAWS, *draws.shape[2:])


def assert_same_distribution(draws, expected):
    """Means and standard deviations agree per element within Monte Carlo error."""
    assert draws.shape == expected.shape
    root_n = np.sqrt(len(draws))

    def std_error_of_std(a):
        return ((a - a.mean(0)) ** 2).std(0) / (2 * a.std(0) + 1e-12) / root_n

    mean_se = np.hypot(draws.std(0), expected.std(0)) / root_n
    std_se = np.hypot(std_error_of_std(draws), std_error_of_std(expected))
    mean_gap = np.abs(draws.mean(0) - expected.mean(0))
    std_gap = np.abs(draws.std(0) - expected.std(0))
    assert np.all(mean_gap <= STANDARD_ERRORS * mean_se + 1e-12)
    assert np.all(std_gap <= STANDARD_ERRORS * std_se + 1e-12)


def logistic_glm():
    import pymc as pm

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 30)
    y = (rng.uniform(size=30) < 0.5).astype("int64")
    with pm.Model() as model:
        x_data = pm.Data("x", x)
        a = pm.Normal("a", 0, 2)
        b = pm.Normal("b", 0, 2)
        pm.Bernoulli("y", logit_p=a + b * x_data, observed=y, shape=x_data.shape)
    idata = posterior(
        a=lambda rng, s: rng.normal(0.3, 0.3, s), b=lambda rng, s: rng.normal(2, 0.5, s)
    )
    return model, idata


def hierarchical():
    import pymc as pm

    rng = np.random.default_rng(0)
    group = rng.integers(0, 3, 40)
    x = rng.normal(size=40)
    with pm.Model(coords={"group": ["a", "b", "c"], "obs": range(40)}) as model:
        group_data = pm.Data("group_index", group, dims="obs")
        x_data = pm.Data("x", x, dims="obs")
        mu = pm.Normal("mu", 0, 1)
        intercept = pm.Normal("intercept", mu, 1, dims="group")
        slope = pm.Normal("slope", 0, 1)
        sigma = pm.HalfNormal("sigma", 1)
        pm.Normal(
            "y",
            intercept[group_data] + slope * x_data,
            sigma,
            observed=rng.normal(size=40),
            shape=x_data.shape,
        )
    idata = posterior(
        coords={"group": ["a", "b", "c"]},
        dims={"intercept": ["group"]},
        mu=lambda rng, s: rng.normal(0, 0.2, s),
        intercept=lambda rng, s: rng.normal([-2.0, 0.0, 3.0], 0.3, (*s, 3)),
        slope=lambda rng, s: rng.normal(0.5, 0.1, s),
        sigma=lambda rng, s: np.abs(rng.normal(0.5, 0.05, s)),
    )
    return model, idata


@requires_pymc
def test_glm_draws_as_pymc_does(tmp_path):
    from pytensor.link.onnx.pymc import export_predictive

    model, idata = logistic_glm()
    path = tmp_path / "glm.onnx"
    x_new = np.array([-1.0, -0.2, 0.4, 1.0])

    onnx_model = export_predictive(model, idata, path)

    assert [i.name for i in onnx_model.graph.input] == ["x", "key"]
    assert [o.name for o in onnx_model.graph.output] == ["y", "key_next"]
    draws, next_key = run(path, {"x": x_new})
    assert draws.dtype == np.int64
    assert_same_distribution(draws, pymc_draws(model, idata, {"x": x_new}, "y"))
    again, _ = run(path, {"x": x_new})
    np.testing.assert_array_equal(draws, again)
    assert next_key.dtype == np.uint64


@requires_pymc
def test_hierarchical_model_takes_the_group_index_as_input(tmp_path):
    from pytensor.link.onnx.pymc import export_predictive

    model, idata = hierarchical()
    path = tmp_path / "hierarchical.onnx"
    # pm.Data stores integer data as int32, and so does the file's input
    new = {"group_index": np.int32([0, 2, 1, 2, 0]), "x": np.linspace(-1, 1, 5)}

    onnx_model = export_predictive(model, idata, path)

    inputs = {i.name: i for i in onnx_model.graph.input}
    assert inputs["group_index"].type.tensor_type.elem_type == onnx.TensorProto.INT32
    assert [d.dim_param for d in inputs["x"].type.tensor_type.shape.dim] == ["obs"]
    [draws, _] = run(path, new)
    expected = pymc_draws(model, idata, new, "y", coords={"obs": range(5)})
    assert_same_distribution(draws, expected)
    metadata = {p.key: p.value for p in onnx_model.metadata_props}
    assert json.loads(metadata["pymc_coords"])["group"] == ["a", "b", "c"]
    dims = json.loads(metadata["pymc_dims"])
    assert dims["group_index"] == ["obs"] and dims["y"] == ["sample", None]
    assert json.loads(metadata["pymc_predictive"]) == {
        "var_names": ["y"],
        "samples": CHAINS * DRAWS,
        "quantiles": None,
    }


@requires_pymc
def test_gp_conditional_draws_as_pymc_does(tmp_path):
    import pymc as pm

    from pytensor.link.onnx.pymc import export_predictive

    X = np.linspace(0, 5, 10)[:, None]
    with pm.Model() as model:
        ls = pm.Gamma("ls", 2, 2)
        eta = pm.HalfNormal("eta", 1)
        sigma = pm.HalfNormal("sigma", 0.5)
        gp = pm.gp.Marginal(cov_func=eta**2 * pm.gp.cov.ExpQuad(1, ls))
        gp.marginal_likelihood("y", X=X, y=np.sin(X[:, 0]), sigma=sigma)
        x_new = pm.Data("X_new", np.zeros((4, 1)))
        gp.conditional("f_pred", x_new)
    idata = posterior(
        ls=lambda rng, s: rng.gamma(20, 0.05, s),
        eta=lambda rng, s: np.abs(rng.normal(1, 0.1, s)),
        sigma=lambda rng, s: np.abs(rng.normal(0.1, 0.01, s)),
    )
    path = tmp_path / "gp.onnx"
    new = {"X_new": np.linspace(0, 6, 4)[:, None]}

    export_predictive(model, idata, path, var_names=["f_pred"], thin=1)

    [draws, _] = run(path, new)
    assert_same_distribution(draws, pymc_draws(model, idata, new, "f_pred"))


@requires_pymc
def test_summaries_are_the_mean_and_quantiles_of_the_thinned_draws(tmp_path):
    from pytensor.link.onnx.pymc import export_predictive

    model, idata = hierarchical()
    new = {"group_index": np.int32([0, 1, 2]), "x": np.zeros(3)}
    export_predictive(model, idata, tmp_path / "draws.onnx", thin=5)

    onnx_model = export_predictive(
        model, idata, tmp_path / "summary.onnx", thin=5, summaries=(0.1, 0.5, 0.9)
    )

    assert [o.name for o in onnx_model.graph.output] == [
        "y_mean",
        "y_quantiles",
        "key_next",
    ]
    [draws, _] = run(tmp_path / "draws.onnx", new)
    assert len(draws) == CHAINS * DRAWS // 5
    mean, quantiles, _ = run(tmp_path / "summary.onnx", new)
    np.testing.assert_allclose(mean, draws.mean(0), rtol=1e-12)
    np.testing.assert_allclose(
        quantiles, np.quantile(draws, [0.1, 0.5, 0.9], axis=0), rtol=1e-12
    )


@requires_pymc
@pytest.mark.parametrize(
    "options, message",
    [
        ({"var_names": ["z"]}, "no variable \\['z'\\]"),
        ({"thin": 0}, "thin must be a positive integer"),
        ({"summaries": [0.5, 2.0]}, "quantile levels in \\[0, 1\\]"),
    ],
)
def test_bad_options_are_clear_errors(tmp_path, options, message):
    from pytensor.link.onnx.pymc import export_predictive

    model, idata = logistic_glm()

    with pytest.raises(ValueError, match=message):
        export_predictive(model, idata, tmp_path / "m.onnx", **options)
    assert list(tmp_path.iterdir()) == []


@requires_pymc
def test_a_posterior_without_the_needed_draws_is_a_clear_error():
    from pytensor.link.onnx.pymc import export_predictive

    model, idata = logistic_glm()
    del idata.posterior["b"]

    with pytest.raises(ValueError, match="no draws of \\['b'\\]"):
        export_predictive(model, idata)
