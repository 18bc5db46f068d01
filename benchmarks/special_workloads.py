"""Special functions over 300 float64 values and of one value, with their
gradients: the node-count bound workloads.

onnxruntime dispatches every node of a converted special function separately
(no elementwise fusion on CPU), so these measure the size of their graphs
against the C and Numba loops. The scalar workloads are the normalising
constants of log-densities (a StudentT's ``nu``, a truncation bound), which
the converters build by their variants for one value.
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


def scalar_and_gradient(function, value):
    def build(quick):
        x = pt.dscalar("x")
        y = function(x)
        return Case([x], [y, pytensor.grad(y, x)], [np.asarray(value)])

    return build


def student_t_normaliser(quick):
    nu = pt.dscalar("nu")
    constant = pt.gammaln((nu + 1) / 2) - pt.gammaln(nu / 2) - 0.5 * pt.log(nu)
    return Case([nu], [constant, pytensor.grad(constant, nu)], [np.asarray(4.5)])


SCALAR_FUNCTIONS = [
    ("gammaln", pt.gammaln, 4.5),
    ("psi", pt.psi, 4.5),
    ("tri_gamma", pt.tri_gamma, 4.5),
    ("erf", pt.erf, 0.7),
    ("erfc", pt.erfc, 1.7),
    ("erfcx", pt.erfcx, 1.7),
    ("log1mexp", pt.log1mexp, -0.3),
    ("softplus", pt.softplus, 0.3),
]
SPECIAL_WORKLOADS += [
    Workload(
        f"{name}+grad scalar",
        f"{name}(x) and its gradient of one float64 value, x = {value}",
        scalar_and_gradient(function, value),
        trust_input=True,
    )
    for name, function, value in SCALAR_FUNCTIONS
]
SPECIAL_WORKLOADS.append(
    Workload(
        "StudentT normaliser+grad scalar",
        "gammaln((nu+1)/2) - gammaln(nu/2) - log(nu)/2 and its gradient, nu = 4.5",
        student_t_normaliser,
        trust_input=True,
    )
)
