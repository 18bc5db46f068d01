"""Random draws inside Scan loops: a Gaussian random walk and an AR(1).

Not part of ``run.py``: the draws differ from the other backends by design,
so its agreement check would fail. Run this module alone for the time of a
call (the generator updated, as PyMC's forward samplers do) under
mode="ONNX" and the default mode, and their ratio:

    python benchmarks/random_loop_workloads.py [--repeats 20]
"""

import argparse
import platform
import warnings

import numpy as np
import pytensor.tensor as pt
from random_workloads import best_seconds
from report import cpu_model

import pytensor


def random_walk(position, noise):
    return position + noise


def ar1(position, noise):
    return 0.8 * position + noise


# name, step of the recurrence, steps, chains (draws per step)
WORKLOADS = [
    ("random walk", random_walk, 100, 1),
    ("random walk", random_walk, 1000, 1),
    ("random walk", random_walk, 1000, 100),
    ("AR(1)", ar1, 1000, 1),
    ("AR(1)", ar1, 100, 10_000),
]


def loop_function(recurrence, n_steps, n_chains, mode):
    """A function running ``n_steps`` of ``recurrence`` with normal noise, as
    PyMC writes it: the step returns the update of its generator."""
    rng = pytensor.shared(np.random.default_rng(0), name="rng")

    def step(position, rng):
        noise = pt.random.normal(0.0, 1.0, size=(n_chains,), rng=rng)
        return recurrence(position, noise), {rng: noise.owner.outputs[0]}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path, updates = pytensor.scan(
            step,
            outputs_info=[pt.zeros((n_chains,))],
            non_sequences=[rng],
            n_steps=n_steps,
        )
    return pytensor.function([], path, updates=updates, mode=mode)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    print(f"CPU: {cpu_model()}, {platform.machine()}, PyTensor {pytensor.__version__}")
    print(f"{'ms per call':32s}{'ONNX':>10s}{'default':>10s}{'ratio':>8s}")
    for name, recurrence, n_steps, n_chains in WORKLOADS:
        seconds = [
            best_seconds(
                loop_function(recurrence, n_steps, n_chains, mode), args.repeats
            )
            for mode in ("ONNX", None)
        ]
        label = f"{name}, {n_steps} steps x {n_chains}"
        print(
            f"{label:32s}{seconds[0] * 1e3:10.3f}{seconds[1] * 1e3:10.3f}"
            f"{seconds[0] / seconds[1]:8.2f}"
        )


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    main()
