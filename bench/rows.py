"""The report's table: its rows (memstore against raw, with the ratio and its target) and
everything one run measured, which they are read from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from bench.cases import Query
from bench.context import ContextTimes
from bench.fidelity import Fidelity
from bench.imports import ImportTimes
from bench.peak import PeakMemory
from bench.recall import RecallTimes
from bench.records import RecordTimes
from bench.remember import RememberTimes
from bench.startup import StartupTimes
from bench.words import InstancesTimes, WordsTimes
from memstore.schemas import HealthReport

FORMATS = {"rate": (",.0f", "> 1"), "time": (".2f", "< 1.3"), "memory": (".1f", "")}


def table(rows: Sequence[Sequence[str]]) -> str:
    """Rows as plain text, first column left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


@dataclass(frozen=True)
class Row:
    """One table row: memstore and raw values of a throughput ("rate"), a latency ("time")
    or a peak memory ("memory"); the ratio is always memstore / raw."""

    label: str
    memstore: float
    raw: float
    kind: str
    target: str | None = None
    """The ratio aimed at, when it is not the kind's (see :data:`FORMATS`)."""

    def ratio(self) -> float:
        """memstore / raw."""
        return self.memstore / self.raw

    def slow(self) -> bool:
        """True for a latency over 1.3 times the raw path's."""
        return self.kind == "time" and self.ratio() > 1.3

    def cells(self) -> list[str]:
        """The printed cells: label, both values, ratio, target (none for memory)."""
        value, target = FORMATS[self.kind]
        return [
            self.label,
            format(self.memstore, value),
            format(self.raw, value),
            f"{self.ratio():.2f}",
            target if self.target is None else self.target,
        ]


class Paired(Protocol):
    """A step's p50 milliseconds, memstore and raw."""

    @property
    def memstore_ms(self) -> float: ...

    @property
    def raw_ms(self) -> float: ...


def own_statements(case: Query) -> str:
    """The label of the row of a recall case against memstore's own statements replayed."""
    return f"recall {case.label} / own statements"


def p50(label: str, times: Paired) -> Row:
    """The p50 row ``label`` of a step's memstore and raw milliseconds."""
    return Row(f"{label} p50 ms", times.memstore_ms, times.raw_ms, "time")


@dataclass
class Results:
    """Everything one run measured."""

    times: ImportTimes
    checked: HealthReport
    """``check`` of memstore's database after its import."""
    recalls: list[RecallTimes]
    fidelity: Fidelity
    words: WordsTimes
    instances: list[InstancesTimes]
    records: RecordTimes
    remembers: RememberTimes
    contexts: ContextTimes
    peak: PeakMemory
    startup: StartupTimes

    def rows(self) -> list[Row]:
        """The table's rows, in the order of the run."""
        label = f"import msgs/s, then check {'ok' if self.checked.ok else 'FAILED'}"
        rows = [Row(label, *self.times.rates(), "rate", ">= 1.6 (20k), 1.3 (1M)")]
        rows += [p50(own_statements(r.case), r) for r in self.recalls]
        rows += [
            Row(
                f"recall {r.case.label} / plain query p50 ms",
                r.memstore_ms,
                r.plain_ms,
                "time",
                recall_target(r.case),
            )
            for r in self.recalls
        ]
        rows.append(replace(p50("search_words", self.words), target="<= 1.3"))
        rows += [
            replace(p50(f"word_instances {case.label}", case), target="<= 1.3")
            for case in self.instances
        ]
        rows.append(p50("record_message", self.records))
        rows.append(p50("remember", self.remembers))
        rows.append(p50("context", self.contexts))
        rows.append(Row("import 16 MiB log peak MiB", *self.peak.net(), "memory"))
        return rows + startup_rows(self.startup)


def recall_target(case: Query) -> str:
    """Issue 18's target for the case: 0.5 for a window, 1.5 without filters; none for a
    role, which the issue names no target for."""
    if case.window is not None:
        return "<= 0.5"
    return "-" if case.role is not None else "<= 1.5"


def startup_rows(startup: StartupTimes) -> list[Row]:
    """The start-up rows: ``--help`` and a recall, against ``import sqlite3``."""
    return [
        Row(f"{command} / import sqlite3 p50 ms", ms, startup.sqlite_ms, "time", target)
        for command, ms, target in (
            ("memstore --help", startup.help_ms, "<= 2"),
            ("memstore recall WORD", startup.recall_ms, "<= 3"),
        )
    ]
