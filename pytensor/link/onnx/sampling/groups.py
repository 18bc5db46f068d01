"""Groups of chains run in parallel threads, one compiled chunk per thread."""

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from threading import Lock

import numpy as np


def chain_groups(n_chains: int, cores: int) -> list[slice]:
    """The chains of each of ``min(cores, n_chains)`` groups, in order, the
    first groups one chain larger where they cannot all be the same size."""
    if isinstance(cores, bool) or not isinstance(cores, int | np.integer):
        raise TypeError(f"cores must be an integer, got {cores!r}")
    if cores < 1:
        raise ValueError(f"cores must be at least 1, got {cores}")
    n_groups = min(int(cores), n_chains)
    small, extra = divmod(n_chains, n_groups)
    sizes = [small + (i < extra) for i in range(n_groups)]
    stops = np.cumsum(sizes).tolist()
    return [slice(stop - size, stop) for stop, size in zip(stops, sizes, strict=True)]


def group_generators(random_seed, n_groups: int) -> list[np.random.Generator]:
    """One random generator per group: the generator of ``random_seed`` itself
    for one group, else independent generators spawned from it."""
    generator = np.random.default_rng(random_seed)
    return [generator] if n_groups == 1 else generator.spawn(n_groups)


def thread_copies(chunk, count: int) -> tuple[list, float]:
    """``count`` compiled chunks that compute what ``chunk`` computes and can
    run at the same time, and the seconds copying took now: ``chunk`` and
    copies of it (a PyTensor function holds its inputs and outputs in its own
    storage, so one function must not run in two threads at once). The
    copies are kept on ``chunk``."""
    start = time.perf_counter()
    missing = count - 1 - len(chunk.copies)
    for _ in range(missing):
        chunk.copies.append(chunk.copy())
    seconds = time.perf_counter() - start if missing > 0 else 0.0
    return [chunk, *chunk.copies[: count - 1]], seconds


def run_in_threads(tasks):
    """The results of the callables ``tasks``, each run in its own thread
    (in this thread if there is one); the first exception is raised."""
    if len(tasks) == 1:
        return [tasks[0]()]
    with ThreadPoolExecutor(max_workers=len(tasks)) as pool:
        futures = [pool.submit(task) for task in tasks]
        return [future.result() for future in futures]


class Progress:
    """A progress line on standard error for groups of chains advancing at
    their own pace: the draws all groups have made, and the divergences of
    each group's last chunk."""

    def __init__(self, n_groups: int, tune: int, draws: int, enabled: bool):
        self.done = [0] * n_groups
        self.divergences = [0] * n_groups
        self.tune, self.draws, self.enabled = tune, draws, enabled
        self.lock = Lock()

    def update(self, group: int, done: int, stats):
        if not self.enabled:
            return
        with self.lock:
            reported = min(self.done)
            self.done[group] = done
            self.divergences[group] = int(stats["diverging"].sum())
            if min(self.done) > reported:
                report_progress(
                    min(self.done), self.tune, self.draws, sum(self.divergences)
                )

    def close(self):
        if self.enabled:
            print(file=sys.stderr)


def report_progress(done, tune, draws, divergences):
    phase = "warm-up" if done <= tune else "sampling"
    width = 30
    filled = int(width * done / max(tune + draws, 1))
    print(
        f"\rNUTS [{'#' * filled}{'.' * (width - filled)}] {done}/{tune + draws} "
        f"({phase}, {divergences} divergences in the last chunk)",
        end="",
        file=sys.stderr,
        flush=True,
    )
