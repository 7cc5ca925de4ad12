"""LoCoMo recall@8: memstore's recall against plain bm25 over single turns.

Usage:
    .venv/bin/python eval/locomo.py [--out DIR] [--conversations conv-26,conv-30] [--limit 8]

Steps, all in one run:

1. Write the LoCoMo daily logs and questions with ``../shared/tools/corpus2logs.py`` into
   ``--out`` (a temporary folder by default; an existing ``OUT/locomo/qa.jsonl`` is reused).
2. Import each conversation's folder into its own fresh database with
   ``MemoryService.import_markdown`` (its SPEAKERS mapping, ``include_tail=True``).
3. For every question with evidence and a category other than 5 (adversarial), run
   ``recall(question, limit=8)`` with the default budgets. A hit is an evidence source
   reference among the messages of the returned conversations (matched or paired: the
   ``memstore`` rows), or among the matched messages alone (the ``matched`` rows, the same
   footing as the baseline's).
4. The baseline, in the same run: rank-bm25's BM25Okapi over the conversation's single turns,
   tokenized and folded like the index (unicode61 word tokens, case- and accent-folded); a
   hit is an evidence turn among its top 8.
5. Print recall@8 overall and per category, for all ten conversations, for the tuning set
   (conv-26 to conv-44) and for the check set (conv-47 to conv-50), and the run time.
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rank_bm25 import BM25Okapi

from memstore.errors import InvalidQuery
from memstore.service import MemoryService
from memstore.text.tokens import fold, tokenize

REPO = Path(__file__).resolve().parent.parent
CORPUS2LOGS = REPO.parent / "shared" / "tools" / "corpus2logs.py"
TUNING = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43", "conv-44")
CHECK = ("conv-47", "conv-48", "conv-49", "conv-50")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
ADVERSARIAL = 5
SETS = (("all", TUNING + CHECK), ("tuning 26-44", TUNING), ("check 47-50", CHECK))


@dataclass(frozen=True)
class Question:
    """One LoCoMo question with its evidence as absolute source references."""

    conversation: str
    text: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class Outcome:
    """Whether memstore found evidence for one question among every message it returned
    (``memstore``: seen) and among its matched messages alone (``matched``), and whether the
    baseline did among its top turns."""

    question: Question
    memstore: bool
    matched: bool
    baseline: bool


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


def load_questions(out: Path) -> dict[str, list[Question]]:
    """The answerable questions (evidence, not adversarial) of each conversation."""
    questions: dict[str, list[Question]] = {}
    with open(out / "locomo" / "qa.jsonl", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if not row["evidence"] or row["category"] == ADVERSARIAL:
                continue
            evidence = frozenset(absolute(out, ref) for ref in row["evidence"])
            question = Question(row["owner"], row["question"], row["category"], evidence)
            questions.setdefault(row["owner"], []).append(question)
    return questions


def load_turns(out: Path, conversation: str) -> list[tuple[str, str]]:
    """``(absolute source reference, content)`` of each turn of a conversation."""
    turns = []
    prefix = f"locomo/{conversation}/"
    with open(out / "locomo" / "manifest.jsonl", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["file"].startswith(prefix):
                turns.append((absolute(out, f"{row['file']}#byte={row['byte']}"), row["content"]))
    return turns


def speakers(folder: Path) -> dict[str, str]:
    """The speaker -> role mapping of a folder's SPEAKERS file (``--speaker "A=user" ...``)."""
    words = shlex.split((folder / "SPEAKERS").read_text(encoding="utf-8"))
    options = [value for flag, value in itertools.pairwise(words) if flag == "--speaker"]
    return dict(option.split("=", 1) for option in options)


def folded_words(text: str) -> list[str]:
    """Word tokens of ``text`` folded as the index folds them."""
    return [fold(token) for token in tokenize(text)]


def memstore_found(service: MemoryService, question: Question, limit: int) -> tuple[bool, bool]:
    """Whether ``recall`` returns a message of the question's evidence: among all the
    messages it returns (seen), and among the matched ones (matched)."""
    try:
        result = service.recall(question.text, limit=limit)
    except InvalidQuery:
        return False, False
    seen = {m.source_ref for c in result.conversations for m in c.messages}
    matched = {
        m.source_ref for c in result.conversations for m in c.messages if m.id == c.matched_id
    }
    return not seen.isdisjoint(question.evidence), not matched.isdisjoint(question.evidence)


def baseline_ranker(turns: Sequence[tuple[str, str]], limit: int) -> Callable[[str], set[str]]:
    """A function from a question to the source references of bm25's top ``limit`` turns."""
    refs = [ref for ref, _ in turns]
    bm25 = BM25Okapi([folded_words(content) for _, content in turns])

    def top(question: str) -> set[str]:
        scores = bm25.get_scores(folded_words(question))
        best = sorted(range(len(refs)), key=lambda index: -scores[index])[:limit]
        return {refs[index] for index in best}

    return top


def imported(folder: Path, scratch: Path) -> MemoryService:
    """A fresh database in ``scratch`` holding the conversation's logs, tails included."""
    service = MemoryService(scratch / "memory.sqlite3")
    report = service.import_markdown([folder], speakers=speakers(folder), include_tail=True)
    if report.errors:
        sys.exit(f"{folder}: import failed: {report.model_dump_json()}")
    return service


def evaluate(
    out: Path, conversation: str, questions: Sequence[Question], limit: int
) -> list[Outcome]:
    """Import one conversation into a fresh database and score both sides on its questions."""
    baseline = baseline_ranker(load_turns(out, conversation), limit)
    with tempfile.TemporaryDirectory(prefix="memstore-eval-") as scratch:
        service = imported(out / "locomo" / conversation, Path(scratch))
        return [
            Outcome(
                question,
                *memstore_found(service, question, limit),
                not baseline(question.text).isdisjoint(question.evidence),
            )
            for question in questions
        ]


def recall_at(outcomes: Sequence[Outcome], side: str) -> str:
    """The share of outcomes found by ``side``, as ``0.123``, or ``-`` for none."""
    if not outcomes:
        return "-"
    return f"{sum(getattr(o, side) for o in outcomes) / len(outcomes):.3f}"


def table(outcomes: Sequence[Outcome], limit: int) -> str:
    """The recall@limit table: one row per set and side, overall then per category."""
    columns = ["overall", *(f"{n} {name}" for n, name in CATEGORIES.items())]
    header = f"{'set':<14}{'questions':>10}  {'system':<9}" + "".join(f"{c:>15}" for c in columns)
    rows = [f"recall@{limit}", header]
    for name, members in SETS:
        chosen = [o for o in outcomes if o.question.conversation in members]
        if not chosen:
            continue
        sides = (("memstore", "memstore"), ("matched", "matched"), ("baseline", "bm25"))
        for side, label in sides:
            cells = [recall_at(chosen, side)] + [
                recall_at([o for o in chosen if o.question.category == n], side) for n in CATEGORIES
            ]
            lead = f"{name:<14}{len(chosen):>10}" if side == "memstore" else " " * 24
            rows.append(f"{lead}  {label:<9}" + "".join(f"{c:>15}" for c in cells))
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
    return parser.parse_args(argv)


def run(out: Path, conversations: Sequence[str], limit: int) -> list[Outcome]:
    """Every conversation's outcomes, in order."""
    questions = load_questions(corpus(out))
    outcomes: list[Outcome] = []
    for conversation in conversations:
        outcomes += evaluate(out, conversation, questions.get(conversation, []), limit)
    return outcomes


def main(argv: Sequence[str] | None = None) -> None:
    """Run the eval and print its table and run time."""
    args = parse_args(argv)
    conversations = [c.strip() for c in args.conversations.split(",") if c.strip()]
    started = time.perf_counter()
    if args.out is None:
        with tempfile.TemporaryDirectory(prefix="memstore-locomo-") as scratch:
            outcomes = run(Path(scratch), conversations, args.limit)
    else:
        outcomes = run(args.out, conversations, args.limit)
    print(table(outcomes, args.limit))
    print(f"run time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
