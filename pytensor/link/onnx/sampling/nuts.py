"""One NUTS transition for a batch of chains, as a PyTensor graph.

The trajectory is built iteratively, as numpyro and blackjax do, in two
nested while loops (``scan(..., until=...)``): one over the doublings of the
tree, one over the leapfrog steps of each new subtree. All chains run in the
same loops on a leading chain axis: each has its own direction at each
doubling, and a chain whose trajectory has ended is masked (its position no
longer moves and its statistics no longer change) until every chain has
ended. Everything computed per leapfrog step is paid at every step, so the
leapfrog loop does only what must be done per leaf; sums over the leaves of a
subtree are taken after its loop, from the per-leaf log-weights it returns.

Within a subtree the proposal is the leaf of largest ``log_weight + G`` for
independent standard Gumbel variates ``G`` (the Gumbel-max trick), a draw from
the multinomial distribution of the leaves, as PyMC's uniform progressive
sampling within a subtree. A subtree that turns or diverges is rejected;
otherwise it is merged into the tree by biased progressive sampling.

The U-turn criterion is PyMC's: the generalised criterion on the momentum sum
and the velocities at both ends of each (sub)tree, and for each merge of two
halves, the two extra checks of each half with the nearest leaf of the other.
The subtrees are checked without recursion: the first leaf of each open
subtree is a checkpoint, one per level (numpyro's leaf-to-checkpoint
indices), holding the momentum sum before it and its velocity, and each leaf
checks at once every subtree it closes. The second extra check of a merge
needs the leaf before the right half: each checkpoint also holds the sum
before, and the velocity of, that leaf. The first extra check (the left half
with the first leaf of the right half) is known when the right half starts,
so it is made then: a trajectory that fails it stops without building the
rest of a subtree that would be rejected anyway, which PyMC builds.
"""

from typing import NamedTuple

import numpy as np
import pytensor.tensor as pt
from pytensor.scan.utils import until
from pytensor.tensor.random.basic import normal, uniform

from pytensor.link.onnx.sampling.logdensity import excluding_under_onnx
from pytensor.link.onnx.sampling.loops import loop


MAX_ENERGY_ERROR = 1000.0


# Under an ONNX mode the doubling loop's body skips the shape rewrites (its
# leapfrog loop keeps them): its shapes are all static, and they changed no
# doubling body of the ten benchmark workloads
DOUBLING_LOOP_EXCLUDED = ("ShapeOpt",)


def constant(x, dtype):
    return pt.constant(np.asarray(x, dtype=dtype))


def checkpoint_tables(max_treedepth: int):
    """Which checkpoint each leaf of a subtree stores, and which it checks.

    Leaf ``k`` (counted from 0 within its subtree), if even, starts subtrees
    and is stored at level ``j = popcount(k >> 1)``; for ``j >= 1`` it is the
    first leaf of the right half of the subtree stored at level ``j - 1``,
    whose first extra check it makes. If odd, it closes as many subtrees as
    ``k`` has trailing one bits, those stored at levels ``idx_min..idx_max``;
    each but the smallest (two leaves) has its right half stored at the next
    level, whose leaf-before entry makes the second extra check.

    Returns boolean tables ``store`` ``(2**max_treedepth, max_treedepth)``
    and ``check`` ``(2**max_treedepth, 2, max_treedepth)``: ``check[k, 0]``
    the checkpoints, ``check[k, 1]`` the leaf-before entries to check.
    """
    n_leaves = 2**max_treedepth
    store = np.zeros((n_leaves, max_treedepth), bool)
    check = np.zeros((n_leaves, 2, max_treedepth), bool)
    for k in range(n_leaves):
        idx_max = (k >> 1).bit_count()
        if k % 2 == 0:
            store[k, idx_max] = True
            if idx_max >= 1:
                check[k, 0, idx_max - 1] = True
        else:
            idx_min = idx_max - ((~k & (k + 1)).bit_length() - 1) + 1
            check[k, 0, idx_min : idx_max + 1] = True
            check[k, 1, idx_min + 1 : idx_max + 1] = True
    return store, check


def random_draws(op, rng, size, dtype, *params):
    """The next generator and the draws of the ``RandomVariable`` ``op`` of ``dtype``."""
    if op.dtype != dtype:
        op = type(op)(**{**op._props_dict(), "dtype": dtype})
    return op.make_node(rng, size, *(constant(x, dtype) for x in params)).outputs


def dot(a, b):
    return (a * b).sum(axis=-1)


def log_add_exp(a, b):
    larger = pt.maximum(a, b)
    return larger + pt.log1p(pt.exp(-abs(a - b)))


class Point(NamedTuple):
    """A point of phase space for each chain: position, momentum, gradient of the log-density."""

    q: pt.TensorVariable
    p: pt.TensorVariable
    grad: pt.TensorVariable


def where_point(condition, a: Point, b: Point) -> Point:
    cond = condition[:, None]
    return Point(*(pt.where(cond, x, y) for x, y in zip(a, b, strict=True)))


def leapfrog_step(logp_dlogp, inverse_mass, dtype):
    """The body of the leapfrog loop of a subtree (one leaf per iteration).

    ``half_step`` is ``(chains, 1)``, ``step_velocity`` the step size times
    the inverse mass ``(chains, n)``. Each iteration returns the carried
    values and, per chain, the log-weight of the leaf and whether the chain
    was still active.
    """
    zero, half = constant(0, dtype), constant(0.5, dtype)
    min_log_weight = constant(-MAX_ENERGY_ERROR, dtype)

    def step(
        gumbel, store, check,
        q, p, grad, prop_q, prop_grad, prop_logp, prop_energy, best_score,
        p_sum, ckpt_sum, ckpt_velocity, stopped,
        half_step, step_velocity, start_energy,
    ):  # fmt: skip
        active = ~stopped
        p_half = p + half_step * grad
        q_new = pt.where(active[:, None], q + step_velocity * p_half, q)
        logp_new, grad_new = logp_dlogp(q_new)
        # One sum of the log-density's terms: the rewrites would otherwise
        # merge them into the energy and the log-weight, three sums in all
        logp_new = pt.where(active, logp_new, -np.inf)
        p_new = p_half + half_step * grad_new
        velocity = inverse_mass * p_new
        energy = half * dot(p_new, velocity) - logp_new
        log_weight = start_energy - energy

        score = log_weight + gumbel
        take = score > best_score
        take_col = take[:, None]
        new_p_sum = p_sum + p_new

        sums_before = pt.stack([p_sum, p_sum - p], axis=1)[:, :, None, :]
        velocities = pt.stack([velocity, inverse_mass * p], axis=1)[:, :, None, :]
        ckpt_sum = pt.where(store, sums_before, ckpt_sum)
        ckpt_velocity = pt.where(store, velocities, ckpt_velocity)
        subtree_sums = new_p_sum[:, None, None, :] - ckpt_sum
        closest = pt.minimum(
            dot(subtree_sums, ckpt_velocity),
            dot(subtree_sums, velocity[:, None, None, :]),
        )
        turning = (check & (closest <= zero)).any(axis=(1, 2))
        diverging = ~(log_weight > min_log_weight)
        new_stopped = stopped | turning | diverging
        return (
            q_new,
            p_new,
            grad_new,
            pt.where(take_col, q_new, prop_q),
            pt.where(take_col, grad_new, prop_grad),
            pt.where(take, logp_new, prop_logp),
            pt.where(take, energy, prop_energy),
            pt.maximum(best_score, score),
            new_p_sum,
            ckpt_sum,
            ckpt_velocity,
            new_stopped,
            log_weight,
            active,
        ), until(pt.all(new_stopped))

    return step


class LeafSummary(NamedTuple):
    """Sums over the leaves a subtree computed while each chain was active."""

    log_weight_sum: pt.TensorVariable
    accept_sum: pt.TensorVariable
    n_steps: pt.TensorVariable
    diverging: pt.TensorVariable
    max_energy_error: pt.TensorVariable


def summarize_leaves(log_weights, active, dtype) -> LeafSummary:
    """PyMC's per-leaf statistics from the log-weights ``(leaves, chains)``.

    A leaf's energy error is minus its log-weight, infinite where NaN; the
    largest in absolute value keeps its sign, as PyMC reports it. The sums
    mask their terms with ``where`` rather than ``-inf`` log-weights, a form
    PyTensor's rewrites leave as it is (``log(sum(exp(x)))`` would get a
    second shift by the maximum).
    """
    zero = constant(0, dtype)
    log_weights = pt.where(pt.isnan(log_weights), -np.inf, log_weights)
    largest = pt.where(active, log_weights, -np.inf).max(axis=0)
    shift = pt.where(pt.isinf(largest), zero, largest)
    weights = pt.where(active, pt.exp(log_weights - shift), zero)
    accepts = pt.where(active, pt.exp(pt.minimum(log_weights, zero)), zero)
    errors = pt.where(active, -log_weights, zero)
    highest, lowest = errors.max(axis=0), errors.min(axis=0)
    return LeafSummary(
        log_weight_sum=shift + pt.log(weights.sum(axis=0)),
        accept_sum=accepts.sum(axis=0),
        n_steps=pt.cast(active, "int64").sum(axis=0),
        diverging=(active & (log_weights <= constant(-MAX_ENERGY_ERROR, dtype))).any(
            axis=0
        ),
        max_energy_error=pt.where(highest >= -lowest, highest, lowest),
    )


def doubling_step(logp_dlogp, inverse_mass, n, max_treedepth, dtype, mode):
    """The body of the loop over the doublings of the tree."""
    store, check = checkpoint_tables(max_treedepth)
    # Shaped for each leaf's checkpoints (chains, 2, levels, n), so that the
    # leapfrog body broadcasts them as they are
    store_table = pt.constant(store[:, None, None, :, None])
    check_table = pt.constant(check[:, None])
    leapfrog = leapfrog_step(logp_dlogp, inverse_mass, dtype)

    def step(
        depth, n_leaves, rightwards, log_u_merge,
        left_q, left_p, left_grad, right_q, right_p, right_grad,
        prop_q, prop_grad, prop_logp, prop_energy, log_weight_sum, p_sum,
        done, diverging, accept_sum, n_steps, max_error, tree_depth, rng,
        step_size, start_energy, depth_limit,
    ):  # fmt: skip
        n_chains = left_q.type.shape[0]
        left = Point(left_q, left_p, left_grad)
        right = Point(right_q, right_p, right_grad)
        start = where_point(rightwards, right, left)
        signed_step = pt.where(rightwards, step_size, -step_size)[:, None]
        rng, uniforms = random_draws(uniform, rng, (n_leaves, n_chains), dtype, 0, 1)
        ckpt_zeros = pt.zeros((n_chains, 2, max_treedepth, n), dtype=dtype)
        outputs = loop(
            leapfrog,
            mode=mode,
            n_steps=n_leaves,
            sequences=[-pt.log(-pt.log(uniforms)), store_table, check_table],
            outputs_info=[
                *start, start.q, start.grad, prop_logp, prop_energy,
                pt.full((n_chains,), -np.inf, dtype=dtype),
                pt.zeros((n_chains, n), dtype=dtype), ckpt_zeros, ckpt_zeros, done,
                None, None,
            ],
            non_sequences=[
                constant(0.5, dtype) * signed_step,
                signed_step * inverse_mass,
                start_energy,
            ],
        )  # fmt: skip
        *carried, log_weights, active = outputs
        (
            end_q, end_p, end_grad, sub_q, sub_grad, sub_logp, sub_energy, _,
            sub_p_sum, _, ckpt_velocity, sub_stopped,
        ) = carried  # fmt: skip
        end = Point(end_q, end_p, end_grad)
        first_p = ckpt_velocity[:, 0, 0] / inverse_mass
        leaves = summarize_leaves(log_weights, active, dtype)

        accepted = ~sub_stopped
        take = accepted & (log_u_merge < leaves.log_weight_sum - log_weight_sum)
        new_left = where_point(~rightwards & ~done, end, left)
        new_right = where_point(rightwards & ~done, end, right)
        new_p_sum = pt.where(accepted[:, None], p_sum + sub_p_sum, p_sum)
        turns = merged_tree_turning(
            inverse_mass, rightwards, left, right, p_sum,
            new_left.p, new_right.p, first_p, sub_p_sum, new_p_sum,
        )  # fmt: skip

        ended = done | ~accepted | turns | (depth + 1 >= depth_limit)
        larger_error = abs(leaves.max_energy_error) > abs(max_error)
        return (
            *new_left,
            *new_right,
            pt.where(take[:, None], sub_q, prop_q),
            pt.where(take[:, None], sub_grad, prop_grad),
            pt.where(take, sub_logp, prop_logp),
            pt.where(take, sub_energy, prop_energy),
            pt.where(
                accepted,
                log_add_exp(log_weight_sum, leaves.log_weight_sum),
                log_weight_sum,
            ),
            new_p_sum,
            ended,
            diverging | leaves.diverging,
            accept_sum + leaves.accept_sum,
            n_steps + leaves.n_steps,
            pt.where(larger_error, leaves.max_energy_error, max_error),
            tree_depth + pt.cast(~done, "int64"),
            rng,
        ), until(pt.all(ended))

    return step


def merged_tree_turning(
    inverse_mass, rightwards, old_left, old_right, old_p_sum,
    left_p, right_p, first_p, sub_p_sum, p_sum,
):  # fmt: skip
    """PyMC's U-turn checks of a tree just merged with a new subtree.

    The whole tree, then each half with the leaf of the other half next to
    the junction. ``first_p`` is the momentum of the first leaf of the new
    subtree, the leaf next to the old tree. The three checks' six products
    are taken at once, on the momenta stacked ``(chains, pair, check, n)``.
    """
    right = rightwards[:, None]
    left_half_sum = pt.where(right, old_p_sum, sub_p_sum)
    right_half_sum = pt.where(right, sub_p_sum, old_p_sum)
    left_end_p = pt.where(right, old_right.p, first_p)
    right_start_p = pt.where(right, first_p, old_left.p)
    sums = stacked(
        [p_sum, left_half_sum + right_start_p, left_end_p + right_half_sum], (3,)
    )
    momenta = stacked(
        [left_p, left_p, left_end_p, right_p, right_start_p, right_p], (2, 3)
    )
    velocities = inverse_mass[:, None, None, :] * momenta
    products = dot(sums[:, None], velocities)
    return (products <= constant(0, p_sum.dtype)).any(axis=(1, 2))


def stacked(vectors, shape):
    """The ``(chains, n)`` ``vectors`` stacked as ``(chains, *shape, n)``:
    one join and one reshape, however many vectors."""
    n_chains, n = vectors[0].type.shape
    return pt.join(1, *vectors).reshape((n_chains, *shape, n))


class Transition(NamedTuple):
    """The result of one NUTS transition, per chain."""

    q: pt.TensorVariable
    logp: pt.TensorVariable
    grad: pt.TensorVariable
    diverging: pt.TensorVariable
    tree_depth: pt.TensorVariable
    n_steps: pt.TensorVariable
    energy: pt.TensorVariable
    acceptance_rate: pt.TensorVariable
    energy_error: pt.TensorVariable
    max_energy_error: pt.TensorVariable
    rng: pt.TensorVariable


def nuts_transition(
    logp_dlogp,
    q,
    logp,
    grad,
    step_size,
    inverse_mass,
    rng,
    depth_limit,
    max_treedepth,
    mode=None,
):
    """One NUTS transition from ``(q, logp, grad)`` for every chain.

    ``logp_dlogp`` maps positions ``(chains, n)`` to their log-densities
    ``(chains,)`` and gradients. ``step_size`` is ``(chains,)``,
    ``inverse_mass`` ``(chains, n)``; ``depth_limit`` (a scalar at most the
    static ``max_treedepth``) bounds the number of doublings. The number of
    chains and ``n`` must be static. ``mode`` is the mode of the loops.
    """
    dtype = q.dtype
    n_chains, n = q.type.shape
    rng, z = random_draws(normal, rng, (n_chains, n), dtype, 0, 1)
    p = z / pt.sqrt(inverse_mass)
    start_energy = constant(0.5, dtype) * dot(p, inverse_mass * p) - logp
    rng, uniforms = random_draws(
        uniform, rng, (2, max_treedepth, n_chains), dtype, 0, 1
    )
    zeros_chain = pt.zeros((n_chains,), dtype=dtype)
    zero_steps = pt.zeros((n_chains,), dtype="int64")
    outputs = loop(
        doubling_step(logp_dlogp, inverse_mass, n, max_treedepth, dtype, mode),
        mode=excluding_under_onnx(mode, DOUBLING_LOOP_EXCLUDED),
        n_steps=max_treedepth,
        sequences=[
            pt.arange(max_treedepth),
            pt.constant(2 ** np.arange(max_treedepth, dtype="int64")),
            uniforms[0] < constant(0.5, dtype),
            pt.log(uniforms[1]),
        ],
        outputs_info=[
            q, p, grad, q, p, grad,
            q, grad, logp, start_energy, zeros_chain, p,
            pt.zeros((n_chains,), dtype="bool"), pt.zeros((n_chains,), dtype="bool"),
            zeros_chain, zero_steps, zeros_chain, zero_steps, rng,
        ],
        non_sequences=[step_size, start_energy, depth_limit],
    )  # fmt: skip
    *traced, rng = outputs
    (
        _, _, _, _, _, _, new_q, new_grad, new_logp, energy, _, _,
        _, diverging, accept_sum, n_steps, max_error, tree_depth,
    ) = traced  # fmt: skip
    return Transition(
        q=new_q,
        logp=new_logp,
        grad=new_grad,
        diverging=diverging,
        tree_depth=tree_depth,
        n_steps=n_steps,
        energy=energy,
        acceptance_rate=accept_sum / pt.cast(n_steps, dtype),
        energy_error=energy - start_energy,
        max_energy_error=max_error,
        rng=rng,
    )
