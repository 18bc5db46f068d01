"""What onnxruntime charges per call and per node, and the node budgets that
leaves the PyMC workloads (issue 11).

onnxruntime runs every node of a model on its own (no elementwise fusion on
CPU). This times, side by side in one process:

- ``mode="ONNX"`` calls of ``x + 1`` on a one-element vector, with
  ``trust_input``: what a call costs before any node runs;
- chains of ``k`` elementwise nodes (``Add`` and ``Mul`` by constants, in turn)
  on float64 vectors of 1 and of 1,000 elements, run as the linker runs its
  sessions: the slope over ``k`` is the cost of one node.

With a PyMC results file (``run.py --only pymc``, by default the one in
``latest/pymc``) it then prints, for each workload, the nodes a model could run
and still take at most 3 times the fastest of C and Numba: that time less the
call's cost, divided by the cost of one node. ::

    python benchmarks/node_cost.py [--repeats 7] [--quick] [--pymc-results FILE]
"""

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

from run import limit_threads


LATEST_PYMC = Path(__file__).parent / "latest" / "pymc" / "results.json"
TARGET_RATIO = 3.0


def chain_model(length, size):
    """An ONNX model of ``length`` elementwise nodes on a float64 ``size``-vector."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    nodes, previous = [], "x"
    for i in range(length):
        nodes.append(
            helper.make_node(
                ("Add", "Mul")[i % 2], [previous, ("one", "near_one")[i % 2]], [f"v{i}"]
            )
        )
        previous = f"v{i}"
    nodes.append(helper.make_node("Identity", [previous], ["y"]))
    constants = [
        onnx.numpy_helper.from_array(np.array(1.0), "one"),
        onnx.numpy_helper.from_array(np.array(0.999), "near_one"),
    ]
    vector = [
        helper.make_tensor_value_info(name, TensorProto.DOUBLE, [size]) for name in "xy"
    ]
    graph = helper.make_graph(nodes, "chain", vector[:1], vector[1:], constants)
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=9
    )


def chain_call(length, size):
    """A call of the chain's session, as the linker makes it."""
    from functools import partial

    import numpy as np
    import onnxruntime as ort

    from pytensor.link.onnx.session import (
        DISABLED_OPTIMIZERS,
        default_session_options,
    )

    session = ort.InferenceSession(
        chain_model(length, size).SerializeToString(),
        sess_options=default_session_options(),
        providers=["CPUExecutionProvider"],
        disabled_optimizers=list(DISABLED_OPTIMIZERS),
    )
    feed = {"x": np.linspace(0.5, 1.5, size)}
    return partial(session._sess.run, ["y"], feed, ort.RunOptions())


def onnx_mode_call():
    """A trusted ``mode="ONNX"`` call of ``x + 1`` on a one-element vector."""
    from functools import partial

    import numpy as np
    import pytensor.tensor as pt

    import pytensor

    x = pt.vector("x")
    function = pytensor.function([x], x + 1, mode="ONNX")
    function.trust_input = True
    return partial(function, np.ones(1))


def node_costs(lengths, sizes, repeats, target_seconds):
    """Seconds per call of ``mode="ONNX"`` ``x + 1``, and seconds per node
    (least-squares slope over ``lengths``) for each of ``sizes``."""
    import numpy as np
    from runner import interleaved_samples

    calls = {"call": onnx_mode_call()}
    for size in sizes:
        for length in lengths:
            calls[(size, length)] = chain_call(length, size)
    samples, _ = interleaved_samples(calls, repeats, target_seconds)
    medians = {name: float(np.median(times)) for name, times in samples.items()}
    per_node = {
        size: float(np.polyfit(lengths, [medians[size, k] for k in lengths], 1)[0])
        for size in sizes
    }
    return medians, per_node


def budgets(pymc_results, call_seconds, per_node):
    """For each PyMC workload: fastest baseline, nodes now, and the nodes that
    ``TARGET_RATIO`` times the fastest leaves at each size's cost per node."""
    rows = []
    for workload in pymc_results["workloads"]:
        results = workload["results"]
        onnx = results.get("ONNX", {})
        baselines = [
            results[name]["median_s"]
            for name in ("default (C)", "Numba")
            if results.get(name, {}).get("status") == "ok"
        ]
        if onnx.get("status") != "ok" or not baselines:
            continue
        allowed = TARGET_RATIO * min(baselines) - call_seconds
        rows.append(
            {
                "name": workload["name"],
                "fastest_s": min(baselines),
                "onnx_s": onnx["median_s"],
                "nodes": onnx.get("onnx_nodes"),
                "budget": {
                    size: max(0, int(allowed / cost)) for size, cost in per_node.items()
                },
            }
        )
    return rows


def shown_path(path):
    """``path`` from the repository's root when it is inside it."""
    root = Path(__file__).resolve().parents[1]
    try:
        return path.resolve().relative_to(root)
    except ValueError:
        return path


def main(repeats, quick, pymc_results_file):
    import onnxruntime

    import pytensor

    lengths = [1, 17, 33] if quick else [1, 33, 65, 129]
    sizes = [1, 1000]
    target_seconds = 0.01 if quick else 0.2
    medians, per_node = node_costs(lengths, sizes, repeats, target_seconds)
    call_seconds = medians["call"] - per_node[1]
    print(
        f"benchmarks/node_cost.py, {datetime.now(UTC):%Y-%m-%d}: pytensor "
        f"{pytensor.__version__}, onnxruntime {onnxruntime.__version__}; median per "
        f"call over {repeats} round-robin repeats\n"
    )
    print(f"mode='ONNX' call of x + 1, trusted: {medians['call'] * 1e6:.2f} us")
    print(f"{'nodes':>6} " + " ".join(f"{f'{s}-vector':>12}" for s in sizes))
    for length in lengths:
        row = " ".join(f"{medians[s, length] * 1e6:9.2f} us" for s in sizes)
        print(f"{length:6} {row}")
    print(
        "per node "
        + " ".join(f"{per_node[s] * 1e6:9.3f} us" for s in sizes)
        + f"\ncall before its nodes: {call_seconds * 1e6:.2f} us\n"
    )
    if pymc_results_file is None or not pymc_results_file.exists():
        print("No PyMC results: run benchmarks/run.py --only pymc for the budgets.")
        return
    pymc_results = json.loads(pymc_results_file.read_text(encoding="utf-8"))
    print(
        f"Node budgets at {TARGET_RATIO:g}x the fastest of C and Numba, from "
        f"{shown_path(pymc_results_file)} "
        f"({pymc_results['machine'].get('date', 'undated')}):\n"
        f"({TARGET_RATIO:g} x fastest - call) / cost of a node, on 1- and "
        "1,000-element vectors"
    )
    print(
        f"{'workload':28} {'fastest':>9} {'ONNX':>9} {'nodes':>6} "
        f"{'budget 1':>9} {'budget 1000':>12}"
    )
    for row in budgets(pymc_results, call_seconds, per_node):
        print(
            f"{row['name']:28} {row['fastest_s'] * 1e6:7.1f}us {row['onnx_s'] * 1e6:7.1f}us "
            f"{row['nodes'] or '?':>6} {row['budget'][1]:9} {row['budget'][1000]:12}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--quick", action="store_true", help="short chains, short repeats"
    )
    parser.add_argument(
        "--pymc-results",
        type=Path,
        default=LATEST_PYMC,
        help="results.json of a PyMC run (default: latest/pymc/results.json)",
    )
    args = parser.parse_args()
    limit_threads(1)  # before NumPy loads
    main(args.repeats, args.quick, args.pymc_results)
