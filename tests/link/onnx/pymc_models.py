"""Small PyMC models of different kinds, on fixed synthetic data.

The agreement tests (``test_pymc_sampling_agreement.py``) sample them with
``pytensor.link.onnx.pymc.sample`` and compare with the posteriors PyMC's own
NUTS gives, which ``scripts/make_pymc_references.py`` stores in
``fixtures/pymc_reference_posteriors.json``. Changing a model or its data
makes its reference stale: run that script again.

PyMC is imported when a model is built, so this module imports without it.
"""

import numpy as np


EIGHT_SCHOOLS_EFFECTS = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
EIGHT_SCHOOLS_ERRORS = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def data_rng():
    return np.random.default_rng(20261206)


def eight_schools_non_centred():
    import pymc as pm

    with pm.Model(coords={"school": [f"s{i}" for i in range(8)]}) as model:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        theta_offset = pm.Normal("theta_offset", 0, 1, dims="school")
        theta = pm.Deterministic("theta", mu + tau * theta_offset, dims="school")
        pm.Normal(
            "effects",
            mu=theta,
            sigma=EIGHT_SCHOOLS_ERRORS,
            observed=EIGHT_SCHOOLS_EFFECTS,
            dims="school",
        )
    return model


def eight_schools_centred():
    """The funnel: NUTS diverges on it whatever the implementation."""
    import pymc as pm

    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        theta = pm.Normal("theta", mu, tau, shape=8)
        pm.Normal(
            "effects",
            mu=theta,
            sigma=EIGHT_SCHOOLS_ERRORS,
            observed=EIGHT_SCHOOLS_EFFECTS,
        )
    return model


def logistic_regression():
    import pymc as pm

    n, k = 100, 3
    gen = data_rng()
    X = gen.normal(size=(n, k))
    outcomes = gen.uniform(size=n) < 1 / (1 + np.exp(-(0.3 + X @ [1.0, -0.5, 0.2])))
    with pm.Model() as model:
        intercept = pm.Normal("intercept", 0, 2.5)
        beta = pm.Normal("beta", 0, 2.5, shape=k)
        pm.Bernoulli("outcomes", logit_p=intercept + X @ beta, observed=outcomes)
    return model


def negative_binomial_regression():
    import pymc as pm

    n, k = 80, 2
    gen = data_rng()
    X = gen.normal(0, 0.5, (n, k))
    mean = np.exp(1 + X @ [0.5, -0.3])
    counts = gen.negative_binomial(3, 3 / (3 + mean))
    with pm.Model() as model:
        intercept = pm.Normal("intercept", 0, 5)
        beta = pm.Normal("beta", 0, 1, shape=k)
        alpha = pm.Exponential("alpha", 1)
        pm.NegativeBinomial(
            "counts", mu=pm.math.exp(intercept + X @ beta), alpha=alpha, observed=counts
        )
    return model


def gp_marginal_likelihood():
    import pymc as pm

    n = 12
    gen = data_rng()
    x = np.sort(gen.uniform(0, 10, n))[:, None]
    y = np.sin(x[:, 0]) + gen.normal(0, 0.3, n)
    with pm.Model() as model:
        lengthscale = pm.Gamma("lengthscale", alpha=2, beta=1)
        amplitude = pm.HalfNormal("amplitude", sigma=2)
        noise = pm.HalfNormal("noise", sigma=1)
        covariance = amplitude**2 * pm.gp.cov.ExpQuad(1, ls=lengthscale)
        gp = pm.gp.Marginal(cov_func=covariance)
        gp.marginal_likelihood("y", X=x, y=y, sigma=noise)
    return model


def stochastic_volatility():
    """Log-volatility as a Gaussian random walk of known step size.

    With its step size a free variable, the walk is a funnel (PyMC's NUTS
    diverges on it, centred or not, and mixes too slowly for a reference).
    """
    import pymc as pm

    n_days = 20
    gen = data_rng()
    log_volatility = np.cumsum(gen.normal(0, 0.2, n_days))
    returns = gen.standard_t(5, n_days) * np.exp(log_volatility) * 0.05
    with pm.Model(coords={"day": np.arange(n_days)}) as model:
        volatility = pm.GaussianRandomWalk(
            "volatility", sigma=0.3, init_dist=pm.Normal.dist(-3, 1), dims="day"
        )
        pm.StudentT(
            "returns", nu=5, mu=0, sigma=pm.math.exp(volatility), observed=returns
        )
    return model


def ar1():
    import pymc as pm

    n = 60
    gen = data_rng()
    series = np.zeros(n)
    for t in range(1, n):
        series[t] = 0.6 * series[t - 1] + gen.normal(0, 0.5)
    with pm.Model() as model:
        rho = pm.Normal("rho", 0, 0.5)
        sigma = pm.HalfNormal("sigma", 1)
        pm.AR(
            "series",
            rho=[rho],
            sigma=sigma,
            init_dist=pm.Normal.dist(0, 1),
            observed=series,
        )
    return model


def normal_mixture():
    """Two well-separated components, ordered means: no label switching."""
    import pymc as pm

    gen = data_rng()
    data = np.concatenate([gen.normal(-2, 0.8, 60), gen.normal(2.5, 1.0, 40)])
    with pm.Model() as model:
        weights = pm.Dirichlet("weights", np.ones(2))
        means = pm.Normal(
            "means",
            [-1.0, 1.0],
            3,
            transform=pm.distributions.transforms.ordered,
            initval=[-1.0, 1.0],
        )
        sigmas = pm.HalfNormal("sigmas", 2, shape=2)
        pm.NormalMixture("data", w=weights, mu=means, sigma=sigmas, observed=data)
    return model


def truncated_normal():
    import pymc as pm

    lower, upper = -1.0, 2.5
    gen = data_rng()
    draws = gen.normal(0.5, 1.0, 400)
    kept = draws[(draws > lower) & (draws < upper)][:200]
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 5)
        sigma = pm.HalfNormal("sigma", 3)
        pm.Truncated(
            "kept",
            pm.Normal.dist(mu=mu, sigma=sigma),
            lower=lower,
            upper=upper,
            observed=kept,
        )
    return model


def censored_normal():
    import pymc as pm

    lower, upper = -1.0, 2.5
    gen = data_rng()
    measured = np.clip(gen.normal(0.5, 1.5, 100), lower, upper)
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 5)
        sigma = pm.HalfNormal("sigma", 3)
        pm.Censored(
            "measured",
            pm.Normal.dist(mu=mu, sigma=sigma),
            lower=lower,
            upper=upper,
            observed=measured,
        )
    return model


def dirichlet_multinomial():
    import pymc as pm

    n, categories = 20, 4
    gen = data_rng()
    totals = gen.integers(20, 60, n)
    proportions = gen.dirichlet([2.0, 3.0, 4.0, 5.0], n)
    counts = np.array(
        [gen.multinomial(t, p) for t, p in zip(totals, proportions, strict=True)]
    )
    with pm.Model() as model:
        fractions = pm.Dirichlet("fractions", a=np.ones(categories))
        concentration = pm.LogNormal("concentration", mu=2, sigma=1)
        pm.DirichletMultinomial(
            "counts", n=totals, a=fractions * concentration, observed=counts
        )
    return model


def regression_with_coords():
    """Coords, dims, a data container and deterministics of several shapes."""
    import pymc as pm

    predictors = ["age", "income"]
    n = 30
    gen = data_rng()
    X = gen.normal(size=(n, 2))
    y = 1.0 + X @ [0.7, -0.4] + gen.normal(0, 0.5, n)
    coords = {"predictor": predictors, "obs": np.arange(n)}
    with pm.Model(coords=coords) as model:
        features = pm.Data("features", X, dims=("obs", "predictor"))
        intercept = pm.Normal("intercept", 0, 5)
        slopes = pm.Normal("slopes", 0, 2, dims="predictor")
        sigma = pm.HalfNormal("sigma", 2)
        mean = pm.Deterministic("mean", intercept + features @ slopes, dims="obs")
        pm.Deterministic("slope_ratio", slopes[0] / slopes[1])
        pm.Deterministic("variance", sigma**2)
        pm.Normal("y", mean, sigma, observed=y, dims="obs")
    return model


MODELS = {
    "eight_schools_non_centred": eight_schools_non_centred,
    "eight_schools_centred": eight_schools_centred,
    "logistic_regression": logistic_regression,
    "negative_binomial_regression": negative_binomial_regression,
    "gp_marginal_likelihood": gp_marginal_likelihood,
    "stochastic_volatility": stochastic_volatility,
    "ar1": ar1,
    "normal_mixture": normal_mixture,
    "truncated_normal": truncated_normal,
    "censored_normal": censored_normal,
    "dirichlet_multinomial": dirichlet_multinomial,
    "regression_with_coords": regression_with_coords,
}
# Its posterior is biased by the funnel whatever the sampler: only its
# divergences are compared.
FUNNEL_MODELS = {"eight_schools_centred"}
