"""Recurrent layers: RNN, GRU and LSTM, each direction a PyTensor ``Scan``."""

import pytensor.tensor as pt

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype, like
from pytensor.link.onnx.importer.ops.control_flow import like_state, scan


ACTIVATIONS = {
    "relu": lambda x, a, b: pt.maximum(x, like(0, x)),
    "tanh": lambda x, a, b: pt.tanh(x),
    "sigmoid": lambda x, a, b: pt.sigmoid(x),
    "affine": lambda x, a, b: like(a, x) * x + like(b, x),
    "leakyrelu": lambda x, a, b: pt.switch(x < 0, like(a, x) * x, x),
    "thresholdedrelu": lambda x, a, b: pt.switch(x > like(a, x), x, like(0, x)),
    "scaledtanh": lambda x, a, b: like(a, x) * pt.tanh(like(b, x) * x),
    "hardsigmoid": lambda x, a, b: pt.clip(like(a, x) * x + like(b, x), 0, 1),
    "elu": lambda x, a, b: pt.switch(x < 0, like(a, x) * pt.expm1(x), x),
    "softsign": lambda x, a, b: x / (1 + pt.abs(x)),
    "softplus": lambda x, a, b: pt.softplus(x),
}
DEFAULT_ALPHA = {
    "leakyrelu": 0.01,
    "thresholdedrelu": 1.0,
    "hardsigmoid": 0.2,
    "elu": 1.0,
}
DEFAULT_BETA = {"hardsigmoid": 0.5}


def activations(node, defaults, n_directions):
    """One list of activation functions per direction."""
    names = [n.lower() for n in node.attr("activations", [])] or defaults * n_directions
    alphas = list(node.attr("activation_alpha", []))
    betas = list(node.attr("activation_beta", []))
    functions = []
    for i, name in enumerate(names):
        alpha = alphas[i] if i < len(alphas) else DEFAULT_ALPHA.get(name, 1.0)
        beta = betas[i] if i < len(betas) else DEFAULT_BETA.get(name, 0.0)
        functions.append(lambda x, f=ACTIVATIONS[name], a=alpha, b=beta: f(x, a, b))
    per_direction = len(functions) // n_directions
    return [
        functions[d * per_direction : (d + 1) * per_direction]
        for d in range(n_directions)
    ]


class Layer:
    """The inputs of a recurrent node, time-major, split by direction."""

    def __init__(self, node, x, w, r, b, lengths, initial, n_gates):
        self.layout = node.attr("layout", 0)
        self.x = x.dimshuffle(1, 0, 2) if self.layout else x
        self.hidden = node.attr("hidden_size") or r.shape[-1]
        direction = node.attr("direction", "forward")
        self.reverse = {
            "forward": [False],
            "reverse": [True],
            "bidirectional": [False, True],
        }[direction]
        self.w, self.r = w, r
        steps, batch = self.x.shape[0], self.x.shape[1]
        if b is None:
            b = pt.zeros((len(self.reverse), 2 * n_gates * self.hidden), dtype=x.dtype)
        self.b = b
        if lengths is None:
            lengths = pt.alloc(steps, batch)
        self.lengths = as_dtype(lengths, "int64")
        self.clip = node.attr("clip")
        self.initial = [
            pt.zeros((len(self.reverse), batch, self.hidden), dtype=x.dtype)
            if s is None
            else s
            for s in initial
        ]

    def time_index(self, reverse):
        steps = pt.arange(self.x.shape[0])[:, None]
        if not reverse:
            return pt.broadcast_to(steps, (self.x.shape[0], self.x.shape[1]))
        return pt.switch(
            steps < self.lengths[None, :], self.lengths[None, :] - 1 - steps, steps
        )

    def clipped(self, gates):
        if self.clip is None:
            return gates
        return pt.clip(gates, like(-self.clip, gates), like(self.clip, gates))

    def run(self, cell):
        """``Y``, then the final states, for ``cell(d, gates_x, states) -> states``."""
        outputs, finals = [], []
        batch = pt.arange(self.x.shape[1])[None, :]
        for d, reverse in enumerate(self.reverse):
            index = self.time_index(reverse)
            x = self.x[index, batch]
            mask = pt.arange(self.x.shape[0])[:, None] < self.lengths[None, :]
            gates_x = pt.dot(x, self.w[d].T) + self.b[d, : self.w.shape[1]]

            def step(g, m, *states, d=d):
                new = cell(d, g, states)
                return [
                    like_state(pt.switch(m[:, None], n, s), s)
                    for n, s in zip(new, states, strict=True)
                ]

            histories = scan(
                step, [s[d] for s in self.initial], self.x.shape[0], [gates_x, mask]
            )
            y = pt.switch(mask[:, :, None], histories[0], like(0, histories[0]))
            outputs.append(y[index, batch])
            finals.append([h[-1] for h in histories])
        y = pt.stack(outputs, axis=1)
        states = [pt.stack([f[i] for f in finals]) for i in range(len(finals[0]))]
        if self.layout:
            y = y.dimshuffle(2, 0, 1, 3)
            states = [s.dimshuffle(1, 0, 2) for s in states]
        return [y, *states]


def split_rows(x, n):
    size = x.shape[0] // n
    return [x[i * size : (i + 1) * size] for i in range(n)]


def split_gates(x, n):
    size = x.shape[-1] // n
    return [x[..., i * size : (i + 1) * size] for i in range(n)]


@onnx_op("RNN")
def rnn(node, x, w, r, b=None, lengths=None, initial_h=None):
    layer = Layer(node, x, w, r, b, lengths, [initial_h], 1)
    functions = activations(node, ["tanh"], len(layer.reverse))

    def cell(d, gates_x, states):
        [h] = states
        recurrent = pt.dot(h, layer.r[d].T) + layer.b[d, layer.w.shape[1] :]
        return [functions[d][0](layer.clipped(gates_x + recurrent))]

    return layer.run(cell)


@onnx_op("GRU")
def gru(node, x, w, r, b=None, lengths=None, initial_h=None):
    layer = Layer(node, x, w, r, b, lengths, [initial_h], 3)
    functions = activations(node, ["sigmoid", "tanh"], len(layer.reverse))
    before_reset = node.attr("linear_before_reset", 0)

    def cell(d, gates_x, states):
        [h] = states
        f, g = functions[d]
        rz, rr, rh = split_rows(layer.r[d], 3)
        bz, br, bh = split_gates(layer.b[d, layer.w.shape[1] :], 3)
        xz, xr, xh = split_gates(gates_x, 3)
        z = f(layer.clipped(xz + pt.dot(h, rz.T) + bz))
        reset = f(layer.clipped(xr + pt.dot(h, rr.T) + br))
        if before_reset:
            candidate = xh + reset * (pt.dot(h, rh.T) + bh)
        else:
            candidate = xh + pt.dot(reset * h, rh.T) + bh
        candidate = g(layer.clipped(candidate))
        return [(1 - z) * candidate + z * h]

    return layer.run(cell)


@onnx_op("LSTM")
def lstm(node, x, w, r, b=None, lengths=None, initial_h=None, initial_c=None, p=None):
    layer = Layer(node, x, w, r, b, lengths, [initial_h, initial_c], 4)
    functions = activations(node, ["sigmoid", "tanh", "tanh"], len(layer.reverse))
    couple = node.attr("input_forget", 0)

    def cell(d, gates_x, states):
        h, c = states
        f, g, out = functions[d]
        gates = gates_x + pt.dot(h, layer.r[d].T) + layer.b[d, layer.w.shape[1] :]
        gi, go, gf, gc = split_gates(gates, 4)
        pi, po, pf = split_gates(p[d], 3) if p is not None else (0, 0, 0)
        i = f(layer.clipped(gi + pi * c))
        forget = 1 - i if couple else f(layer.clipped(gf + pf * c))
        c_new = forget * c + i * g(layer.clipped(gc))
        o = f(layer.clipped(go + po * c_new))
        return [o * out(c_new), c_new]

    y, h, c = layer.run(cell)
    return [y, h, c]
