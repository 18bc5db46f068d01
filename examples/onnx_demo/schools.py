"""Export the NUTS sampler of eight schools for the demo page.

Eight schools (non-centred) is written as a plain PyTensor log-density of
``mu``, ``log_tau`` (``tau = exp(log_tau)``) and the eight ``theta_offset``;
`nuts_chunk_function` compiles the sampler's chunk of draws under
``mode="ONNX"`` and ``export_onnx`` writes it as ``schools_nuts.onnx``.
``schools.json`` holds what the page needs to drive it as `sample_nuts` does:
the initial state by input name, the data, and the chunks of draws of the
warm-up schedule (which chunks tune the step size, accumulate the variance of
the draws, close a mass-matrix window, and their depth limit).

The file is checked here in plain onnxruntime by `run_chunks`, the same loop
the page runs in JavaScript (``schools.js``): each chunk's ``next_<input>``
outputs are the next chunk's inputs (its ``next_rng`` key the next key); an
input without such an output (the inverse mass matrix) is left as it is.

Run by ``train.py``, or ``python examples/onnx_demo/schools.py [output directory]``.
"""

import argparse
import functools
import json
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytensor.tensor as pt

from pytensor.link.onnx import export_onnx, random_key
from pytensor.link.onnx.sampling import nuts_chunk_function
from pytensor.link.onnx.sampling.driver import schedule


OUTPUT = Path(__file__).parent / "models"
EFFECTS = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
ERRORS = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
CHAINS, TUNE, DRAWS, MAX_TREEDEPTH = 4, 1000, 1000, 10
SEED = 0
SCHEDULE_INPUTS = ("n_draws", "tuning", "accumulate", "depth_limit")


@functools.cache
def eight_schools():
    """The log-density (up to a constant) and its values ``[mu, log_tau, theta_offset]``.

    ``mu ~ Normal(0, 5)``, ``tau ~ HalfCauchy(5)``, ``theta_offset ~ Normal(0, 1)``,
    ``effects ~ Normal(mu + tau * theta_offset, errors)``, as PyMC writes it.
    """
    mu = pt.scalar("mu")
    log_tau = pt.scalar("log_tau")
    theta_offset = pt.vector("theta_offset", shape=(8,))
    tau = pt.exp(log_tau)
    theta = mu + tau * theta_offset
    logp = (
        -0.5 * (mu / 5) ** 2
        - pt.log1p((tau / 5) ** 2)
        + log_tau
        - 0.5 * (theta_offset**2).sum()
        - 0.5 * (((EFFECTS - theta) / ERRORS) ** 2).sum()
    )
    return logp, [mu, log_tau, theta_offset]


def initial_points(values, chains, seed):
    """PyMC's jittered start: the initial point (zeros) plus uniform(-1, 1) noise."""
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, size=(chains, *v.type.shape)) for v in values]


def chunk_schedule(tune, draws, max_treedepth):
    """The chunks of draws of `sample_nuts`'s warm-up and sampling, as JSON."""
    return [
        {
            "n_draws": segment.stop - segment.start,
            "tuning": segment.tuning,
            "accumulate": segment.accumulate,
            "depth_limit": segment.depth_limit,
            "closes_window": segment.closes_window,
            "starts_sampling": segment.start == tune and tune > 0,
        }
        for segment in schedule(tune, draws, max_treedepth)
    ]


def run_chunks(session, state, chunks, next_key=None):
    """Run the exported chunk over ``chunks`` from ``state`` (``{input name: array}``),
    adapting between chunks as `sample_nuts` does.

    The key of each chunk is the ``next_rng`` output of the one before, or
    ``next_key(next_rng)``: `sample_nuts` seeds a NumPy generator with it and
    draws the key from that generator (``next_key=random_key``), which the
    page, without NumPy, does not.

    Returns the draws ``(draws, chains, n)`` and statistics of every chunk,
    concatenated, and the state after the last chunk.
    """
    state = dict(state)
    outputs = [o.name for o in session.get_outputs()]
    kept = {name: [] for name in outputs if not name.startswith("next_")}
    for chunk in chunks:
        if chunk["starts_sampling"]:
            state["log_step"] = state["log_step_bar"]
        feeds = state | {
            "n_draws": np.asarray(chunk["n_draws"], dtype="int64"),
            "tuning": np.asarray(chunk["tuning"]),
            "accumulate": np.asarray(chunk["accumulate"]),
            "depth_limit": np.asarray(chunk["depth_limit"], dtype="int64"),
        }
        results = dict(zip(outputs, session.run(None, feeds), strict=True))
        for name in kept:
            kept[name].append(results[name])
        state = {
            name: results.get(f"next_{name}", value) for name, value in state.items()
        }
        if next_key is not None:
            state["rng"] = np.asarray(next_key(int(state["rng"])))
        if chunk["closes_window"]:
            state["inverse_mass"] = regularized_variance(
                state["welford_count"], state["welford_m2"]
            )
            for name in ("welford_count", "welford_mean", "welford_m2"):
                state[name] = np.zeros_like(state[name])
    return {name: np.concatenate(arrays) for name, arrays in kept.items()}, state


def state_from_json(info):
    """The initial state ``{input name: array}`` that ``schools.json`` holds."""
    return {
        name: np.asarray(
            [int(v) for v in value["data"]]
            if value["dtype"] == "uint64"
            else value["data"],
            dtype=value["dtype"],
        ).reshape(value["shape"])
        for name, value in info["state"].items()
    }


def regularized_variance(count, m2):
    """Stan's regularised variance of a window of ``count`` draws."""
    return (count / (count + 5)) * (m2 / (count - 1)) + 1e-3 * (5 / (count + 5))


def posterior_summary(draws, tune):
    """Means and standard deviations of mu, tau and the eight theta over all chains."""
    kept = draws[tune:]
    mu, log_tau, offsets = kept[..., 0], kept[..., 1], kept[..., 2:]
    tau = np.exp(log_tau)
    theta = mu[..., None] + tau[..., None] * offsets
    return {
        "mu": [float(mu.mean()), float(mu.std())],
        "tau": [float(tau.mean()), float(tau.std())],
        "theta": [[float(t.mean()), float(t.std())] for t in np.moveaxis(theta, -1, 0)],
    }


def export_sampler(path, chains, seed):
    """Export the sampler's chunk of draws of eight schools to ``path``; return
    the model and the initial state ``{input name: array}`` of its chains."""
    logp, values = eight_schools()
    chunk, state = nuts_chunk_function(
        logp,
        values,
        initial_points(values, chains, seed),
        random_seed=seed,
        max_treedepth=MAX_TREEDEPTH,
    )
    model = export_onnx(chunk.function, path, target="onnxruntime-web")
    names = [i.name for i in model.graph.input if i.name not in SCHEDULE_INPUTS]
    arrays = [*state.inputs()[:-1], random_key(state.rng)]
    return model, {n: np.asarray(a) for n, a in zip(names, arrays, strict=True)}


def state_as_json(state):
    """``state`` as `state_from_json` reads it: uint64 keys as decimal strings,
    which JavaScript reads without rounding them to a double."""
    return {
        name: {
            "dtype": value.dtype.name,
            "shape": list(value.shape),
            "data": [
                str(v) if value.dtype == np.uint64 else v
                for v in value.ravel().tolist()
            ],
        }
        for name, value in state.items()
    }


def main(output=OUTPUT, tune=TUNE, draws=DRAWS, chains=CHAINS, seed=SEED):
    """Export the sampler of eight schools into ``output``, check it in plain
    onnxruntime, and write ``schools.json``; return the plain-onnxruntime run."""
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    print("eight schools: compiling the NUTS sampler under mode='ONNX'...", flush=True)
    path = output / "schools_nuts.onnx"
    model, initial = export_sampler(path, chains, seed)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    chunks = chunk_schedule(tune, draws, MAX_TREEDEPTH)
    start = time.perf_counter()
    run, _ = run_chunks(session, initial, chunks)
    seconds = time.perf_counter() - start
    summary = posterior_summary(run["draws"], tune)
    divergences = int(run["diverging"][tune:].sum())
    print(
        f"  exported to {path} ({path.stat().st_size / 1024:.1f} KiB, "
        f"{len(model.graph.node)} nodes); {chains} chains x {tune} + {draws} draws "
        f"in plain onnxruntime: {seconds:.1f} s, {divergences} divergences, "
        f"mu {summary['mu'][0]:.2f} ± {summary['mu'][1]:.2f}, "
        f"tau {summary['tau'][0]:.2f} ± {summary['tau'][1]:.2f}"
    )
    info = {
        "file": path.name,
        "chains": chains,
        "tune": tune,
        "draws": draws,
        "values": ["mu", "log_tau"] + [f"theta_offset[{i}]" for i in range(8)],
        "effects": EFFECTS.tolist(),
        "errors": ERRORS.tolist(),
        "state": state_as_json(initial),
        "schedule": chunks,
        "onnxruntime": {
            "seconds": round(seconds, 2),
            "divergences": divergences,
            "summary": summary,
        },
    }
    (output / "schools.json").write_text(json.dumps(info, indent=1))
    return run


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", type=Path, default=OUTPUT)
    main(parser.parse_args().output)
