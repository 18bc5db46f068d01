"""Sample a PyMC model with the in-graph NUTS sampler.

:func:`sample` is a stand-in for ``pm.sample`` on models whose free variables
are all continuous: it hands the model's log-density (in the unconstrained
space, Jacobians included, as PyMC's NUTS sees it) and jittered initial points
to :func:`pytensor.link.onnx.sampling.sample_nuts`, then maps the draws back
to the model's constrained space and returns an ArviZ ``InferenceData`` like
``pm.sample``'s.

PyMC is imported when :func:`sample` is called, so this module imports
without it.
"""

import importlib.metadata
import weakref

import numpy as np
import pytensor.tensor as pt
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.replace import vectorize_graph
from pytensor.graph.rewriting.basic import in2out
from pytensor.graph.traversal import ancestors, graph_inputs
from pytensor.tensor.random.type import RandomType

import pytensor
from pytensor.link.onnx.dispatch.variables import ONNXConversionError
from pytensor.link.onnx.sampling.logdensity import converts_to_onnx


PYMC_MISSING = (
    "pytensor.link.onnx.pymc.sample needs PyMC: pip install pymc "
    "(PyMC 5 installs next to PyTensor 2.38)"
)
SAMPLER_COMPILE_KWARGS = {"mode"}
JITTER_MAX_RETRIES = 10
LOG_DENSITIES = weakref.WeakKeyDictionary()


class UnsupportedModelError(NotImplementedError):
    """A model :func:`sample` cannot sample, with every cause at once.

    Attributes
    ----------
    causes
        One sentence per cause.
    """

    def __init__(self, causes):
        self.causes = tuple(causes)
        listed = "\n".join(f"{i}. {cause}" for i, cause in enumerate(self.causes, 1))
        super().__init__(
            "pytensor.link.onnx.pymc.sample cannot sample this model "
            f"({len(self.causes)} cause(s)):\n{listed}"
        )


def sample(
    model=None,
    draws=1000,
    tune=1000,
    chains=4,
    cores=1,
    random_seed=None,
    target_accept=0.8,
    max_treedepth=10,
    progressbar=True,
    var_names=None,
    compile_kwargs=None,
    idata_kwargs=None,
):
    """Draw from a PyMC model's posterior with NUTS run inside one ONNX graph.

    A replacement for ``pm.sample`` (NUTS, ``init="jitter+adapt_diag"``) on
    models whose free variables are all continuous. The whole sampler, warm-up
    included, is one compiled PyTensor graph: with ``mode="ONNX"`` no Python
    runs between leapfrog steps, and the chains advance together.

    Parameters
    ----------
    model : pymc.Model, optional
        The model; by default the one of the enclosing ``with`` block.
    draws, tune, chains : int
        Draws kept per chain, warm-up iterations per chain (discarded), chains.
    cores : int
        The number of groups of chains sampled in parallel threads (see
        :func:`~pytensor.link.onnx.sampling.sample_nuts`). Unlike
        ``pm.sample``'s, the default is 1, not the CPU count: the draws of a
        seed depend on ``cores``, and should not depend on the machine.
    random_seed : int, numpy.random.Generator or None
        Seeds the initial points (as ``pm.sample`` seeds them) and the sampler.
    target_accept : float
        The acceptance rate the step size adapts to.
    max_treedepth : int
        The most doublings of a trajectory.
    progressbar : bool
        Show a progress bar per chunk of draws.
    var_names : list of str, optional
        The variables of the posterior (default: every free variable and
        deterministic, in the constrained space).
    compile_kwargs : dict, optional
        ``{"mode": ...}``: the PyTensor mode the sampler and the
        post-processing are compiled in (default ``"ONNX"``).
    idata_kwargs : dict, optional
        Passed to ``arviz.from_dict`` (``coords`` and ``dims`` update the
        model's); ``log_likelihood=True`` adds the pointwise log-likelihood,
        ``save_warmup=True`` the warm-up's sample stats.

    Returns
    -------
    arviz.InferenceData
        ``posterior`` (constrained space, deterministics, the model's coords
        and dims), ``sample_stats`` (``diverging``, ``tree_depth``,
        ``n_steps``, ``step_size``, ``energy``, ``lp``, ``acceptance_rate``,
        ``energy_error``, ``max_energy_error``, ``reached_max_treedepth``;
        attributes ``sampling_time`` and ``tuning_steps``), ``observed_data``
        and ``constant_data``.

    Raises
    ------
    ImportError
        PyMC is not installed.
    UnsupportedModelError
        Before sampling, naming every cause: discrete free variables, Ops
        without an ONNX conversion, a log-density that draws random numbers,
        a model without free variables.
    """
    pm = import_pymc()
    model = pm.modelcontext(model)
    mode = sampler_mode(compile_kwargs)
    logp = model_logp(model)
    if causes := model_causes(model, logp):
        raise UnsupportedModelError(causes + conversion_causes(model, logp, mode))

    init_seeds, sampler_rng = seeds_per_chain(random_seed, chains)
    try:
        initial_points = jittered_initial_points(model, logp, init_seeds, mode)
        result = nuts_sampler()(
            logp,
            model.value_vars,
            initial_points,
            draws=draws,
            tune=tune,
            random_seed=sampler_rng,
            target_accept=target_accept,
            max_treedepth=max_treedepth,
            mode=mode,
            progressbar=progressbar,
            cores=cores,
        )
    except ONNXConversionError as err:  # raised when compiling, before sampling
        if causes := conversion_causes(model, logp, mode):
            raise UnsupportedModelError(causes) from err
        raise
    posterior = constrained_posterior(model, result.draws, var_names, mode)
    stats = sample_stats(result.stats, max_treedepth)
    warmup_stats = sample_stats(result.warmup_stats, max_treedepth)
    attrs = {"sampling_time": result.sampling_seconds, "tuning_steps": tune}
    idata = inference_data(
        model, posterior, stats, warmup_stats, attrs, dict(idata_kwargs or {}), mode
    )
    log_convergence_warnings(idata, model)
    return idata


def import_pymc():
    try:
        import pymc
    except ImportError as err:
        raise ImportError(PYMC_MISSING) from err
    return pymc


def sampler_mode(compile_kwargs):
    compile_kwargs = dict(compile_kwargs or {})
    unknown = sorted(set(compile_kwargs) - SAMPLER_COMPILE_KWARGS)
    if unknown:
        raise TypeError(
            f"compile_kwargs {unknown} are not supported: the sampler takes only 'mode'"
        )
    return compile_kwargs.get("mode", "ONNX")


def model_logp(model):
    """``model.logp()``, the same graph while the model and its data's shapes
    are unchanged: ``sample_nuts`` then reuses the sampler it compiled for it."""
    key = (
        tuple(model.value_vars),
        tuple(model.free_RVs),
        tuple(model.observed_RVs),
        tuple(model.potentials),
    )
    cached = LOG_DENSITIES.get(model)
    if cached is not None:
        cached_key, logp, shapes = cached
        if cached_key == key and data_shapes(logp) == shapes:
            return logp
    logp = checks_as_pm_sample_compiles_them(model, model.logp())
    LOG_DENSITIES[model] = (key, logp, data_shapes(logp))
    return logp


def checks_as_pm_sample_compiles_them(model, logp):
    """``logp`` with PyMC's parameter checks as ``pm.compile`` rewrites them.

    A point where a parameter leaves its support (``sigma > 0``) has a
    log-density of -inf, which NUTS rejects, not an error that stops every
    chain; with ``pm.Model(check_bounds=False)`` the checks are gone.
    """
    from pymc.logprob.utils import (
        local_check_parameter_to_ninf_switch,
        local_remove_check_parameter,
    )

    rewrite = (
        local_check_parameter_to_ninf_switch
        if model.check_bounds
        else local_remove_check_parameter
    )
    fgraph = FunctionGraph(outputs=[logp], clone=True, copy_inputs=False)
    in2out(rewrite).rewrite(fgraph)
    return fgraph.outputs[0]


def data_shapes(logp):
    return {
        v: np.shape(v.get_value(borrow=True))
        for v in graph_inputs([logp])
        if isinstance(v, SharedVariable)
    }


def nuts_sampler():
    from pytensor.link.onnx.sampling import sample_nuts

    return sample_nuts


def model_causes(model, logp):
    """Why the structure of ``model`` keeps NUTS from sampling it (empty: it doesn't)."""
    from pymc.vartypes import continuous_types

    causes = []
    if not model.free_RVs:
        causes.append(
            "the model has no free variables: there is nothing to sample "
            "(pm.sample_prior_predictive draws its other variables)"
        )
    discrete = [rv.name for rv in model.free_RVs if rv.dtype not in continuous_types]
    if discrete:
        causes.append(
            f"discrete free variables, which NUTS cannot sample: {', '.join(discrete)} "
            "(marginalize them out, or use pm.sample, which gives them their own "
            "step method)"
        )
    random = sorted(
        {str(v) for v in ancestors([logp]) if isinstance(v.type, RandomType)}
    )
    if random:
        causes.append(
            "the log-density draws random numbers (from "
            f"{', '.join(random)}, as pm.Minibatch does): NUTS needs a "
            "deterministic log-density"
        )
    return causes


def conversion_causes(model, logp, mode):
    """What keeps the log-density and its gradient from converting to ONNX.

    Checked only when a model fails (its other causes, or its compilation):
    the check rewrites the graph as a compilation does, which costs about
    as much as compiling the log-density and gradient once.
    """
    from pymc.vartypes import continuous_types

    from pytensor.link.onnx.export import onnx_support_report

    if not converts_to_onnx(mode):
        return []
    values = model.value_vars
    continuous = [v for v in values if v.dtype in continuous_types]
    gradient = pt.grad(logp, continuous) if continuous else []
    try:
        report = onnx_support_report((values, [logp, *gradient]), target=None)
    except Exception:  # a graph that cannot even be rewritten: its other causes stand
        return []
    return [f"no ONNX conversion: {problem}" for problem in report.problems]


def seeds_per_chain(random_seed, chains):
    """The initial points' seeds ``pm.sample`` would use, and the sampler's generator.

    ``pm.sample`` spawns one generator per chain from ``random_seed`` and
    seeds each chain's initial point with an integer drawn from it; the
    sampler's generator is the next one spawned.
    """
    from pymc.util import get_random_generator

    *chain_rngs, sampler_rng = get_random_generator(random_seed).spawn(chains + 1)
    return [rng.integers(2**30) for rng in chain_rngs], sampler_rng


def jittered_initial_points(model, logp, seeds, mode):
    """The initial points of ``init="jitter+adapt_diag"``, stacked by chain.

    Each chain starts at the model's initial point with a uniform(-1, 1)
    jitter on the unconstrained values, drawn again (up to 10 times) while
    the log-density there is not finite, as ``pm.sample`` does. The check
    compiles the log-density in the sampler's mode (the graph the sampler
    rewrites, see `~pytensor.link.onnx.sampling.driver.compiled_point_logp`):
    a model that does not convert to ONNX fails here, before the sampler
    compiles.
    """
    from pymc.sampling.mcmc import _init_jitter

    from pytensor.link.onnx.sampling.driver import compiled_point_logp

    values = model.value_vars
    initial_point = model.initial_point()
    shapes = [np.shape(initial_point[v.name]) for v in values]
    logp_fn = compiled_point_logp(logp, values, shapes, mode)
    points = _init_jitter(
        model,
        None,
        seeds=seeds,
        jitter=True,
        jitter_max_retries=JITTER_MAX_RETRIES,
        logp_fn=lambda point: logp_fn(*(point[v.name] for v in values)),
    )
    return [np.stack([point[v.name] for point in points]) for v in values]


def constrained_posterior(model, draws, var_names, mode):
    """The draws of every free variable and deterministic, in the constrained space.

    One vectorized call maps all the draws of all chains at once.
    """
    from pymc.util import get_default_varnames

    outputs = [
        v
        for v in model.unobserved_value_vars
        if var_names is None or v.name in var_names
    ]
    outputs = list(get_default_varnames(outputs, include_transformed=False))
    batched = [
        pt.tensor(name=v.name, dtype=v.dtype, shape=(None, *v.type.shape))
        for v in model.value_vars
    ]
    vectorized = vectorize_graph(
        outputs, replace=dict(zip(model.value_vars, batched, strict=True))
    )
    function = pytensor.function(
        batched, vectorized, mode=mode, on_unused_input="ignore"
    )
    chains, n_draws = draws[0].shape[:2]
    results = function(*(d.reshape(chains * n_draws, *d.shape[2:]) for d in draws))
    posterior = {}
    for output, batched_output, result in zip(
        outputs, vectorized, results, strict=True
    ):
        if batched_output.type.ndim == output.type.ndim:  # depends on no value
            result = np.broadcast_to(result, (chains * n_draws, *result.shape))
        posterior[output.name] = result.reshape(chains, n_draws, *result.shape[1:])
    return posterior


def sample_stats(stats, max_treedepth):
    """The sampler's stats and ``reached_max_treedepth``, as PyMC marks it: the
    trajectory made every doubling allowed without diverging (PyMC also leaves
    out the trees whose last doubling made a U-turn, which the stats do not
    tell apart)."""
    reached = (stats["tree_depth"] >= max_treedepth) & ~stats["diverging"]
    return {**stats, "reached_max_treedepth": reached}


def inference_data(model, posterior, stats, warmup_stats, attrs, idata_kwargs, mode):
    """An ``InferenceData`` with the groups and attributes ``pm.sample`` gives.

    ``idata_kwargs={"save_warmup": True}`` adds the warm-up's sample stats
    (``warmup_sample_stats``; the warm-up draws themselves are not kept).
    """
    import arviz as az
    from arviz.data.base import make_attrs
    from pymc.backends.arviz import (
        coords_and_dims_for_inferencedata,
        find_constants,
        find_observations,
    )

    log_likelihood = idata_kwargs.pop("log_likelihood", False)
    coords, dims = coords_and_dims_for_inferencedata(model)
    coords.update(idata_kwargs.pop("coords", {}))
    dims.update(idata_kwargs.pop("dims", {}))
    attrs = make_attrs(attrs)
    attrs["inference_library"] = "pytensor.link.onnx"
    attrs["inference_library_version"] = importlib.metadata.version("pytensor-onnx")
    idata = az.from_dict(
        posterior=posterior,
        sample_stats=stats,
        warmup_sample_stats=warmup_stats,
        observed_data=find_observations(model),
        constant_data=find_constants(model),
        coords=coords,
        dims=dims,
        attrs=attrs,
        posterior_attrs=attrs,
        **idata_kwargs,
    )
    if log_likelihood:
        from pymc.stats.log_density import compute_log_likelihood

        compute_log_likelihood(
            idata,
            var_names=None if log_likelihood is True else log_likelihood,
            model=model,
            progressbar=False,
            compile_kwargs={"mode": mode},
        )
    return idata


def log_convergence_warnings(idata, model):
    """Log divergences, maximal trees and poor mixing, as ``pm.sample`` does."""
    from pymc.stats.convergence import log_warnings, run_convergence_checks

    log_warnings(run_convergence_checks(idata, model))
