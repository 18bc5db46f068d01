"""Discrete Fourier transforms of PyTensor's FFT Ops, from ONNX's ``DFT``.

Complex values are real pairs along a trailing axis (see
`pytensor.link.onnx.numerics.complex.arithmetic`), which ``DFT`` reads and writes
natively. onnxruntime's inverse ``DFT`` loses precision (about 1e-8 relative
in float64 at lengths that are not powers of 2), so inverse transforms go
through forward ones: ``inverse(z) = conj(DFT(conj(z)))``, unnormalized.
"""

import numpy as np

from pytensor.link.onnx.numerics.complex.arithmetic import real
from pytensor.link.onnx.value import Value, arange, concat, maximum


def dft(z: Value, axis: int, length: Value, onesided: bool = False) -> Value:
    """The unnormalized DFT of the pairs (or, with a trailing axis of length 1,
    reals) ``z`` along ``axis``, zero-padded or cut to ``length``."""
    return z.apply("DFT", z, length, axis=axis, onesided=int(onesided))


def conjugate_pairs(z: Value) -> Value:
    """The complex conjugates of the pairs ``z``."""
    return z * z.constant(np.array([1.0, -1.0]))


def rfftn(a: Value, lengths: list[Value]) -> Value:
    """``numpy.fft.rfftn(a, s=lengths)`` over the axes after the first of the
    real ``a``, as pairs: the real transform along the last axis, then the
    complex one along the others."""
    z = dft(a.unsqueeze([-1]), len(lengths), lengths[-1], onesided=True)
    for axis, length in enumerate(lengths[:-1], start=1):
        z = dft(z, axis, length)
    return z


def irfftn(z: Value, lengths: list[Value]) -> Value:
    """``numpy.fft.irfftn(z, s=lengths) * prod(lengths)`` of the pairs ``z``
    over the axes after the first: unnormalized, as PyTensor's ``IRFFTOp``."""
    last = len(lengths)
    v = conjugate_pairs(z)
    for axis, length in enumerate(lengths[:-1], start=1):
        v = dft(v, axis, length)
    # v is the conjugate of the inverse transform along those axes; along the
    # last one, the n // 2 + 1 values given are extended by Hermitian symmetry
    # (conjugation commutes with the extension), then transformed forwards
    n = lengths[-1]
    n_given = n / 2 + 1  # an int64 Div, exact for n >= 0
    given = v.slice(0, n_given.unsqueeze([0]), axis=last)
    padding = [0] * (2 * (last + 2))
    padding[last + 2 + last] = maximum(n_given - given.dim(last), 0)
    given = given.apply("Pad", given, given.indices(padding))
    n_mirrored = n - n_given
    mirrored = conjugate_pairs(given.take(n_mirrored - arange(n_mirrored), axis=last))
    spectrum = dft(concat([given, mirrored], axis=last), last, n)
    return real(spectrum)
