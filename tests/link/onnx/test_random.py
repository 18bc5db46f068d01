"""RandomVariable under mode="ONNX".

The draws cannot equal those of NumPy's generators, so these tests check what
the draws are: their distribution (moments within 5 standard errors,
Kolmogorov-Smirnov and chi-square tests on 10**5 draws in one call, with fixed
seeds so that the outcome is deterministic), their dtypes and shapes against
PyTensor's, and how the generator state behaves: it advances exactly when
PyTensor's does, and reseeding reproduces the draws.
"""

import importlib
import pkgutil
import re
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytensor.tensor as pt
import pytensor.tensor.random.basic as ptr
import pytest
import scipy.stats as stats
from hypothesis import given
from hypothesis import strategies as st
from pytensor.compile.mode import Mode
from pytensor.compile.sharedvalue import shared
from pytensor.graph.basic import Constant
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.random.type import random_generator_type

import pytensor
from pytensor.link.onnx.dispatch import random as random_dispatch
from pytensor.link.onnx.pymc import register_converters
from tests.link.onnx.utils import (
    MIN_P_VALUE,
    PYMC_MISSING,
    onnx_model_of,
    random_variable,
)


py_mode = Mode(linker="py", optimizer=None)
N_DRAWS = 100_000


def sampler(rv, *params, size=(N_DRAWS,), dtype=None, seed=0, mode="ONNX"):
    """A function drawing from ``rv`` with a shared generator that it updates."""
    rng = shared(np.random.default_rng(seed), name="rng")
    next_rng, draws = random_variable(rv, *params, rng=rng, size=size, dtype=dtype)
    fn = pytensor.function([], draws, updates={rng: next_rng}, mode=mode)
    onnx.checker.check_model(onnx_model_of(fn), full_check=True)
    return fn, rng


def draw(rv, *params, **kwargs):
    fn, _ = sampler(rv, *params, **kwargs)
    return fn()


def assert_moments(sample, dist):
    """Mean and variance within 5 standard errors of ``dist``'s."""
    n = sample.size
    mean, variance, _, excess_kurtosis = (float(m) for m in dist.stats(moments="mvsk"))
    assert abs(sample.mean() - mean) < 5 * np.sqrt(variance / n)
    variance_error = variance * np.sqrt((excess_kurtosis + 2) / n)
    assert abs(sample.var() - variance) < 5 * variance_error


# Distribution, parameters, SciPy's distribution, whether its variance and
# kurtosis are finite.
CONTINUOUS = {
    "uniform": (pt.random.uniform, (-1.0, 3.0), stats.uniform(-1, 4), True),
    "normal": (pt.random.normal, (1.0, 2.0), stats.norm(1, 2), True),
    "standard_normal": (pt.random.standard_normal, (), stats.norm(), True),
    "halfnormal": (pt.random.halfnormal, (1.0, 2.0), stats.halfnorm(1, 2), True),
    "lognormal": (
        pt.random.lognormal,
        (0.5, 0.4),
        stats.lognorm(0.4, scale=np.exp(0.5)),
        True,
    ),
    "exponential": (pt.random.exponential, (2.0,), stats.expon(scale=2), True),
    "laplace": (pt.random.laplace, (1.0, 2.0), stats.laplace(1, 2), True),
    "logistic": (pt.random.logistic, (1.0, 2.0), stats.logistic(1, 2), True),
    "gumbel": (pt.random.gumbel, (1.0, 2.0), stats.gumbel_r(1, 2), True),
    "cauchy": (pt.random.cauchy, (1.0, 2.0), stats.cauchy(1, 2), False),
    "halfcauchy": (pt.random.halfcauchy, (1.0, 2.0), stats.halfcauchy(1, 2), False),
    "pareto": (pt.random.pareto, (6.0, 2.0), stats.pareto(6, scale=2), True),
    "heavy_pareto": (pt.random.pareto, (1.5, 2.0), stats.pareto(1.5, scale=2), False),
    "weibull": (pt.random.weibull, (1.5,), stats.weibull_min(1.5), True),
    "triangular": (
        pt.random.triangular,
        (-1.0, 0.0, 3.0),
        stats.triang(0.25, -1, 4),
        True,
    ),
    "truncexpon": (
        pt.random.truncexpon,
        (2.0, 1.0, 3.0),
        stats.truncexpon(2, 1, 3),
        True,
    ),
    "wald": (pt.random.wald, (2.0, 3.0), stats.invgauss(2 / 3, scale=3), True),
}


@pytest.mark.parametrize("name", list(CONTINUOUS))
def test_continuous_distributions(name):
    rv, params, dist, finite_moments = CONTINUOUS[name]
    sample = draw(rv, *params)
    assert sample.dtype == np.float64 and sample.shape == (N_DRAWS,)
    assert stats.kstest(sample, dist.cdf).pvalue > MIN_P_VALUE
    if finite_moments:
        assert_moments(sample, dist)


@pytest.mark.parametrize("name", ["uniform", "normal", "exponential", "gumbel"])
def test_float32_draws(name):
    rv, params, dist, _ = CONTINUOUS[name]
    sample = draw(rv, *np.float32(params), dtype="float32")
    assert sample.dtype == np.float32
    assert stats.kstest(sample, dist.cdf).pvalue > MIN_P_VALUE
    assert_moments(sample.astype("float64"), dist)


def test_support_edges():
    # 10**6 draws: the extreme draws approach the edges of each support
    size = (1_000_000,)
    uniform = draw(pt.random.uniform, 2.0, 3.0, size=size)
    assert uniform.min() >= 2.0 and uniform.max() < 3.0
    for rv in (pt.random.exponential, pt.random.weibull):
        positive = draw(rv, 1.0, size=size)
        assert np.isfinite(positive).all() and (positive >= 0).all()
    for rv in (pt.random.gumbel, pt.random.logistic, pt.random.laplace):
        assert np.isfinite(draw(rv, 0.0, 1.0, size=size)).all()
    normal = draw(pt.random.normal, 0.0, 1.0, size=size)
    assert np.isfinite(normal).all() and abs(normal).max() > 4.5


def chi_square_p_value(sample, probabilities):
    """Chi-square test of the counts of ``0 .. len(probabilities) - 1``."""
    probabilities = np.asarray(probabilities, dtype="float64")
    counts = np.bincount(sample, minlength=len(probabilities))
    assert len(counts) == len(probabilities), "a value outside the support"
    possible = probabilities > 0
    assert (counts[~possible] == 0).all(), "a value of probability 0"
    expected = probabilities[possible] / probabilities.sum() * sample.size
    return stats.chisquare(counts[possible], expected).pvalue


def test_bernoulli():
    sample = draw(pt.random.bernoulli, 0.3)
    assert sample.dtype == np.int64
    assert chi_square_p_value(sample, [0.7, 0.3]) > MIN_P_VALUE
    certain = draw(pt.random.bernoulli, np.array([0.0, 1.0]), size=(1000, 2))
    np.testing.assert_array_equal(certain, np.broadcast_to([0, 1], (1000, 2)))


def test_geometric():
    p = 0.2
    sample = draw(pt.random.geometric, p)
    assert sample.dtype == np.int64 and sample.min() >= 1
    # trials 1..29 and a last bin for 30 or more
    clipped = np.minimum(sample, 30) - 1
    probabilities = stats.geom(p).pmf(np.arange(1, 30))
    probabilities = np.append(probabilities, stats.geom(p).sf(29))
    assert chi_square_p_value(clipped, probabilities) > MIN_P_VALUE
    np.testing.assert_array_equal(draw(pt.random.geometric, 1.0, size=(100,)), 1)


@pytest.mark.parametrize("p_dtype", ["float64", "float32"])
def test_categorical_frequencies(p_dtype):
    p = np.array([0.1, 0.0, 0.45, 0.25, 0.2], dtype=p_dtype)
    sample = draw(pt.random.categorical, p)
    assert sample.dtype == np.int64
    assert chi_square_p_value(sample, p) > MIN_P_VALUE


def test_categorical_batched_probabilities():
    p = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.0]])
    sample = draw(pt.random.categorical, p, size=(20_000, 3))
    assert sample.shape == (20_000, 3)
    np.testing.assert_array_equal(sample[:, 0], 0)
    np.testing.assert_array_equal(sample[:, 1], 2)
    assert chi_square_p_value(sample[:, 2], [0.5, 0.5]) > MIN_P_VALUE


@pytest.mark.parametrize(
    "low, high, dtype",
    [
        (-3, 7, "int64"),
        (0, 2, "int8"),
        (250, 256, "uint8"),
        (-(2**31), 2**31 - 1, "int32"),
        (0, 1, "int64"),
    ],
)
def test_integers_range_and_uniformity(low, high, dtype):
    sample = draw(pt.random.integers, np.int64(low), np.int64(high), dtype=dtype)
    assert sample.dtype == dtype
    sample = sample.astype("int64")
    assert sample.min() >= low and sample.max() < high
    if high - low == 1:
        assert (sample == low).all()
    elif high - low <= 1000:
        uniform = np.full(high - low, 1 / (high - low))
        assert chi_square_p_value(sample - low, uniform) > MIN_P_VALUE
    else:
        # the top and bottom bits of wide ranges are uniform too
        assert chi_square_p_value((sample - low) % 7, [1 / 7] * 7) > 0.001
        top = (sample - low) * 8 // (high - low)
        assert chi_square_p_value(top, [1 / 8] * 8) > MIN_P_VALUE


def test_integers_full_64_bit_ranges():
    low, high = np.iinfo("int64").min, np.iinfo("int64").max
    sample = draw(pt.random.integers, np.int64(low), np.int64(high), size=(10_000,))
    assert (sample < high).all()
    assert chi_square_p_value(sample // 2**61 + 4, [1 / 8] * 8) > MIN_P_VALUE
    top = np.uint64(2**64 - 1)
    sample = draw(
        pt.random.integers, np.uint64(2**63), top, size=(10_000,), dtype="uint64"
    )
    assert sample.dtype == np.uint64 and (sample >= 2**63).all()
    assert chi_square_p_value((sample >> np.uint64(60)) - 8, [1 / 8] * 8) > MIN_P_VALUE


def test_integers_low_not_below_high_raises():
    fn, _ = sampler(pt.random.integers, pt.constant(np.int64(5)), np.int64(5))
    with pytest.raises(ValueError, match="low >= high"):
        fn()


def test_multivariate_normal_moments():
    mean = np.array([1.0, -2.0, 0.5])
    cov = np.array([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]])
    for method in ("cholesky", "eigh", "svd"):
        rng = shared(np.random.default_rng(0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            x = pt.random.multivariate_normal(
                mean, cov, size=(N_DRAWS,), rng=rng, method=method
            )
        sample = pytensor.function([], x, mode="ONNX")()
        assert sample.shape == (N_DRAWS, 3)
        standard_errors = np.sqrt(np.diag(cov) / N_DRAWS)
        assert (abs(sample.mean(0) - mean) < 5 * standard_errors).all()
        # the variance of a covariance estimate is (s_ii s_jj + s_ij**2) / n
        cov_errors = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / N_DRAWS)
        assert (abs(np.cov(sample.T) - cov) < 5 * cov_errors).all()


def test_multivariate_normal_batched_float32():
    mean = np.array([[0.0, 0.0], [10.0, -10.0]], dtype="float32")
    cov = np.stack([np.eye(2), [[4.0, 1.9], [1.9, 1.0]]]).astype("float32")
    rng = shared(np.random.default_rng(0))
    _, x = random_variable(
        pt.random.multivariate_normal, mean, cov, rng=rng, dtype="float32"
    )
    _, batch = random_variable(
        pt.random.multivariate_normal,
        mean,
        cov,
        rng=rng,
        size=(20_000, 2),
        dtype="float32",
    )
    single, sample = pytensor.function([], [x, batch], mode="ONNX")()
    assert single.shape == (2, 2) and single.dtype == np.float32
    assert sample.shape == (20_000, 2, 2) and sample.dtype == np.float32
    np.testing.assert_allclose(sample.mean(0), mean, atol=0.1)
    np.testing.assert_allclose(np.cov(sample[:, 1].T), cov[1], atol=0.15)


def py_shape_and_dtype(fn_inputs, output, values):
    fn = pytensor.function(fn_inputs, output, mode=py_mode)
    result = fn(*values)
    return result.shape, result.dtype


@pytest.mark.parametrize(
    "size, loc_shape, scale_shape",
    [
        (None, (), ()),
        ((), (), ()),
        ((4,), (), (1,)),
        (None, (3, 1), (4,)),
        ((2, 3, 4), (3, 1), (4,)),
        ((0, 3, 4), (3, 1), ()),
        ((3, 4), (3, 1), (1, 4)),
    ],
    ids=str,
)
def test_shapes_and_parameter_broadcasting(size, loc_shape, scale_shape):
    loc = np.arange(np.prod(loc_shape)).reshape(loc_shape) * 100.0
    scale = np.full(scale_shape, 2.0, dtype="float32")
    rng = shared(np.random.default_rng(0))
    _, x = random_variable(pt.random.normal, loc, scale, rng=rng, size=size)
    onnx_result = pytensor.function([], x, mode="ONNX")()
    assert (onnx_result.shape, onnx_result.dtype) == py_shape_and_dtype([], x, [])
    if onnx_result.size:
        # each draw follows its own loc
        assert (abs(onnx_result - np.broadcast_to(loc, onnx_result.shape)) < 50).all()


def test_symbolic_size_and_parameters():
    rng = shared(np.random.default_rng(0))
    n = pt.lscalar("n")
    loc = pt.vector("loc")
    _, x = random_variable(pt.random.normal, loc, 1.0, rng=rng, size=(n, loc.shape[0]))
    fn = pytensor.function([n, loc], x, mode="ONNX")
    sample = fn(50_000, np.array([-10.0, 0.0, 10.0]))
    assert sample.shape == (50_000, 3)
    np.testing.assert_allclose(sample.mean(0), [-10, 0, 10], atol=5 / np.sqrt(50_000))
    assert fn(0, np.array([1.0])).shape == (0, 1)

    size = pt.tensor("size", dtype="int64", shape=(2,))
    _, y = random_variable(pt.random.uniform, 0.0, 1.0, rng=rng, size=size)
    fn = pytensor.function([size], y, mode="ONNX")
    assert fn(np.array([3, 4])).shape == (3, 4)
    assert fn(np.array([0, 5])).shape == (0, 5)


@st.composite
def broadcastable_shapes(draw):
    """Two shapes that broadcast together, with their dims of length 1."""
    batch = draw(st.lists(st.integers(2, 3), max_size=2))

    def shape():
        dims = [draw(st.sampled_from([1, dim])) for dim in batch]
        return tuple(dims[draw(st.integers(0, len(dims))) :])

    return shape(), shape()


@given(
    shapes=broadcastable_shapes(),
    extra=st.lists(st.integers(0, 3), min_size=0, max_size=1),
    use_size=st.booleans(),
)
def test_shapes_follow_pytensor(shapes, extra, use_size):
    """Draws have PyTensor's shape for any broadcastable parameters and size."""
    low_shape, high_shape = shapes

    def tensor(name, shape):
        return pt.tensor(name, shape=tuple(1 if d == 1 else None for d in shape))

    low, width = tensor("low", low_shape), tensor("width", high_shape)
    low_value = np.zeros(low_shape)
    width_value = np.ones(high_shape)
    batch = np.broadcast_shapes(low_value.shape, width_value.shape)
    size = tuple(extra) + batch if use_size else None
    rng = shared(np.random.default_rng(0))
    _, x = random_variable(pt.random.uniform, low, low + width, rng=rng, size=size)
    fn = pytensor.function([low, width], x, mode="ONNX")
    result = fn(low_value, width_value)
    assert (result.shape, result.dtype) == py_shape_and_dtype(
        [low, width], x, [low_value, width_value]
    )
    assert ((result >= 0) & (result < 1)).all()


def test_state_advances_with_updates():
    fn, rng = sampler(pt.random.normal, 0.0, 1.0, size=(5,))
    before = rng.get_value(borrow=True)
    first = fn()
    after = rng.get_value(borrow=True)
    assert isinstance(after, np.random.Generator) and after is not before
    assert not after.bit_generator.state == before.bit_generator.state
    second = fn()
    assert not np.isin(first, second).any()
    # the generator the shared variable held is not modified
    assert before.bit_generator.state == np.random.default_rng(0).bit_generator.state


def test_updated_generator_advances_its_own_stream():
    fn, rng = sampler(pt.random.uniform, 0.0, 1.0, size=(3,))
    fn()
    reference = np.random.default_rng(0)
    reference.integers(2**64, dtype=np.uint64)
    assert rng.get_value().bit_generator.state == reference.bit_generator.state


def test_reseeding_reproduces_draws():
    fn, rng = sampler(pt.random.normal, 0.0, 1.0, size=(5,), seed=123)
    first, second = fn(), fn()
    rng.set_value(np.random.default_rng(123))
    np.testing.assert_array_equal(fn(), first)
    np.testing.assert_array_equal(fn(), second)
    other_fn, _ = sampler(pt.random.normal, 0.0, 1.0, size=(5,), seed=123)
    np.testing.assert_array_equal(other_fn(), first)
    different_seed, _ = sampler(pt.random.normal, 0.0, 1.0, size=(5,), seed=124)
    assert not np.isin(different_seed(), first).any()


def test_without_update_every_call_draws_the_same_like_pytensor():
    rng = shared(np.random.default_rng(0))
    _, x = random_variable(pt.random.normal, 0.0, 1.0, rng=rng, size=(4,))
    for mode in ("ONNX", py_mode):
        fn = pytensor.function([], x, mode=mode)
        np.testing.assert_array_equal(fn(), fn())
    assert rng.get_value().bit_generator.state == (
        np.random.default_rng(0).bit_generator.state
    )


def test_explicit_generator_input_and_output():
    rng = random_generator_type("rng")
    next_rng, x = random_variable(pt.random.uniform, 0.0, 1.0, rng=rng, size=(4,))
    fn = pytensor.function([rng], [next_rng, x], mode="ONNX")
    model_input = onnx_model_of(fn).graph.input[0]
    assert model_input.type.tensor_type.elem_type == onnx.TensorProto.UINT64
    generator = np.random.default_rng(7)
    state = generator.bit_generator.state
    advanced, first = fn(generator)
    assert generator.bit_generator.state == state
    _, again = fn(generator)
    np.testing.assert_array_equal(again, first)
    assert isinstance(advanced, np.random.Generator) and advanced is not generator
    _, following = fn(advanced)
    assert not np.isin(following, first).any()


def test_generator_passed_through_is_returned_unchanged():
    rng = random_generator_type("rng")
    fn = pytensor.function([rng], rng, mode="ONNX")
    generator = np.random.default_rng(3)
    returned = fn(generator)
    assert returned is not generator
    assert returned.bit_generator.state == generator.bit_generator.state


def test_constant_generator():
    # PyTensor folds the draws of a constant generator, and its next generator
    rng = Constant(random_generator_type, np.random.default_rng(0))
    next_rng, x = random_variable(pt.random.normal, 0.0, 1.0, rng=rng, size=(3,))
    fn = pytensor.function([], [x, next_rng], mode="ONNX")
    (first, following), (again, _) = fn(), fn()
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, pytensor.function([], x, mode=py_mode)())
    assert isinstance(following, np.random.Generator)


def test_chained_generators():
    rng = shared(np.random.default_rng(0), name="rng")
    rng_1, x = random_variable(pt.random.normal, 0.0, 1.0, rng=rng, size=(N_DRAWS,))
    rng_2, y = random_variable(pt.random.normal, 0.0, 1.0, rng=rng_1, size=(N_DRAWS,))
    fn = pytensor.function([], [x, y, rng_1], updates={rng: rng_2}, mode="ONNX")
    x_value, y_value, rng_1_value = fn()
    assert abs(np.corrcoef(x_value, y_value)[0, 1]) < 5 / np.sqrt(N_DRAWS)
    # every generator output is its own object, at its own state
    updated = rng.get_value(borrow=True)
    assert updated is not rng_1_value
    reference = np.random.default_rng(0)
    reference.integers(2**64, dtype=np.uint64)
    assert rng_1_value.bit_generator.state == reference.bit_generator.state
    reference.integers(2**64, dtype=np.uint64)
    assert updated.bit_generator.state == reference.bit_generator.state


def test_same_generator_same_draws_like_pytensor():
    rng = shared(np.random.default_rng(0))
    _, a = random_variable(pt.random.normal, 0.0, 1.0, rng=rng, size=(5,))
    _, b = random_variable(pt.random.normal, 0.0, 1.0, rng=rng, size=(5,))
    for mode in ("ONNX", py_mode):
        a_value, b_value = pytensor.function([], [a, b], mode=mode)()
        np.testing.assert_array_equal(a_value, b_value)


def test_draws_are_independent():
    sample = draw(pt.random.normal, 0.0, 1.0, size=(N_DRAWS,))
    bound = 5 / np.sqrt(N_DRAWS)
    for lag in (1, 2, N_DRAWS // 2):
        assert abs(np.corrcoef(sample[:-lag], sample[lag:])[0, 1]) < bound
    assert abs(np.corrcoef(sample**2, np.roll(sample, N_DRAWS // 2) ** 2)[0, 1]) < bound
    fn, _ = sampler(pt.random.uniform, 0.0, 1.0, size=(N_DRAWS,))
    assert abs(np.corrcoef(fn(), fn())[0, 1]) < bound


def test_default_graph_with_implicit_shared_generator():
    """``pt.random.normal(size=...)`` with no rng: PyTensor gives it a shared
    generator without update, so every call draws the same."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        x = pt.random.normal(size=(3,))
    fn = pytensor.function([], x, mode="ONNX")
    first = fn()
    assert first.shape == (3,)
    np.testing.assert_array_equal(fn(), first)


def test_random_stream_default_updates():
    from pytensor.tensor.random.utils import RandomStream

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        srng = RandomStream(seed=42)
        x = srng.normal(0.0, 1.0, size=(N_DRAWS,))
    fn = pytensor.function([], x, mode="ONNX")
    first, second = fn(), fn()
    assert not np.isin(first, second).any()
    assert stats.kstest(np.concatenate([first, second]), "norm").pvalue > MIN_P_VALUE
    srng.seed(42)
    np.testing.assert_array_equal(fn(), first)


def test_update_of_an_unused_draw_advances_the_generator_like_pytensor():
    # PyTensor 3's rewrites drop a draw that nothing uses, and its update with it
    unchanged = []
    for mode in ("ONNX", Mode(linker="py", optimizer="fast_run")):
        rng = shared(np.random.default_rng(0))
        next_rng, _ = random_variable(pt.random.normal, 0.0, 1.0, rng=rng)
        pytensor.function([], [], updates={rng: next_rng}, mode=mode)()
        state = rng.get_value().bit_generator.state
        unchanged.append(state == np.random.default_rng(0).bit_generator.state)
    assert unchanged[0] == unchanged[1]


def test_draws_in_a_larger_graph():
    rng = shared(np.random.default_rng(0))
    x = pt.matrix("x")
    next_rng, noise = random_variable(pt.random.normal, 0.0, 0.1, rng=rng, size=x.shape)
    _, dropout = random_variable(pt.random.bernoulli, 0.5, rng=next_rng, size=x.shape)
    y = (x + noise) * dropout
    fn = pytensor.function([x], y, mode="ONNX")
    onnx.checker.check_model(onnx_model_of(fn), full_check=True)
    value = fn(np.full((300, 300), 5.0))
    kept = value[value != 0]
    assert 0.45 < kept.size / value.size < 0.55
    assert abs(kept.mean() - 5.0) < 0.01 and abs(kept.std() - 0.1) < 0.01


class UnknownRV(RandomVariable):
    name = "unknown"
    signature = "()->()"
    dtype = "floatX"


def test_a_random_variable_without_sampler_raises_with_its_name():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        x = UnknownRV()(0.0, rng=shared(np.random.default_rng(0)))
    with pytest.raises(
        NotImplementedError,
        match=r"(?s)no sampler for the unknown distribution \(UnknownRV\): it has "
        "no ONNX sampler yet. It samples .*permutation",
    ):
        pytensor.function([], x, mode="ONNX")


# PyMC's distributions that cannot be sampled (the PyMC ones of the table)
PYMC_UNSUPPORTED = {
    "Flat": lambda pm: pm.Flat.dist(),
    "ICAR": lambda pm: pm.ICAR.dist(W=np.array([[0, 1], [1, 0]])),
}


@pytest.mark.parametrize("name", list(PYMC_UNSUPPORTED))
def test_unsupported_distributions_raise_with_their_name_and_reason(name):
    pm = pytest.importorskip("pymc", reason=PYMC_MISSING)
    x = PYMC_UNSUPPORTED[name](pm)
    op = x.owner.op
    reason = unsupported_reason(type(op))
    with pytest.raises(
        NotImplementedError, match=rf"(?s)no sampler for the {op.name} "
    ):
        pytensor.function([], x, mode="ONNX")
    with pytest.raises(NotImplementedError, match=re.escape(reason)):
        pytensor.function([], x, mode="ONNX")


def random_variable_classes():
    """Every ``RandomVariable`` class of PyTensor, and of PyMC if installed."""
    import pytensor.tensor.random.basic as basic

    modules = [basic]
    try:
        import pymc.distributions as pymc_distributions
    except ImportError:
        pass
    else:
        modules += [
            importlib.import_module(info.name)
            for info in pkgutil.walk_packages(
                pymc_distributions.__path__, "pymc.distributions."
            )
        ]
    return {
        cls
        for module in modules
        for cls in vars(module).values()
        if isinstance(cls, type)
        and issubclass(cls, RandomVariable)
        and cls.__module__ == module.__name__
        and cls is not basic.ScipyRandomVariable
    }


DOCS = Path(__file__).parents[3] / "docs" / "random.rst"


def documented_statuses():
    """``{class name: status}`` from the table of docs/random.rst."""
    rows = re.findall(
        r"^   \* - ``(\w+)``\n     - .*\n     - (.*)$", DOCS.read_text(), re.M
    )
    return dict(rows)


def unsupported_reason(rv_class):
    """Why ``rv_class`` has no sampler, ``None`` if it has one."""
    register_converters()
    try:
        random_dispatch.sampler_of(rv_class)
    except NotImplementedError as err:
        return str(err)
    return None


def test_every_random_variable_samples_or_is_documented_unsupported():
    documented = documented_statuses()
    for cls in random_variable_classes():
        reason = unsupported_reason(cls)
        assert reason != random_dispatch.NO_SAMPLER_YET, cls
        assert documented.get(cls.__name__) == (reason or "samples"), cls


class GeometricSubclassRV(ptr.GeometricRV):
    """Draws as its base class (only dispatch entries of its own, as PyMC's tests)."""


class RedrawnGeometricRV(ptr.GeometricRV):
    """Draws another distribution than its base class."""

    @classmethod
    def rng_fn(cls, rng, p, size):
        return rng.poisson(1 / p, size=size)


def test_a_subclass_samples_like_its_base_class():
    def draws(rv_class):
        rng = shared(np.random.default_rng(3))
        x = rv_class()(np.array([0.1, 0.5, 0.9]), size=(1000, 3), rng=rng)
        return pytensor.function([], x, mode="ONNX")()

    np.testing.assert_array_equal(
        draws(GeometricSubclassRV), draws(type(pt.random.geometric))
    )


def test_a_subclass_that_draws_differently_needs_its_own_sampler():
    x = RedrawnGeometricRV()(0.5, rng=shared(np.random.default_rng(0)))
    with pytest.raises(
        NotImplementedError,
        match=r"RedrawnGeometricRV overrides rng_fn of GeometricRV, so it may draw "
        "another distribution",
    ):
        pytensor.function([], x, mode="ONNX")
