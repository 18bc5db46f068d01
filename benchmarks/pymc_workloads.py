"""PyMC models as PyMC users write them, timed as NUTS calls them.

Each workload builds a PyMC model on synthetic data and compiles
``model.logp_dlogp_function(ravel_inputs=True, mode=mode)``: the log-density
and its gradient with respect to one raveled vector of the unconstrained
(transformed) values, the very function ``pm.sample`` compiles for NUTS and
calls with ``trust_input=True``. The runner times the compiled PyTensor
function inside it (the ``ValueGradFunction`` wrapper around it is the same
Python code for every backend).

PyMC is optional: ``pymc_missing_reason()`` says why these workloads are
skipped when it is not importable (``pip install -e '.[bench]'``, next to
PyTensor 2.38.3 only, since PyMC 5.28.5 pins PyTensor 2.38.x). This module
imports PyMC only when a model is built, so listing the workloads is free.
"""

import importlib.util

import numpy as np
from workloads import Case, Workload


PREFIX = "pymc "


def pymc_missing_reason():
    """Why the PyMC workloads cannot run here, or None when they can."""
    if importlib.util.find_spec("pymc") is None:
        return (
            "pymc is not installed (pip install -e '.[bench]' next to "
            "PyTensor 2.38.3; PyMC 5.28.5 pins PyTensor 2.38.x)"
        )
    return None


def data_rng():
    return np.random.default_rng(2024)


def nuts_start(model):
    """The raveled initial point, jittered as ``init="jitter+adapt_diag"`` does."""
    from pymc.blocking import DictToArrayBijection

    start = DictToArrayBijection.map(model.initial_point(0)).data
    return start + np.random.default_rng(7).uniform(-1, 1, start.shape)


def logp_dlogp_case(model):
    """A ``Case`` that compiles ``model``'s logp and gradient as NUTS does."""

    def compile_function(mode):
        value_and_gradient = model.logp_dlogp_function(ravel_inputs=True, mode=mode)
        value_and_gradient.set_extra_values({})
        # The PyTensor Function that ValueGradFunction.__call__ calls.
        return value_and_gradient._pytensor_function

    return Case([], [], [nuts_start(model)], compile_function=compile_function)


def as_data(name, value, containers):
    """``value``, or a ``pm.Data`` container of it: ``containers`` is
    ``"symbolic"`` (``pm.Data``'s default shape) or ``"static"``
    (``shape=value.shape``)."""
    import pymc as pm

    if containers is None:
        return value
    static = {"shape": value.shape} if containers == "static" else {}
    return pm.Data(name, value, **static)


def negative_binomial_regression(quick):
    import pymc as pm

    n, k = (50, 3) if quick else (1_000, 10)
    gen = data_rng()
    X = gen.normal(0, 0.5, (n, k))
    counts = gen.negative_binomial(3, 3 / (3 + np.exp(1 + X @ gen.normal(0, 0.5, k))))
    with pm.Model() as model:
        intercept = pm.Normal("intercept", 0, 5)
        beta = pm.Normal("beta", 0, 1, shape=k)
        alpha = pm.Exponential("alpha", 1)
        pm.NegativeBinomial(
            "counts", mu=pm.math.exp(intercept + X @ beta), alpha=alpha, observed=counts
        )
    return model


def dirichlet_multinomial(quick):
    import pymc as pm

    n, categories = (20, 4) if quick else (500, 10)
    gen = data_rng()
    totals = gen.integers(20, 100, n)
    proportions = gen.dirichlet(np.full(categories, 5.0), n)
    counts = np.array(
        [gen.multinomial(t, p) for t, p in zip(totals, proportions, strict=True)]
    )
    with pm.Model() as model:
        fractions = pm.Dirichlet("fractions", a=np.ones(categories))
        concentration = pm.Lognormal("concentration", mu=1, sigma=1)
        pm.DirichletMultinomial(
            "counts", n=totals, a=fractions * concentration, observed=counts
        )
    return model


def gp_marginal_likelihood(quick, containers=None):
    import pymc as pm

    n = 10 if quick else 60
    gen = data_rng()
    x = np.sort(gen.uniform(0, 10, n))[:, None]
    y = np.sin(x[:, 0]) + gen.normal(0, 0.3, n)
    with pm.Model() as model:
        x, y = as_data("x", x, containers), as_data("y_observed", y, containers)
        lengthscale = pm.Gamma("lengthscale", alpha=2, beta=1)
        amplitude = pm.HalfNormal("amplitude", sigma=2)
        noise = pm.HalfNormal("noise", sigma=1)
        covariance = amplitude**2 * pm.gp.cov.ExpQuad(1, ls=lengthscale)
        gp = pm.gp.Marginal(cov_func=covariance)
        gp.marginal_likelihood("y", X=x, y=y, sigma=noise)
    return model


def stochastic_volatility(quick):
    import pymc as pm

    n_days = 30 if quick else 400
    gen = data_rng()
    log_volatility = np.cumsum(gen.normal(0, 0.1, n_days))
    returns = gen.standard_t(5, n_days) * np.exp(log_volatility) * 0.01
    with pm.Model() as model:
        step_size = pm.Exponential("step_size", 10)
        volatility = pm.GaussianRandomWalk(
            "volatility",
            sigma=step_size,
            init_dist=pm.Normal.dist(0, 10),
            shape=n_days,
        )
        nu = pm.Exponential("nu", 0.1)
        pm.StudentT(
            "returns", nu=nu, lam=pm.math.exp(-2 * volatility), observed=returns
        )
    return model


def censored_normal(quick):
    import pymc as pm

    n = 50 if quick else 1_000
    lower, upper = -1.0, 2.5
    gen = data_rng()
    measured = np.clip(gen.normal(0.5, 1.5, n), lower, upper)
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


def truncated_normal(quick):
    import pymc as pm

    n = 50 if quick else 1_000
    lower, upper = -1.0, 2.5
    gen = data_rng()
    draws = gen.normal(0.5, 1.5, 4 * n)
    kept = draws[(draws > lower) & (draws < upper)][:n]
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


EIGHT_SCHOOLS_EFFECTS = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
EIGHT_SCHOOLS_ERRORS = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def eight_schools(quick):
    """The non-centred eight schools model (Rubin 1981), at every size."""
    import pymc as pm

    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        theta_offset = pm.Normal("theta_offset", 0, 1, shape=8)
        pm.Normal(
            "effects",
            mu=mu + tau * theta_offset,
            sigma=EIGHT_SCHOOLS_ERRORS,
            observed=EIGHT_SCHOOLS_EFFECTS,
        )
    return model


def logistic_glm(quick):
    import pymc as pm

    n, k = (50, 3) if quick else (2_000, 10)
    gen = data_rng()
    X = gen.normal(size=(n, k))
    outcomes = gen.uniform(size=n) < 1 / (1 + np.exp(-(X @ gen.normal(0, 1, k))))
    with pm.Model() as model:
        intercept = pm.Normal("intercept", 0, 2.5)
        beta = pm.Normal("beta", 0, 2.5, shape=k)
        pm.Bernoulli("outcomes", logit_p=intercept + X @ beta, observed=outcomes)
    return model


def radon_hierarchical(quick, containers=None):
    """Varying intercepts and slopes by county, on radon-like synthetic data.

    The shape of the classic radon data set (919 houses in 85 counties, a
    floor indicator), generated here: the suite downloads nothing.
    """
    import pymc as pm

    n, n_counties = (60, 6) if quick else (919, 85)
    gen = data_rng()
    county = np.concatenate([np.arange(n_counties), gen.integers(0, n_counties, n)])[:n]
    floor = (gen.uniform(size=n) < 0.2).astype("float64")
    county_level = gen.normal(1.5, 0.3, n_counties)
    log_radon = county_level[county] - 0.7 * floor + gen.normal(0, 0.7, n)
    with pm.Model() as model:
        county = as_data("county", county, containers)
        floor = as_data("floor", floor, containers)
        log_radon = as_data("log_radon_observed", log_radon, containers)
        mu_a = pm.Normal("mu_a", 0, 10)
        sigma_a = pm.HalfNormal("sigma_a", 1)
        mu_b = pm.Normal("mu_b", 0, 10)
        sigma_b = pm.HalfNormal("sigma_b", 1)
        a = pm.Normal("a", mu_a, sigma_a, shape=n_counties)
        b = pm.Normal("b", mu_b, sigma_b, shape=n_counties)
        sigma = pm.HalfCauchy("sigma", 1)
        pm.Normal(
            "log_radon",
            mu=a[county] + b[county] * floor,
            sigma=sigma,
            observed=log_radon,
        )
    return model


def many_random_variables(quick):
    """24 scalar random variables of 15 distribution families, 5 likelihoods.

    The model of the cold-start benchmark: many small terms, each with its own
    log-density and transform, as a model grows in practice.
    """
    import pymc as pm

    n = 50 if quick else 500
    n_slopes = 9
    gen = data_rng()
    X = gen.normal(size=(n, n_slopes))
    with pm.Model() as model:
        intercept = pm.Normal("intercept", 0, 5)
        slopes = [
            (pm.Normal if i % 2 else pm.Laplace)(f"slope_{i}", 0, 1)
            for i in range(n_slopes)
        ]
        sigma = pm.HalfNormal("sigma", 2)
        nu = pm.Gamma("nu", alpha=2, beta=0.1)
        pm.StudentT(
            "y",
            nu=nu,
            mu=intercept + sum(s * X[:, i] for i, s in enumerate(slopes)),
            sigma=sigma,
            observed=X @ gen.normal(0, 1, n_slopes) + gen.standard_t(4, n),
        )
        success_rate = pm.Beta("success_rate", 2, 2)
        trials = gen.integers(5, 20, n)
        pm.Binomial(
            "successes", n=trials, p=success_rate, observed=gen.binomial(trials, 0.3)
        )
        rate = pm.Gamma("rate", alpha=3, beta=1)
        exposure = pm.LogNormal("exposure", 0, 1)
        pm.Poisson("counts", mu=rate * exposure, observed=gen.poisson(4.0, n))
        weibull_shape = pm.InverseGamma("weibull_shape", alpha=3, beta=4)
        weibull_scale = pm.Exponential("weibull_scale", 1)
        pm.Weibull(
            "durations",
            alpha=weibull_shape,
            beta=weibull_scale,
            observed=gen.weibull(2.0, n),
        )
        location_terms = [
            pm.Cauchy("shift", 0, 2),
            pm.Uniform("bounded", -3, 3),
            pm.Gumbel("gumbel_location", 0, 1),
            pm.Logistic("logistic_location", 0, 1),
            pm.StudentT("offset", nu=3, mu=0, sigma=1),
        ]
        spread = pm.HalfCauchy("spread", 2)
        extra_spread = pm.HalfStudentT("extra_spread", nu=3, sigma=1)
        pm.Normal(
            "z",
            mu=sum(location_terms),
            sigma=spread + extra_spread,
            observed=gen.normal(1.0, 2.0, n),
        )
    return model


# The function that builds each workload's model (``quick``: small data)
MODEL_BUILDERS = {}


def pymc_workload(name, description, build_model):
    def build(quick):
        return logp_dlogp_case(build_model(quick))

    MODEL_BUILDERS[PREFIX + name] = build_model
    return Workload(PREFIX + name, description, build, trust_input=True)


COLD_START_MODEL = many_random_variables

PYMC_WORKLOADS = [
    pymc_workload(
        "negative binomial",
        "NegativeBinomial regression, log link, 1,000 obs, 10 predictors",
        negative_binomial_regression,
    ),
    pymc_workload(
        "Dirichlet-multinomial",
        "DirichletMultinomial, 500 obs of 10 categories, Dirichlet x LogNormal",
        dirichlet_multinomial,
    ),
    pymc_workload(
        "GP 60 points",
        "gp.Marginal likelihood, ExpQuad kernel, 60 points (Cholesky)",
        gp_marginal_likelihood,
    ),
    pymc_workload(
        "stochastic volatility",
        "GaussianRandomWalk log-volatility, StudentT returns, 400 days",
        stochastic_volatility,
    ),
    pymc_workload(
        "censored",
        "Censored Normal, 1,000 obs censored at both ends",
        censored_normal,
    ),
    pymc_workload(
        "truncated",
        "Truncated Normal, 1,000 obs truncated at both ends",
        truncated_normal,
    ),
    pymc_workload(
        "eight schools",
        "non-centred eight schools, HalfCauchy scale",
        eight_schools,
    ),
    pymc_workload(
        "logistic GLM",
        "Bernoulli logit regression, 2,000 obs, 10 predictors",
        logistic_glm,
    ),
    pymc_workload(
        "radon",
        "hierarchical GLM: intercepts and slopes by county, 919 obs, 85 counties",
        radon_hierarchical,
    ),
    pymc_workload(
        "24 RVs",
        "the cold-start model: 24 scalar RVs of 15 families, 5 likelihoods, 500 obs",
        many_random_variables,
    ),
]
