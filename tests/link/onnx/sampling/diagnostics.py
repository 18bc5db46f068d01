"""Monte Carlo diagnostics for the sampler tests (Vehtari et al. 2021, as Stan computes them)."""

import numpy as np
from scipy import stats


def autocovariance(x):
    """The autocovariance of each row of ``x`` at every lag (via FFT)."""
    n = x.shape[-1]
    centred = x - x.mean(axis=-1, keepdims=True)
    size = 2 ** int(np.ceil(np.log2(2 * n)))
    spectrum = np.fft.rfft(centred, size)
    return np.fft.irfft(spectrum * np.conj(spectrum), size)[..., :n] / n


def effective_sample_size(draws):
    """The ESS of ``draws`` ``(chains, draws)``: Geyer's initial monotone sequence."""
    n_chains, n = draws.shape
    acov = autocovariance(draws)
    chain_var = acov[:, 0] * n / (n - 1)
    within = chain_var.mean()
    var_plus = within * (n - 1) / n
    if n_chains > 1:
        var_plus += draws.mean(axis=1).var(ddof=1)
    rho = 1 - (within - acov.mean(axis=0)) / var_plus
    rho[0] = 1.0
    pair_sums = rho[:-1:2] + rho[1::2]
    positive = np.cumprod(pair_sums > 0).astype(bool)
    monotone = np.minimum.accumulate(pair_sums[positive])
    tau = -1 + 2 * monotone.sum()
    return n_chains * n / max(tau, 1 / np.log10(n_chains * n))


def split_chains(draws):
    half = draws.shape[1] // 2
    return np.concatenate([draws[:, :half], draws[:, -half:]], axis=0)


def bulk_ess(draws):
    """Rank-normalised split-chain ESS of ``draws`` ``(chains, draws)``."""
    split = split_chains(draws)
    ranks = stats.rankdata(split, axis=None).reshape(split.shape)
    scores = stats.norm.ppf((ranks - 3 / 8) / (split.size + 1 / 4))
    return effective_sample_size(scores)


def z_score(draws, expected):
    """How many Monte Carlo standard errors the mean of ``draws`` is from ``expected``."""
    ess = effective_sample_size(split_chains(draws))
    return (draws.mean() - expected) / (draws.std() / np.sqrt(ess))
