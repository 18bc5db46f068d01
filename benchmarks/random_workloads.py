"""Sampling speed: gamma, Poisson, beta and Dirichlet draws.

Not part of ``run.py``: the draws differ from the other backends by design,
so its agreement check would fail. Run this module alone for
draws per second under mode="ONNX", the default mode and NumPy's generator:

    python benchmarks/random_workloads.py [--size 1000000] [--repeats 5]
"""

import argparse
import platform
import time
import warnings
from functools import partial

import numpy as np
import pytensor.tensor as pt
from report import cpu_model
from workloads import Case

import pytensor


# name, PyTensor draw of ``size``, NumPy draw of ``size``
DISTRIBUTIONS = {
    "gamma(2.5)": (
        lambda rng, size: pt.random.gamma(2.5, scale=1.0, size=size, rng=rng),
        lambda gen, size: gen.gamma(2.5, size=size),
    ),
    "gamma(0.3)": (
        lambda rng, size: pt.random.gamma(0.3, scale=1.0, size=size, rng=rng),
        lambda gen, size: gen.gamma(0.3, size=size),
    ),
    "poisson(4)": (
        lambda rng, size: pt.random.poisson(4.0, size=size, rng=rng),
        lambda gen, size: gen.poisson(4.0, size=size),
    ),
    "poisson(1000)": (
        lambda rng, size: pt.random.poisson(1000.0, size=size, rng=rng),
        lambda gen, size: gen.poisson(1000.0, size=size),
    ),
    "beta(2, 3)": (
        lambda rng, size: pt.random.beta(2.0, 3.0, size=size, rng=rng),
        lambda gen, size: gen.beta(2.0, 3.0, size=size),
    ),
    "dirichlet(5 x 1.0)": (
        lambda rng, size: pt.random.dirichlet(np.ones(5), size=size, rng=rng),
        lambda gen, size: gen.dirichlet(np.ones(5), size=size),
    ),
}


def draws_case(draw, size):
    """Draws of ``size`` that advance the generator."""

    def build(quick):
        rng = pytensor.shared(np.random.default_rng(0), name="rng")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = draw(rng, (100 if quick else size,))
        return Case([], [x], [], updates=[(rng, x.owner.outputs[0])])

    return build


def best_seconds(call, repeats):
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10**6)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"CPU: {cpu_model()}, {platform.machine()}, size {args.size}, one thread")
    print(f"{'draws/s':22s}{'ONNX':>12s}{'default':>12s}{'NumPy':>12s}")
    for name, (draw, numpy_draw) in DISTRIBUTIONS.items():
        rates = []
        for mode in ("ONNX", None):
            case = draws_case(draw, args.size)(False)
            fn = pytensor.function(
                case.inputs, case.outputs, updates=case.updates, mode=mode
            )
            rates.append(args.size / best_seconds(fn, args.repeats))
        gen = np.random.default_rng(0)
        numpy_call = partial(numpy_draw, gen, args.size)
        rates.append(args.size / best_seconds(numpy_call, args.repeats))
        print(f"{name:22s}" + "".join(f"{rate:12.3g}" for rate in rates))


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    main()
