"""The database file opened in Datasette (its own test client, on a real populated file): the
search box on ``messages`` and ``memories`` finds what memstore's search sees, and
``session_id`` links reach the session (revision 0005)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from datasette.app import Datasette

from memstore import MemoryService
from tests import factories
from tests.conftest import REPO

Seeded = Callable[[], AbstractContextManager[None]]

SPEAKERS = {"Diego": "user", "Morgan": "assistant", "System": "system"}


@dataclass(frozen=True)
class Filled:
    """The database file, and the ids the tests look for."""

    path: Path
    live_session: str
    user_id: str
    reply_id: str
    hidden_ids: tuple[str, ...]
    """Messages holding "lavender" that search does not see (system, interrupted)."""
    cjk_id: str
    memory_id: str
    superseded_id: str


@pytest.fixture
def filled(service: MemoryService) -> Filled:
    report = service.import_markdown(
        [REPO / "examples" / "logs"], speakers=SPEAKERS, include_tail=True
    )
    assert report.errors == 0 and report.imported == 13
    session = service.start_session(session_id="ses_garden")
    user = service.record_message(session.id, "user", "Should the lavender go by the gate?")
    reply = service.record_message(session.id, "assistant", "Yes: lavender wants full sun.")
    hidden = (
        service.record_message(session.id, "system", "lavender reminder set"),
        service.record_message(session.id, "assistant", "The lavender", status="interrupted"),
    )
    cjk = service.record_message(session.id, "user", "我们去看电影吧")
    old = service.remember("Diego grows lavender in pots.", key="balcony")
    new = service.remember("Diego grows lavender and thyme on the balcony.", key="balcony")
    service.close()
    assert user and reply and cjk and all(hidden)
    return Filled(
        path=service.path,
        live_session=session.id,
        user_id=user.id,
        reply_id=reply.id,
        hidden_ids=tuple(message.id for message in hidden if message),
        cjk_id=cjk.id,
        memory_id=new.id,
        superseded_id=old.id,
    )


def fetch(path: Path, *urls: str) -> list[httpx.Response]:
    """GET each of ``urls`` from a Datasette serving the file at ``path`` (as ``/memory``)."""

    async def run() -> list[httpx.Response]:
        client = Datasette([str(path)]).client
        return [await client.get(url) for url in urls]

    return asyncio.run(run())


def ids(response: httpx.Response) -> set[str]:
    assert response.status_code == 200, response.text
    return {row["id"] for row in response.json()}


def test_the_search_box_on_messages_finds_the_messages_memstore_searches(filled: Filled) -> None:
    page, found, both, unknown = fetch(
        filled.path,
        "/memory/messages",
        "/memory/messages.json?_search=lavender&_shape=array",
        "/memory/messages.json?_search=lavender+sun&_shape=array",
        "/memory/messages.json?_search=orquídea&_shape=array",
    )
    assert 'name="_search"' in page.text  # Datasette shows the box only for a found index
    # The imported log's "lavender" reply and the live pair; the system and interrupted
    # messages holding the word are in the table, not in the index.
    assert ids(found) >= {filled.user_id, filled.reply_id}
    assert not ids(found) & set(filled.hidden_ids)
    assert all("lavender" in row["content"].casefold() for row in found.json())
    assert ids(both) == {filled.reply_id}
    assert ids(unknown) == set()


def test_the_search_box_finds_words_as_the_index_folds_them(filled: Filled) -> None:
    # Case and accents are folded as in memstore's own search; a CJK word is a phrase of its
    # characters, as the index holds them.
    accents, phrase = fetch(
        filled.path,
        "/memory/messages.json?_search=JARDIN&_shape=array",
        "/memory/messages.json?_search=%22电+影%22&_shape=array",
    )
    assert ids(accents) and all("jardín" in row["content"] for row in accents.json())
    assert ids(phrase) == {filled.cjk_id}


def test_the_search_box_on_memories_finds_the_memories_in_force(filled: Filled) -> None:
    page, found = fetch(
        filled.path, "/memory/memories", "/memory/memories.json?_search=lavender&_shape=array"
    )
    assert 'name="_search"' in page.text
    assert ids(found) == {filled.memory_id}  # the superseded one is no longer searched


def test_a_memory_past_its_expiry_is_not_found(filled: Filled, seeded: Seeded) -> None:
    # The failing input: an active memory whose expiry has passed, which no write has marked
    # expired yet; recall leaves it out, the search box found it.
    with seeded():
        factories.MemoryFactory(
            id="mem_dentist",
            content="Diego is at the lavender dentist today.",
            expires_at=datetime(2020, 1, 1, tzinfo=UTC),
        )
        factories.MemoryFactory(id="mem_later", content="Diego grows lavender again.")
    (found,) = fetch(filled.path, "/memory/memories.json?_search=lavender&_shape=array")
    assert ids(found) == {filled.memory_id, "mem_later"}


def test_the_stem_index_finds_other_forms_when_asked_for(filled: Filled) -> None:
    # README: ?_fts_table=messages_stem_fts searches by stem, as recall's any mode does.
    exact, stems = fetch(
        filled.path,
        "/memory/messages.json?_search=wants&_shape=array",
        "/memory/messages.json?_search=wanted&_fts_table=messages_stem_fts&_shape=array",
    )
    assert ids(exact) == ids(stems) == {filled.reply_id}
    (memories,) = fetch(
        filled.path, "/memory/memories.json?_search=grow&_fts_table=memories_stem_fts&_shape=array"
    )
    assert ids(memories) == {filled.memory_id}


def test_raw_search_takes_fts5_syntax(filled: Filled) -> None:
    prefix, either = fetch(
        filled.path,
        "/memory/messages.json?_search=lav*+gate&_searchmode=raw&_shape=array",
        "/memory/messages.json?_search=gate+OR+sun&_searchmode=raw&_shape=array",
    )
    assert ids(prefix) == {filled.user_id}
    assert ids(either) == {filled.user_id, filled.reply_id}


def session_links(html: str) -> list[str]:
    return re.findall(r'href="(/memory/sessions/[^"]+)"', html)


def test_the_session_id_of_a_message_links_to_its_session(filled: Filled) -> None:
    (listed,) = fetch(filled.path, f"/memory/messages?id={filled.user_id}")
    assert listed.status_code == 200
    (link,) = session_links(listed.text)
    assert link == f"/memory/sessions/{filled.live_session}"
    session, row, back = fetch(
        filled.path,
        link,
        f"{link}.json?_shape=objects",
        f"/memory/messages?session_id={filled.live_session}",
    )
    assert session.status_code == 200
    assert [r["id"] for r in row.json()["rows"]] == [filled.live_session]
    # The session's page links back to its messages ("links from other tables").
    assert f'href="/memory/messages?session_id={filled.live_session}"' in session.text
    assert back.status_code == 200 and filled.reply_id in back.text


def test_every_imported_session_is_reached_from_its_messages_and_its_import(
    filled: Filled,
) -> None:
    (messages, imports) = fetch(filled.path, "/memory/messages?_size=max", "/memory/imports")
    links = set(session_links(messages.text))
    assert len(links) == 4 and set(session_links(imports.text)) == links - {
        f"/memory/sessions/{filled.live_session}"
    }
    for page in fetch(filled.path, *sorted(links)):
        assert page.status_code == 200
