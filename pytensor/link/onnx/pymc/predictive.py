"""A fitted PyMC model's posterior predictive as one ONNX file."""

import json
from collections.abc import Sequence

import numpy as np
import pytensor.tensor as pt
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.replace import clone_replace, graph_replace
from pytensor.graph.traversal import ancestors, io_toposort
from pytensor.tensor.random.op import RandomVariable

import pytensor


KEY_NAME = "key"
DEFAULT_QUANTILES = (0.05, 0.5, 0.95)
# Metadata keys of the JSON objects describing the file
COORDS_METADATA = "pymc_coords"
DIMS_METADATA = "pymc_dims"
PREDICTIVE_METADATA = "pymc_predictive"


def export_predictive(
    model,
    idata,
    path=None,
    *,
    var_names: Sequence[str] | None = None,
    thin: int | None = None,
    summaries=None,
    **export_options,
):
    """Export the posterior predictive of a fitted PyMC model as an ONNX file.

    The file computes, at new values of the model's ``pm.Data`` containers,
    draws of the observed variables (or ``var_names``) from the posterior
    predictive distribution: one draw per posterior draw, the posterior draws
    stored in the file. Its inputs are the data containers the predictive
    depends on, by name (their dims, as named in the model, are the inputs'
    symbolic dimensions), and a random key ``key``; its outputs are the
    draws, by variable name, and the advanced key ``key_next`` (feed it back
    for new draws). The same key gives the same draws in onnxruntime,
    onnxruntime-web and ``mode="ONNX"``.

    As with ``pm.sample_posterior_predictive`` after ``pm.set_data``, the
    shape of an observed variable must follow the data (``shape=x.shape`` or
    dims of a data container) for new data of another length.

    Parameters
    ----------
    model
        The ``pm.Model``.
    idata
        The fit: an ``arviz.InferenceData`` with a ``posterior`` group, or
        that group itself (an ``xarray.Dataset`` with ``chain`` and ``draw``
        dimensions).
    path
        Where to write the file (as for
        :func:`~pytensor.link.onnx.export.export_onnx`).
    var_names
        The variables to predict: by default the observed ones. Free
        variables the posterior lacks (a GP's ``conditional``) are drawn
        given the posterior, as PyMC does.
    thin
        Keep every ``thin``-th draw of each chain.
    summaries
        ``None`` (default): return the draws, shape ``(sample, *variable
        shape)``. ``True`` or a sequence of quantile levels in [0, 1]:
        return instead ``<var>_mean`` (the mean over the draws) and
        ``<var>_quantiles`` (shape ``(quantile, *variable shape)``, NumPy's
        linear interpolation) at those levels, ``(0.05, 0.5, 0.95)`` for
        ``True``.
    **export_options
        Passed to :func:`~pytensor.link.onnx.export.export_onnx` (``target``,
        ``dtype``, ``opset``, ``doc_string``, ``metadata``...).

    Returns
    -------
    onnx.ModelProto
        The model. Its metadata holds the model's coords
        (``pymc_coords``), the dims of each input and output
        (``pymc_dims``) and the variables, number of posterior draws and
        quantile levels (``pymc_predictive``), each a JSON object.

    Examples
    --------
    A file that a service runs on new covariates, without PyMC::

        export_predictive(model, idata, "predictive.onnx", thin=2)
        session = onnxruntime.InferenceSession("predictive.onnx")
        draws, next_key = session.run(
            None, {"x": x_new, "key": random_key(2026)}
        )
    """
    from pytensor.link.onnx.export import export_onnx

    posterior = posterior_draws(idata, thin)
    variables = predicted_variables(model, var_names)
    outputs = vectorized_predictive(model, variables, posterior)
    data_inputs, outputs = data_as_inputs(model, outputs)
    key, next_key, outputs = one_random_key(outputs)
    key.default_update = next_key
    levels = quantile_levels(summaries)
    names = [v.name for v in variables]
    n_samples = posterior.sizes["sample"]
    if levels is None:
        for out, name in zip(outputs, names, strict=True):
            out.name = name
    else:
        outputs = summarized(outputs, names, levels, n_samples)
    model_dims = model.named_vars_to_dims
    dims = {
        d.name: tuple(model_dims.get(d.name, (None,) * d.type.ndim))
        for d in data_inputs
    }
    output_dims = {out.name: output_dims_of(out, names, model_dims) for out in outputs}
    options = dict(export_options)
    metadata = dict(options.pop("metadata", None) or {})
    metadata |= {
        COORDS_METADATA: json.dumps(coords_of(model), default=str),
        DIMS_METADATA: json.dumps(
            {name: list(d) for name, d in dims.items()} | output_dims, default=str
        ),
        PREDICTIVE_METADATA: json.dumps(
            {
                "var_names": names,
                "samples": n_samples,
                "quantiles": None if levels is None else list(levels),
            }
        ),
    }
    options.setdefault("dims", {})
    options["dims"] = {
        name: [d if isinstance(d, str) else None for d in dim]
        for name, dim in dims.items()
    } | dict(options["dims"])
    return export_onnx(
        ([*data_inputs, key], outputs), path, metadata=metadata, **options
    )


def posterior_draws(idata, thin):
    """The posterior, chains and draws stacked into a leading ``sample`` dimension."""
    posterior = getattr(idata, "posterior", idata)
    if not {"chain", "draw"} <= set(getattr(posterior, "dims", ())):
        raise TypeError(
            "idata must be an InferenceData with a posterior group, or that group "
            "(an xarray Dataset with chain and draw dimensions)"
        )
    if thin is not None:
        if not isinstance(thin, int | np.integer) or thin < 1:
            raise ValueError(f"thin must be a positive integer, not {thin!r}")
        posterior = posterior.isel(draw=slice(None, None, int(thin)))
    stacked = posterior.stack(sample=("chain", "draw"))
    return stacked.transpose("sample", ...)


def predicted_variables(model, var_names):
    if var_names is None:
        if not model.observed_RVs:
            raise ValueError("The model has no observed variable: pass var_names")
        return list(model.observed_RVs)
    if isinstance(var_names, str):
        var_names = [var_names]
    unknown = [name for name in var_names if name not in model.named_vars]
    if unknown:
        raise ValueError(
            f"var_names: the model has no variable {unknown}; its variables are "
            f"{sorted(model.named_vars)}"
        )
    return [model[name] for name in var_names]


def vectorized_predictive(model, variables, posterior):
    """The variables given each posterior draw, a leading sample axis first."""
    from pymc.sampling.forward import vectorize_over_posterior

    predicted = set(variables)
    conditioned = [rv for rv in model.free_RVs if rv not in predicted]
    needed = {
        rv.name
        for rv in ancestors(variables, blockers=conditioned)
        if rv in conditioned
    }
    if missing := sorted(needed - set(posterior.data_vars)):
        raise ValueError(
            f"The posterior has no draws of {missing}, which the predictive of "
            f"{[v.name for v in variables]} depends on"
        )
    variables, sizes = with_sizes_as_roots(list(variables), conditioned)
    vectorized = vectorize_over_posterior(
        variables,
        posterior,
        input_rvs=conditioned,
        allow_rvs_in_graph=True,
        sample_dims=("sample",),
    )
    return graph_replace(vectorized, sizes, strict=False)


def with_sizes_as_roots(outputs, conditioned):
    """``outputs`` with the size of each random variable drawn given the
    ``conditioned`` ones a new root variable.

    ``vectorize_over_posterior`` extends the size of a random variable whose
    parameters gain the sample axis only if its size graph comes out of
    vectorization unchanged, and PyTensor 2.38 rebuilds a ``MakeVector`` of
    one shape as an ``ExpandDims``: roots stay as they are. Returns the new
    outputs and ``{root: size}``.
    """
    sizes = {
        node.op.size_param(node): None
        for node in io_toposort(conditioned, outputs)
        if isinstance(node.op, RandomVariable)
    }
    roots = {
        size: size.type(name=f"size_{i}")
        for i, size in enumerate(sizes)
        if size.owner is not None
    }
    if not roots:
        return outputs, {}
    replaced = graph_replace(outputs, roots, strict=False)
    return replaced, {root: size for size, root in roots.items()}


def data_as_inputs(model, outputs):
    """Replace the data containers the outputs depend on by inputs of the same names.

    The length of a dim of a container (``model.dim_lengths``) becomes the
    length of the input's axis, as ``pm.set_data(..., coords=...)`` makes it.
    """
    used = set(ancestors(outputs))
    containers = [d for d in model.data_vars if d in used]
    inputs = {
        d: d.type(name=d.name) if isinstance(d, SharedVariable) else pt.as_tensor(d)
        for d in containers
    }
    inputs = {d: v for d, v in inputs.items() if v.owner is None and v is not d}
    if not inputs:
        return [], list(outputs)
    lengths = {}
    for container, new in inputs.items():
        for axis, dim in enumerate(model.named_vars_to_dims.get(container.name, ())):
            length = model.dim_lengths.get(dim)
            if length is not None and length in used and length not in lengths:
                lengths[length] = new.shape[axis]
    replaced = graph_replace(outputs, inputs | lengths, strict=False)
    return list(inputs.values()), replaced


def one_random_key(outputs):
    """Draw every random variable from one generator, in graph order.

    Returns the generator, its state after the last draw and the outputs.
    """
    key = pytensor.shared(np.random.default_rng(0), name=KEY_NAME)
    current = key
    while True:
        node = next(
            (
                n
                for n in io_toposort([], outputs)
                if isinstance(n.op, RandomVariable)
                and isinstance(n.inputs[0], SharedVariable)
                and n.inputs[0] is not key
            ),
            None,
        )
        if node is None:
            return key, current, outputs
        outputs = clone_replace(outputs, {node.inputs[0]: current})
        current = next(
            n.outputs[0]
            for n in io_toposort([], outputs)
            if isinstance(n.op, RandomVariable) and n.inputs[0] is current
        )


def quantile_levels(summaries):
    if summaries is None or summaries is False:
        return None
    levels = DEFAULT_QUANTILES if summaries is True else tuple(summaries)
    if not levels or not all(
        isinstance(q, int | float | np.number) and 0 <= q <= 1 for q in levels
    ):
        raise ValueError(
            f"summaries must be None, True or quantile levels in [0, 1], not "
            f"{summaries!r}"
        )
    return tuple(float(q) for q in levels)


def summarized(outputs, names, levels, n_samples):
    """The mean over the sample axis and the quantiles of each output."""
    summaries = []
    for draws, name in zip(outputs, names, strict=True):
        mean = draws.mean(axis=0)
        mean.name = f"{name}_mean"
        quantiles = sample_quantiles(draws, levels, n_samples)
        quantiles.name = f"{name}_quantiles"
        summaries += [mean, quantiles]
    return summaries


def sample_quantiles(draws, levels, n):
    """Quantiles over the leading axis (of length ``n``), interpolated linearly
    as NumPy does."""
    ordered = pt.sort(draws, axis=0)
    if not ordered.type.dtype.startswith("float"):
        ordered = ordered.astype(pytensor.config.floatX)
    positions = np.asarray(levels) * (n - 1)
    lower = np.floor(positions).astype("int64")
    upper = np.minimum(lower + 1, n - 1)
    weight = (positions - lower).reshape((-1,) + (1,) * (draws.type.ndim - 1))
    weight = pt.constant(weight.astype(ordered.type.dtype))
    return ordered[lower] * (1 - weight) + ordered[upper] * weight


def output_dims_of(output, names, model_dims):
    """The dims of an output (``None`` for an axis without a name)."""
    leading = {"": ["sample"], "_mean": [], "_quantiles": ["quantile"]}
    for name in names:
        for suffix, first in leading.items():
            if output.name == f"{name}{suffix}":
                n_own = output.type.ndim - len(first)
                return first + list(model_dims.get(name, (None,) * n_own))
    return [None] * output.type.ndim


def coords_of(model) -> dict:
    return {
        name: np.asarray(values).tolist() if values is not None else None
        for name, values in model.coords.items()
    }
