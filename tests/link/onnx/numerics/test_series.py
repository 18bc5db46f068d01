import numpy as np

from pytensor.link.onnx.numerics.series import (
    chbevl,
    power_series,
    powers_of,
    rationals,
)
from tests.link.onnx.utils import evaluate_numerics


def test_chbevl_is_cephes_chebyshev_sum():
    coefficients = [0.5, -0.25, 2.0, 1.5]
    x = np.linspace(-2.0, 2.0, 9)
    # Cephes: sum' c_k T_k(x / 2), coefficients from the highest order, c_0 halved
    lowest_first = np.array(coefficients[::-1])
    lowest_first[0] /= 2.0
    reference = np.polynomial.chebyshev.chebval(x / 2.0, lowest_first)
    result = evaluate_numerics(lambda x: chbevl(x, coefficients), x)
    np.testing.assert_allclose(result, reference, rtol=1e-15)


def test_power_series_of_one_and_of_several_columns():
    x = np.linspace(-1.0, 1.0, 5)
    one = evaluate_numerics(lambda x: power_series(x, [1.0, 2.0, 3.0]), x)
    np.testing.assert_allclose(one, 1.0 + 2.0 * x + 3.0 * x**2, rtol=1e-15)
    several = evaluate_numerics(
        lambda x: power_series(x, [[1.0, 0.0], [0.0, 1.0]]), x, output_ndim=2
    )
    np.testing.assert_allclose(several, np.stack([np.ones_like(x), x], axis=1))
    assert evaluate_numerics(
        lambda x: power_series(x, [1.0, 2.0]), np.zeros(0)
    ).shape == (0,)


def test_powers_of():
    x = np.array([2.0, 3.0])
    result = evaluate_numerics(lambda x: powers_of(x, [0, 1, -1]), x, output_ndim=2)
    np.testing.assert_allclose(result, [[1.0, 2.0, 0.5], [1.0, 3.0, 1 / 3]])


def test_power_series_of_any_rank():
    for x in [np.float64(0.5), np.array([[0.5], [2.0]])]:
        result = evaluate_numerics(lambda x: power_series(x, [1.0, 2.0, 3.0]), x)
        np.testing.assert_allclose(result, 1.0 + 2.0 * x + 3.0 * x**2, rtol=1e-15)


def test_rationals_are_ratios_of_polynomials_from_the_highest_degree():
    x = np.linspace(-2.5, 3.5, 7)
    first, second = evaluate_numerics(
        lambda x: tuple(
            rationals(x, ([1.0, 2.0], [3.0, 0.0, 5.0]), ([2.0], [1.0, 1.0]))
        ),
        x,
    )
    np.testing.assert_allclose(first, (x + 2.0) / (3.0 * x**2 + 5.0), rtol=1e-15)
    np.testing.assert_allclose(second, 2.0 / (x + 1.0), rtol=1e-15)
