"""The cyclic Jacobi method: rotations of ``n / 2`` disjoint pairs of rows or
columns at once, in round-robin order, sweep after sweep until converged.

`~pytensor.link.onnx.numerics.linalg.decomposition.eigen` and
`~pytensor.link.onnx.numerics.linalg.decomposition.svd` rotate with it.
"""

from typing import NamedTuple

from pytensor.link.onnx.numerics.linalg.stacks import loop
from pytensor.link.onnx.value import Value, arange, maximum, where


# The Jacobi methods converge quadratically, in 6 to 14 sweeps for matrices
# of up to a few hundred rows; this bound is only a safeguard
MAX_SWEEPS = 60


class Pairs(NamedTuple):
    """Disjoint pairs of ``n`` indices, as vectors of ``n`` int64 or bool."""

    partners: Value
    low: Value
    high: Value
    is_low: Value
    paired: Value


def round_robin_pairs(n: Value, round_number: Value) -> Pairs:
    """The pairs of ``n`` indices in a round of a round-robin tournament.

    Over ``n - 1`` rounds (``n`` if odd), every pair meets once. An index
    left out in a round (``n`` odd) is its own partner.
    """
    players = n + n % 2
    seats = arange(players)
    others = maximum(players - 1, n.constant(1))
    seat = where(seats.eq(0), 0, (seats - 1 + round_number) % others + 1)
    opponents = seat.take(players - 1 - seats, axis=0)
    partners = seats.apply("ScatterElements", seats, seat, opponents, axis=0)
    partners = partners.slice(0, n.unsqueeze([0]), axis=0)
    indices = arange(n)
    partners = where(partners < n, partners, indices)
    is_low = indices < partners
    return Pairs(
        partners,
        where(is_low, indices, partners),
        where(is_low, partners, indices),
        is_low,
        partners.ne(indices),
    )


def rotation(a_pp: Value, a_qq: Value, a_pq: Value, rotate: Value, is_low: Value):
    """The Jacobi rotations zeroing the ``a_pq`` of symmetric 2x2 matrices.

    Golub & Van Loan's ``sym.schur2``, with the smaller angle. Returns the
    coefficients of a row (or column) and of its partner's in the rotated row:
    cosine and sine, with the sign of the sine for the low index of a pair
    flipped. No rotation where ``rotate`` is false.
    """
    tau = (a_qq - a_pp) / (2 * where(rotate, a_pq, 1))
    t = where(tau >= 0, tau.constant(1), -1) / (abs(tau) + (1 + tau * tau).sqrt())
    cosine = 1 / (1 + t * t).sqrt()
    sine = where(is_low, -t * cosine, t * cosine)
    return where(rotate, cosine, 1), where(rotate, sine, 0)


def only_if(condition: Value, compute) -> Value:
    """``compute(builder)``, a 0-d bool built in an ``If`` branch, where the 0-d
    ``condition`` holds, else false."""
    builder = condition.builder
    branches = {}
    for branch in ("then_branch", "else_branch"):
        sub = builder.subgraph(branch)
        if branch == "then_branch":
            result = compute(sub).name
        else:
            result = sub.constant(False, "bool")
        sub.add_output(result, branch, "bool", ())
        branches[branch] = sub.make_graph()
    return builder.value(builder.add("If", [condition.name], **branches), "bool")


def jacobi_sweeps(n: Value, states, rotate_pairs, converged, *, hint):
    """Apply ``rotate_pairs`` in round-robin rounds until ``converged``.

    ``rotate_pairs(pairs, *states)`` returns the new states;
    ``converged(*states)``, a 0-d bool, whether no pair of any stack needs a
    rotation: it is computed before the first sweep and after each sweep only.
    """
    rounds_per_sweep = maximum(n + n % 2 - 1, n.constant(1))

    def step(round_number, *states):
        body = round_number.builder
        rounds_per_sweep_ = rounds_per_sweep.into(body)
        pairs = round_robin_pairs(n.into(body), round_number)
        states = rotate_pairs(pairs, *states)
        sweep_ends = (round_number % rounds_per_sweep_).eq(rounds_per_sweep_ - 1)
        done = only_if(
            sweep_ends, lambda sub: converged(*(state.into(sub) for state in states))
        )
        return ~done, *states

    more = (n > 1) & ~converged(*states)
    return loop(rounds_per_sweep * MAX_SWEEPS, states, step, more=more, hint=hint)
