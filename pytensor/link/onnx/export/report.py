"""Everything that stands between a PyTensor graph and a runnable ONNX model."""

import os
from dataclasses import dataclass, field
from pathlib import Path

import onnx
from pytensor.link.onnx.dispatch.variables import is_sequence, unsupported_type_reason


@dataclass(frozen=True)
class SupportProblem:
    """One reason a graph cannot be exported as is.

    Attributes
    ----------
    kind
        ``"unsupported_op"`` (no converter, or a configuration the converter
        rejects), ``"unsupported_type"`` (a value ONNX cannot carry),
        ``"unsupported_dtype"`` (an Op that cannot be rebuilt in the requested
        ``dtype``), ``"opset"`` (the model cannot be expressed at the requested
        opset) or ``"missing_kernel"`` (the target runtime cannot run an ONNX
        node the graph converts to).
    variable
        The PyTensor variable concerned, as printed (``""`` if unknown).
    op
        The PyTensor Op computing it (``""`` for inputs and constants).
    reason
        What is wrong, in words.
    onnx_op
        For missing kernels: the ONNX operator and the dtype of each of its
        type constraints.
    traceback
        Where the user's code created ``variable``, innermost call last.
    """

    kind: str
    variable: str
    op: str
    reason: str
    onnx_op: str = ""
    onnx_dtypes: dict = field(default_factory=dict)
    traceback: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "variable": self.variable,
            "op": self.op,
            "reason": self.reason,
            "onnx_op": self.onnx_op,
            "onnx_dtypes": dict(self.onnx_dtypes),
            "traceback": list(self.traceback),
        }

    def __str__(self):
        subject = (
            f"{self.variable} (computed by {self.op})" if self.op else self.variable
        )
        where = "".join(f"\n      {line}" for line in self.traceback)
        created = f"\n    created at:{where}" if where else ""
        return f"{subject}: {self.reason}{created}"


@dataclass(frozen=True)
class SupportReport:
    """Every problem found in a graph for one target, opset and dtype.

    Attributes
    ----------
    target
        The runtime checked against (``None``: no kernel check).
    opset
        The opset of the default ONNX domain.
    dtype
        The requested model dtype (``None``: the graph's own dtypes).
    problems
        All the problems, in graph order.
    """

    target: str | None
    opset: int
    dtype: str | None
    problems: tuple[SupportProblem, ...]

    @property
    def ok(self) -> bool:
        """Whether the graph can be exported."""
        return not self.problems

    def to_dict(self) -> dict:
        """The report as plain data (JSON-serialisable)."""
        return {
            "target": self.target,
            "opset": self.opset,
            "dtype": self.dtype,
            "ok": self.ok,
            "problems": [problem.to_dict() for problem in self.problems],
        }

    def __str__(self):
        where = f"opset {self.opset}" + (
            f", target {self.target}" if self.target else ""
        )
        if self.dtype:
            where += f", dtype {self.dtype}"
        if self.ok:
            return f"The graph can be exported to ONNX ({where})."
        lines = [
            f"{len(self.problems)} problem(s) prevent exporting this graph ({where}):"
        ]
        lines += [f"{i}. {problem}" for i, problem in enumerate(self.problems, start=1)]
        return "\n".join(lines)


class UnsupportedGraphError(NotImplementedError):
    """Raised by an export that cannot succeed; carries the whole :class:`SupportReport`."""

    def __init__(self, report: SupportReport):
        self.report = report
        super().__init__(
            f"{report}\nCheck a graph without exporting it with onnx_support_report."
        )


def user_traceback(variable) -> tuple[str, ...]:
    """Where the user's code created ``variable`` (frames inside PyTensor left out)."""
    import pytensor

    backend = str(Path(__file__).parent) + os.sep
    library = (str(Path(pytensor.__file__).parent) + os.sep, backend)
    trace = getattr(getattr(variable, "tag", None), "trace", None) or []
    frames = [tuple(frame)[:4] for frame in (trace[0] if trace else [])]
    if any(str(frame[0]).startswith(backend) for frame in frames):
        return ()  # created while exporting (by a rewrite): no user code
    lines = []
    for filename, lineno, function, code in frames:
        if str(filename).startswith(library):
            continue
        lines.append(f'File "{filename}", line {lineno}, in {function}')
        if code:
            lines.append(f"  {code.strip()}")
    return tuple(lines)


def conversion_problems(error) -> list[SupportProblem]:
    """The problems of an ``ONNXConversionError``."""
    problems = []
    for failure in error.failures:
        op = "" if failure.node is None else str(failure.node.op)
        if unsupported_type_reason(failure.variable) is None:
            kind = "unsupported_op"
        else:
            kind = "unsupported_type"
        problems.append(
            SupportProblem(
                kind=kind,
                variable=str(failure.variable),
                op=op,
                reason=failure.reason,
                traceback=user_traceback(failure.variable),
            )
        )
    return problems


def kernel_problems(gaps, sources) -> list[SupportProblem]:
    """The problems of a target's kernel gaps, attributed to PyTensor nodes."""
    problems = []
    for gap in gaps:
        node = sources.get(gap.node.split("/")[0])
        variable = node.outputs[0] if node is not None else None
        problems.append(
            SupportProblem(
                kind="missing_kernel",
                variable=str(variable) if variable is not None else gap.node,
                op=str(node.op) if node is not None else "",
                reason=gap.reason,
                onnx_op=gap.op_type,
                onnx_dtypes=dict(gap.dtypes),
                traceback=user_traceback(variable),
            )
        )
    return problems


TYPED_LIST_REASON = (
    "typed lists run as ONNX sequences under mode='ONNX', but export_onnx does "
    "not write sequence inputs or outputs yet: pass the elements as separate "
    "tensors, or stack them into one tensor"
)


def typed_list_problems(fgraph) -> tuple[SupportProblem, ...]:
    return tuple(
        SupportProblem(
            kind="unsupported_type",
            variable=str(var),
            op="" if var.owner is None else str(var.owner.op),
            reason=TYPED_LIST_REASON,
            traceback=user_traceback(var),
        )
        for var in (*fgraph.inputs, *fgraph.outputs)
        if is_sequence(var)
    )


def partial_kernel_problems(partial, runtime, opset):
    """The kernel gaps of the convertible part of a graph, at its ``opset``."""
    model = partial.model
    if opset < model.opset_import[0].version:
        return []
    try:
        onnx.checker.check_model(model, full_check=True)
        gaps = runtime.kernel_gaps(model)
    except Exception:
        return []
    return kernel_problems(gaps, partial.sources)


def rebuild_problem(error, dtype) -> SupportProblem:
    """The problem of a graph that cannot be rebuilt in ``dtype`` (a ``RebuildError``)."""
    return SupportProblem(
        kind="unsupported_dtype",
        variable=str(error.node.outputs[0]),
        op=str(error.node.op),
        reason=f"dtype={dtype!r}: {error.reason}",
        traceback=user_traceback(error.node.outputs[0]),
    )
