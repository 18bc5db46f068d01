"""PyMC data in ``pm.Data`` containers, whose shapes are not static (issue 11).

The ONNX linker builds its model for the shapes the shared values have when a
function is compiled (``pytensor/link/onnx/shared_shapes.py``). This times,
side by side in one process, the logp and gradient of two PyMC models as NUTS
calls them (see ``pymc_workloads.py``), their data in ``pm.Data``:

- ``ONNX``: ``mode="ONNX"``, the model for the data's shapes;
- ``ONNX, any shape``: ``ONNXLinker(specialize_shared_shapes=False)``;
- ``ONNX, shape=``: the data given static shapes, ``pm.Data(..., shape=...)``;
- ``Numba`` and ``C``.

PyMC pins PyTensor 2.38.x, so it runs in that environment (``bench`` extra)::

    .venv-2.38.3/bin/python benchmarks/shared_shapes.py [--repeats 7] [--quick]
"""

import argparse
from datetime import UTC, datetime
from functools import partial

from run import limit_threads


def variants(quick):
    """``{name: (containers, mode)}``: how each variant builds and compiles
    (``quick``: the ONNX ones only)."""
    from pytensor.compile.mode import Mode, get_mode

    from pytensor.link.onnx import ONNXLinker

    any_shape = ONNXLinker(specialize_shared_shapes=False)
    onnx = {
        "ONNX": ("symbolic", "ONNX"),
        "ONNX, any shape": (
            "symbolic",
            Mode(any_shape, get_mode("ONNX").provided_optimizer),
        ),
        "ONNX, shape=": ("static", "ONNX"),
    }
    if quick:
        return onnx
    return {**onnx, "Numba": ("symbolic", "NUMBA"), "C": ("symbolic", "FAST_RUN")}


def compiled_calls(build_model, quick):
    """``{variant: call}``, each the compiled logp and gradient at one point."""
    from pymc_workloads import logp_dlogp_case

    calls = {}
    for name, (containers, mode) in variants(quick).items():
        case = logp_dlogp_case(build_model(quick, containers=containers))
        function = case.compile_function(mode)
        function.trust_input = True
        calls[name] = partial(function, *case.args)
    return calls


def versions():
    import onnxruntime
    import pymc

    import pytensor

    return [pytensor, pymc, onnxruntime]


def main(repeats, quick):
    import numpy as np
    from pymc_workloads import gp_marginal_likelihood, radon_hierarchical
    from runner import interleaved_samples

    models = {
        "GP": gp_marginal_likelihood,
        "radon-like GLM": radon_hierarchical,
    }
    print(
        f"benchmarks/shared_shapes.py, {datetime.now(UTC):%Y-%m-%d}: "
        f"{', '.join(f'{m.__name__} {m.__version__}' for m in versions())}; "
        f"median per call over {repeats} round-robin repeats\n"
    )
    print(f"{'model':16} {'variant':16} {'us per call':>12} {'/ any shape':>12}")
    for model, build_model in models.items():
        calls = compiled_calls(build_model, quick)
        reference = calls["ONNX, any shape"]()
        for call in calls.values():
            for value, expected in zip(call(), reference, strict=True):
                np.testing.assert_allclose(value, expected, rtol=1e-9)
        target_seconds = 0.01 if quick else 0.2
        samples, _ = interleaved_samples(calls, repeats, target_seconds)
        medians = {name: np.median(times) for name, times in samples.items()}
        for name, median in medians.items():
            print(
                f"{model:16} {name:16} {median * 1e6:12.1f} "
                f"{median / medians['ONNX, any shape']:12.2f}",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--quick", action="store_true", help="small models, the ONNX variants only"
    )
    args = parser.parse_args()
    limit_threads(1)  # before NumPy loads
    main(args.repeats, args.quick)
