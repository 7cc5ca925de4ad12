"""LoCoMo recall@8 (and LongMemEval_S, a second check): memstore's recall against two bm25
baselines over single turns, each measured two ways.

Usage:
    .venv/bin/python eval/locomo.py [--out DIR] [--conversations conv-26,conv-30] [--limit 8]
                                    [--longmemeval]

Steps, all in one run:

1. Write the LoCoMo and LongMemEval daily logs and questions with
   ``../shared/tools/corpus2logs.py`` into ``--out`` (a temporary folder by default; an
   existing ``OUT/locomo/qa.jsonl`` is reused).
2. Import each conversation's folder into its own fresh database with
   ``MemoryService.import_markdown`` (its SPEAKERS mapping, ``include_tail=True``).
3. For every question with evidence and a category other than 5 (adversarial), run
   ``recall(question, limit=8)`` with the default budgets. **matched**: an evidence source
   reference among the matched messages; **seen**: among every message returned (the
   matched ones and their pair partners).
4. The baselines, in the same run, over the conversation's single turns (see
   ``eval/baselines.py``): plain bm25, and careful bm25 (Snowball stems, stopwords dropped,
   the speaker's name in each turn). matched: an evidence turn among the top 8; seen: among
   the top 8 and each one's pair partner.
5. Print both measures overall and per category, for all ten conversations, for the tuning
   set (conv-26 to conv-44) and for the check set (conv-47 to conv-50); with
   ``--longmemeval``, the same for the 30 LongMemEval_S haystacks (never tuned on); and the
   run time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from baselines import Ranker, Turn, ranker

from memstore.errors import InvalidQuery
from memstore.service import MemoryService

REPO = Path(__file__).resolve().parent.parent
CORPUS2LOGS = REPO.parent / "shared" / "tools" / "corpus2logs.py"
TUNING = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43", "conv-44")
CHECK = ("conv-47", "conv-48", "conv-49", "conv-50")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
ADVERSARIAL = 5
SETS = (("all", TUNING + CHECK), ("tuning 26-44", TUNING), ("check 47-50", CHECK))
SIDES = ("memstore", "bm25", "careful bm25")


@dataclass(frozen=True)
class Question:
    """One LoCoMo question with its evidence as absolute source references."""

    conversation: str
    text: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class Outcome:
    """For one question, whether each side (:data:`SIDES`) found evidence: (matched, seen)."""

    question: Question
    found: dict[str, tuple[bool, bool]]


def corpus(out: Path) -> Path:
    """``out`` holding the LoCoMo logs, written by corpus2logs.py unless already there."""
    if not (out / "locomo" / "qa.jsonl").exists():
        if not CORPUS2LOGS.exists():
            sys.exit(f"{CORPUS2LOGS} is missing: the eval needs ../shared beside the repo")
        subprocess.run([sys.executable, str(CORPUS2LOGS), str(out)], check=True)
    return out


def absolute(out: Path, ref: str) -> str:
    """A source reference relative to ``out`` made absolute, as the importer stores it."""
    file, _, anchor = ref.partition("#")
    return f"{(out / file).absolute()}#{anchor}"


def load_questions(out: Path, corpus_set: str) -> dict[str, list[Question]]:
    """The answerable questions (evidence, not adversarial) of each conversation of a set
    (``locomo`` or ``longmemeval``, whose questions count as category 0)."""
    questions: dict[str, list[Question]] = {}
    with open(out / corpus_set / "qa.jsonl", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            category = row.get("category", 0)
            if not row["evidence"] or category == ADVERSARIAL:
                continue
            evidence = frozenset(absolute(out, ref) for ref in row["evidence"])
            question = Question(row["owner"], row["question"], category, evidence)
            questions.setdefault(row["owner"], []).append(question)
    return questions


def load_turns(out: Path, corpus_set: str) -> dict[str, list[Turn]]:
    """Each conversation's turns, in file and byte order, from the set's manifest."""
    turns: dict[str, list[Turn]] = {}
    with open(out / corpus_set / "manifest.jsonl", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            ref = absolute(out, f"{row['file']}#byte={row['byte']}")
            turn = Turn(ref, row["file"], row["speaker"], row["role"], row["content"])
            turns.setdefault(row["file"].split("/")[1], []).append(turn)
    return turns


def speakers(folder: Path) -> dict[str, str]:
    """The speaker -> role mapping of a folder's SPEAKERS file (``--speaker "A=user" ...``)."""
    words = shlex.split((folder / "SPEAKERS").read_text(encoding="utf-8"))
    options = [value for flag, value in itertools.pairwise(words) if flag == "--speaker"]
    return dict(option.split("=", 1) for option in options)


def memstore_found(service: MemoryService, question: Question, limit: int) -> tuple[bool, bool]:
    """Whether ``recall`` returns a message of the question's evidence: among the matched
    ones (matched), and among all the messages it returns (seen)."""
    try:
        result = service.recall(question.text, limit=limit)
    except InvalidQuery:
        return False, False
    seen = {m.source_ref for c in result.conversations for m in c.messages}
    matched = {
        m.source_ref for c in result.conversations for m in c.messages if m.id == c.matched_id
    }
    return not matched.isdisjoint(question.evidence), not seen.isdisjoint(question.evidence)


def imported(folder: Path, scratch: Path) -> MemoryService:
    """A fresh database in ``scratch`` holding the conversation's logs, tails included."""
    service = MemoryService(scratch / "memory.sqlite3")
    report = service.import_markdown([folder], speakers=speakers(folder), include_tail=True)
    if report.errors:
        sys.exit(f"{folder}: import failed: {report.model_dump_json()}")
    return service


def evaluate(
    folder: Path, turns: Sequence[Turn], questions: Sequence[Question], limit: int
) -> list[Outcome]:
    """Import one conversation into a fresh database and score every side on its questions."""
    rankers: dict[str, Ranker] = {
        "bm25": ranker(turns, limit, careful=False),
        "careful bm25": ranker(turns, limit, careful=True),
    }
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="memstore-eval-") as scratch:
        service = imported(folder, Path(scratch))
        for question in questions:
            found = {"memstore": memstore_found(service, question, limit)}
            for side, rank in rankers.items():
                matched, seen = rank(question.text)
                found[side] = (bool(matched & question.evidence), bool(seen & question.evidence))
            outcomes.append(Outcome(question, found))
    return outcomes


def recall_at(outcomes: Sequence[Outcome], side: str, measure: int) -> str:
    """The share of outcomes ``side`` found evidence for (``measure`` 0: matched, 1: seen),
    as ``0.123``, or ``-`` for none."""
    if not outcomes:
        return "-"
    return f"{sum(o.found[side][measure] for o in outcomes) / len(outcomes):.3f}"


def table(
    outcomes: Sequence[Outcome], limit: int, sets: Sequence[tuple[str, Sequence[str]]]
) -> str:
    """The recall@limit table: one row per set and side, matched and seen overall, then
    matched / seen per category."""
    columns = ["matched", "seen", *(f"{n} {name}" for n, name in CATEGORIES.items())]
    header = f"{'set':<14}{'questions':>10}  {'system':<13}" + "".join(f"{c:>15}" for c in columns)
    rows = [f"recall@{limit} (per category: matched / seen)", header]
    for name, members in sets:
        chosen = [o for o in outcomes if o.question.conversation in members]
        if not chosen:
            continue
        for side in SIDES:
            per = [[o for o in chosen if o.question.category == n] for n in CATEGORIES]
            cells = [recall_at(chosen, side, 0), recall_at(chosen, side, 1)] + [
                f"{recall_at(group, side, 0)} / {recall_at(group, side, 1)}" if group else "-"
                for group in per
            ]
            lead = f"{name:<14}{len(chosen):>10}" if side == SIDES[0] else " " * 24
            rows.append(f"{lead}  {side:<13}" + "".join(f"{c:>15}" for c in cells))
    return "\n".join(rows)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, help="corpus folder (default: a temporary one)")
    parser.add_argument(
        "--conversations",
        default=",".join(TUNING + CHECK),
        help="comma-separated conversation ids (default: all ten)",
    )
    parser.add_argument("--limit", type=int, default=8, help="k of recall@k (default: 8)")
    parser.add_argument(
        "--longmemeval", action="store_true", help="also the 30 LongMemEval_S haystacks"
    )
    return parser.parse_args(argv)


def run(
    out: Path, corpus_set: str, conversations: Sequence[str] | None, limit: int
) -> list[Outcome]:
    """The outcomes of the set's conversations (all of them for None), in order."""
    questions = load_questions(corpus(out), corpus_set)
    turns = load_turns(out, corpus_set)
    outcomes: list[Outcome] = []
    for conversation in conversations or sorted(questions):
        folder = out / corpus_set / conversation
        asked = questions.get(conversation, [])
        outcomes += evaluate(folder, turns.get(conversation, []), asked, limit)
    return outcomes


def report(out: Path, args: argparse.Namespace, conversations: Sequence[str]) -> str:
    """The LoCoMo table, and LongMemEval's when asked for."""
    text = table(run(out, "locomo", conversations, args.limit), args.limit, SETS)
    if args.longmemeval:
        outcomes = run(out, "longmemeval", None, args.limit)
        owners = sorted({o.question.conversation for o in outcomes})
        text += "\n\nLongMemEval_S (never tuned on)\n"
        text += table(outcomes, args.limit, [("haystacks", owners)])
    return text


def main(argv: Sequence[str] | None = None) -> None:
    """Run the eval and print its table and run time."""
    args = parse_args(argv)
    conversations = [c.strip() for c in args.conversations.split(",") if c.strip()]
    started = time.perf_counter()
    if args.out is None:
        with tempfile.TemporaryDirectory(prefix="memstore-locomo-") as scratch:
            text = report(Path(scratch), args, conversations)
    else:
        text = report(args.out, args, conversations)
    print(text)
    print(f"run time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
