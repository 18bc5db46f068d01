"""Workloads of imported ONNX models: the example's likelihood network.

``examples/likelihood_net.onnx`` (trained in PyTorch, exported with
torch.onnx) imported with ``import_onnx`` as the log-likelihood of N
observations; the workload is its log-density and gradient with respect to
the two parameters, as NUTS evaluates it.
"""

from pathlib import Path

import numpy as np
import pytensor.tensor as pt
from workloads import Case, Workload, rng

import pytensor
from pytensor.link.onnx import import_onnx


NETWORK = Path(__file__).parents[1] / "examples" / "likelihood_net.onnx"


def imported_likelihood(quick):
    n = 20 if quick else 1_000
    observed = rng().normal(0.5, 0.8, n)
    theta = pt.vector("theta")
    rows = pt.stack(
        [
            pt.fill(observed, theta[0]),
            pt.fill(observed, theta[1]),
            pt.as_tensor(observed),
        ],
        axis=1,
    )
    net = import_onnx(NETWORK, inputs={"inputs": rows}, float_dtype="float64")
    logp = net.outputs[0].sum() - 0.125 * (theta**2).sum()
    return Case([theta], [logp, pytensor.grad(logp, theta)], [np.array([0.2, -0.1])])


IMPORT_WORKLOADS = [
    Workload(
        "imported likelihood logp+grad",
        "torch-trained 3-64-64-1 tanh MLP imported from ONNX, 1,000 obs, float64",
        imported_likelihood,
    ),
]
