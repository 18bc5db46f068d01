"""Compile every workload in every backend and time them side by side.

All backends of a workload are timed in the same process, round-robin: each
repeat times every backend once, starting from a different backend each time,
so machine noise is spread over all of them alike.
"""

import gc
import importlib.util
import time
from dataclasses import dataclass
from functools import partial

import numpy as np
from pytensor.compile.mode import Mode, get_default_mode, get_mode
from pytensor.link.vm import VMLinker

import pytensor


ONNX = "ONNX"
RAW = "onnxruntime raw"
DIRECT = "SciPy/NumPy"  # for cases with ``direct``, the same work called directly


@dataclass(frozen=True)
class Backend:
    name: str
    mode: object = None  # for pytensor.function; None is PyTensor's default mode
    raw_onnxruntime: bool = False
    engine: str = ""  # what runs the graph: "ONNX", "C", "Numba", "JAX", "onnxruntime"


def ort_session_options(threads):
    """The ONNX linker's default session options, with ``threads`` intra-op threads.

    ``threads=0`` keeps onnxruntime's own default.
    """
    from pytensor.link.onnx.session import default_session_options

    options = default_session_options()
    if threads:
        options.intra_op_num_threads = threads
    return options


def onnx_mode(threads):
    """``mode="ONNX"``, with the session limited to ``threads`` intra-op threads."""
    if not threads:
        return "ONNX"
    from pytensor.link.onnx import ONNXLinker

    linker = ONNXLinker(session_options=ort_session_options(threads))
    return Mode(linker, get_mode("ONNX").provided_optimizer)


def available_backends(selection=None, threads=0):
    """The backends to compare, and the ones skipped with the reason why.

    ``selection`` keeps only the backends whose lower-cased name starts with
    one of its lower-cased entries (ONNX is always kept).
    """
    default_linker = get_default_mode().linker
    c_is_default = isinstance(default_linker, VMLinker)
    default_engine = (
        "C" if c_is_default else type(default_linker).__name__.removesuffix("Linker")
    )
    backends = [
        Backend(ONNX, onnx_mode(threads), engine=ONNX),
        Backend(f"default ({default_engine})", engine=default_engine),
    ]
    skipped = {}
    if not c_is_default:
        backends.append(
            Backend("C (cvm)", Mode(linker="cvm", optimizer="fast_run"), engine="C")
        )
    if default_engine != "Numba":
        if importlib.util.find_spec("numba") is not None:
            backends.append(Backend("Numba", "NUMBA", engine="Numba"))
        else:
            skipped["Numba"] = "numba is not installed"
    if importlib.util.find_spec("jax") is not None:
        backends.append(Backend("JAX", "JAX", engine="JAX"))
    else:
        skipped["JAX"] = "jax is not installed"
    backends.append(Backend(RAW, raw_onnxruntime=True, engine="onnxruntime"))
    if selection:
        prefixes = tuple(s.lower() for s in selection)
        for backend in backends[1:]:
            if not backend.name.lower().startswith(prefixes):
                skipped[backend.name] = "not selected"
        backends = [b for b in backends if b.name not in skipped]
    return backends, skipped


@dataclass
class Compiled:
    call: object  # zero-argument callable running the workload once
    n_outputs: int
    function: object = None  # the pytensor Function, if any


def compile_pytensor(backend, case, trust_input=False):
    if case.compile_function is None:
        f = pytensor.function(
            case.inputs, case.outputs, updates=case.updates, mode=backend.mode
        )
    else:
        f = case.compile_function(backend.mode)
    f.trust_input = trust_input
    return Compiled(partial(f, *case.args), len(f.maker.outputs), f)


def onnx_node_count(function):
    """Nodes of the ONNX model behind ``function``, counting those of subgraphs.

    ``Loop``, ``Scan`` and ``If`` bodies count with their nodes, not as one.
    """
    import onnx

    def count(graph):
        total = 0
        for node in graph.node:
            total += 1
            for attribute in node.attribute:
                if attribute.type == onnx.AttributeProto.GRAPH:
                    total += count(attribute.g)
                elif attribute.type == onnx.AttributeProto.GRAPHS:
                    total += sum(count(g) for g in attribute.graphs)
        return total

    return count(function.maker.linker.onnx_model.graph)


def compile_raw_onnxruntime(onnx_function, case):
    """``InferenceSession.run`` on the model the ONNX linker built, prebuilt feed."""
    import onnxruntime as ort

    from pytensor.link.onnx.session import (
        DISABLED_OPTIMIZERS,
        default_session_options,
    )

    linker = onnx_function.maker.linker
    model = linker.onnx_model
    session = ort.InferenceSession(
        model.SerializeToString(),
        sess_options=linker.session_options or default_session_options(),
        providers=linker.providers or ["CPUExecutionProvider"],
        disabled_optimizers=list(DISABLED_OPTIMIZERS),
    )
    shared_values = [s.data for s in onnx_function.input_storage[len(case.args) :]]
    values = [*case.args, *shared_values]
    feed = {
        info.name: np.array(v)
        for info, v in zip(model.graph.input, values, strict=True)
    }
    return Compiled(partial(session.run, None, feed), len(onnx_function.maker.outputs))


def compile_backend(backend, case, trust_input=False, onnx_function=None):
    if backend.raw_onnxruntime:
        return compile_raw_onnxruntime(onnx_function, case)
    return compile_pytensor(backend, case, trust_input)


def failure(err):
    """JSON entry for a failure: "unsupported" for missing conversions, else "error"."""
    cause = err
    while cause is not None and not isinstance(cause, NotImplementedError):
        cause = cause.__cause__ or cause.__context__
    message = f"{type(err).__name__}: {str(err).strip()}"
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    reason = lines[0]
    if reason.endswith(":") and len(lines) > 1:
        reason += " " + lines[1]
    return {
        "status": "error" if cause is None else "unsupported",
        "reason": reason,
        "detail": message[:4000],
    }


def needs_onnx(onnx_result):
    """Entry of the raw-onnxruntime backend when the ONNX mode failed."""
    reason = "needs the model of the ONNX mode, which failed"
    return {"status": onnx_result["status"], "reason": reason, "detail": reason}


def time_calls(call, number):
    """Seconds per call, averaged over ``number`` back-to-back calls."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            call()
        return (time.perf_counter() - start) / number
    finally:
        if gc_was_enabled:
            gc.enable()


def calls_per_repeat(call, target_seconds):
    number = 1
    while True:
        per_call = time_calls(call, number)
        if per_call * number >= target_seconds / 5 or number >= 10**6:
            return max(1, min(10**6, round(target_seconds / per_call)))
        number *= 10


def rotated(items, shift):
    shift %= max(len(items), 1)
    return items[shift:] + items[:shift]


def interleaved_samples(calls, repeats, target_seconds):
    """Per-call times of each of ``calls`` (name -> callable), one per repeat."""
    numbers = {
        name: calls_per_repeat(call, target_seconds) for name, call in calls.items()
    }
    samples = {name: [] for name in calls}
    for repeat in range(repeats):
        for name in rotated(list(calls), repeat):
            samples[name].append(time_calls(calls[name], numbers[name]))
    return samples, numbers


def summarize(samples, **extra):
    return {
        "status": "ok",
        "median_s": float(np.median(samples)),
        "p10_s": float(np.percentile(samples, 10)),
        "p90_s": float(np.percentile(samples, 90)),
        "samples_s": [float(s) for s in samples],
        **extra,
    }


def first_results(compiled, case, results):
    """First outputs of every backend, each run from the same shared values.

    A backend that fails here is moved from ``compiled`` into ``results``.
    """
    initial = [(var, var.get_value(borrow=False)) for var, _ in case.updates]
    outputs = {}
    for name, entry in list(compiled.items()):
        for var, value in initial:
            var.set_value(value.copy())
        try:
            outputs[name] = [
                np.array(o, copy=True) for o in entry.call()[: entry.n_outputs]
            ]
        except Exception as err:
            results[name] = failure(err)
            del compiled[name]
    return outputs


def agreement(outputs, reference):
    """ "ok", or how far ``outputs`` are from the reference backend's outputs."""
    for out, ref in zip(outputs, reference, strict=True):
        single = np.float32 in (out.dtype, ref.dtype)
        rtol, atol = (1e-3, 1e-5) if single else (1e-7, 1e-10)
        if out.shape != ref.shape:
            return f"MISMATCH: shape {out.shape} instead of {ref.shape}"
        if not np.allclose(out, ref, rtol=rtol, atol=atol, equal_nan=True):
            with np.errstate(all="ignore"):
                return f"MISMATCH: max abs difference {np.max(np.abs(out - ref)):.3g}"
    return "ok"


def run_runtime_workload(workload, backends, quick, repeats, target_seconds):
    """Median seconds per call of every backend, checked against a baseline."""
    case = workload.build(quick)
    results, compiled = {}, {}
    for backend in backends:
        onnx = compiled.get(ONNX)
        if backend.raw_onnxruntime and onnx is None:
            results[backend.name] = needs_onnx(results[ONNX])
            continue
        try:
            compiled[backend.name] = compile_backend(
                backend, case, workload.trust_input, getattr(onnx, "function", None)
            )
        except Exception as err:
            results[backend.name] = failure(err)

    if getattr(case, "direct", None) is not None:
        compiled[DIRECT] = Compiled(case.direct, len(case.outputs))
    outputs = first_results(compiled, case, results)
    reference = next((n for n in outputs if n not in (ONNX, RAW)), None)
    calls = {name: entry.call for name, entry in compiled.items()}
    samples, numbers = interleaved_samples(calls, repeats, target_seconds)
    for name in compiled:
        check = (
            agreement(outputs[name], outputs[reference]) if reference else "unchecked"
        )
        results[name] = summarize(
            samples[name], calls_per_repeat=numbers[name], check=check
        )
    if ONNX in compiled:
        results[ONNX]["onnx_nodes"] = onnx_node_count(compiled[ONNX].function)
    return {
        name: results[name]
        for name in [b.name for b in backends] + [DIRECT]
        if name in results
    }


def run_compile_workload(workload, backends, quick, repeats):
    """Seconds from ``pytensor.function`` to the first result, fresh graph each time.

    For raw onnxruntime: from ``InferenceSession`` creation to the first result,
    on the model the (untimed) ONNX mode built for the same fresh graph.
    """
    onnx_backend = next(b for b in backends if b.name == ONNX)
    samples = {b.name: [] for b in backends}
    failed = {}
    for repeat in range(repeats):
        for backend in rotated(backends, repeat):
            if backend.name in failed:
                continue
            case = workload.build(quick)
            onnx_function = None
            if backend.raw_onnxruntime:
                try:
                    onnx_function = compile_backend(onnx_backend, case).function
                except Exception as err:
                    failed[backend.name] = needs_onnx(failure(err))
                    continue
            try:
                start = time.perf_counter()
                compile_backend(backend, case, onnx_function=onnx_function).call()
                samples[backend.name].append(time.perf_counter() - start)
            except Exception as err:
                failed[backend.name] = failure(err)
    return {b.name: failed.get(b.name) or summarize(samples[b.name]) for b in backends}


def ratios(results):
    """ONNX time divided by each baseline's time (below 1: ONNX is faster)."""
    onnx = results.get(ONNX, {})
    if onnx.get("status") != "ok":
        return {}
    return {
        name: onnx["median_s"] / result["median_s"]
        for name, result in results.items()
        if name != ONNX and result.get("status") == "ok"
    }


def ratio_to_fastest(ratios_by_backend, backend_names):
    """ONNX time over the fastest of ``backend_names`` (those that ran), or None.

    The fastest baseline has the largest ONNX/baseline ratio.
    """
    measured = [ratios_by_backend[n] for n in backend_names if n in ratios_by_backend]
    return max(measured, default=None)
