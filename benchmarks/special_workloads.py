"""Special functions over 300 float64 values: the node-count bound workloads.

onnxruntime dispatches every node of a converted special function separately
(no elementwise fusion on CPU), so these measure the size of their graphs
against the C and Numba loops.
"""

import numpy as np
import pytensor.tensor as pt
from workloads import Case, Workload

import pytensor


N_VALUES = 300


def values(quick, low, high):
    return np.linspace(low, high, 10 if quick else N_VALUES)


def gammaln_and_gradient(quick):
    x = pt.dvector("x")
    total = pt.gammaln(x).sum()
    return Case([x], [total, pytensor.grad(total, x)], [values(quick, 0.1, 30.0)])


def elementwise(function, low, high):
    def build(quick):
        x = pt.dvector("x")
        return Case([x], [function(x)], [values(quick, low, high)])

    return build


SPECIAL_WORKLOADS = [
    Workload(
        "gammaln+grad 300",
        "gammaln(x).sum() and its gradient (psi), 300 float64 values in [0.1, 30]",
        gammaln_and_gradient,
    ),
    Workload("psi 300", "digamma of 300 float64 values", elementwise(pt.psi, 0.1, 30)),
    Workload("erfc 300", "erfc of 300 float64 values", elementwise(pt.erfc, -5, 5)),
    Workload(
        "log1mexp 300",
        "log1mexp of 300 float64 values in [-10, -1e-3]",
        elementwise(pt.log1mexp, -10, -1e-3),
    ),
]
