"""Write small ONNX files exported by torch.onnx, and their expected outputs.

    python scripts/make_import_fixtures.py   # needs torch (not a test dependency)

Each model ``name`` becomes ``tests/link/onnx/fixtures/name.onnx`` and
``name.npz`` (the inputs ``input_*`` and torch's outputs ``output_*``). The
files are committed, so the tests need no torch.
"""

from pathlib import Path

import numpy as np
import torch
from torch import nn


FIXTURES = Path(__file__).parents[1] / "tests/link/onnx/fixtures"
torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 16)
        self.out = nn.Linear(16, 2)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv(x)))
        return torch.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


class GRUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 5, batch_first=True)
        self.head = nn.Linear(5, 1)

    def forward(self, x):
        outputs, last = self.gru(x)
        return self.head(outputs), last


class LoopRNN(nn.Module):
    """An Elman RNN written as a Python loop: scripted, it exports as ``Loop``."""

    def __init__(self):
        super().__init__()
        self.input = nn.Linear(3, 4)
        self.recurrent = nn.Linear(4, 4, bias=False)

    def forward(self, x):
        h = torch.zeros(x.shape[1], 4)
        for t in range(x.shape[0]):
            h = torch.tanh(self.input(x[t]) + self.recurrent(h))
        return h


class Branch(nn.Module):
    """A data-dependent branch: scripted, it exports as ``If``."""

    def forward(self, x):
        if x.sum() > 0:
            y = x * 2 + 1
        else:
            y = -x
        return y


def save(name, model, inputs, *, script=False, dynamo=False, **export_options):
    model.eval()
    FIXTURES.mkdir(parents=True, exist_ok=True)
    path = FIXTURES / f"{name}.onnx"
    exported = torch.jit.script(model) if script else model
    torch.onnx.export(exported, inputs, path, dynamo=dynamo, **export_options)
    with torch.no_grad():
        outputs = model(*inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    arrays = {f"input_{i}": x.numpy() for i, x in enumerate(inputs)}
    arrays |= {f"output_{i}": y.numpy() for i, y in enumerate(outputs)}
    np.savez(FIXTURES / f"{name}.npz", **arrays)
    print(f"{path.name}: {path.stat().st_size} bytes")


def main():
    save("mlp_batch1", MLP(), (torch.randn(1, 4),), opset_version=13)
    save("cnn", CNN(), (torch.randn(2, 1, 8, 8),), dynamo=True, opset_version=18)
    save("gru", GRUNet(), (torch.randn(2, 6, 3),), opset_version=14)
    save("loop_rnn", LoopRNN(), (torch.randn(5, 2, 3),), script=True, opset_version=14)
    save("branch", Branch(), (torch.randn(3),), script=True, opset_version=14)


if __name__ == "__main__":
    main()
