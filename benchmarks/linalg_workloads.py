"""Linear algebra workloads (issue 11): float64 Cholesky, triangular and
general solves, inverse and log-determinant at n = 60 and 500 (``--quick``:
n = 8), at the small sizes of statistical models' covariance matrices
(n = 3 and 17: straight-line code, and the ``Loop`` over two blocks), and a
batch of Cholesky factorizations. Every matrix has a symbolic shape.

Each case also carries ``direct``, the same computation with SciPy/NumPy
called directly, which the runner times side by side with the backends.
"""

import sys
import time
from dataclasses import dataclass

import numpy as np
import pytensor.tensor as pt
import scipy.linalg
from workloads import Case, Workload, rng

import pytensor
from pytensor.link.onnx.passes.graphs import count_nodes, nodes_run


@dataclass
class DirectCase(Case):
    """A `Case` with ``direct()``, its outputs computed by SciPy/NumPy."""

    direct: object = None


def spd(n, batch=()):
    """A well-conditioned symmetric positive definite matrix (or a batch)."""
    a = rng().normal(size=(*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) / n + np.eye(n)


def sizes(n):
    return lambda quick: min(n, 8) if quick else n


def matrix(name, n, static):
    return pt.tensor(name, shape=(n, n) if static else (None, None))


def vector(name, n, static):
    return pt.tensor(name, shape=(n,) if static else (None,))


def cholesky_solve_triangular(n, static=False):
    def build(quick):
        m = sizes(n)(quick)
        a, b = spd(m), rng().normal(size=m)
        A, B = matrix("A", m, static), vector("b", m, static)
        x = pt.linalg.solve_triangular(pt.linalg.cholesky(A), B, lower=True)

        def direct():
            factor = scipy.linalg.cholesky(a, lower=True)
            return [scipy.linalg.solve_triangular(factor, b, lower=True)]

        return DirectCase([A, B], [x], [a, b], direct=direct)

    return build


def cho_solve(n, static=False):
    def build(quick):
        m = sizes(n)(quick)
        factor, b = np.linalg.cholesky(spd(m)), rng().normal(size=m)
        L, B = matrix("L", m, static), vector("b", m, static)
        x = pt.linalg.cho_solve((L, True), B)
        direct = lambda: [scipy.linalg.cho_solve((factor, True), b)]  # noqa: E731
        return DirectCase([L, B], [x], [factor, b], direct=direct)

    return build


def solve(n, static=False):
    def build(quick):
        m = sizes(n)(quick)
        a, b = spd(m), rng().normal(size=m)
        A, B = matrix("A", m, static), vector("b", m, static)
        x = pt.linalg.solve(A, B)
        direct = lambda: [scipy.linalg.solve(a, b)]  # noqa: E731
        return DirectCase([A, B], [x], [a, b], direct=direct)

    return build


def inverse(n, static=False):
    def build(quick):
        m = sizes(n)(quick)
        a, A = spd(m), matrix("A", m, static)
        direct = lambda: [np.linalg.inv(a)]  # noqa: E731
        return DirectCase([A], [pt.linalg.inv(A)], [a], direct=direct)

    return build


def slogdet(n, static=False):
    def build(quick):
        m = sizes(n)(quick)
        a, A = spd(m), matrix("A", m, static)
        direct = lambda: np.linalg.slogdet(a)  # noqa: E731
        return DirectCase([A], list(pt.linalg.slogdet(A)), [a], direct=direct)

    return build


def batched_cholesky(n, batch):
    def build(quick):
        a, A = spd(sizes(n)(quick), (batch,)), pt.tensor3("A")
        direct = lambda: [np.linalg.cholesky(a)]  # noqa: E731
        return DirectCase([A], [pt.linalg.cholesky(A)], [a], direct=direct)

    return build


LINALG_WORKLOADS = [
    workload
    for n in (3, 17, 60, 500)
    for workload in (
        Workload(
            f"linalg cholesky+solve_triangular n={n}",
            f"x = solve_triangular(cholesky(A), b), {n}x{n} float64",
            cholesky_solve_triangular(n),
        ),
        Workload(
            f"linalg cho_solve n={n}",
            f"cho_solve((L, True), b), {n}x{n} float64",
            cho_solve(n),
        ),
        Workload(f"linalg solve n={n}", f"solve(A, b), {n}x{n} float64", solve(n)),
        Workload(f"linalg inv n={n}", f"inv(A), {n}x{n} float64", inverse(n)),
        Workload(f"linalg slogdet n={n}", f"slogdet(A), {n}x{n} float64", slogdet(n)),
    )
] + [
    Workload(
        "linalg batched cholesky 32x60",
        "cholesky of 32 matrices 60x60 (Blockwise), float64",
        batched_cholesky(60, 32),
    )
]


OPERATIONS = {
    "cholesky+solve_triangular": cholesky_solve_triangular,
    "cho_solve": cho_solve,
    "solve": solve,
    "inv": inverse,
    "slogdet": slogdet,
}


def cpu_seconds(call, repeats=5, target=0.05):
    """The least CPU time per call over ``repeats`` runs of at least
    ``target`` seconds each (CPU time: other processes count less)."""
    calls = 1
    while True:
        start = time.process_time()
        for _ in range(calls):
            call()
        if time.process_time() - start > target:
            break
        calls *= 4
    times = []
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(calls):
            call()
        times.append((time.process_time() - start) / calls)
    return min(times)


def size_table(sizes_, threads=1):
    """Print, per operation, size and static or symbolic shape: the ONNX
    model's nodes, the nodes run per call, and the CPU time per call of the
    ONNX mode and of SciPy/NumPy called directly."""
    from runner import onnx_mode

    mode = onnx_mode(threads)
    print(
        f"{'operation':26} {'n':>4} {'shape':8} {'nodes':>6} {'run':>6} "
        f"{'ONNX us':>9} {'SciPy us':>9} {'ratio':>6}"
    )
    for n in sizes_:
        for static in (False, True):
            for name, operation in OPERATIONS.items():
                case = operation(n, static)(False)
                f = pytensor.function(case.inputs, case.outputs, mode=mode)
                model = f.maker.linker.onnx_model
                run = nodes_run(model, case.args)
                onnx_s = cpu_seconds(lambda: f(*case.args))  # noqa: B023
                direct_s = cpu_seconds(case.direct)
                print(
                    f"{name:26} {n:4d} {'static' if static else 'symbolic':8} "
                    f"{count_nodes(model.graph):6d} {run:6d} {onnx_s * 1e6:9.1f} "
                    f"{direct_s * 1e6:9.1f} {onnx_s / direct_s:6.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    # python benchmarks/linalg_workloads.py [n,n,...]: the table by size
    from run import limit_threads

    limit_threads(1)
    chosen = sys.argv[1] if len(sys.argv) > 1 else "2,3,5,8,16,17,30,60,200,500"
    size_table([int(n) for n in chosen.split(",")])
