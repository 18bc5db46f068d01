import numpy as np

from pytensor.link.onnx.numerics.iteration import converge, flat_elementwise
from tests.link.onnx.utils import evaluate_numerics


def newton_sqrt(c, max_iterations=100):
    """The square root of ``c > 0`` by Newton's method, and where it converged."""

    def step(iteration, c, x):
        new = 0.5 * (x + c / x)
        return {"x": new}, abs(new - x) <= 1e-15 * new

    done = c <= 0.0
    return converge(step, [c], {"x": c + 1.0}, done, max_iterations, "sqrt")


def test_converge_iterates_each_element_until_it_converges():
    c = np.array([1e-6, 2.0, 1e6, 0.0])
    x, converged = evaluate_numerics(newton_sqrt, c)
    np.testing.assert_allclose(x[:3], np.sqrt(c[:3]), rtol=1e-15)
    assert x[3] == 1.0  # done from the start: frozen
    assert converged.all()


def test_converge_stops_after_max_iterations():
    _, converged = evaluate_numerics(lambda c: newton_sqrt(c, 2), np.array([1e6]))
    assert not converged.any()


def test_flat_elementwise_broadcasts_any_shapes():
    def vector_function(x, y):
        assert x.builder is y.builder
        return x * y

    x = np.arange(6.0).reshape(2, 3)
    y = np.array([[10.0], [20.0]])
    result = evaluate_numerics(flat_elementwise(vector_function), x, y)
    np.testing.assert_array_equal(result, x * y)


def test_flat_elementwise_of_an_empty_last_axis():
    # Reshape without allowzero read the 0 as "copy the input's axis 1"
    x = np.ones((3, 0))
    result = evaluate_numerics(flat_elementwise(lambda x: x + 1.0), x)
    assert result.shape == (3, 0)
