"""Warm-up adaptation as PyMC and Stan do it.

The step size follows Nesterov's dual averaging after every draw of the
warm-up, in the graph, with PyMC's constants, in one run over the whole
warm-up as PyMC does: Stan restarts it after each update of the mass matrix,
which left the step size of eight schools (non-centred) too small (acceptance
0.87-0.90 for a target of 0.8) and cost a quarter of PyMC's effective sample
size per gradient. The diagonal of the inverse mass matrix is the variance of
the positions drawn in Stan's windows: an initial buffer, slow windows that
double in length, a terminal buffer. The variance is accumulated in the graph
(Welford); at the end of each slow window, in Python between chunks of draws,
it becomes the new inverse mass matrix, regularised towards ``1e-3`` as Stan
does.
"""

from typing import NamedTuple

import numpy as np
import pytensor.tensor as pt


TARGET_ACCEPT = 0.8
GAMMA = 0.05
KAPPA = 0.75
T0 = 10.0
INITIAL_BUFFER, TERMINAL_BUFFER, FIRST_WINDOW = 75, 50, 25


class DualAveraging(NamedTuple):
    """The dual-averaging state of each chain, each ``(chains,)``."""

    log_step: object
    log_step_bar: object
    h_bar: object
    count: object
    mu: object


def initial_dual_averaging(step_size: np.ndarray) -> DualAveraging:
    log_step = np.log(step_size)
    return DualAveraging(
        log_step=log_step,
        log_step_bar=log_step.copy(),
        h_bar=np.zeros_like(log_step),
        count=np.ones_like(log_step),
        mu=np.log(10 * step_size),
    )


def dual_averaging_update(state: DualAveraging, accept_stat, target_accept, adapt):
    """The state after a draw with acceptance statistic ``accept_stat``, if ``adapt``."""
    weight = 1 / (state.count + T0)
    h_bar = (1 - weight) * state.h_bar + weight * (target_accept - accept_stat)
    log_step = state.mu - h_bar * pt.sqrt(state.count) / GAMMA
    count_weight = state.count**-KAPPA
    log_step_bar = count_weight * log_step + (1 - count_weight) * state.log_step_bar
    updated = DualAveraging(log_step, log_step_bar, h_bar, state.count + 1, state.mu)
    return DualAveraging(
        *(
            pt.where(adapt, new, old).astype(old.dtype)
            for new, old in zip(updated, state, strict=True)
        )
    )


class Welford(NamedTuple):
    """Running mean and sum of squared deviations of the positions of each chain."""

    count: object
    mean: object
    m2: object


def empty_welford(n_chains: int, size: int, dtype) -> Welford:
    zeros = np.zeros((n_chains, size), dtype=dtype)
    return Welford(np.zeros((), dtype=dtype), zeros, zeros.copy())


def welford_update(state: Welford, q, accumulate):
    count = state.count + 1
    delta = q - state.mean
    mean = state.mean + delta / count
    m2 = state.m2 + delta * (q - mean)
    updated = Welford(count, mean, m2)
    return Welford(
        *(
            pt.where(accumulate, new, old).astype(old.dtype)
            for new, old in zip(updated, state, strict=True)
        )
    )


def regularized_variance(state: Welford) -> np.ndarray:
    """Stan's regularised variance of the accumulated positions."""
    n = float(state.count)
    variance = state.m2 / (n - 1)
    return (n / (n + 5)) * variance + 1e-3 * (5 / (n + 5))


def slow_windows(tune: int) -> list[tuple[int, int]]:
    """The windows ``(start, end)`` of warm-up draws whose variance sets the mass matrix.

    Stan's schedule: an initial buffer of 75 draws, slow windows of 25, 50,
    100... draws (the last one extended to the terminal buffer), a terminal
    buffer of 50 draws; for a short warm-up, 15%, 75% and 10% of it. A
    warm-up shorter than 20 draws adapts the step size only.
    """
    initial, terminal, window = INITIAL_BUFFER, TERMINAL_BUFFER, FIRST_WINDOW
    if tune < 20:
        return []
    if initial + terminal + window > tune:
        initial = int(0.15 * tune)
        terminal = int(0.1 * tune)
        window = tune - initial - terminal
    slow_end = tune - terminal
    windows = []
    start = initial
    while start < slow_end:
        end = start + window
        if end + 2 * window > slow_end:
            end = slow_end
        windows.append((start, end))
        start, window = end, 2 * window
    return windows
