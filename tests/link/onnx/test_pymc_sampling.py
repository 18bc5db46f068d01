"""``pytensor.link.onnx.pymc.sample``: what it returns, how it starts, what it refuses.

Whether its draws follow the posterior is ``test_pymc_sampling_agreement.py``.
PyMC 5.28.5 pins PyTensor 2.38, so all but the first test run in .venv-2.38.3
(``PYTENSOR_VERSION=2.38.3 bash scripts/run_tests.sh``).
"""

import importlib.util
import subprocess
import sys
import types

import numpy as np
import pytest

import pytensor.link.onnx  # noqa: F401  (registers mode="ONNX")


PYMC_INSTALLED = importlib.util.find_spec("pymc") is not None
NEEDS_PYMC = (
    "needs PyMC: PYTENSOR_VERSION=2.38.3 bash scripts/run_tests.sh "
    "tests/link/onnx/test_pymc_sampling.py"
)
needs_pymc = pytest.mark.skipif(not PYMC_INSTALLED, reason=NEEDS_PYMC)
SEED = 20261206

WITHOUT_PYMC = """
import sys
sys.modules["pymc"] = None  # `import pymc` raises ImportError
from pytensor.link.onnx.pymc import sample
try:
    sample()
except ImportError as err:
    print(err)
"""


def test_imports_without_pymc_and_says_what_to_install_when_called():
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_PYMC], capture_output=True, text=True, check=True
    )
    assert "pip install pymc" in done.stdout
    assert "PyTensor 2.38" in done.stdout


@pytest.fixture
def sampler_never_runs(monkeypatch):
    """A ``sample_nuts`` that fails the test if it is called."""
    import pytensor.link.onnx.sampling

    def sample_nuts(*args, **kwargs):
        raise AssertionError("the model reached the sampler")

    monkeypatch.setattr(pytensor.link.onnx.sampling, "sample_nuts", sample_nuts)


def opaque_op():
    """A differentiable Op that has no ONNX converter."""
    from pytensor.graph.basic import Apply
    from pytensor.graph.op import Op

    class Opaque(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = np.asarray(inputs[0] * 2.0)

        def grad(self, inputs, output_gradients):
            return [output_gradients[0] * 2.0]

    return Opaque()


@needs_pymc
def test_every_cause_is_named_before_sampling(sampler_never_runs):
    import pymc as pm

    from pytensor.link.onnx.pymc import UnsupportedModelError, sample

    with pm.Model() as model:
        clusters = pm.Poisson("clusters", 3.0)
        flag = pm.Bernoulli("flag", 0.5)
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Potential("opaque_term", -((opaque_op()(mu) - clusters - flag) ** 2))

    with pytest.raises(UnsupportedModelError) as caught:
        sample(model=model, progressbar=False)

    discrete, conversion = caught.value.causes
    assert "discrete free variables" in discrete
    assert "clusters, flag" in discrete
    assert "no ONNX conversion" in conversion
    assert "Opaque" in conversion
    assert "(2 cause(s))" in str(caught.value)


@needs_pymc
def test_an_op_without_conversion_is_named_before_sampling(sampler_never_runs):
    import pymc as pm

    from pytensor.link.onnx.pymc import UnsupportedModelError, sample

    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Potential("opaque_term", -(opaque_op()(mu) ** 2))

    with pytest.raises(UnsupportedModelError) as caught:
        sample(model=model, progressbar=False)

    [cause] = caught.value.causes
    assert cause.startswith("no ONNX conversion")
    assert "Opaque" in cause
    assert "test_pymc_sampling.py" in cause  # the line of the model that made it


@needs_pymc
def test_a_random_log_density_is_refused(sampler_never_runs):
    import pymc as pm

    from pytensor.link.onnx.pymc import UnsupportedModelError, sample

    data = np.linspace(0.0, 1.0, 100)
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        batch = pm.Minibatch(data, batch_size=10)
        pm.Normal("y", mu, 1.0, observed=batch, total_size=len(data))

    with pytest.raises(UnsupportedModelError, match="draws random numbers"):
        sample(model=model, progressbar=False)


@needs_pymc
def test_a_model_without_free_variables_is_refused(sampler_never_runs):
    import pymc as pm

    from pytensor.link.onnx.pymc import UnsupportedModelError, sample

    with pm.Model() as model:
        pm.Normal("y", 0.0, 1.0, observed=np.zeros(3))

    with pytest.raises(UnsupportedModelError, match="no free variables"):
        sample(model=model, progressbar=False)


@needs_pymc
def test_compile_kwargs_other_than_mode_are_refused(sampler_never_runs):
    import pymc as pm

    from pytensor.link.onnx.pymc import sample

    with pm.Model():
        pm.Normal("mu", 0.0, 1.0)
        with pytest.raises(TypeError, match="'mode'"):
            sample(compile_kwargs={"mode": "ONNX", "on_unused_input": "ignore"})


@needs_pymc
def test_chains_start_where_pm_sample_starts_them(monkeypatch):
    import pymc as pm
    from pymc.sampling.mcmc import init_nuts

    from pytensor.link.onnx.pymc import sample

    class Called(Exception):
        pass

    def sample_nuts(logp, values, initial_points, **kwargs):
        raise Called(values, initial_points, kwargs)

    module = types.ModuleType("pytensor.link.onnx.sampling")
    module.sample_nuts = sample_nuts
    monkeypatch.setitem(sys.modules, "pytensor.link.onnx.sampling", module)

    with pm.Model() as model:
        pm.HalfNormal("sigma", 1.0)
        pm.Normal("x", 0.0, 1.0, shape=2)
    with pytest.raises(Called) as called:
        sample(model=model, chains=3, cores=2, random_seed=SEED, target_accept=0.9)
    values, initial_points, kwargs = called.value.args

    # pm.sample seeds chain i's initial point so (pymc/sampling/mcmc.py)
    rngs = np.random.default_rng(SEED).spawn(3)
    expected, _ = init_nuts(
        init="jitter+adapt_diag",
        chains=3,
        random_seed=[rng.integers(2**30) for rng in rngs],
        model=model,
        compile_kwargs={"mode": "FAST_COMPILE"},
        progressbar=False,
    )
    assert [v.name for v in values] == ["sigma_log__", "x"]
    for value, points in zip(values, initial_points, strict=True):
        np.testing.assert_array_equal(
            points, np.stack([point[value.name] for point in expected])
        )
    assert kwargs["target_accept"] == 0.9
    assert kwargs["cores"] == 2
    assert kwargs["mode"] == "ONNX"


@needs_pymc
def test_a_model_sampled_again_reuses_its_log_density_until_it_changes(monkeypatch):
    """``sample_nuts`` reuses its compiled sampler for the same ``logp`` object."""
    import pymc as pm

    from pytensor.link.onnx.pymc import sample

    class Called(Exception):
        pass

    def sample_nuts(logp, *args, **kwargs):
        raise Called(logp)

    module = types.ModuleType("pytensor.link.onnx.sampling")
    module.sample_nuts = sample_nuts
    monkeypatch.setitem(sys.modules, "pytensor.link.onnx.sampling", module)

    def sampled_logp(model):
        with pytest.raises(Called) as called:
            sample(model=model, chains=1, random_seed=SEED)
        return called.value.args[0]

    with pm.Model() as model:
        data = pm.Data("data", np.zeros(3))
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Normal("y", mu, 1.0, observed=data)
    first = sampled_logp(model)
    assert sampled_logp(model) is first
    pm.set_data({"data": np.ones(3)}, model=model)
    assert sampled_logp(model) is first  # same shapes: same sampler
    pm.set_data({"data": np.ones(5)}, model=model)
    resized = sampled_logp(model)
    assert resized is not first
    with model:
        pm.HalfNormal("sigma", 1.0)
    assert sampled_logp(model) is not resized


@needs_pymc
def test_a_parameter_outside_its_support_has_minus_inf_log_density_as_in_pm_sample(
    monkeypatch,
):
    import pymc as pm

    import pytensor
    from pytensor.link.onnx.pymc import sample

    class Called(Exception):
        pass

    def sample_nuts(logp, values, initial_points, **kwargs):
        raise Called(logp, values)

    module = types.ModuleType("pytensor.link.onnx.sampling")
    module.sample_nuts = sample_nuts
    monkeypatch.setitem(sys.modules, "pytensor.link.onnx.sampling", module)

    with pm.Model() as model:
        # Beta's `alpha > 0` fails for a negative `a`: pm.sample's log-density
        # is -inf there (NUTS rejects the point), not a ParameterValueError.
        # With this seed a jittered start is negative: it is drawn again.
        a = pm.Normal("a", 0.2, 1.0)
        pm.Beta("y", alpha=a, beta=1.0, observed=[0.5])
    with pytest.raises(Called) as called:
        sample(model=model, chains=2, random_seed=SEED)
    logp, values = called.value.args
    log_density = pytensor.function(values, logp, mode="FAST_COMPILE")

    assert log_density(-0.5) == -np.inf
    assert np.isfinite(log_density(0.5))


@pytest.fixture(scope="module")
def regression():
    """A model with coords, dims, a data container and deterministics, sampled."""
    pytest.importorskip("pymc", reason=NEEDS_PYMC)
    pytest.importorskip(
        "pytensor.link.onnx.sampling", reason="the in-graph NUTS sampler is missing"
    )
    from pytensor.link.onnx.pymc import sample
    from tests.link.onnx.pymc_models import regression_with_coords

    model = regression_with_coords()
    return model, sample(
        model=model,
        draws=100,
        tune=100,
        chains=2,
        random_seed=SEED,
        progressbar=False,
        idata_kwargs={"log_likelihood": True, "save_warmup": True},
    )


STATS = {
    "diverging": np.bool_,
    "tree_depth": np.integer,
    "n_steps": np.integer,
    "step_size": np.floating,
    "energy": np.floating,
    "lp": np.floating,
    "acceptance_rate": np.floating,
    "energy_error": np.floating,
    "max_energy_error": np.floating,
    "reached_max_treedepth": np.bool_,
}


@pytest.mark.slow
def test_inference_data_has_the_groups_and_names_of_pm_sample(regression):
    model, idata = regression

    assert set(idata.groups()) == {
        "posterior",
        "sample_stats",
        "warmup_sample_stats",
        "log_likelihood",
        "observed_data",
        "constant_data",
    }
    posterior = idata.posterior
    assert set(posterior.data_vars) == {
        "intercept",
        "slopes",
        "sigma",
        "mean",
        "slope_ratio",
        "variance",
    }
    assert posterior["slopes"].dims == ("chain", "draw", "predictor")
    assert list(posterior["predictor"].values) == ["age", "income"]
    assert posterior["mean"].dims == ("chain", "draw", "obs")
    assert posterior.sizes["chain"] == 2 and posterior.sizes["draw"] == 100
    for name, kind in STATS.items():
        assert idata.sample_stats[name].dims == ("chain", "draw"), name
        assert np.issubdtype(idata.sample_stats[name].dtype, kind), name
        assert idata.warmup_sample_stats[name].shape == (2, 100), name
    assert idata.posterior.attrs["tuning_steps"] == 100
    assert idata.posterior.attrs["sampling_time"] > 0
    np.testing.assert_array_equal(
        idata.observed_data["y"], model.rvs_to_values[model["y"]].data
    )
    np.testing.assert_array_equal(
        idata.constant_data["features"], model["features"].get_value()
    )


@pytest.mark.slow
def test_posterior_is_in_the_constrained_space_with_its_deterministics(regression):
    model, idata = regression
    posterior = idata.posterior
    features = model["features"].get_value()

    assert (posterior["sigma"] > 0).all()
    np.testing.assert_allclose(posterior["variance"], posterior["sigma"] ** 2)
    np.testing.assert_allclose(
        posterior["mean"],
        posterior["intercept"].values[..., None]
        + posterior["slopes"].values @ features.T,
    )
    np.testing.assert_allclose(
        posterior["slope_ratio"],
        posterior["slopes"].values[..., 0] / posterior["slopes"].values[..., 1],
    )


@pytest.mark.slow
def test_log_likelihood_is_pointwise_at_each_draw(regression):
    from scipy.stats import norm

    model, idata = regression
    y = model.rvs_to_values[model["y"]].data

    np.testing.assert_allclose(
        idata.log_likelihood["y"],
        norm.logpdf(
            y, idata.posterior["mean"], idata.posterior["sigma"].values[..., None]
        ),
    )


@pytest.mark.slow
def test_arviz_summarizes_and_plots_it(regression):
    import arviz as az

    _, idata = regression
    summary = az.summary(idata, var_names=["intercept", "slopes", "sigma"])
    assert list(summary.index) == [
        "intercept",
        "slopes[age]",
        "slopes[income]",
        "sigma",
    ]
    assert np.isfinite(summary[["mean", "sd", "ess_bulk", "r_hat"]].values).all()

    pytest.importorskip("matplotlib", reason="az.plot_trace needs matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    axes = az.plot_trace(idata, var_names=["intercept", "sigma"])
    assert axes.shape == (2, 2)
    matplotlib.pyplot.close("all")
