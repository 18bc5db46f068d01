"""The graphs the benchmark suite times, at full and at ``--quick`` size.

Each workload builds a fresh graph on every call of ``build(quick)``, so the
compile-time workloads measure a real compilation and not a cache hit on the
same graph objects.
"""

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytensor.tensor as pt
from pytensor.tensor.special import softmax

import pytensor


@dataclass
class Case:
    """A graph ready for ``pytensor.function`` plus the values to call it with.

    ``compile_function``, when given, compiles the case instead of
    ``pytensor.function(inputs, outputs, updates=updates, mode=mode)``: it
    takes the mode and returns the PyTensor ``Function`` (for graphs that a
    library compiles itself, such as PyMC's ``logp_dlogp_function``).
    """

    inputs: list
    outputs: list
    args: list
    updates: list = field(default_factory=list)
    compile_function: Callable[[object], object] | None = None


@dataclass(frozen=True)
class Workload:
    name: str
    description: str
    build: Callable[[bool], Case]
    kind: str = "runtime"  # "runtime": time per call; "compile": time to first result
    trust_input: bool = False


def rng():
    return np.random.default_rng(42)


def mlp_sizes(quick):
    return (32, 16, 16, 4) if quick else (784, 512, 512, 10)


def mlp_params(sizes, dtype="float32"):
    """Weights and biases of a dense network, as NumPy arrays (reused by torch)."""
    gen = rng()
    params = []
    for n_in, n_out in itertools.pairwise(sizes):
        params.append(gen.normal(0, n_in**-0.5, (n_in, n_out)).astype(dtype))
        params.append(np.zeros(n_out, dtype=dtype))
    return params


def mlp_forward(x, params):
    """Dense layers with ReLU (``maximum(h, 0)``) and a softmax output."""
    h = x
    n_layers = len(params) // 2
    for i in range(n_layers):
        h = h @ params[2 * i] + params[2 * i + 1]
        if i < n_layers - 1:
            h = pt.maximum(h, 0)
    return softmax(h, axis=-1)


def shared_params(arrays):
    names = [f"{kind}{i}" for i in range(len(arrays) // 2) for kind in ("W", "b")]
    return [pytensor.shared(a, name=n) for a, n in zip(arrays, names, strict=True)]


def add_one(quick):
    x = pt.vector("x")
    return Case([x], [x + 1], [np.arange(10.0)])


def mlp_forward_case(batch):
    def build(quick):
        sizes = mlp_sizes(quick)
        x = pt.matrix("x", dtype="float32")
        params = shared_params(mlp_params(sizes))
        n = batch if batch == 1 or not quick else 8
        data = rng().normal(size=(n, sizes[0])).astype("float32")
        return Case([x], [mlp_forward(x, params)], [data])

    return build


def mlp_train_step(quick):
    sizes = mlp_sizes(quick)
    batch = 8 if quick else 256
    x = pt.matrix("x", dtype="float32")
    y = pt.vector("y", dtype="int64")
    params = shared_params(mlp_params(sizes))
    probs = mlp_forward(x, params)
    loss = -pt.mean(pt.log(probs)[pt.arange(y.shape[0]), y])
    grads = pytensor.grad(loss, params)
    learning_rate = np.float32(0.01)
    updates = [(p, p - learning_rate * g) for p, g in zip(params, grads, strict=True)]
    gen = rng()
    data = gen.normal(size=(batch, sizes[0])).astype("float32")
    labels = gen.integers(0, sizes[-1], batch)
    return Case([x, y], [loss], [data, labels], updates)


def conv_layer(x, kernels):
    """Valid 2-D convolution of (batch, c_in, h, w) by (c_out, c_in, kh, kw)."""
    per_pair = pt.signal.convolve2d(x[:, None], kernels[None], mode="valid")
    return pt.maximum(per_pair.sum(axis=2), 0)


def max_pool_2x2(x):
    b, c, h, w = x.shape
    return x.reshape((b, c, h // 2, 2, w // 2, 2)).max(axis=(3, 5))


CNN_IMAGE_SHAPE = (1, 8, 8)


def digits_cnn_params():
    """Kernels of two 3x3 convolution layers (8 and 16 channels) and a dense layer."""
    gen = rng()
    return (
        gen.normal(0, 1 / 3, (8, 1, 3, 3)).astype("float32"),
        gen.normal(0, 1 / 8, (16, 8, 3, 3)).astype("float32"),
        gen.normal(0, 1 / 8, (16 * 2 * 2, 10)).astype("float32"),
    )


def digits_cnn_forward(images, first, second, dense):
    features = max_pool_2x2(conv_layer(conv_layer(images, first), second))
    return softmax(features.reshape((images.shape[0], -1)) @ dense, axis=-1)


def digits_cnn(quick):
    batch = 4 if quick else 64
    images = pt.tensor4("images", dtype="float32")
    data = rng().uniform(0, 16, (batch, *CNN_IMAGE_SHAPE)).astype("float32")
    return Case([images], [digits_cnn_forward(images, *digits_cnn_params())], [data])


def logistic_regression(quick):
    n, k = (200, 5) if quick else (10_000, 50)
    gen = rng()
    X = pt.matrix("X")
    y = pt.vector("y")
    w = pt.vector("w")
    p = pt.sigmoid(X @ w)
    nll = -pt.sum(y * pt.log(p) + (1 - y) * pt.log(1 - p))
    data = gen.normal(size=(n, k))
    labels = (gen.uniform(size=n) < 0.5).astype("float64")
    return Case([X, y, w], [nll, pytensor.grad(nll, w)], [data, labels, np.zeros(k)])


def normal_logp(value, mu, sigma):
    return -0.5 * ((value - mu) / sigma) ** 2 - pt.log(sigma) - 0.5 * np.log(2 * np.pi)


def halfnormal_logp(value, sigma):
    return normal_logp(value, 0.0, sigma) + np.log(2.0)


def hierarchical_normal(quick):
    """Log-density and gradient of a non-centred hierarchical normal model.

    Written the way PyMC builds ``logp_dlogp_function``: one flat float64
    vector of unconstrained parameters, log-transformed scales with their
    Jacobian terms, and the observed data baked in as constants.
    """
    n_obs, n_groups = (100, 5) if quick else (5_000, 50)
    gen = rng()
    group = gen.integers(0, n_groups, n_obs)
    observed = gen.normal(1.0 + gen.normal(0, 0.5, n_groups)[group], 1.0)

    q = pt.vector("q")
    mu, log_tau, log_sigma = q[0], q[1], q[2]
    z = q[3:]
    tau, sigma = pt.exp(log_tau), pt.exp(log_sigma)
    theta = mu + tau * z
    logp = (
        normal_logp(mu, 0.0, 10.0)
        + halfnormal_logp(tau, 5.0)
        + log_tau
        + halfnormal_logp(sigma, 5.0)
        + log_sigma
        + normal_logp(z, 0.0, 1.0).sum()
        + normal_logp(pt.constant(observed), theta[group], sigma).sum()
    )
    start = np.concatenate([[0.5, -0.5, 0.1], gen.normal(0, 0.1, n_groups)])
    return Case([q], [logp, pytensor.grad(logp, q)], [start])


def scan_recurrence(quick):
    n_steps, hidden = (10, 4) if quick else (1_000, 16)
    gen = rng()
    W = pt.matrix("W")
    u = pt.matrix("u")
    h0 = pt.vector("h0")
    states = pytensor.scan(
        lambda u_t, h, W: pt.tanh(h @ W + u_t),
        sequences=[u],
        outputs_info=[h0],
        non_sequences=[W],
        return_updates=False,
    )
    args = [
        gen.normal(0, hidden**-0.5, (hidden, hidden)),
        gen.normal(size=(n_steps, hidden)),
        np.zeros(hidden),
    ]
    return Case([W, u, h0], [states[-1], states.sum()], args)


WORKLOADS = [
    Workload("overhead x+1", "x + 1 on a 10-element float64 vector", add_one),
    Workload(
        "overhead x+1 trusted",
        "x + 1 on a 10-element vector with f.trust_input=True",
        add_one,
        trust_input=True,
    ),
    Workload(
        "MLP fwd batch 1",
        "784-512-512-10 float32 MLP, ReLU, softmax",
        mlp_forward_case(1),
    ),
    Workload(
        "MLP fwd batch 256",
        "784-512-512-10 float32 MLP, ReLU, softmax",
        mlp_forward_case(256),
    ),
    Workload(
        "MLP train step",
        "cross-entropy, gradient and SGD updates on shared weights, batch 256",
        mlp_train_step,
    ),
    Workload(
        "digits CNN fwd",
        "8x8 input, two 3x3 convolve2d layers, 2x2 max-pool, dense, batch 64",
        digits_cnn,
    ),
    Workload(
        "logistic NLL+grad",
        "10,000 x 50 float64 negative log-likelihood and gradient",
        logistic_regression,
    ),
    Workload(
        "hierarchical logp+grad",
        "non-centred hierarchical normal, 5,000 obs in 50 groups, float64",
        hierarchical_normal,
    ),
    Workload(
        "scan 1000 steps",
        "h_t = tanh(h_{t-1} W + u_t), hidden 16, float64",
        scan_recurrence,
    ),
    Workload(
        "compile MLP fwd",
        "pytensor.function to first result, MLP forward (fresh graph)",
        mlp_forward_case(1),
        kind="compile",
    ),
    Workload(
        "compile hierarchical",
        "pytensor.function to first result, hierarchical logp+grad (fresh graph)",
        hierarchical_normal,
        kind="compile",
    ),
]
