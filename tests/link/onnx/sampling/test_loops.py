"""`loop` returns what ``scan`` returns: the last value of each state, the trace of the others."""

import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.scan.utils import until
from pytensor.tensor.random.type import random_generator_type

import pytensor
from pytensor.link.onnx.sampling.loops import loop


def step(x, total, rng):
    rng, draw = pt.random.uniform(rng=rng, size=(2,)).owner.outputs
    new_x = 2 * x + draw
    return (new_x, total + new_x.sum(), rng, new_x.max()), until(total > 20)


PYTENSOR_2 = pytensor.__version__.startswith("2.")
ZERO_STEPS_IN_PYTHON = pytest.param(
    "FAST_COMPILE",
    0,
    marks=pytest.mark.xfail(
        PYTENSOR_2,
        reason="PyTensor 2's Scan.perform leaves untraced outputs unset (None) "
        "without steps; the sampler's loops always run at least one",
        strict=True,
    ),
)


@pytest.mark.parametrize(
    "mode, n_steps",
    [ZERO_STEPS_IN_PYTHON, ("FAST_COMPILE", 3), ("FAST_COMPILE", 10)]
    + [("ONNX", n) for n in (0, 3, 10)],
)
def test_last_values_and_traces_match_scan(mode, n_steps):
    x0, n = pt.vector("x0", shape=(2,)), pt.lscalar("n")
    rng = random_generator_type("rng")
    outputs_info = [x0, pt.constant(np.float64(0.0)), rng, None]
    x, total, next_rng, peaks = loop(
        step, outputs_info=outputs_info, n_steps=n, mode=mode
    )
    xs, totals, _, scan_peaks = pytensor.scan(
        step, outputs_info=outputs_info, n_steps=n, return_updates=False, mode=mode
    )
    expected = [
        pt.concatenate([x0[None], xs])[-1],
        pt.concatenate([pt.constant(np.zeros(1)), totals])[-1],
        scan_peaks,
    ]
    got = pytensor.function([x0, n, rng], [x, total, peaks, next_rng], mode=mode)
    # in the same mode: ONNX draws from a key, not from NumPy's generator
    want = pytensor.function([x0, n, rng], expected, mode=mode)
    start = np.array([0.5, 1.0])
    *values, rng_after = got(start, n_steps, np.random.default_rng(1))
    for value, reference in zip(
        values, want(start, n_steps, np.random.default_rng(1)), strict=True
    ):
        np.testing.assert_allclose(value, reference)
    assert isinstance(rng_after, np.random.Generator)


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "ONNX"])
def test_sequences_longer_than_the_steps_and_computed_non_sequences(mode):
    table, scale = pt.matrix("table", shape=(5, 2)), pt.vector("scale", shape=(2,))
    x0, n = pt.vector("x0", shape=(2,)), pt.lscalar("n")

    def step(row, x, factor):
        return x * factor + row, (x * factor).sum()

    x, sums = loop(
        step,
        sequences=[table],
        outputs_info=[x0, None],
        non_sequences=[pt.exp(scale)],
        n_steps=n,
        mode=mode,
    )
    xs, scan_sums = pytensor.scan(
        step,
        sequences=[table[:n]],
        outputs_info=[x0, None],
        non_sequences=[pt.exp(scale)],
        return_updates=False,
        mode=mode,
    )
    got = pytensor.function([table, scale, x0, n], [x, sums], mode=mode)
    want = pytensor.function([table, scale, x0, n], [xs[-1], scan_sums], mode=mode)
    values = (
        np.arange(10.0).reshape(5, 2),
        np.array([-0.5, 0.25]),
        np.array([1.0, -2.0]),
        3,
    )
    for value, reference in zip(got(*values), want(*values), strict=True):
        np.testing.assert_allclose(value, reference)
