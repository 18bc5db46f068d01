"""Differential fuzzing: random graphs compiled with ``mode="ONNX"`` against the
Python linker.

Hypothesis builds small random graphs (elementwise math, comparisons and
``switch`` with broadcasting, reductions, dimshuffle, reshape, basic and
advanced indexing, set/inc_subtensor, joins, dot, cumsum/cumprod and sort)
over bool, integer and float inputs of rank 0 to 3 whose dims are static or
unknown, and runs each compiled graph on several draws of values full of NaN,
±inf, ±0, huge and tiny numbers and empty dims. The ONNX results must have the
reference's dtypes and shapes and its values (NaN equal to NaN, floats within a
tolerance that allows another summation order); where the reference raises,
ONNX must raise the same exception class.

    bash scripts/run_tests.sh --no-lint tests/link/onnx/test_fuzz.py   # 290 graphs
    bash scripts/run_tests.sh --no-lint -m fuzz_long -o faulthandler_timeout=0 \
        tests/link/onnx/test_fuzz.py

The first command draws the same examples on every run (derandomized, see
conftest.py); the second runs the 10,000-graph fuzz and 2,000 order-dependent
cases on fresh examples (the ``fuzz_long`` marker is deselected by default):
keep each failure it finds as a named regression test in
``test_fuzz_regressions.py``. Constructs with an open bug are kept out of the
generated graphs by `KNOWN_BUGS`: each entry names the regression test in
``test_fuzz_regressions.py`` that shows the bug; remove the entry once the test
passes.
"""

import functools
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from pytensor.compile.mode import Mode

import pytensor
from tests.link.onnx.utils import onnx_mode, py_mode


KNOWN_BUGS: dict[str, tuple[str, ...]] = {
    # feature the strategies avoid: its regression tests in test_fuzz_regressions.py
}


DTYPES = ("bool", "int8", "int32", "int64", "uint8", "float32", "float64")


VALUE_DRAWS_PER_GRAPH = 3


fast_run_py_mode = Mode(linker="py", optimizer="fast_run")


@dataclass
class Term:
    """A variable of the graph and the shape its runtime values have."""

    var: pt.TensorVariable
    shape: tuple

    @property
    def dtype(self):
        return self.var.dtype

    @property
    def ndim(self):
        return len(self.shape)


@dataclass
class FuzzGraph:
    inputs: list = field(default_factory=list)
    terms: list = field(default_factory=list)
    fixed_values: dict = field(default_factory=dict)
    outputs: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    raises: bool = False

    def add_input(self, draw, shape, dtype, static=None):
        if static is None:
            static = tuple(size if draw(st.booleans()) else None for size in shape)
        var = pt.tensor(f"x{len(self.inputs)}", dtype=dtype, shape=static)
        self.inputs.append(var)
        term = Term(var, tuple(shape))
        self.terms.append(term)
        return term

    def add_index_input(self, value):
        """A symbolic int64 scalar whose value is ``value`` in every draw."""
        var = pt.scalar(f"i{len(self.inputs)}", dtype="int64")
        self.inputs.append(var)
        self.fixed_values[var] = np.int64(value)
        return var

    def rtol(self):
        """`TOLERANCE` of the least precise float dtype the graph computes in."""
        return max(TOLERANCE.get(term.dtype, 0) for term in self.terms)

    def __repr__(self):
        return "\n".join(self.steps)


def is_static_one(term, axis):
    return term.var.type.shape[axis] == 1


def broadcast_shape(graph, terms):
    """The shape ``terms`` broadcast to. None if they do not, unless
    mismatched shapes are probed: then the step must raise and ends the graph."""
    ndim = max(term.ndim for term in terms)
    shape = []
    for axis in range(-ndim, 0):
        sizes = {
            term.shape[axis]
            for term in terms
            if term.ndim >= -axis and not is_static_one(term, axis)
        }
        if len(sizes) > 1:
            runtime_broadcast = len(sizes) == 2 and 1 in sizes
            feature = "runtime_broadcast" if runtime_broadcast else "mismatched_shapes"
            if feature in KNOWN_BUGS:
                return None
            graph.raises = True
        shape.append(max(sizes, default=1))
    return tuple(shape)


def is_float(dtype):
    return dtype.startswith("float")


def is_int(dtype):
    return dtype.startswith(("int", "uint"))


def constant_of(draw, dtype):
    if dtype == "bool":
        return np.bool_(draw(st.booleans()))
    if is_int(dtype):
        info = np.iinfo(dtype)
        return np.dtype(dtype).type(draw(st.integers(max(info.min, -3), info.max)))
    value = draw(st.sampled_from([2.0, 0.5, -1.0, 0.0, np.inf, np.nan, 1e-3, 3.0]))
    return np.dtype(dtype).type(value)


UNARY = {
    "neg": pt.neg,
    "abs": pt.abs,
    "exp": pt.exp,
    "log": pt.log,
    "sqrt": pt.sqrt,
    "sin": pt.sin,
    "cos": pt.cos,
    "tanh": pt.tanh,
    "sigmoid": pt.sigmoid,
    "log1p": pt.log1p,
    "expm1": pt.expm1,
    "floor": pt.floor,
    "ceil": pt.ceil,
    "trunc": pt.trunc,
    "round_half_to_even": pt.round_half_to_even,
    "round_half_away_from_zero": pt.round_half_away_from_zero,
    "sign": pt.sign,
    "sqr": pt.sqr,
    "reciprocal": pt.reciprocal,
    "isnan": pt.isnan,
    "isinf": pt.isinf,
    "invert": pt.invert,
}


BINARY = {
    "add": pt.add,
    "sub": pt.sub,
    "mul": pt.mul,
    "true_div": pt.true_div,
    "int_div": pt.int_div,
    "mod": pt.mod,
    "pow": pt.pow,
    "maximum": pt.maximum,
    "minimum": pt.minimum,
    "lt": pt.lt,
    "le": pt.le,
    "gt": pt.gt,
    "ge": pt.ge,
    "eq": pt.eq,
    "neq": pt.neq,
    "and": pt.and_,
    "or": pt.or_,
    "xor": pt.xor,
}


REDUCTIONS = {
    "sum": pt.sum,
    "prod": pt.prod,
    "max": pt.max,
    "min": pt.min,
    "all": pt.all,
    "any": pt.any,
    "mean": pt.mean,
}


def pick(draw, graph, where=lambda term: True):
    candidates = [term for term in graph.terms if where(term)]
    if not candidates:
        return None
    return draw(st.sampled_from(candidates))


def op_unary(draw, graph):
    term = pick(draw, graph)
    name = draw(st.sampled_from(sorted(UNARY)))
    if name in ("neg", "abs", "sign", "sqr") and term.dtype == "bool":
        return None
    if name == "invert" and is_float(term.dtype):
        return None
    return UNARY[name](term.var), term.shape, f"{name}({term.var})"


def op_cast(draw, graph):
    term = pick(draw, graph)
    dtype = draw(st.sampled_from(DTYPES))
    if not (dtype == "bool" or np.can_cast(term.dtype, dtype)):
        return None  # out-of-range casts to integers are undefined (or raise)
    return pt.cast(term.var, dtype), term.shape, f"cast({term.var}, {dtype})"


def op_binary(draw, graph):
    left = pick(draw, graph)
    name = draw(st.sampled_from(sorted(BINARY)))
    if draw(st.integers(0, 3)) == 0:
        dtype = draw(st.sampled_from(DTYPES))
        right_var = pt.constant(constant_of(draw, dtype))
        shape = left.shape
    else:
        right = pick(draw, graph)
        shape = broadcast_shape(graph, [left, right])
        if shape is None:
            return None
        right_var = right.var
    if draw(st.booleans()):
        left_var, right_var = right_var, left.var
    else:
        left_var = left.var
    if name == "pow" and "int_pow_negative_exponent" in KNOWN_BUGS:
        if not (is_float(left_var.dtype) or is_float(right_var.dtype)):
            right_var = (
                pt.maximum(right_var, 0) if right_var.dtype != "bool" else right_var
            )
    return BINARY[name](left_var, right_var), shape, f"{name}({left_var}, {right_var})"


def op_switch(draw, graph):
    cond, left, right = (pick(draw, graph) for _ in range(3))
    shape = broadcast_shape(graph, [cond, left, right])
    if shape is None:
        return None
    return (
        pt.switch(cond.var, left.var, right.var),
        shape,
        f"switch({cond.var}, {left.var}, {right.var})",
    )


def op_reduce(draw, graph):
    term = pick(draw, graph)
    name = draw(st.sampled_from([*sorted(REDUCTIONS), "argmax", "argmin"]))
    if name in ("argmax", "argmin") or draw(st.booleans()):
        axis = draw(st.one_of(st.none(), st.integers(-term.ndim, term.ndim - 1)))
        if term.ndim == 0:
            axis = None
    else:
        axis = tuple(draw(st.sets(st.integers(0, term.ndim - 1))) if term.ndim else ())
    keepdims = draw(st.booleans())
    if axis is None:
        axes = set(range(term.ndim))
    elif isinstance(axis, int):
        axes = {axis % term.ndim}
    else:
        axes = set(axis)
    if name in ("argmax", "argmin", "max", "min") and any(
        term.shape[axis] == 0 for axis in axes
    ):
        if name in ("argmax", "argmin"):
            feature = "arg_reduction_over_empty_axis"
        elif term.dtype == "int64":
            feature = "int64_max_over_empty_axis"
        else:
            feature = None
        if feature in KNOWN_BUGS:
            return None
        graph.raises = True
    shape = tuple(
        (1 if keepdims else None) if i in axes else size
        for i, size in enumerate(term.shape)
    )
    shape = tuple(size for size in shape if size is not None)
    fn = REDUCTIONS.get(name) or getattr(pt, name)
    return (
        fn(term.var, axis=axis, keepdims=keepdims),
        shape,
        f"{name}({term.var}, axis={axis}, keepdims={keepdims})",
    )


def op_dimshuffle(draw, graph):
    term = pick(draw, graph)
    kept = [
        axis
        for axis in range(term.ndim)
        if not (is_static_one(term, axis) and draw(st.booleans()))
    ]
    order = draw(st.permutations(kept))
    for _ in range(draw(st.integers(0, max(0, 3 - len(order))))):
        order.insert(draw(st.integers(0, len(order))), "x")
    shape = tuple(1 if axis == "x" else term.shape[axis] for axis in order)
    return term.var.dimshuffle(order), shape, f"{term.var}.dimshuffle({order})"


def op_reshape(draw, graph):
    term = pick(draw, graph)
    size = math.prod(term.shape)
    ndim = draw(st.integers(0 if size == 1 else 1, 3))
    if ndim == 0:
        shape = ()
    elif size == 0:
        shape = [draw(st.integers(0, 3)) for _ in range(ndim)]
        shape[draw(st.integers(0, ndim - 1))] = 0
    else:
        shape, rest = [], size
        for _ in range(ndim - 1):
            divisor = draw(
                st.sampled_from([d for d in range(1, rest + 1) if rest % d == 0])
            )
            shape.append(divisor)
            rest //= divisor
        shape.append(rest)
        shape = draw(st.permutations(shape))
    target = list(shape)
    if size and ndim and draw(st.booleans()):
        target[draw(st.integers(0, ndim - 1))] = -1
    return term.var.reshape(target), tuple(shape), f"{term.var}.reshape({target})"


def index_bound(draw, graph, value):
    if draw(st.integers(0, 3)) == 0:
        return graph.add_index_input(value), f"i={value}"
    return value, str(value)


def basic_index(draw, graph, term):
    """Indices (ints and slices, maybe symbolic) of ``term`` and the result shape."""
    indices, shape, text = [], [], []
    for size in term.shape[: draw(st.integers(1, term.ndim))]:
        if draw(st.integers(0, 3)) == 0:
            if "out_of_range_index" not in KNOWN_BUGS and draw(st.integers(0, 9)) == 0:
                position = draw(st.sampled_from([size, -size - 1]))
                graph.raises = True
            else:
                position = draw(st.integers(-size, size - 1)) if size else None
            if position is not None:
                index, label = index_bound(draw, graph, position)
                indices.append(index)
                text.append(label)
                continue
        bounds = st.one_of(st.none(), st.integers(-size - 2, size + 2))
        start, stop = draw(bounds), draw(bounds)
        step = draw(st.sampled_from([None, 1, -1, 2, -2, 3]))
        shape.append(len(range(size)[slice(start, stop, step)]))
        parts = []
        for value in (start, stop):
            if value is not None:
                value, label = index_bound(draw, graph, value)
            else:
                label = ""
            parts.append((value, label))
        indices.append(slice(parts[0][0], parts[1][0], step))
        text.append(f"{parts[0][1]}:{parts[1][1]}:{step or ''}")
    rest = term.shape[len(indices) :]
    return tuple(indices), (*shape, *rest), f"[{', '.join(text)}]"


def advanced_index(draw, graph, term, unique=False):
    axis = draw(st.integers(0, term.ndim - 1))
    size = term.shape[axis]
    if draw(st.integers(0, 3)) == 0:
        mask = np.array([draw(st.booleans()) for _ in range(size)], dtype=bool)
        index, index_shape = mask, (int(mask.sum()),)
    else:
        index_shape = draw(st.sampled_from([(0,), (1,), (2,), (4,), (2, 2)]))
        if size == 0 and math.prod(index_shape):
            return None
        count = math.prod(index_shape)
        values = [draw(st.integers(-size, size - 1)) for _ in range(count)]
        if unique and len({value % size for value in values}) < count:
            return None
        if (
            "out_of_range_index" not in KNOWN_BUGS
            and count
            and draw(st.integers(0, 9)) == 0
        ):
            values[-1] = draw(st.sampled_from([size, -size - 1]))
            graph.raises = True
        index = np.array(values, dtype="int64").reshape(index_shape)
    indices = (slice(None),) * axis + (index,)
    shape = (*term.shape[:axis], *index_shape, *term.shape[axis + 1 :])
    colons = ":, " * axis
    return indices, shape, f"[{colons}{index.tolist()}]"


def op_subtensor(draw, graph):
    term = pick(draw, graph, lambda term: term.ndim > 0)
    if term is None:
        return None
    if draw(st.booleans()):
        made = advanced_index(draw, graph, term)
    else:
        made = basic_index(draw, graph, term)
    if made is None:
        return None
    indices, shape, text = made
    return term.var[indices], shape, f"{term.var}{text}"


def op_set_subtensor(draw, graph):
    term = pick(draw, graph, lambda term: term.ndim > 0)
    if term is None:
        return None
    name = draw(st.sampled_from(["set_subtensor", "inc_subtensor"]))
    if draw(st.booleans()):
        made = advanced_index(draw, graph, term, unique=name == "set_subtensor")
    else:
        made = basic_index(draw, graph, term)
    if made is None:
        return None
    indices, target_shape, text = made
    if "set_subtensor_of_zero_size" in KNOWN_BUGS and 0 in target_shape:
        return None
    value_ndim = draw(st.integers(0, len(target_shape)))
    value_shape = tuple(
        1 if draw(st.integers(0, 4)) == 0 else size
        for size in target_shape[len(target_shape) - value_ndim :]
    )
    static = tuple(1 if size == 1 else None for size in value_shape)
    dtype = draw(st.sampled_from(DTYPES))
    if ps.upcast(term.dtype, dtype) != term.dtype:
        return None
    value = graph.add_input(draw, value_shape, dtype, static=static)
    return (
        getattr(pt, name)(term.var[indices], value.var),
        term.shape,
        f"{name}({term.var}{text}, {value.var})",
    )


def op_join(draw, graph):
    first = pick(draw, graph, lambda term: term.ndim > 0)
    if first is None:
        return None
    axis = draw(st.integers(0, first.ndim - 1))
    length = draw(st.integers(0, 3))
    other_shape = (*first.shape[:axis], length, *first.shape[axis + 1 :])
    other = graph.add_input(draw, other_shape, draw(st.sampled_from(DTYPES)))
    parts = [first, other] if draw(st.booleans()) else [other, first, first]
    shape = list(first.shape)
    shape[axis] = sum(part.shape[axis] for part in parts)
    return (
        pt.concatenate([part.var for part in parts], axis=axis),
        tuple(shape),
        f"concatenate({[part.var for part in parts]}, axis={axis})",
    )


def op_dot(draw, graph):
    left = pick(draw, graph, lambda term: term.ndim in (1, 2) and term.dtype != "bool")
    if left is None:
        return None
    right_ndim = draw(st.integers(1, 2))
    right_shape = (left.shape[-1], draw(st.integers(0, 3)))[:right_ndim]
    right_dtype = draw(st.sampled_from([d for d in DTYPES if d != "bool"]))
    right = graph.add_input(draw, right_shape, right_dtype)
    shape = left.shape[:-1] + right_shape[1:]
    return pt.dot(left.var, right.var), shape, f"dot({left.var}, {right.var})"


def op_cumulative(draw, graph):
    # NumPy accumulates smaller integers in int64, PyTensor declares their dtype
    term = pick(draw, graph, lambda term: term.dtype in ("int64", "float32", "float64"))
    if term is None:
        return None
    name = draw(st.sampled_from(["cumsum", "cumprod"]))
    axis = draw(st.one_of(st.none(), st.integers(-term.ndim, term.ndim - 1)))
    if term.ndim == 0:
        axis = None
    shape = (math.prod(term.shape),) if axis is None else term.shape
    return getattr(pt, name)(term.var, axis=axis), shape, f"{name}({term.var}, {axis})"


def op_sort(draw, graph):
    term = pick(draw, graph, lambda term: term.ndim > 0)
    if term is None:
        return None
    axis = draw(st.integers(-term.ndim, term.ndim - 1))
    return pt.sort(term.var, axis=axis), term.shape, f"sort({term.var}, {axis})"


OPERATIONS = [
    op_unary,
    op_cast,
    op_binary,
    op_switch,
    op_reduce,
    op_dimshuffle,
    op_reshape,
    op_subtensor,
    op_set_subtensor,
    op_join,
    op_dot,
    op_cumulative,
    op_sort,
]


@st.composite
def input_shape(draw, sizes):
    return tuple(draw(st.sampled_from(sizes)) for _ in range(draw(st.integers(0, 3))))


@st.composite
def fuzz_graphs(draw, max_operations=4):
    """A `FuzzGraph`: inputs, outputs and the steps that built it."""
    graph = FuzzGraph()
    sizes = draw(st.lists(st.sampled_from([2, 3, 1, 4, 0]), min_size=2, max_size=2))
    sizes.append(1)
    for _ in range(draw(st.integers(1, 2))):
        shape = draw(input_shape(sizes))
        graph.add_input(draw, shape, draw(st.sampled_from(DTYPES)))
    for term in graph.terms:
        graph.steps.append(f"{term.var}: {term.var.type}, shape {term.shape}")
    for _ in range(draw(st.integers(1, max_operations))):
        operation = draw(st.sampled_from(OPERATIONS))
        try:
            made = operation(draw, graph)
        except (TypeError, ValueError, NotImplementedError):
            made = None  # a combination PyTensor's typing rejects
        if made is None:
            graph.raises = False
            continue
        var, shape, text = made
        var.name = f"v{len(graph.terms)}"
        graph.steps.append(f"{var.name} = {text}  # {var.type}, shape {shape}")
        if graph.raises:
            graph.terms.append(Term(var, tuple(shape)))
            break
        assert all(
            static in (None, size)
            for static, size in zip(var.type.shape, shape, strict=True)
        ), graph.steps
        graph.terms.append(Term(var, tuple(shape)))
    produced = [term for term in graph.terms if term.var.owner is not None]
    if not produced:
        produced = graph.terms
    graph.outputs = [produced[-1].var]
    if len(produced) > 1 and draw(st.booleans()):
        graph.outputs.append(draw(st.sampled_from(produced[:-1])).var)
    return graph


FLOAT_SPECIALS = (np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-30)


def random_values(rng, shape, dtype, special_fraction):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    special = rng.random(shape) < special_fraction
    if is_int(dtype):
        info = np.iinfo(dtype)
        small = rng.integers(max(info.min, -4), min(info.max, 5) + 1, shape)
        extreme = rng.choice([info.min, info.max, 0], shape)
        return np.where(special, extreme, small).astype(dtype)
    huge = 1e30 if dtype == "float32" else 1e200
    specials = np.array([*FLOAT_SPECIALS, huge, -huge], dtype=dtype)
    normal = (rng.normal(size=shape) * 3).astype(dtype)
    return np.where(special, rng.choice(specials, shape), normal).astype(dtype)


def value_draws(graph, seed):
    rng = np.random.default_rng(seed)
    draws = []
    for special_fraction in (0.0, 0.3, 0.8)[:VALUE_DRAWS_PER_GRAPH]:
        values = []
        for var in graph.inputs:
            if var in graph.fixed_values:
                values.append(graph.fixed_values[var])
            else:
                shape = next(t.shape for t in graph.terms if t.var is var)
                values.append(random_values(rng, shape, var.dtype, special_fraction))
        draws.append(values)
    return draws


def outcome(fn, values):
    """The results of ``fn`` or the exception it raised."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(*[np.copy(value) for value in values])
    except Exception as exc:
        return exc


TOLERANCE = {"float32": 1e-4, "float64": 1e-10}


def assert_close_outputs(onnx_value, py_value, dtype, rtol, scale=None):
    """Both values have the declared ``dtype``; ``onnx_value`` has the shape of
    ``py_value`` and its values, NaN where NaN, floats within ``rtol`` of
    ``scale``, by default the largest finite value (sums in another order)."""
    onnx_value, py_value = np.asarray(onnx_value), np.asarray(py_value)
    assert py_value.dtype == dtype, ("reference", py_value.dtype, dtype)
    assert onnx_value.dtype == dtype, (onnx_value.dtype, dtype)
    assert onnx_value.shape == py_value.shape, (onnx_value.shape, py_value.shape)
    if py_value.dtype.kind != "f":
        np.testing.assert_array_equal(onnx_value, py_value)
        return
    if scale is None:
        scale = float(np.abs(py_value[np.isfinite(py_value)]).max(initial=1.0))
    np.testing.assert_allclose(onnx_value, py_value, rtol=rtol, atol=rtol * scale)


def compile_graph(graph, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pytensor.function(
            graph.inputs, graph.outputs, mode=mode, on_unused_input="ignore"
        )


def mismatch(graph, expected, got):
    """Why ``got`` (ONNX's outcome) differs from ``expected``, None if it doesn't."""
    if isinstance(expected, Exception):
        if type(got) is type(expected):
            return None
        return f"reference raised {expected!r}, ONNX gave {got!r}"
    if isinstance(got, Exception):
        return f"reference gave {expected!r}, ONNX raised {got!r}"
    for output, onnx_value, py_value in zip(graph.outputs, got, expected, strict=True):
        try:
            assert_close_outputs(onnx_value, py_value, output.dtype, graph.rtol())
        except AssertionError as error:
            return f"{error}\nreference: {expected!r}\nONNX: {got!r}"
    return None


def assert_onnx_matches(graph, seed, reference_modes=(py_mode, fast_run_py_mode)):
    """ONNX's outcome is that of the first reference mode, or else of the second.

    The Python linker without rewrites and with PyTensor's own rewrites differ
    where the rewrites change results (``x - x`` is 0 even for NaN) or where
    the references themselves are wrong (the fused ``Composite`` of the
    rewritten graph raises OverflowError on uint8 ``255 + 255``).
    """
    onnx_fn = compile_graph(graph, onnx_mode)
    reference_fns = [compile_graph(graph, reference_modes[0])]
    for values in value_draws(graph, seed):
        got = outcome(onnx_fn, values)
        problem = mismatch(graph, outcome(reference_fns[0], values), got)
        if problem:
            if len(reference_fns) == 1:
                reference_fns.append(compile_graph(graph, reference_modes[1]))
            if mismatch(graph, outcome(reference_fns[1], values), got) is None:
                problem = None
        assert problem is None, f"{problem}\ngraph:\n{graph}\ninputs: {values!r}"


seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=250, deadline=None)
@given(fuzz_graphs(), seeds)
def test_random_graphs_match_python_linker(graph, seed):
    assert_onnx_matches(graph, seed)


@settings(max_examples=40, deadline=None)
@given(fuzz_graphs(), seeds)
def test_random_graphs_match_rewritten_python_graphs(graph, seed):
    assert_onnx_matches(graph, seed, (fast_run_py_mode, py_mode))


# Ops whose results depend on the order in which numbers are combined, on
# values where the order shows: magnitudes whose products overflow or
# underflow, signed zeros, infinities and NaN at any position. The results
# must be those of NumPy's order (the Python linker, unrewritten or else
# rewritten: PyTensor's rewrites make logsumexp subtract the maximum). Sums,
# means and dots add in onnxruntime's order, not NumPy's pairwise or BLAS
# order, so they are compared within a tolerance scaled by the largest
# finite magnitude among the input values; the values' products and sums
# never pass through subnormal numbers, where NumPy keeps fewer digits.

ORDER_STATIC_SHAPES = ((5,), (2, 4), (3, 1, 2))
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
ORDER_MAGNITUDES = {"float32": (1e-30, 1e30, 3e38), "float64": (1e-200, 1e200, 1e300)}
ORDER_VALUES = (0.0, -0.0, 1.0, -1.0, 1.25, -3.0, 2.0, 0.9, np.inf, -np.inf, np.nan)


@st.composite
def order_dependent_values(draw, shape, dtype):
    magnitudes = ORDER_MAGNITUDES[dtype]
    palette = [*ORDER_VALUES, *magnitudes, *(-m for m in magnitudes)]
    size = math.prod(shape)
    values = draw(st.lists(st.sampled_from(palette), min_size=size, max_size=size))
    return np.array(values, dtype=dtype).reshape(shape)


def order_dependent_ops(x, ndim):
    """(name, output) of each order-dependent Op of ``x`` along each axis."""
    axes = [None, *range(ndim)]
    outputs = [(f"cumsum(axis={a})", pt.cumsum(x, axis=a)) for a in axes]
    outputs += [(f"cumprod(axis={a})", pt.cumprod(x, axis=a)) for a in axes]
    outputs += [(f"prod(axis={a})", pt.prod(x, axis=a)) for a in axes]
    if ndim >= 2:
        outputs.append(("prod(axis=(0, -1))", pt.prod(x, axis=(0, -1))))
    outputs += [(f"sum(axis={a})", pt.sum(x, axis=a)) for a in axes]
    outputs += [(f"logsumexp(axis={a})", pt.logsumexp(x, axis=a)) for a in axes]
    if ndim and x.type.shape[-1] != 1:
        # (PyTensor 3 simplifies x - max(x) to 0 over an axis of static
        # length 1, so its softmax of inf or NaN there is 1, PyTensor 2's NaN)
        outputs.append(("softmax(axis=-1)", pt.special.softmax(x, axis=-1)))
        outputs.append(("log_softmax(axis=-1)", pt.special.log_softmax(x, axis=-1)))
    if ndim:
        outputs.append(
            (
                "dot(x, x.T)",
                pt.dot(x.reshape((-1, x.shape[-1])), x.T.reshape((x.shape[-1], -1))),
            )
        )
        outputs.append(("einsum('...i,...i->...')", pt.einsum("...i,...i->...", x, x)))
    return outputs


ADDS = ("sum", "logsumexp", "softmax", "log_softmax", "dot", "einsum")


def assert_order_dependent_close(name, onnx_value, py_value, values, rtol):
    if name.startswith(ADDS):
        finite = np.abs(values[np.isfinite(values)])
        magnitude = float(finite.max(initial=1.0))
        if name.startswith(("dot", "einsum")):  # sums of products
            magnitude = min(magnitude, math.sqrt(np.finfo(values.dtype).max)) ** 2
        assert_close_outputs(onnx_value, py_value, py_value.dtype, rtol, magnitude)
    else:
        assert_close_outputs(onnx_value, py_value, py_value.dtype, rtol)


@st.composite
def order_dependent_cases(draw):
    dtype = draw(st.sampled_from(["float32", "float64"]))
    # each static shape compiles anew: a few, beside any shape of unknown dims
    static = draw(st.booleans())
    if static:
        shape = draw(st.sampled_from(ORDER_STATIC_SHAPES))
    else:
        shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    values = draw(order_dependent_values(shape, dtype))
    return dtype, shape, static, values


@functools.cache
def order_dependent_functions(dtype, shape):
    """The names of `order_dependent_ops` and their functions compiled with
    mode ONNX and the two references, for ``shape`` (None for unknown dims)."""
    x = pt.tensor("x", dtype=dtype, shape=shape)
    names, outputs = zip(*order_dependent_ops(x, len(shape)), strict=True)
    modes = (onnx_mode, py_mode, fast_run_py_mode)
    return names, [compile_outputs([x], list(outputs), mode) for mode in modes]


def compile_outputs(inputs, outputs, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pytensor.function(inputs, outputs, mode=mode)


# Shrinking is off: the examples are small, and shrinking one that fails in
# several outputs took minutes
@settings(max_examples=40, deadline=None, phases=NO_SHRINK)
@given(order_dependent_cases())
def test_order_dependent_ops_match_numpy_on_extreme_values(case):
    dtype, shape, static, values = case
    names, functions = order_dependent_functions(
        dtype, shape if static else (None,) * len(shape)
    )
    got, *expected = (outcome(fn, [values]) for fn in functions)
    for i, name in enumerate(names):
        problems = []
        for reference in expected:
            try:
                assert_order_dependent_close(
                    name, got[i], reference[i], values, TOLERANCE[dtype]
                )
            except AssertionError as error:
                problems.append(str(error))
        assert len(problems) < len(expected), (name, values, problems[0])


# Fresh examples on every run, unlike the default run's fixed ones: a failure
# prints the graph and values to keep as a regression test.
@pytest.mark.fuzz_long
@settings(max_examples=10_000, deadline=None, derandomize=False, print_blob=True)
@given(fuzz_graphs(max_operations=6), seeds)
def test_random_graphs_match_python_linker_long(graph, seed):
    assert_onnx_matches(graph, seed)


@pytest.mark.fuzz_long
@settings(
    max_examples=2_000,
    deadline=None,
    derandomize=False,
    print_blob=True,
    phases=NO_SHRINK,
)
@given(order_dependent_cases())
def test_order_dependent_ops_match_numpy_on_extreme_values_long(case):
    test_order_dependent_ops_match_numpy_on_extreme_values.hypothesis.inner_test(case)


def test_known_bugs_name_their_regression_tests():
    regressions = (Path(__file__).parent / "test_fuzz_regressions.py").read_text()
    for feature, test_names in KNOWN_BUGS.items():
        for name in test_names:
            assert f"def {name}(" in regressions, (feature, name)
