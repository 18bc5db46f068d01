"""Samplers of vectors and matrices: multivariate and matrix normals,
Wishart, conditional autoregressions and stick-breaking weights."""

import numpy as np

from pytensor.link.onnx.numerics.elementary import expm1
from pytensor.link.onnx.numerics.linalg.decomposition.cholesky import (
    cholesky_of_triangle,
)
from pytensor.link.onnx.numerics.linalg.decomposition.eigen import jacobi_eigen
from pytensor.link.onnx.numerics.linalg.solvers.triangular import substitute
from pytensor.link.onnx.numerics.linalg.stacks import diagonal_mask, mT
from pytensor.link.onnx.numerics.random import Draws
from pytensor.link.onnx.numerics.random_gamma import log_standard_gamma
from pytensor.link.onnx.value import Value, arange, concat, where


def as_stack(matrices: Value) -> Value:
    """The square matrices of any batch shape as a stack ``(batch, n, n)``."""
    n_matrices = matrices.shape(0, -2).prod([0])
    return matrices.reshape(concat([n_matrices, matrices.shape(-2)], axis=0))


def square_root(cov: Value, method: str = "cholesky") -> Value:
    """A factor ``A`` of the symmetric positive semi-definite matrices ``cov``
    (any batch shape) with ``A A^T = cov``: the lower Cholesky factor (NaN
    where ``cov`` is not positive definite), or for ``"svd"`` and ``"eigh"``
    the eigenvectors scaled by the roots of the eigenvalues."""
    stack = as_stack(cov)
    if method == "cholesky":
        factor = cholesky_of_triangle(stack, lower=True)
    else:
        eigenvalues, eigenvectors = jacobi_eigen(stack)
        factor = eigenvectors * eigenvalues.sqrt()
    return factor.reshape(cov.shape())


def multivariate_normal(draws: Draws, mean, cov, method: str = "cholesky"):
    z = draws.standard_normal().unsqueeze([-1])
    return mean + (square_root(cov, method) @ z).squeeze([-1])


def matrix_normal(draws: Draws, mu, row_factor, column_factor):
    """``mu + row_factor @ Z @ column_factor^T`` for standard normal ``Z`` (as PyMC)."""
    z = draws.standard_normal()
    return mu + row_factor @ z @ column_factor.matrix_transpose()


def wishart(draws: Draws, nu, scale):
    """Bartlett's decomposition: ``(L A) (L A)^T`` for the Cholesky factor
    ``L`` of ``scale`` and the lower triangular ``A`` with ``A_ii**2 ~
    chi-square(nu - i)`` and standard normals below the diagonal."""
    n = draws.shape.slice(-1)
    diagonal_shape = draws.shape.slice(0, -1)
    half_dof = 0.5 * (nu.unsqueeze([-1]) - arange(n.squeeze([0])).cast("float64"))
    log_gamma = log_standard_gamma(draws.derived(1, diagonal_shape), half_dof)
    chi = (0.5 * (log_gamma + np.log(2.0))).exp()
    rows = arange(n.squeeze([0])).unsqueeze([1])
    columns = arange(n.squeeze([0])).unsqueeze([0])
    bartlett = where(rows > columns, draws.standard_normal(), 0.0)
    bartlett = bartlett + where(rows.eq(columns), chi.unsqueeze([-1]), 0.0)
    root = square_root(scale) @ bartlett
    return root @ root.matrix_transpose()


def conditional_autoregression(draws: Draws, mu, adjacency, alpha, tau):
    """Draws of ``N(mu, Q^-1)`` for the precision ``Q = tau (D - alpha W)``
    of the adjacency matrix ``W`` (one, of any batch shape of ones) and its
    column sums ``D``: ``mu + L^-T z`` for ``Q = L L^T`` (H. Rue, "Fast sampling
    of Gaussian Markov random fields", JRSS B 63, 2001), with a dense Cholesky
    factor. ``alpha`` and ``tau`` are single values of any shape of ones."""
    n = adjacency.shape(-1)
    ones = adjacency.indices([1, 1, 1])
    w = adjacency.reshape(concat([ones.slice(0, 1), n, n], axis=0))
    alpha, tau = alpha.reshape(ones), tau.reshape(ones)
    m = n.squeeze([0])
    degrees = where(diagonal_mask(m, m), w.sum([1]), 0.0)
    factor = cholesky_of_triangle(tau * (degrees - alpha * w), lower=True)
    n_draws = draws.size.unsqueeze([0]) / n
    z = draws.standard_normal().reshape(concat([ones.slice(0, 1), n_draws, n], 0))
    x = substitute(mT(factor), mT(z), lower=False)
    return mu + mT(x).reshape(draws.shape)


def stick_breaking_weights(draws: Draws, alpha):
    """The weights ``V_i prod_{j<i} (1 - V_j)`` of ``K`` sticks broken at
    ``V_i ~ Beta(1, alpha)``, then the rest of the stick (as PyMC), for draws
    of shape ``(*batch, K + 1)``. ``1 - V = U**(1/alpha)`` by inversion, and
    products are sums of logarithms."""
    batch_shape = draws.shape.slice(0, -1)
    breaks = draws.derived(0, concat([batch_shape, draws.shape.slice(-1) - 1], 0))
    log_rest = breaks.open_uniform().log() / alpha.unsqueeze([-1])
    column = draws.unfoldable_zeros(concat([batch_shape, batch_shape.indices([1])], 0))
    log_rest = concat([log_rest, column], axis=-1)
    log_sticks = log_rest.apply("CumSum", log_rest, log_rest.indices(-1), exclusive=1)
    shares = concat([-expm1(log_rest.slice(0, -1, axis=-1)), column + 1.0], axis=-1)
    return log_sticks.exp() * shares
