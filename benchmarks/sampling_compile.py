"""Where compiling the in-graph NUTS sampler goes, and the size of its loops.

For each PyMC workload below, the chunk function of 4 chains is compiled
under ``mode="ONNX"`` (what ``pytensor.link.onnx.pymc.sample`` compiles
first) from a freshly built model, and its phases are timed by wrapping the
functions that run them:

- ``log-density``: the one-point log-density and gradient, rewritten once
  (``raveled_log_density``);
- ``graph``: building the graph of the chunk, its three nested loops
  (``chunk_graph``);
- ``outer``: PyTensor's rewrites of the chunk's outer graph;
- ``loops``: PyTensor's rewrites of the three loop bodies (the ``Scan``
  converter's ``rewritten_inner_graph``);
- ``convert``: the rest of the conversion to ONNX and the session;
- ``chunk``: compiling the chunk function, from its graph to the session.

Then the ONNX nodes of each loop body (its ``If`` branches included, the loop
it holds excluded): the draw loop, the loop over tree doublings and the
leapfrog loop, whose nodes onnxruntime runs at every leapfrog step. PyMC
pins PyTensor 2.38.x, so it runs in that environment; pin it to one CPU::

    taskset -c 1 .venv-2.38.3/bin/python benchmarks/sampling_compile.py [--rounds 3] [--only "eight schools"]

Printed are the ranges over the rounds (the workloads alternate within each
round, so that other load on the machine spreads over all of them).
"""

import argparse
import collections
import logging
import time
import warnings

import numpy as np


WORKLOADS = ("pymc eight schools", "pymc truncated", "pymc censored")
CHAINS = 4
PHASES = ("log-density", "graph", "outer", "loops", "convert", "chunk")


def timed_phases():
    """Wrap the functions of each phase; return the dictionary they add seconds to."""
    import pytensor.compile.function.types as function_types

    import pytensor.link.onnx.dispatch.scan as scan_dispatch
    import pytensor.link.onnx.linker as linker
    import pytensor.link.onnx.sampling.driver as driver

    seconds = collections.Counter()

    def wrap(owner, name, phase, static=False):
        function = getattr(owner, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[phase] += time.perf_counter() - start

        setattr(owner, name, staticmethod(timed) if static else timed)

    wrap(driver, "raveled_log_density", "log-density")
    wrap(driver, "chunk_graph", "graph")
    wrap(driver, "compile_chunk_function", "chunk")
    wrap(function_types.FunctionMaker, "prepare_fgraph", "outer", static=True)
    wrap(scan_dispatch, "rewritten_inner_graph", "loops")
    wrap(linker.ONNXLinker, "fgraph_convert", "convert")
    wrap(linker.ONNXLinker, "jit_compile", "convert")
    return seconds


def measure(build_model, seconds):
    from pytensor.link.onnx.passes.graphs import nodes_per_loop_depth
    from pytensor.link.onnx.pymc.sampling import model_logp
    from pytensor.link.onnx.sampling import nuts_chunk_function

    model = build_model(False)
    logp = model_logp(model)
    point = model.initial_point(0)
    points = [np.stack([point[v.name]] * CHAINS) for v in model.value_vars]
    seconds.clear()
    chunk, _ = nuts_chunk_function(logp, model.value_vars, points, random_seed=0)
    # the conversion's time includes the loops' rewrites, which run inside it
    phases = dict(seconds, convert=seconds["convert"] - seconds["loops"])
    nodes = nodes_per_loop_depth(chunk.function.maker.linker.onnx_model.graph)
    return phases, [nodes[depth] for depth in (1, 2, 3)]


def span(values):
    low, high = min(values), max(values)
    return f"{low:.2f}" if high - low < 0.005 else f"{low:.2f}-{high:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", action="append", help="workloads, by name")
    args = parser.parse_args()
    logging.getLogger("pytensor").setLevel(logging.CRITICAL)
    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    from pymc_workloads import MODEL_BUILDERS

    names = [f"pymc {n}" for n in args.only] if args.only else list(WORKLOADS)
    seconds = timed_phases()
    results = {name: [] for name in names}
    for _ in range(args.rounds):
        for name in names:
            results[name].append(measure(MODEL_BUILDERS[name], seconds))
    print("seconds per phase (ranges over rounds); ONNX nodes of the loop bodies")
    print(
        f"{'workload':22s}", *(f"{p:>11s}" for p in PHASES), " draw/doubling/leapfrog"
    )
    for name, runs in results.items():
        cells = [span([phases.get(p, 0.0) for phases, _ in runs]) for p in PHASES]
        sizes = sorted({tuple(nodes) for _, nodes in runs})
        print(f"{name[5:]:22s}", *(f"{c:>11s}" for c in cells), " ", *sizes)


if __name__ == "__main__":
    main()
