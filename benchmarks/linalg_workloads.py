"""Linear algebra workloads (issue 11): float64 Cholesky, triangular and
general solves, inverse and log-determinant at n = 60 and 500 (``--quick``:
n = 8), at the small sizes of statistical models' covariance matrices
(n = 3 and 17: straight-line code, and the ``Loop`` over two blocks), and a
batch of Cholesky factorizations. Every matrix has a symbolic shape.

Each case also carries ``direct``, the same computation with SciPy/NumPy
called directly, which the runner times side by side with the backends.
"""

from dataclasses import dataclass

import numpy as np
import pytensor.tensor as pt
import scipy.linalg
from workloads import Case, Workload, rng


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


def cholesky_solve_triangular(n):
    def build(quick):
        a, b = spd(sizes(n)(quick)), rng().normal(size=sizes(n)(quick))
        A, B = pt.matrix("A"), pt.vector("b")
        x = pt.linalg.solve_triangular(pt.linalg.cholesky(A), B, lower=True)

        def direct():
            factor = scipy.linalg.cholesky(a, lower=True)
            return [scipy.linalg.solve_triangular(factor, b, lower=True)]

        return DirectCase([A, B], [x], [a, b], direct=direct)

    return build


def cho_solve(n):
    def build(quick):
        a = spd(sizes(n)(quick))
        factor, b = np.linalg.cholesky(a), rng().normal(size=sizes(n)(quick))
        L, B = pt.matrix("L"), pt.vector("b")
        x = pt.linalg.cho_solve((L, True), B)
        direct = lambda: [scipy.linalg.cho_solve((factor, True), b)]  # noqa: E731
        return DirectCase([L, B], [x], [factor, b], direct=direct)

    return build


def solve(n):
    def build(quick):
        a, b = spd(sizes(n)(quick)), rng().normal(size=sizes(n)(quick))
        A, B = pt.matrix("A"), pt.vector("b")
        x = pt.linalg.solve(A, B)
        direct = lambda: [scipy.linalg.solve(a, b)]  # noqa: E731
        return DirectCase([A, B], [x], [a, b], direct=direct)

    return build


def inverse(n):
    def build(quick):
        a, A = spd(sizes(n)(quick)), pt.matrix("A")
        direct = lambda: [np.linalg.inv(a)]  # noqa: E731
        return DirectCase([A], [pt.linalg.inv(A)], [a], direct=direct)

    return build


def slogdet(n):
    def build(quick):
        a, A = spd(sizes(n)(quick)), pt.matrix("A")
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
