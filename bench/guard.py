"""The credential guard, measured: catch and refusal rates on the labelled corpora, refusals
on real dialogue, and what it adds to ``remember``.

Usage:
    .venv/bin/python bench/guard.py [--repeat K]

1. ``tests/guard_corpus.py`` (the rules were tuned on it), ``tests/guard_heldout.py`` and
   ``tests/guard_check.py`` (each written separately and first measured once the rules were
   done, then used to widen them, so no longer held out; the README gives the first
   figures), and ``tests/guard_attack.py`` (a hostile tester's, first measured once all
   that was done), ``tests/guard_review.py`` (a later review's finds, the rules then
   changed against it) and ``tests/guard_fresh.py`` (written apart from all of them, first
   measured after that change): credentials caught and ordinary sentences refused, each miss and
   refusal listed.
2. Every message of ``../shared/corpora`` that mentions password, token, secret, key, clave,
   senha or Passwort (cut to 4,000 characters, a memory's limit): how many are refused
   (skipped without ``../shared``).
3. ``remember`` p50 on a fresh database with the guard and on another with the guard
   switched off, the same ordinary contents alternating between the two in one run: the
   difference is what the guard adds. Also the guard's own p50 on those contents.
4. The guard on a text of one repeated shape (``tests/test_guard.py``'s, which once took it
   time growing with the square of the length), at 4,000 characters (a memory's limit) and
   at 64,000: the time of each, and their ratio (16 when the guard is linear).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.timing import seconds  # noqa: E402
from memstore import MemoryService  # noqa: E402
from memstore.guard import reject_secrets, secret_kind  # noqa: E402
from tests.test_guard import LABELLED_CORPORA, REPEATED_SHAPES, corpus_messages  # noqa: E402

SHARED = REPO.parent / "shared"


def rates(name: str, corpus: ModuleType) -> list[str]:
    """The corpus's lines: caught, refused, and each miss and refusal."""
    missed = [(kind, text) for kind, text in corpus.CREDENTIALS if secret_kind(text) is None]
    refused = [(lang, text) for lang, text in corpus.ORDINARY if secret_kind(text) is not None]
    total, ordinary = len(corpus.CREDENTIALS), len(corpus.ORDINARY)
    lines = [
        f"{name}: {total - len(missed)} of {total} credentials caught "
        f"({(total - len(missed)) / total:.1%}), {len(refused)} of {ordinary} ordinary "
        f"sentences refused ({len(refused) / ordinary:.1%})"
    ]
    lines += [f"  missed {kind}: {text[:70]!r}" for kind, text in missed]
    lines += [f"  refused ({lang}): {text[:70]!r}" for lang, text in refused]
    return lines


def real_dialogue() -> list[str]:
    """The line of real corpus messages refused."""
    if not (SHARED / "corpora").is_dir():
        return ["real dialogue: skipped (no ../shared/corpora)"]
    messages = corpus_messages(SHARED / "corpora")
    refused = [m for m in messages if secret_kind(m) is not None]
    return [f"real dialogue: {len(refused)} of {len(messages)} messages mentioning credentials "
            "refused"] + [f"  refused: {m[:70]!r}" for m in refused]  # fmt: skip


def ms(call: Callable[[], object]) -> float:
    """Wall-clock milliseconds one call of ``call`` takes."""
    return seconds(call) * 1000


@contextmanager
def guard_off() -> Iterator[None]:
    """The body with the guard switched off: every memstore module that calls
    ``reject_secrets`` by name (wherever the service's code puts that call) gets a no-op."""
    holders = [
        module
        for name, module in list(sys.modules.items())
        if name.startswith("memstore.")
        and getattr(module, "reject_secrets", None) is reject_secrets
    ]
    for module in holders:
        module.reject_secrets = lambda *_: None  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module in holders:
            module.reject_secrets = reject_secrets  # type: ignore[attr-defined]


def remember_cost(repeat: int) -> list[str]:
    """The p50 of remember with and without the guard, and of the guard alone."""
    ordinary = LABELLED_CORPORA["tuning"].ORDINARY + LABELLED_CORPORA["held-out"].ORDINARY
    contents = [text for _, text in ordinary]
    work = Path(tempfile.mkdtemp(prefix="memstore-guard-"))
    guarded, unguarded = MemoryService(work / "on.sqlite3"), MemoryService(work / "off.sqlite3")
    guarded.health(), unguarded.health()
    on: list[float] = []
    off: list[float] = []
    alone: list[float] = []
    for round_ in range(repeat):
        for index, text in enumerate(contents):
            content = f"{text} ({round_}.{index})"  # new content each time: no duplicate reuse
            on.append(ms(lambda c=content: guarded.remember(c)))
            with guard_off():
                off.append(ms(lambda c=content: unguarded.remember(c)))
            alone.append(ms(lambda c=content: secret_kind(c)))
    p50_on, p50_off = statistics.median(on), statistics.median(off)
    return [
        f"remember p50: {p50_on:.3f} ms with the guard, {p50_off:.3f} ms without; the guard "
        f"adds {p50_on - p50_off:.3f} ms (its own p50: {statistics.median(alone):.3f} ms, "
        f"{len(on)} calls each)"
    ]


def repeated_shapes() -> list[str]:
    """The guard's time on each repeated shape at 4,000 and 64,000 characters."""
    lines = []
    for shape in REPEATED_SHAPES:
        short, long = ((shape * (n // len(shape) + 1))[:n] for n in (4_000, 64_000))
        short_s, long_s = (seconds(functools.partial(secret_kind, text)) for text in (short, long))
        lines.append(
            f"guard on {shape!r} repeated: {short_s * 1000:.1f} ms at 4,000 characters, "
            f"{long_s * 1000:.1f} ms at 64,000 ({long_s / short_s:.1f}x the time for 16x the text)"
        )
    return lines


def main() -> None:
    """Print every measurement."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds over the contents")
    args = parser.parse_args()
    lines = [
        *(
            line
            for name, corpus in LABELLED_CORPORA.items()
            for line in rates(f"{name} corpus", corpus)
        ),
        *real_dialogue(),
        *remember_cost(args.repeat),
        *repeated_shapes(),
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
