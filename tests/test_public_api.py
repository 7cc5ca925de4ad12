"""The public names memstore exports, and the README's promises."""

from __future__ import annotations

import memstore
from tests.conftest import REPO


def test_all_lists_exactly_the_public_names() -> None:
    assert sorted(memstore.__all__) == memstore.__all__
    for name in memstore.__all__:
        assert getattr(memstore, name) is not None
    assert {"MemoryService", "MemoryConfig", "MemstoreError", "SchemaError"} <= set(
        memstore.__all__
    )


def test_every_result_type_of_the_service_is_a_public_name() -> None:
    # Found by review: CONTRACT.md's MemoryContext, WordPage and others could not be
    # imported from memstore, only from memstore.schemas.
    import inspect
    import typing

    def models(hint: object) -> list[type]:
        """The result models a type hint names, and those their fields name, in depth."""
        found = [kind for kind in (hint, *typing.get_args(hint)) if isinstance(kind, type)]
        found = [kind for kind in found if kind.__module__.startswith("memstore.schemas")]
        fields = [field.annotation for kind in found for field in kind.model_fields.values()]
        return found + [nested for field in fields for nested in models(field)]

    returned = set()
    for _, method in inspect.getmembers(memstore.MemoryService, inspect.isfunction):
        returned |= {kind.__name__ for kind in models(typing.get_type_hints(method).get("return"))}
    assert {"MemoryContext", "WordPage", "InstancePage", "SessionSummary", "FtsCheck"} <= returned
    assert returned <= set(memstore.__all__)


def test_every_error_derives_from_memstore_error() -> None:
    errors = [getattr(memstore, n) for n in memstore.__all__ if n.endswith(("Error", "Found"))]
    errors += [memstore.InvalidInput, memstore.InvalidQuery, memstore.StoreBusy]
    errors += [memstore.SecretRejected, memstore.Fts5Unavailable, memstore.BackupExists]
    errors += [memstore.MemoryDisabled, memstore.StoreReadOnly]
    assert all(issubclass(error, memstore.MemstoreError) for error in errors)


def test_readme_opens_with_the_two_commands() -> None:
    head = (REPO / "README.md").read_text(encoding="utf-8").splitlines()[:8]
    assert any(line.startswith("make demo") for line in head)
    assert any(line.startswith("make test") for line in head)


def test_public_service_methods_have_docstrings() -> None:
    for name in dir(memstore.MemoryService):
        if not name.startswith("_"):
            assert getattr(memstore.MemoryService, name).__doc__, name


def test_a_message_prints_its_keys_in_the_contract_order() -> None:
    # The redesign once moved content after source_ref by deriving Message from MessageInfo.
    assert list(memstore.Message.model_fields) == [
        "id",
        "session_id",
        "sequence",
        "role",
        "speaker",
        "content",
        "created_at",
        "status",
        "source_ref",
        "truncated",
    ]


def test_the_agent_names_without_pydantic_ai_say_how_to_install_the_extra() -> None:
    # Found by review: a bare "No module named 'pydantic_ai'", where `memstore mcp` says
    # which extra to install and from where.
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['pydantic_ai'] = None\n"
        "for name in ('MemoryAgent', 'memory_toolset'):\n"
        "    try:\n"
        "        getattr(__import__('memstore'), name)\n"
        "    except ModuleNotFoundError as error:\n"
        "        print(error)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    lines = completed.stdout.splitlines()
    assert len(lines) == 2, completed.stdout + completed.stderr
    assert all("pip install './[agent]'" in line for line in lines)
    assert lines[0].startswith("memstore.MemoryAgent needs pydantic-ai")


def test_the_signatures_show_the_keyword_arguments_the_contract_lists() -> None:
    # Found by review: recall showed **filters, remember **fields, so help() and
    # inspect.signature did not name the keywords CONTRACT.md lists.
    import inspect

    def keywords(name: str) -> dict[str, object]:
        parameters = inspect.signature(getattr(memstore.MemoryService, name)).parameters
        return {key: p.default for key, p in parameters.items() if p.kind is p.KEYWORD_ONLY}

    filters = {"session_id": None, "role": None, "since": None, "until": None, "speaker": None}
    page = {"scope": "history", "offset": 0, "limit": None}
    assert keywords("recall") == {
        "mode": "any",
        "history": True,
        "limit": None,
        "full": False,
        **filters,
    }
    assert keywords("search_words") == keywords("word_instances") == {**filters, **page}
    remembered = keywords("remember")  # None: left out, a duplicate keeps its category
    assert (remembered["category"], remembered["key"], remembered["expires_at"]) == (
        None,
        None,
        None,
    )
    assert keywords("update_memory") == {"category": None, "key": None, "expires_at": None}
