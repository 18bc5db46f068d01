import numpy as np

from pytensor.link.onnx.numerics.random import (
    GOLDEN_GAMMA,
    LAST_SHIFT,
    MIX_STEPS,
    Draws,
    mix,
    multiply_high,
)
from tests.link.onnx.utils import evaluate_numerics


MASK = 2**64 - 1


def splitmix64_output(z: int) -> int:
    for shift, multiplier in MIX_STEPS:
        z = ((z ^ (z >> shift)) * multiplier) & MASK
    return z ^ (z >> LAST_SHIFT)


KEYS = np.array([0, 1, 2**63 + 12345, MASK, 0x0123456789ABCDEF], dtype=np.uint64)


def test_mix_is_splitmix64():
    result = evaluate_numerics(mix, KEYS)
    assert result.tolist() == [splitmix64_output(int(k)) for k in KEYS]


def test_multiply_high_is_the_high_half_of_the_product():
    b = KEYS[::-1].copy()
    result = evaluate_numerics(multiply_high, KEYS, b)
    assert result.tolist() == [
        (int(x) * int(y)) >> 64 for x, y in zip(KEYS, b, strict=True)
    ]


def test_draws_use_the_counters_after_the_key():
    key = np.array(123456789, dtype=np.uint64)
    shape = np.array([2, 3], dtype=np.int64)
    bits = evaluate_numerics(
        lambda key, shape: Draws(key, shape).bits(), key, shape, output_ndim=1
    )
    expected = [
        splitmix64_output((123456789 + i * GOLDEN_GAMMA) & MASK) for i in range(1, 7)
    ]
    assert bits.tolist() == expected


def test_uniform_draws_are_in_the_unit_interval():
    key = np.array(7, dtype=np.uint64)
    shape = np.array([1000], dtype=np.int64)
    closed, opened = evaluate_numerics(
        lambda key, shape: (
            Draws(key, shape).uniform(),
            Draws(key, shape).open_uniform(),
        ),
        key,
        shape,
        output_ndim=1,
    )
    assert closed.min() >= 0 and closed.max() < 1
    assert opened.min() > 0 and opened.max() < 1
    assert abs(closed.mean() - 0.5) < 0.05
