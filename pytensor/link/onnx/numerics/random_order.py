"""Random orders: permutations and choices without replacement.

Each batch element draws one random key per item and takes the items of the
``count`` largest keys, largest first (one ``TopK`` along the last axis).
Uniform keys give a uniformly random ordered subset. Weighted choices take
the keys ``log(p) + G`` for standard Gumbel variates ``G`` (the Gumbel-top-k
trick): the order is then that of successive draws from ``p`` renormalized
over the items not yet drawn, the order NumPy's ``choice(replace=False, p=p)``
returns.
"""

import numpy as np

from pytensor.link.onnx.numerics.random import Draws
from pytensor.link.onnx.value import Value, concat, minimum


def top_k(keys: Value, count: Value) -> Value:
    """The int64 indices of the ``count`` largest ``keys`` along the last axis,
    largest first (``count``: an int64 vector of one element)."""
    _, indices = keys.apply_multi(
        "TopK",
        keys,
        count,
        dtypes=[keys.dtype, "int64"],
        axis=-1,
        largest=1,
        sorted=1,
    )
    return indices


def random_order(draws: Draws, count: Value, p: Value | None = None) -> Value:
    """The indices of ``count`` items drawn without replacement, in the order drawn.

    ``draws`` has the shape ``(*batch, n)`` of the items' keys; the items have
    equal probabilities, or the float64 weights ``p`` broadcasting to that
    shape (positive; items of weight 0 come last).
    """
    if p is None:
        return top_k(draws.uniform(), count)
    gumbel = -(-draws.open_uniform().log()).log()
    return top_k(p.log() + gumbel, count)


def gather_items(items: Value, order: Value, n_batch: int, n_core: int) -> Value:
    """The items in ``order``: ``items[..., order, ...]`` along the first of
    the ``n_core`` core axes of ``items``, whose batch axes broadcast to the
    ``n_batch`` of the int64 ``order`` (``(*batch, m)``)."""
    batch_shape = order.shape(0, n_batch)
    items = items.expand(concat([batch_shape, items.shape(-n_core)], axis=0))
    return items.apply("GatherND", items, order.unsqueeze([-1]), batch_dims=n_batch)


def number_of_items(items: Value, n_core: int) -> Value:
    """The number of items, an int64 vector of one element: the first core
    length of ``items``, or for ``n_core = 0`` (an implicit ``arange``) its
    first element."""
    if n_core == 0:
        return items.reshape(items.indices([-1])).slice(0, 1).cast("int64")
    return items.shape(-n_core).slice(0, 1)


def arranged(items: Value, order: Value, draws: Draws, n_batch: int, n_core: int):
    """The items in ``order`` (or ``order`` itself for ``n_core = 0``) shaped as ``draws``."""
    if n_core > 0:
        order = gather_items(items, order, n_batch, n_core)
    return order.reshape(draws.shape)


def permutation(draws: Draws, items: Value, n_batch: int, n_core: int) -> Value:
    """NumPy's ``permutation`` of ``items`` of ``n_core`` core axes, per batch element."""
    n = number_of_items(items, n_core)
    keys = draws.derived(0, concat([draws.shape.slice(0, n_batch), n], axis=0))
    return arranged(items, random_order(keys, n), draws, n_batch, n_core)


def choice_without_replacement(
    draws: Draws, items: Value, p: Value | None, n_batch, n_core, n_chosen: int
) -> Value:
    """NumPy's ``choice(items, replace=False, p=p)`` per batch element, of
    draws shaped ``(*batch, *chosen, *items' other core axes)`` for the
    ``n_chosen`` axes of ``chosen``. Raises NumPy's ``ValueError`` for the
    ``p`` and the number of items it rejects."""
    count = draws.shape.slice(n_batch, n_batch + n_chosen).prod([0])
    n = number_of_items(items, n_core)
    if p is not None:
        require_probabilities(p, count)
        p = p.cast("float64")
    items.builder.require(
        count <= n,
        ValueError,
        "Cannot take a larger sample than population when replace is False",
    )
    keys = draws.derived(0, concat([draws.shape.slice(0, n_batch), n], axis=0))
    order = random_order(keys, minimum(count, n), p)
    return arranged(items, order, draws, n_batch, n_core)


def require_probabilities(p: Value, count: Value):
    """NumPy's checks of the probabilities ``p`` of choosing ``count`` items,
    with its tolerance for their sum."""
    eps = max(np.finfo(np.float64).eps, np.finfo(p.dtype).eps)
    builder = p.builder
    p = p.cast("float64")
    builder.require(p >= 0.0, ValueError, "Probabilities are not non-negative")
    builder.require(
        abs(p.sum([-1]) - 1.0) <= np.sqrt(eps),
        ValueError,
        "Probabilities do not sum to 1",
    )
    nonzero = (p > 0.0).cast("int64").sum([-1])
    builder.require(
        nonzero >= count, ValueError, "Fewer non-zero entries in p than size"
    )
