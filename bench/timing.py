"""Clocks: one call's seconds, interleaved p50s, medians, and the run's step times."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager

Call = Callable[[], object]


def seconds(call: Call) -> float:
    """Wall-clock seconds one call of ``call`` takes."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def median_ms(times: Iterable[float]) -> float:
    """The median of ``times`` (seconds), in milliseconds."""
    return statistics.median(times) * 1000


def p50s_ms(calls: Sequence[Call], repeat: int, reset: Call | None = None) -> list[float]:
    """Median milliseconds of each of ``calls`` over ``repeat`` rounds, after one warm-up;
    ``reset``, when given, runs before each timed call, off the clock.

    The calls alternate within each round, so load from other processes on the machine
    falls on all of them alike rather than on whichever ran during a busy spell.
    """
    for call in calls:
        call()
    rounds = [[reset_then_time(call, reset) for call in calls] for _ in range(repeat)]
    return [median_ms(column) for column in zip(*rounds, strict=True)]


def reset_then_time(call: Call, reset: Call | None) -> float:
    """``reset()`` (when given), then the seconds ``call`` takes."""
    if reset is not None:
        reset()
    return seconds(call)


def paired_seconds(pairs: Iterable[tuple[Call, Call]]) -> tuple[list[float], list[float]]:
    """The seconds of each pair's first call and of its second, the two called in turn."""
    firsts: list[float] = []
    others: list[float] = []
    for first, second in pairs:
        firsts.append(seconds(first))
        others.append(seconds(second))
    return firsts, others


class Steps:
    """Wall-clock time of each step of the run, printed to stderr as each one ends."""

    def __init__(self) -> None:
        self.times: list[tuple[str, float]] = []

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Time the body as the step ``name``."""
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        yield
        elapsed = time.perf_counter() - start
        self.times.append((name, elapsed))
        print(f"bench: {name} took {elapsed:.1f} s", file=sys.stderr, flush=True)

    def line(self) -> str:
        """One report line: each step's seconds and the total."""
        steps = ", ".join(f"{name} {seconds:.1f}" for name, seconds in self.times)
        total = sum(seconds for _, seconds in self.times)
        return f"steps (s): {steps}; total {total:.1f}"
