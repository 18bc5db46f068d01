"""Random orders: permutations and choices without replacement.

Each batch element draws one random key per item and takes the items of the
``count`` largest keys, largest first (one ``TopK`` along the last axis).
Uniform keys give a uniformly random ordered subset. Weighted choices take
the keys ``log(p) + G`` for standard Gumbel variates ``G`` (the Gumbel-top-k
trick): the order is then that of successive draws from ``p`` renormalized
over the items not yet drawn, the order NumPy's ``choice(replace=False, p=p)``
returns.
"""

from pytensor.link.onnx.numerics.random import Draws
from pytensor.link.onnx.value import Value, concat


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
