"""Continuous samplers beyond plain inversion: von Mises, truncated normal,
and the distributions PyMC defines."""

import numpy as np

from pytensor.link.onnx.numerics.error_functions import erfc, erfcinv
from pytensor.link.onnx.numerics.random import Draws, until_accepted
from pytensor.link.onnx.numerics.trigonometric import arccos
from pytensor.link.onnx.value import Value, where


def best_fisher(draws: Draws, kappa: Value, s: Value):
    """One round of Best and Fisher's sampler: candidates ``W = cos(theta)``.

    D. J. Best and N. I. Fisher, "Efficient simulation of the von Mises
    distribution", Applied Statistics 28, 1979 (as NumPy's ``random_vonmises``).
    """
    z = (np.pi * draws.uniform()).cos()
    w = (1.0 + s * z) / (s + z)
    y = kappa * (s - w)
    v = draws.open_uniform()
    accepted = (y * (2.0 - y) - v >= 0.0) | ((y / v).log() + 1.0 - y >= 0.0)
    return w, accepted


def von_mises(draws: Draws, mu: Value, kappa: Value) -> Value:
    """Angles in ``[-pi, pi]``: Best-Fisher rejection; uniform for
    ``kappa < 1e-8`` and a wrapped normal above ``1e6``, as NumPy."""
    uniform = kappa < 1e-8
    normal = kappa > 1e6
    skip = uniform | normal | kappa.isnan()
    safe = where(skip, 1.0, kappa)
    r = 1.0 + (1.0 + 4.0 * safe * safe).sqrt()
    rho = (r - (2.0 * r).sqrt()) / (2.0 * safe)
    s = where(safe < 1e-5, 1.0 / safe + safe, (1.0 + rho * rho) / (2.0 * rho))
    w = until_accepted(
        best_fisher, draws.derived(0), safe, s, skip=skip, name="vonmises"
    )
    w = where(w > 1.0, 1.0, where(w < -1.0, -1.0, w))
    theta = where(draws.uniform() < 0.5, -arccos(w), arccos(w))
    theta = where(uniform, np.pi * (2.0 * draws.uniform() - 1.0), theta)
    theta = where(normal, (1.0 / kappa).sqrt() * draws.standard_normal(), theta)
    angle = mu + theta
    wrapped = (abs(angle) + np.pi).apply("Mod", abs(angle) + np.pi, 2.0 * np.pi, fmod=1)
    wrapped = wrapped - np.pi
    return where(angle < 0.0, -wrapped, wrapped) + where(kappa.isnan(), np.nan, 0.0)


def normal_cdf(x: Value) -> Value:
    return 0.5 * erfc(-x * np.sqrt(0.5))


def truncated_normal(draws: Draws, mu, sigma, lower, upper) -> Value:
    """Inversion of the normal CDF restricted to ``[lower, upper]``.

    Intervals above the mean are reflected below it, where the CDF's small
    values keep their precision: ``x = Phi^-1(Phi(a) + u (Phi(b) - Phi(a)))``
    with ``Phi^-1(q) = -sqrt(2) erfcinv(2 q)``.
    """
    a = (lower - mu) / sigma
    b = (upper - mu) / sigma
    reflect = a > 0.0
    low = where(reflect, -b, a)
    high = where(reflect, -a, b)
    cdf_low = normal_cdf(low)
    q = cdf_low + draws.uniform() * (normal_cdf(high) - cdf_low)
    x = -np.sqrt(2.0) * erfcinv(2.0 * q)
    x = where(x < low, low, where(x > high, high, x))
    return mu + sigma * where(reflect, -x, x)


def skew_normal(draws, mu, sigma, alpha):
    """Azzalini's construction, as SciPy's ``skewnorm``."""
    u0 = draws.standard_normal()
    v = draws.derived(0).standard_normal()
    d = alpha / (1.0 + alpha * alpha).sqrt()
    u1 = d * u0 + (1.0 - d * d).sqrt() * v
    return mu + sigma * where(u0 >= 0.0, u1, -u1)


def rice(draws, b, sigma):
    """The norm of a normal pair centred at ``(b, 0)``, scaled by ``sigma``."""
    x = b + draws.standard_normal()
    y = draws.derived(0).standard_normal()
    return sigma * (x * x + y * y).sqrt()


def moyal(draws, mu, sigma):
    """``mu - sigma log(Z**2)`` for a standard normal ``Z`` (SciPy's ``moyal``)."""
    z = draws.standard_normal()
    return mu - sigma * (z * z).log()
