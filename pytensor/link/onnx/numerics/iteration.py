"""Iterations that run until each element converges, in one ONNX ``Loop``
over all elements, and the flattening that lets them take any shape."""

from pytensor.link.onnx.value import Value, where


def converge(step, fixed, state: dict, done: Value, max_iterations: int, hint: str):
    """Iterate ``step`` on the float64 vectors ``state`` until every element converges.

    Parameters
    ----------
    step
        ``step(iteration, *fixed, **state)`` returns the next state (a dict)
        and where it has converged; ``iteration`` counts from 0, in float64.
    fixed
        Values the step reads, unchanged by the iteration.
    state
        The initial state, float64 vectors by name.
    done
        Where the elements are converged from the start (a bool vector).
    max_iterations
        The most steps the ``Loop`` runs, like Cephes' loops.
    hint
        A name for the ``Loop`` and its body.

    Returns
    -------
    list of Value
        The final state, in the order of ``state``, and where each element
        converged (or was ``done``). An element freezes once converged; the
        loop ends when all have.
    """
    body = done.builder.loop_body(f"{hint}_body")
    iteration = body.value(body.inputs[0].name, "int64").cast("float64")
    old = {
        name: body.value(body.add_input(name, "float64", (None,)), "float64")
        for name in state
    }
    old_done = body.value(body.add_input("done", "bool", (None,)), "bool", "float64")
    inner_fixed = [value.into(body) for value in fixed]
    new, converged = step(iteration, *inner_fixed, **old)
    new_done = old_done | converged
    body.add_output((~new_done).any().name, "more", "bool", ())
    for name in state:
        frozen = where(old_done, old[name], new[name])
        body.add_output(frozen.name, name, "float64", (None,))
    body.add_output(new_done.name, "done", "bool", (None,))
    return done.apply_multi(
        "Loop",
        done.indices(max_iterations),
        (~done).any(),
        *state.values(),
        done,
        dtypes=["float64"] * len(state) + ["bool"],
        body=body.make_graph(),
        hint=hint,
    )


def flat_elementwise(function):
    """``function`` of vectors applied to broadcast arguments of any shape."""

    def flat(*args):
        total = args[0]
        for arg in args[1:]:
            total = total + arg
        shape = total.shape()
        vectors = [arg.expand(shape).reshape(arg.indices([-1])) for arg in args]
        return function(*vectors).reshape(shape)

    return flat
