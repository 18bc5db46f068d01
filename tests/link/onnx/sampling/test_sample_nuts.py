"""`sample_nuts` as an API: results, seeds, modes, limits and errors."""

import numpy as np
import pytensor.tensor as pt
import pytest

import pytensor
from pytensor.link.onnx.passes.graphs import nodes_per_loop_depth
from pytensor.link.onnx.sampling import NUTSResult, nuts_chunk_function, sample_nuts
from pytensor.link.onnx.sampling.groups import chain_groups
from tests.link.onnx.sampling.diagnostics import effective_sample_size, split_chains


STAT_DTYPES = {
    "diverging": np.bool_,
    "tree_depth": np.int64,
    "n_steps": np.int64,
    "step_size": np.float64,
    "energy": np.float64,
    "lp": np.float64,
    "acceptance_rate": np.float64,
    "energy_error": np.float64,
    "max_energy_error": np.float64,
}


def run(target, chains=2, **kwargs):
    logp, x, _ = target
    settings = dict(draws=30, tune=30, random_seed=1) | kwargs
    return sample_nuts(logp, [x], [np.zeros((chains, 2))], **settings)


def test_result_has_the_contract_shapes_and_dtypes(normal_target):
    result = run(normal_target, draws=25, tune=35)
    assert isinstance(result, NUTSResult)
    assert result.draws[0].shape == (2, 25, 2)
    assert set(result.stats) == set(STAT_DTYPES) == set(result.warmup_stats)
    for name, dtype in STAT_DTYPES.items():
        assert result.stats[name].shape == (2, 25)
        assert result.warmup_stats[name].shape == (2, 35)
        assert result.stats[name].dtype == dtype, name
    assert result.step_size.shape == (2,)
    assert result.inverse_mass_matrix.shape == (2, 2)


def test_values_of_several_shapes_and_shared_variables():
    centre = pytensor.shared(np.arange(6.0).reshape(2, 3), name="centre")
    scalar = pt.scalar("scalar")
    matrix = pt.matrix("matrix", shape=(2, 3))
    logp = -0.5 * scalar**2 - 0.5 * ((matrix - centre) ** 2).sum()
    initial = [np.zeros(2), np.zeros((2, 2, 3))]
    result = sample_nuts(
        logp, [scalar, matrix], initial, draws=200, tune=100, random_seed=2
    )
    assert result.draws[0].shape == (2, 200)
    assert result.draws[1].shape == (2, 200, 2, 3)
    np.testing.assert_allclose(
        result.draws[1].mean(axis=(0, 1)), centre.get_value(), atol=0.5
    )


def test_same_seed_same_draws_other_seed_other_draws(normal_target):
    first = run(normal_target, random_seed=7)
    again = run(normal_target, random_seed=7)
    other = run(normal_target, random_seed=8)
    np.testing.assert_array_equal(first.draws[0], again.draws[0])
    np.testing.assert_array_equal(first.stats["n_steps"], again.stats["n_steps"])
    assert not np.array_equal(first.draws[0], other.draws[0])
    assert again.compile_seconds == 0


def test_max_treedepth_is_honoured(normal_target):
    result = run(normal_target, tune=0, max_treedepth=3)
    # With the initial step size 0.25 / n**0.25 on a scale of 3, every tree
    # would grow past depth 3.
    assert result.stats["tree_depth"].max() == 3
    assert result.stats["n_steps"].max() == 7


def test_the_graph_runs_in_python_mode_and_agrees_with_onnx(normal_target):
    reference = run(
        normal_target, draws=300, tune=100, mode="FAST_COMPILE", random_seed=3
    )
    onnx = run(normal_target, draws=300, tune=100, random_seed=3)
    for result in (reference, onnx):
        draws = result.draws[0]
        for i, scale in enumerate(normal_target[2]):
            ess = effective_sample_size(split_chains(draws[..., i]))
            assert abs(draws[..., i].mean()) < 4.5 * scale / np.sqrt(ess)
            assert 0.5 < draws[..., i].std() / scale < 1.5
    assert not np.array_equal(reference.draws[0], onnx.draws[0])


def test_chains_in_parallel_groups_sample_the_target(normal_target):
    result = run(normal_target, chains=4, cores=2, draws=300, tune=100, random_seed=4)
    again = run(normal_target, chains=4, cores=2, draws=300, tune=100, random_seed=4)
    assert result.draws[0].shape == (4, 300, 2)
    assert result.stats["n_steps"].shape == (4, 300)
    assert result.step_size.shape == (4,)
    assert result.inverse_mass_matrix.shape == (4, 2)
    np.testing.assert_array_equal(result.draws[0], again.draws[0])
    draws = result.draws[0]
    for i, scale in enumerate(normal_target[2]):
        ess = effective_sample_size(split_chains(draws[..., i]))
        assert abs(draws[..., i].mean()) < 4.5 * scale / np.sqrt(ess)
        assert 0.5 < draws[..., i].std() / scale < 1.5


def test_each_group_of_chains_samples_as_it_would_alone(normal_target):
    """With ``cores=2``, the chains are two groups in chain order, each with
    its own generator spawned from the seed: running both in threads at once
    changes nothing in either."""
    together = run(normal_target, chains=4, cores=2, random_seed=5)
    generators = np.random.default_rng(5).spawn(2)
    for group, generator in zip((slice(0, 2), slice(2, 4)), generators, strict=True):
        alone = run(normal_target, chains=2, random_seed=generator)
        np.testing.assert_array_equal(together.draws[0][group], alone.draws[0])
        np.testing.assert_array_equal(together.step_size[group], alone.step_size)
        for name, stat in alone.warmup_stats.items():
            np.testing.assert_array_equal(together.warmup_stats[name][group], stat)


@pytest.mark.parametrize(
    "chains, cores, sizes",
    [(4, 1, [4]), (4, 2, [2, 2]), (5, 2, [3, 2]), (7, 3, [3, 2, 2]), (2, 4, [1, 1])],
)
def test_chains_are_split_into_groups_as_evenly_as_possible(chains, cores, sizes):
    groups = chain_groups(chains, cores)
    assert [group.stop - group.start for group in groups] == sizes
    assert groups[0].start == 0 and groups[-1].stop == chains


@pytest.mark.parametrize("cores", [0, -1, 1.5, True])
def test_cores_that_are_not_a_positive_integer_are_refused(normal_target, cores):
    with pytest.raises((TypeError, ValueError), match="cores"):
        run(normal_target, cores=cores)


def test_logp_of_an_input_that_is_not_a_value_is_refused():
    x = pt.vector("x", shape=(2,))
    sigma = pt.scalar("sigma")
    with pytest.raises(ValueError, match="sigma"):
        sample_nuts(-0.5 * ((x / sigma) ** 2).sum(), [x], [np.zeros((2, 2))])


def test_integer_values_are_refused():
    k = pt.lvector("k")
    with pytest.raises(TypeError, match="continuous values only"):
        sample_nuts(
            -(k**2).sum().astype("float64"), [k], [np.zeros((2, 3), dtype="int64")]
        )


def test_non_scalar_logp_is_refused():
    x = pt.vector("x", shape=(2,))
    with pytest.raises(ValueError, match="scalar"):
        sample_nuts(-0.5 * x**2, [x], [np.zeros((2, 2))])


@pytest.mark.parametrize(
    "initial",
    [[np.zeros(2)], [np.zeros((2, 3))], [np.zeros((2, 2)), np.zeros((2, 2))]],
    ids=["no chain axis", "wrong value shape", "one point too many"],
)
def test_initial_points_of_the_wrong_shape_are_refused(initial):
    x = pt.vector("x", shape=(2,))
    with pytest.raises(ValueError, match="initial point"):
        sample_nuts(-0.5 * (x**2).sum(), [x], initial)


def test_length_one_piece_of_a_split_broadcasts_for_every_chain():
    # The rewrites of the one-point log-density merge the length-1 piece into
    # an elementwise call that broadcasts it; evaluated for several chains,
    # the piece must keep its static length (a Dirichlet's stick-breaking).
    x = pt.vector("x", shape=(4,))
    head, tail = pt.split(pt.exp(x), [3, 1], n_splits=2)
    logp = -0.5 * (x**2).sum() - 0.5 * ((head + pt.log1p(tail) * 3.0 - 2.0) ** 2).sum()
    result = sample_nuts(logp, [x], [np.zeros((2, 4))], draws=5, tune=5, random_seed=1)
    assert np.isfinite(result.stats["lp"]).all()


# ONNX nodes of each loop body of the compiled sampler for `normal_target`
# and 4 chains, without the loops a body contains, as measured under both
# PyTensor versions. onnxruntime runs every node of a body at every
# iteration: a change that makes a body cost more fails here (re-measure if
# the nodes are worth it).
LOOP_BODY_NODES = {"draw": 150, "tree doubling": 200, "leapfrog step": 71}


def test_loop_bodies_stay_within_their_measured_nodes(normal_target):
    logp, x, _ = normal_target
    chunk, _ = nuts_chunk_function(logp, [x], [np.zeros((4, 2))], random_seed=0)
    counts = nodes_per_loop_depth(chunk.function.maker.linker.onnx_model.graph)
    measured = dict(
        zip(LOOP_BODY_NODES, (counts[1], counts[2], counts[3]), strict=True)
    )
    assert all(measured[body] <= LOOP_BODY_NODES[body] for body in measured), measured
