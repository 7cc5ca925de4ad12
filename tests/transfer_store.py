"""A store holding every shape an export must keep, written with the factories, and the
comparisons the export tests make."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any

from memstore import MemoryService
from tests.factories import (
    BASE_TIME,
    DeletedSourceFactory,
    MemoryFactory,
    MemorySourceFactory,
    MessageFactory,
    SessionFactory,
)

LATER = BASE_TIME + timedelta(days=3650)
# Content a Markdown body must carry as it is: lines of dashes, a CRLF, YAML-looking text.
TRICKY = "Diego's notes:\r\n---\nkey: value\n---\n- not a list, just text: 'quoted' \"too\""


def fill(seeded: Callable[[], AbstractContextManager[None]]) -> dict[str, str]:
    """Write the store; returns the ids the tests name."""
    with seeded():
        live = SessionFactory(id="ses_live", session_metadata={"client": "desktop"})
        old_day = SessionFactory(id="ses_log", started_at=BASE_TIME - timedelta(days=1))
        asked = MessageFactory(
            session_id=live.id,
            sequence=1,
            role="user",
            speaker="Diego",
            content="¿Qué decidimos sobre el jardín?",
            source_ref="/logs/2026-10-05.md#byte=25",
        )
        MessageFactory(
            session_id=live.id,
            sequence=2,
            role="assistant",
            speaker="Morgan",
            content="Un jardín azul con lavanda.\nY romero.",
        )
        MessageFactory(
            session_id=old_day.id,
            sequence=1,
            role="user",
            speaker=None,
            content="部署v2-hotfix后回滚",
            created_at=BASE_TIME - timedelta(days=1),
        )
        MessageFactory(
            session_id=old_day.id,
            sequence=2,
            role="system",
            speaker="System",
            content="Session closed.",
            created_at=BASE_TIME - timedelta(days=1, seconds=-30),
        )
        english = MemoryFactory(
            content="Diego prefers answers in English.",
            category="preference",
            key="response_language",
            pinned=True,
            modified_at=BASE_TIME + timedelta(hours=1),
        )
        spanish = MemoryFactory(
            content="Diego prefers answers in Spanish.",
            category="preference",
            key="response_language",
            status="superseded",
            superseded_by=english.id,
        )
        candidate = MemoryFactory(
            content="Diego may like tea.", origin="extracted", status="candidate", confidence=0.4
        )
        lapsed = MemoryFactory(  # stored active, its expiry passed: shown (and exported) expired
            content="Diego is in Lisbon this week.", expires_at=BASE_TIME + timedelta(days=2)
        )
        tricky = MemoryFactory(content=TRICKY, category="project", expires_at=LATER)
        MemorySourceFactory(memory_id=spanish.id, message_id=asked.id, source_ref=asked.source_ref)
        MemorySourceFactory(memory_id=candidate.id, source_ref="/logs/2026-10-04.md#byte=9")
        DeletedSourceFactory(source_ref="/logs/2026-10-05.md#byte=400")
        named = {"english": english, "spanish": spanish, "candidate": candidate}
        return {
            name: row.id for name, row in (named | {"lapsed": lapsed, "tricky": tricky}).items()
        }


def memories(service: MemoryService) -> dict[str, dict[str, Any]]:
    """Every memory, whatever its status, as JSON, by id."""
    page = service.list_memories(include_inactive=True, limit=50)
    return {memory.id: memory.model_dump(mode="json") for memory in page.memories}


def sources(service: MemoryService, memory_ids: Any) -> dict[str, list[dict[str, Any]]]:
    """The source links of each memory, as JSON."""
    return {
        memory_id: [link.model_dump(mode="json") for link in service.memory_sources(memory_id)]
        for memory_id in memory_ids
    }


def history(service: MemoryService, session_ids: list[str]) -> list[dict[str, Any]]:
    """Every message of these sessions, as JSON, in order."""
    return [
        message.model_dump(mode="json")
        for session_id in session_ids
        for message in service.messages(session_id)
    ]
