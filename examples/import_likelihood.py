"""A likelihood network trained in PyTorch, used as a PyMC likelihood.

    python examples/import_likelihood.py [--retrain] [--draws N]

1. If torch is installed (``pip install torch==2.13.0``) and ``--retrain`` is
   given or no model file exists, train a small network to approximate the
   log-density of a normal distribution, ``log N(x | mu, exp(log_sigma))``,
   and export it with ``torch.onnx.export`` to ``likelihood_net.onnx`` next to
   this script. Otherwise use the committed file.
2. Import it with ``import_onnx`` and build the log-density of 50
   observations as a function of ``(mu, log_sigma)``.
3. Check its gradient against finite differences.
4. With PyMC installed, sample the posterior with NUTS, the network as the
   likelihood (``pm.Potential``); without PyMC, print the log-density and its
   gradient at a few points.
"""

import argparse
from pathlib import Path

import numpy as np
import pytensor.tensor as pt

import pytensor
from pytensor.link.onnx import import_onnx


MODEL_FILE = Path(__file__).with_name("likelihood_net.onnx")
TRUE_MU, TRUE_LOG_SIGMA = 0.5, np.log(0.8)


def train_and_export(path, steps=3000, seed=0):
    """Train an MLP on (mu, log_sigma, x) -> log N(x | mu, sigma); export it."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    net = nn.Sequential(
        nn.Linear(3, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1)
    )
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
    for _ in range(steps):
        mu = torch.empty(512, 1).uniform_(-2, 2)
        log_sigma = torch.empty(512, 1).uniform_(-1.5, 1)
        x = mu + torch.exp(log_sigma) * torch.randn(512, 1) * 1.5
        target = torch.distributions.Normal(mu, torch.exp(log_sigma)).log_prob(x)
        loss = ((net(torch.cat([mu, log_sigma, x], dim=1)) - target) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"trained: mean squared error {loss.item():.4f}")
    example = torch.zeros(1, 3)
    torch.onnx.export(
        net,
        (example,),
        path,
        input_names=["inputs"],
        output_names=["logp"],
        dynamic_axes={"inputs": {0: "batch"}, "logp": {0: "batch"}},
        dynamo=False,
        opset_version=17,
    )


def log_density(theta, observed):
    """Sum of the network's log-likelihood over ``observed``, plus a prior."""
    rows = pt.stack(
        [
            pt.fill(observed, theta[0]),
            pt.fill(observed, theta[1]),
            pt.as_tensor(observed),
        ],
        axis=1,
    )
    net = import_onnx(MODEL_FILE, inputs={"inputs": rows}, float_dtype="float64")
    [logp] = net.outputs
    prior = -0.5 * (theta**2).sum() / 4
    return logp.sum() + prior


def finite_difference_gradient(f, point, step=1e-6):
    gradient = np.zeros_like(point)
    for i in range(point.size):
        shift = np.zeros_like(point)
        shift[i] = step
        gradient[i] = (f(point + shift) - f(point - shift)) / (2 * step)
    return gradient


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--retrain", action="store_true")
    parser.add_argument("--draws", type=int, default=500)
    args = parser.parse_args()
    try:
        import torch  # noqa: F401

        has_torch = True
    except ImportError:
        has_torch = False
    if has_torch and (args.retrain or not MODEL_FILE.exists()):
        train_and_export(MODEL_FILE)
    print(f"network: {MODEL_FILE.name}")

    observed = np.random.default_rng(1).normal(TRUE_MU, np.exp(TRUE_LOG_SIGMA), 50)
    theta = pt.vector("theta")
    logp = log_density(theta, observed)
    logp_and_gradient = pytensor.function([theta], [logp, pytensor.grad(logp, theta)])

    point = np.array([0.2, -0.1])
    value, gradient = logp_and_gradient(point)
    numeric = finite_difference_gradient(lambda p: logp_and_gradient(p)[0], point)
    print(f"log-density at {point}: {value:.4f}")
    print(f"gradient: {gradient}, finite differences: {numeric}")
    assert np.allclose(gradient, numeric, rtol=1e-4, atol=1e-5)

    try:
        import pymc as pm
    except ImportError:
        for candidate in ([0.0, 0.0], [TRUE_MU, TRUE_LOG_SIGMA]):
            value, gradient = logp_and_gradient(np.array(candidate))
            where = ", ".join(f"{v:.3f}" for v in candidate)
            print(f"logp({where}) = {value:.3f}, gradient {gradient}")
        print("PyMC is not installed: skipped NUTS sampling")
        return
    with pm.Model():
        mu = pm.Flat("mu")
        log_sigma = pm.Flat("log_sigma")
        pm.Potential("likelihood", log_density(pt.stack([mu, log_sigma]), observed))
        trace = pm.sample(
            draws=args.draws,
            tune=args.draws,
            chains=2,
            cores=1,
            random_seed=2,
            progressbar=False,
        )
    posterior = trace.posterior
    print(
        f"posterior mean mu {float(posterior['mu'].mean()):.3f} (true {TRUE_MU}), "
        f"log_sigma {float(posterior['log_sigma'].mean()):.3f} "
        f"(true {TRUE_LOG_SIGMA:.3f})"
    )


if __name__ == "__main__":
    main()
