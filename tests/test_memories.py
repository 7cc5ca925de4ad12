"""The memory lifecycle through MemoryService: create, reuse, supersede, update, expire,
candidates, sources, pinning, listing and deletion."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memstore import (
    InvalidInput,
    MemoryConfig,
    MemoryService,
    MemoryTools,
    NotFound,
    SecretRejected,
)


def test_a_key_replaced_from_spanish_to_english_leaves_one_active_and_one_superseded(
    service: MemoryService,
) -> None:
    spanish = service.remember(
        "Diego prefers responses in Spanish.", category="preference", key="Response Language"
    )
    english = service.remember(
        "Diego prefers responses in English.", category="preference", key="response_language"
    )
    assert english.key == spanish.key == "response_language"
    old = service.get_memory(spanish.id)
    assert old is not None and old.status == "superseded" and old.superseded_by == english.id
    everything = service.list_memories(include_inactive=True).memories
    assert [(m.id, m.status) for m in everything if m.status == "active"] == [
        (english.id, "active")
    ]


@pytest.mark.parametrize(
    ("first", "second"),
    [("पति", "पता"), ("पानी", "पाना"), ("किताब", "कीताब"), ("தமிழ்", "தமிழ"), ("ไก่", "ไก")],
)
def test_keys_differing_in_a_vowel_sign_are_two_keys(
    service: MemoryService, first: str, second: str
) -> None:
    # Vowel signs and viramas are parts of letters (Unicode marks); they were separators,
    # and "पति" (husband) superseded "पता" (address) as the key "पत" (found by review).
    husband = service.remember("Diego's husband is called Raj.", key=first)
    address = service.remember("Diego's address is 12 MG Road.", key=second)
    assert (husband.key, address.key) == (first, second)
    assert [m.status for m in service.list_memories(include_inactive=True).memories] == [
        "active",
        "active",
    ]


def test_an_update_by_id_keeps_the_id(service: MemoryService) -> None:
    memory = service.remember("Diego lives in Madrid.", category="fact")
    updated = service.remember("Diego lives in Valencia.", memory_id=memory.id)
    assert updated.id == memory.id and updated.content == "Diego lives in Valencia."
    assert updated.modified_at >= memory.modified_at
    assert service.list_memories().total == 1


def test_remember_with_a_memory_id_is_the_update_with_its_supersedes_and_source(
    service: MemoryService,
) -> None:
    # Found by review: it made a preference a fact, ignored supersedes and the source, and
    # took a source message that does not exist.
    session = service.start_session()
    said = service.record_message(session.id, "user", "Update that preference to English.")
    assert said is not None
    language = service.remember("Diego prefers Spanish.", category="preference", key="lang")
    old = service.remember("Diego answers in Catalan.")
    updated = service.remember(
        "Diego prefers English.",
        memory_id=language.id,
        supersedes=old.id,
        source_message_id=said.id,
    )
    assert (updated.id, updated.category, updated.key) == (language.id, "preference", "lang")
    assert service.get_memory(old.id).superseded_by == language.id  # type: ignore[union-attr]
    assert [s.message_id for s in service.memory_sources(language.id)] == [said.id]
    with pytest.raises(NotFound):
        service.remember("Diego prefers Italian.", memory_id=language.id, source_message_id="msg_x")
    assert service.get_memory(language.id).content == "Diego prefers English."  # type: ignore[union-attr]


def test_an_update_cannot_supersede_the_memory_it_updates(service: MemoryService) -> None:
    # Found by review: it was taken, and the memory updated in place as if it were not given.
    tea = service.remember("Diego likes tea.")
    with pytest.raises(InvalidInput, match="the memory being updated") as raised:
        service.remember("Diego likes green tea.", memory_id=tea.id, supersedes=tea.id)
    assert raised.value.argument == "supersedes"
    assert service.get_memory(tea.id).content == "Diego likes tea."  # type: ignore[union-attr]


def test_an_update_supersedes_another_memory_holding_its_new_content_or_key(
    service: MemoryService,
) -> None:
    first = service.remember("Diego drinks coffee at ten.", key="coffee_time")
    second = service.remember("Diego likes tea.")
    updated = service.update_memory(second.id, "Diego drinks coffee at ten")
    assert updated.id == second.id
    old = service.get_memory(first.id)
    assert old is not None and (old.status, old.superseded_by) == ("superseded", second.id)
    with pytest.raises(InvalidInput, match="superseded"):
        service.update_memory(first.id, "anything")


def test_duplicate_content_in_another_case_and_spacing_returns_the_same_id(
    service: MemoryService,
) -> None:
    memory = service.remember("Diego's dog is called Rudiger.")
    again = service.remember("  diego's DOG   is called rudiger  ")
    assert again.id == memory.id
    assert service.list_memories().total == 1


def test_paraphrases_are_not_merged(service: MemoryService) -> None:
    service.remember("Diego's dog is called Rudiger.")
    service.remember("Diego has a dog named Rudiger.")
    assert service.list_memories().total == 2


def test_supersedes_replaces_an_explicit_id(service: MemoryService) -> None:
    old = service.remember("Diego works at Acme.")
    new = service.remember("Diego works at Globex.", supersedes=old.id)
    replaced = service.get_memory(old.id)
    assert replaced is not None and replaced.superseded_by == new.id
    with pytest.raises(NotFound):
        service.remember("Diego works nowhere.", supersedes="mem_missing")


@pytest.mark.parametrize(
    "content",
    [
        "\u200b",
        "\ufeff",
        " \u200d\u2060 ",
        "\x01\u00ad",
        "\u3164",
        "\u034f",
        "\u0301",
        "\u2800\ufe0f",
        # unassigned, but never drawn (found by review: stored once Cn counted as shown)
        "\uffff",
        "\ufdd0",
        "\U0010ffff",
        "\u2065",
        "\ufff0",
        "\U000e0080",
    ],
)
def test_content_of_nothing_shown_is_empty(service: MemoryService, content: str) -> None:
    # Found by review: a zero-width space alone was stored as a memory nobody could read.
    with pytest.raises(InvalidInput, match="content: is empty"):
        service.remember(content)
    assert service.list_memories().total == 0
    assert service.remember("\u200bDiego is here.").content == "\u200bDiego is here."
    assert service.remember("\uf8ff").content == "\uf8ff"  # a private-use glyph
    # found by review: an emoji newer than this Python's Unicode data is unassigned (Cn),
    # and was refused as empty; so were a lone spacing or enclosing mark
    for shown in ("\U0001fa77", "\U00031350", "\u0903", "\u20dd"):
        assert service.remember(shown).content == shown
    kept = service.remember("Diego\u3164 cafe\u0301 \U0001f469\u200d\U0001f4bb")
    assert kept.content == "Diego\u3164 cafe\u0301 \U0001f469\u200d\U0001f4bb"
    memory = service.remember("Diego likes tea.")
    with pytest.raises(InvalidInput, match="content: is empty"):
        service.update_memory(memory.id, content)


def test_content_and_arguments_are_validated(service: MemoryService) -> None:
    with pytest.raises(InvalidInput, match="content"):
        service.remember("   ")
    with pytest.raises(InvalidInput, match="4000"):
        service.remember("x" * 4001)
    assert service.remember("  " + "x" * 4000 + "  ").content == "x" * 4000
    with pytest.raises(InvalidInput, match="category"):
        service.remember("Diego likes jazz.", category="hobby")
    with pytest.raises(InvalidInput, match="expires_at"):
        service.remember("Diego likes jazz.", expires_at="next week")


def test_empty_key_and_empty_expiry_are_ignored(service: MemoryService) -> None:
    memory = service.remember("Diego likes jazz.", key="  !! ", expires_at="")
    assert memory.key is None and memory.expires_at is None


def test_an_empty_memory_id_is_no_update_as_an_empty_key_is_no_key(service: MemoryService) -> None:
    # Found by review: a model filling every optional argument with "" got NotFound for
    # memory_id="", where key="" and expires_at="" were ignored.
    kept = service.remember("Diego likes jazz.")
    memory = service.remember("Diego likes owls.", memory_id="", key="")
    assert memory.id != kept.id and memory.content == "Diego likes owls."
    result = MemoryTools(service).remember("Diego likes tea.", memory_id="", expires_at="")
    assert result["ok"] is True and service.list_memories().total == 3


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_id_of_any_kind_is_none(service: MemoryService, blank: str) -> None:
    # The failing input (found by review): supersedes="" was NotFound for id '', where an
    # empty memory_id was none; and a memory_id of spaces was NotFound too.
    kept = service.remember("Diego likes jazz.")
    memory = service.remember(
        "Diego likes owls.", memory_id=blank, supersedes=blank, source_message_id=blank
    )
    assert memory.id != kept.id and memory.status == "active"
    assert service.get_memory(kept.id).status == "active"
    assert service.memory_sources(memory.id) == []


@pytest.mark.parametrize("expiry", ["9999-12-31T23:59:59.999999", "9999-12-31T23:59:59.9995Z"])
def test_an_expiry_sqlite_reads_no_time_from_is_refused(
    service: MemoryService, expiry: str
) -> None:
    # Found by review: it was stored, julianday() rounded it into the year 10000, and check
    # then called the store damaged. The calendar's last day itself stands for never.
    with pytest.raises(InvalidInput, match=r"expires_at: .* last half millisecond"):
        service.remember("Diego has a kayak.", expires_at=expiry)
    last = service.remember("Diego renews his passport.", expires_at="9999-12-31T23:59:59.999Z")
    assert service.list_memories().total == 1 and last.expires_at is not None
    assert service.health().ok


def test_a_naive_expiry_is_read_as_local_time(service: MemoryService) -> None:
    local = (datetime.now() + timedelta(days=2)).replace(microsecond=0)
    memory = service.remember("Diego is travelling.", expires_at=local.isoformat())
    assert memory.expires_at == local.astimezone(UTC)
    with pytest.raises(InvalidInput, match="future"):
        service.remember("Diego was travelling.", expires_at="2001-01-01T00:00:00+00:00")


@pytest.mark.parametrize(
    ("machine", "stored"),
    [
        ("JST-9", "2027-01-01T03:00:00Z"),
        # daylight saving rules only the C library reads (found by review: refused)
        ("CET-1CEST,M3.5.0,M10.5.0/3", "2027-01-01T11:00:00Z"),
        ("America/New_Yrok", None),
        ("UTC+24", None),
    ],
)
def test_a_naive_expiry_under_a_tz_naming_no_zone_is_refused(
    db_path: Path, machine: str, stored: str | None
) -> None:
    # Found by review: the C library read TZ=America/New_Yrok as UTC, so a naive expiry was
    # stored 5 hours early and nothing said so; POSIX rules (JST-9) still read as local time.
    command = [sys.executable, "-m", "memstore", "--database", str(db_path), "--json"]
    command += ["remember", "Diego is in Lisbon.", "--expires", "2027-01-01T12:00"]
    done = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "TZ": machine}, timeout=60
    )
    if stored is not None:
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["expires_at"] == stored
        return
    assert done.returncode != 0
    error = json.loads(done.stdout or done.stderr)["error"]
    assert error["type"] == "InvalidInput"
    assert error["message"].startswith("--expires: it has no time zone")
    assert f"TZ={machine!r}" in error["message"] and "+02:00" in error["message"]
    assert MemoryService(db_path).list_memories().total == 0


def test_expired_memories_leave_listing_and_free_their_key(service: MemoryService, seeded) -> None:
    from tests.factories import MemoryFactory

    past = datetime.now(UTC) - timedelta(minutes=1)
    with seeded():
        expired = MemoryFactory(
            content="Diego is in Paris.",
            normalized_content="diego is in paris",
            key="location",
            expires_at=past,
        ).id
    assert service.list_memories().total == 0
    shown = service.get_memory(expired)
    assert shown is not None and shown.status == "expired"
    fresh = service.remember("Diego is in Paris.", key="location")
    assert fresh.id != expired and fresh.status == "active"
    old = service.get_memory(expired)
    assert old is not None and old.status == "expired" and old.superseded_by is None


@pytest.fixture
def paris_expired(service: MemoryService, seeded) -> tuple[str, str]:
    """An expired memory under the key location, not yet marked so (no write met it),
    and the active memory now holding that key: (expired id, holder id)."""
    from tests.factories import MemoryFactory

    with seeded():
        expired = MemoryFactory(
            content="Diego is in Paris this week.",
            normalized_content="diego is in paris this week",
            key="travel",
            expires_at=datetime.now(UTC) - timedelta(minutes=1),
        ).id
    return expired, service.remember("Diego is in Rome now.", key="location").id


def test_updating_an_expired_memory_is_refused_unless_it_gets_a_new_expiry(
    service: MemoryService, paris_expired: tuple[str, str]
) -> None:
    # Found by review: the update kept the memory expired yet superseded the key's holder
    # (Rome), so nothing was left in force.
    expired, rome = paris_expired
    with pytest.raises(InvalidInput, match=f"memory_id: {expired} expired at .*expires_at"):
        service.update_memory(expired, "Diego was in Paris last week.", key="location")
    with pytest.raises(InvalidInput, match="expired at"):
        service.remember("Diego is in Rome now.", memory_id=expired)
    assert [m.id for m in service.list_memories().memories] == [rome]
    later = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    revived = service.update_memory(expired, "Diego is in Paris again.", expires_at=later)
    assert revived.id == expired and revived.status == "active"


def test_a_new_expiry_alone_does_not_take_back_a_key_held_since(
    service: MemoryService, seeded
) -> None:
    # Found by review: extending an expired memory's expiry made it supersede the value its
    # key had been given since ("Diego is back from his trip."), which left force.
    from tests.factories import MemoryFactory

    with seeded():
        trip = MemoryFactory(
            content="Diego is on holiday.",
            normalized_content="diego is on holiday",
            key="trip",
            expires_at=datetime.now(UTC) - timedelta(minutes=1),
        ).id
    back = service.remember("Diego is back from his trip.", key="trip")
    later = datetime.now(UTC) + timedelta(days=1)
    with pytest.raises(InvalidInput, match=f"expires_at: {trip} expired at .*{back.id}"):
        service.update_memory(trip, expires_at=later)
    with pytest.raises(InvalidInput, match="expired at"):  # its content again, as the CLI sends
        service.remember("Diego is on holiday.", key="trip", memory_id=trip, expires_at=later)
    assert [m.id for m in service.list_memories().memories] == [back.id]
    renamed = service.update_memory(trip, key="holiday", expires_at=later)  # a key of its own
    assert renamed.status == "active" and service.get_memory(back.id).status == "active"  # type: ignore[union-attr]


def test_superseding_an_expired_memory_is_refused_whether_or_not_it_was_marked(
    service: MemoryService, paris_expired: tuple[str, str]
) -> None:
    # Found by review: refused once a write had marked it expired, accepted before.
    expired, rome = paris_expired
    for _ in range(2):
        with pytest.raises(InvalidInput, match=f"supersedes: memory {expired} is expired"):
            service.remember("Diego is in Lyon now.", supersedes=expired)
        service.remember("Diego is in Paris this week.", key="travel")  # marks it expired
    assert service.get_memory(expired).status == "expired"  # type: ignore[union-attr]
    assert service.get_memory(rome).status == "active"  # type: ignore[union-attr]


def test_a_candidate_is_invisible_until_confirmed_and_never_supersedes(
    service: MemoryService,
) -> None:
    confirmed = service.remember("Diego prefers Spanish.", key="response_language")
    candidate = service.remember(
        "Diego prefers English.", key="response_language", origin="extracted", confidence=0.4
    )
    assert candidate.status == "candidate" and candidate.confidence == 0.4
    assert [m.id for m in service.list_memories().memories] == [confirmed.id]
    assert service.get_memory(confirmed.id).status == "active"  # type: ignore[union-attr]
    confirmed_now = service.update_memory(candidate.id)
    assert confirmed_now.status == "active" and confirmed_now.id == candidate.id
    assert service.get_memory(confirmed.id).superseded_by == candidate.id  # type: ignore[union-attr]
    with pytest.raises(InvalidInput, match="candidate"):
        service.remember("Diego prefers Italian.", origin="extracted", supersedes=candidate.id)


def test_a_candidate_matching_a_confirmed_memory_changes_nothing_of_it(
    service: MemoryService,
) -> None:
    # Found by review: a candidate holding the content of a confirmed memory gave that one
    # its key, which superseded the key's confirmed holder.
    car = service.remember("Diego drives a Seat.", key="car")
    fiat = service.remember("Diego drives a Fiat.")
    found = service.remember("Diego drives a Fiat", origin="extracted", confidence=0.4, key="car")
    assert found.id == fiat.id and found.key is None
    assert service.get_memory(car.id).status == "active"  # type: ignore[union-attr]


def test_a_candidate_is_kept_once_and_the_users_own_remember_confirms_it(
    service: MemoryService,
) -> None:
    # Found by review: each extraction added a candidate, and the user's remember of the same
    # fact a third row beside them.
    first = service.remember("Diego fears spiders.", origin="extracted", confidence=0.4)
    again = service.remember("diego fears spiders", origin="extracted", confidence=0.6)
    assert again.id == first.id and again.status == "candidate"
    confirmed = service.remember("Diego fears spiders.", category="fact")
    assert (confirmed.id, confirmed.status) == (first.id, "active")
    everything = service.list_memories(include_inactive=True).memories
    assert [m.id for m in everything] == [first.id]


def test_supersedes_holds_when_the_new_content_is_an_existing_memorys(
    service: MemoryService,
) -> None:
    # Found by review: the duplicate was returned, and the memory to supersede left active.
    tea = service.remember("Diego likes tea.")
    coffee = service.remember("Diego likes coffee.")
    again = service.remember("Diego likes coffee", supersedes=tea.id)
    assert again.id == coffee.id
    replaced = service.get_memory(tea.id)
    assert replaced is not None and (replaced.status, replaced.superseded_by) == (
        "superseded",
        coffee.id,
    )


def test_sources_survive_the_deletion_of_their_message(service: MemoryService) -> None:
    session = service.start_session()
    message = service.record_message(
        session.id, "user", "Remember that my dog is Rudiger", source_ref="/logs/a.md#byte=29"
    )
    assert message is not None
    memory = service.remember("Diego has a dog called Rudiger.", source_message_id=message.id)
    assert service.delete_message(message.id)
    assert service.get_memory(memory.id) is not None
    sources = service.memory_sources(memory.id)
    assert [(s.message_id, s.source_ref) for s in sources] == [(None, "/logs/a.md#byte=29")]
    with pytest.raises(NotFound):
        service.remember("Diego has a cat.", source_message_id="msg_missing")


def test_the_same_source_is_linked_once(service: MemoryService) -> None:
    # Found by review: the same fact remembered twice from one message (as agents do), or
    # updated from it, linked it again each time.
    session = service.start_session()
    message = service.record_message(session.id, "user", "My cat is Mia.")
    assert message is not None
    memory = service.remember("Diego has a cat called Mia.", source_message_id=message.id)
    service.remember("Diego has a cat called Mia.", source_message_id=message.id)
    service.remember(
        "Diego has a cat called Mia.", memory_id=memory.id, source_message_id=message.id
    )
    assert [s.message_id for s in service.memory_sources(memory.id)] == [message.id]


def test_delete_memory_removes_it_and_its_links_but_not_history(service: MemoryService) -> None:
    session = service.start_session()
    message = service.record_message(session.id, "user", "my dog is Rudiger")
    assert message is not None
    old = service.remember("Diego has a dog.", key="pet")
    memory = service.remember(
        "Diego has a dog called Rudiger.", key="pet", source_message_id=message.id
    )
    assert service.delete_memory(memory.id) is True
    assert service.get_memory(memory.id) is None
    assert service.memory_sources(memory.id) == []
    assert service.get_memory(old.id).superseded_by is None  # type: ignore[union-attr]
    assert [m.id for m in service.messages(session.id)] == [message.id]
    assert service.delete_memory(memory.id) is False
    assert service.health().ok


def test_pin_and_list_order(service: MemoryService) -> None:
    first = service.remember("Diego likes jazz.")
    second = service.remember("Diego likes chess.")
    third = service.remember("Diego likes paella.")
    assert service.pin_memory(first.id).pinned is True
    page = service.list_memories(limit=2)
    assert [m.id for m in page.memories] == [first.id, third.id]
    assert (page.total, page.next_offset) == (3, 2)
    rest = service.list_memories(limit=2, offset=2)
    assert [m.id for m in rest.memories] == [second.id] and rest.next_offset is None
    assert service.pin_memory(first.id, pinned=False).pinned is False
    assert service.list_memories(category="goal").total == 0
    with pytest.raises(NotFound):
        service.pin_memory("mem_missing")


def test_two_writers_under_one_key_end_with_exactly_one_active_memory(
    service: MemoryService,
) -> None:
    service.health()  # migrate before the race
    barrier = threading.Barrier(2)

    def writer(language: str) -> None:
        own = MemoryService(service.path)
        barrier.wait()
        own.remember(f"Diego prefers {language}.", key="response_language")

    threads = [threading.Thread(target=writer, args=(lang,)) for lang in ("Spanish", "English")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    memories = service.list_memories(include_inactive=True).memories
    assert sorted(m.status for m in memories) == ["active", "superseded"]


def test_recall_returns_matching_active_memories_beside_history(service: MemoryService) -> None:
    session = service.start_session()
    service.record_message(session.id, "user", "I planted lavender in the garden")
    active = service.remember("Diego's garden is blue, with lavender.", key="garden")
    service.remember("Diego's garden has lavender and roses.", key="garden")  # supersedes
    service.remember("Diego might like a lavender tea.", origin="extracted")
    result = service.recall("lavender")
    assert [m.content for m in result.memories] == ["Diego's garden has lavender and roses."]
    assert active.id not in [m.id for m in result.memories]
    assert len(result.conversations) == 1
    assert service.recall("lavender", history=False).conversations == []


def test_memory_filters_go_through_source_messages(service: MemoryService) -> None:
    session = service.start_session()
    message = service.record_message(session.id, "user", "remember my cat Mishi")
    assert message is not None
    sourced = service.remember("Diego has a cat called Mishi.", source_message_id=message.id)
    service.remember("Diego's cat Mishi is grey.")  # no source: cannot match session/role
    by_session = service.recall("Mishi", session_id=session.id, history=False)
    assert [m.id for m in by_session.memories] == [sourced.id]
    assert [m.id for m in service.recall("Mishi", role="user").memories] == [sourced.id]
    assert service.recall("Mishi", role="assistant").memories == []
    assert len(service.recall("Mishi").memories) == 2


def test_memory_since_until_filter_its_creation_time(service: MemoryService) -> None:
    memory = service.remember("Diego runs on Mondays.")
    before = memory.created_at - timedelta(seconds=1)
    after = memory.created_at + timedelta(seconds=1)
    assert service.recall("Mondays", since=before).memories
    assert service.recall("Mondays", since=after).memories == []
    assert service.recall("Mondays", until=memory.created_at).memories == []
    assert service.recall("Mondays", until=after).memories


def test_an_expired_memory_leaves_recall_without_any_job(service: MemoryService, seeded) -> None:
    from tests.factories import MemoryFactory

    with seeded():
        MemoryFactory(
            content="Diego is in Rome.",
            normalized_content="diego is in rome",
            expires_at=datetime.now(UTC) - timedelta(seconds=1),
        )
    assert service.recall("Rome").memories == []


def test_a_pin_that_changes_nothing_leaves_the_modification_time(service: MemoryService) -> None:
    # Found by review: a repeated pin made the memory newer than an edit another store's
    # export brought, and importing that export skipped the edit.
    memory = service.pin_memory(service.remember("Diego has a dog called Rudiger.").id)
    assert service.pin_memory(memory.id).modified_at == memory.modified_at
    unpinned = service.pin_memory(memory.id, pinned=False)
    assert unpinned.modified_at > memory.modified_at
    assert service.pin_memory(memory.id, pinned=False).modified_at == unpinned.modified_at
    assert service.get_memory(memory.id) == service.pin_memory(memory.id, pinned=False)


def test_a_write_that_changes_nothing_leaves_the_modification_time(
    service: MemoryService,
) -> None:
    # Found by review: each of these made the memory newer than an edit another store's
    # export brought, and importing that export skipped the edit.
    memory = service.remember("Diego likes green tea.", category="preference", key="tea")
    unchanged = [
        lambda: service.remember("Diego likes green tea.", category="preference"),
        lambda: service.remember("Diego likes green tea.", key="tea"),
        lambda: service.update_memory(memory.id, "Diego likes green tea."),
        lambda: service.update_memory(memory.id, category="preference"),
        lambda: service.remember("Diego likes green tea.", memory_id=memory.id),
    ]
    for write in unchanged:
        assert write() == memory
    assert service.get_memory(memory.id) == memory
    changed = service.update_memory(memory.id, category="fact")
    assert changed.modified_at > memory.modified_at


def test_a_new_value_under_a_key_keeps_the_pin_and_the_category_of_the_old(
    service: MemoryService,
) -> None:
    # Found by review: "Update that preference to English" through the remember tool, which
    # gives no category, made an unpinned fact of a pinned preference.
    spanish = service.remember("Diego prefers Spanish.", category="preference", key="language")
    service.pin_memory(spanish.id)
    english = service.remember("Diego prefers English.", key="language")
    assert (english.category, english.pinned) == ("preference", True)
    assert service.get_memory(spanish.id).status == "superseded"  # type: ignore[union-attr]
    german = service.remember("Diego prefers German.", key="language", category="goal")
    assert (german.category, german.pinned) == ("goal", True)
    service.pin_memory(german.id, pinned=False)
    french = service.remember("Diego prefers French.", supersedes=german.id)
    assert (french.category, french.pinned) == ("goal", False)
    assert service.remember("Diego has a cat.").category == "fact"


def test_a_memory_that_supersedes_a_keyed_one_takes_its_key(service: MemoryService) -> None:
    # Found by review: "prefers French" with supersedes= the keyed "prefers Spanish" had no
    # key, so the key's next value superseded nothing and left French and German in force.
    spanish = service.remember("Diego prefers Spanish.", key="response_language")
    french = service.remember("Diego prefers French.", supersedes=spanish.id)
    assert french.key == "response_language"
    german = service.remember("Diego prefers German.", key="response_language")
    assert service.get_memory(french.id).superseded_by == german.id  # type: ignore[union-attr]
    cola = service.remember("Diego drinks cola.")  # an existing memory adopts the key too
    adopted = service.remember("Diego drinks cola.", supersedes=german.id)
    assert (adopted.id, adopted.key) == (cola.id, "response_language")
    assert service.get_memory(cola.id) == adopted
    italian = service.remember("Diego prefers Italian.", key="lang", supersedes=adopted.id)
    assert italian.key == "lang"  # a key given is kept
    active = [m.content for m in service.list_memories().memories]
    assert active == ["Diego prefers Italian."]
    wifi = service.remember("The wifi password is on the router.", key="wifi_password")
    with pytest.raises(SecretRejected):  # the key it takes names a credential
        service.remember("Lucy1987!", supersedes=wifi.id)
    assert service.get_memory(wifi.id).status == "active"  # type: ignore[union-attr]


def test_a_confirmed_candidate_or_an_update_that_supersedes_keeps_the_pin(
    service: MemoryService,
) -> None:
    # Found by review: confirming a candidate under a pinned preference's key made an
    # unpinned fact of it, as remembering the fact anew had.
    tea = service.remember("Diego drinks tea.", key="drink", category="preference")
    service.pin_memory(tea.id)
    coffee = service.remember("Diego drinks coffee.", key="drink", origin="extracted")
    confirmed = service.update_memory(coffee.id, "Diego drinks coffee.")
    assert (confirmed.category, confirmed.pinned, confirmed.status) == (
        "preference",
        True,
        "active",
    )
    water = service.remember("Diego drinks water.", category="goal")
    moved = service.update_memory(water.id, key="drink")  # takes the key: supersedes coffee
    assert (moved.category, moved.pinned) == ("goal", True)
    juice = service.remember("Diego drinks juice.")
    adopted = service.remember("Diego drinks juice.", supersedes=moved.id)
    assert (adopted.id, adopted.pinned, adopted.category) == (juice.id, True, "fact")
    assert service.get_memory(juice.id) == adopted


def test_pinning_a_superseded_memory_is_invalid_input(service: MemoryService) -> None:
    # Found by a new-user trial: it succeeded silently and did nothing for the context.
    old = service.remember("Diego prefers Spanish.", key="response_language")
    new = service.remember("Diego prefers English.", key="response_language")
    with pytest.raises(InvalidInput, match=f"its current version is {new.id}: pin that one"):
        service.pin_memory(old.id)
    assert service.pin_memory(old.id, pinned=False).pinned is False  # unpinning is harmless
    assert service.pin_memory(new.id).pinned is True


def test_superseding_a_superseded_memory_names_the_newest_of_its_chain(
    service: MemoryService,
) -> None:
    # Found by review: "memory X is superseded, not active", where update and pin name the
    # version to use instead.
    old = service.remember("Diego drinks tea.", key="drink")
    service.remember("Diego drinks coffee.", key="drink")
    newest = service.remember("Diego drinks mate.", key="drink")
    with pytest.raises(
        InvalidInput,
        match=f"supersedes: {old.id} was superseded; its current "
        f"version is {newest.id}: supersede that one",
    ):
        service.remember("Diego drinks water.", supersedes=old.id)
    assert [m.content for m in service.list_memories().memories] == ["Diego drinks mate."]


def test_recall_finds_other_forms_of_a_memory_word_in_any_mode_only(
    service: MemoryService,
) -> None:
    # Found by review: history matched "painting" to "paints", memories did not.
    service.remember("Diego paints landscapes.")
    for query in ("painting", "painted", "paint", "paints"):
        (memory,) = service.recall(query, history=False).memories
        assert memory.content == "Diego paints landscapes."
    assert service.recall("painting", mode="all", history=False).memories == []
    assert service.recall("painting", mode="phrase", history=False).memories == []
    assert len(service.recall("paints landscapes", mode="phrase", history=False).memories) == 1
    # The per-turn context ranks memories by stem too.
    assert "Diego paints landscapes." in service.context("what is Diego painting?").text


@pytest.mark.parametrize("content", ["\x00 Diego paints", "\x00", "Diego\x00paints"])
def test_a_nul_in_memory_content_is_invalid_input(service: MemoryService, content: str) -> None:
    # Found by review: a leading NUL hid the text from SQLite's CHECK (a StoreError).
    with pytest.raises(InvalidInput, match="NUL"):
        service.remember(content)
    memory = service.remember("Diego paints")
    with pytest.raises(InvalidInput, match="NUL"):
        service.update_memory(memory.id, content)
    assert [m.content for m in service.list_memories().memories] == ["Diego paints"]


def test_a_long_memory_found_by_another_form_is_clipped_around_it(
    service: MemoryService,
) -> None:
    # Found by review: the clip came from the memory's start, without the matched word.
    filler = ("Diego likes tea and chess. " * 150)[:3800]
    for n, word in enumerate(["painted", "paints", "painting"]):
        service.remember(f"{filler} Note {n}: Diego {word} murals.")
    memories = service.recall("painting", history=False).memories
    assert len(memories) >= 2  # as many as the page's budget holds
    assert all("Diego paint" in memory.content for memory in memories)
    assert any(memory.truncated for memory in memories)


def test_an_expired_candidate_is_marked_expired_and_the_next_extraction_kept_once(
    service: MemoryService,
    seeded,
) -> None:
    # Found by review: the oldest candidate, expired, was skipped but never marked, so every
    # later extraction of the same fact added a row.
    from tests.factories import MemoryFactory

    with seeded():
        MemoryFactory(
            id="mem_old",
            content="Diego likes black tea",
            normalized_content="diego likes black tea",
            status="candidate",
            origin="extracted",
            expires_at=datetime(2020, 1, 1, tzinfo=UTC),
        )
    first = service.remember("Diego likes black tea", origin="extracted", confidence=0.6)
    again = service.remember("Diego likes black tea", origin="extracted", confidence=0.9)
    assert again.id == first.id != "mem_old"
    assert service.get_memory("mem_old").status == "expired"  # type: ignore[union-attr]


def test_an_update_through_the_cli_or_the_tools_keeps_the_category_it_is_not_given(
    service: MemoryService, db_path: Path
) -> None:
    # Found by review: both passed category "fact" always, so an update made a preference a
    # fact; and confirming a candidate took the default over the candidate's own category.
    from click.testing import CliRunner

    from memstore.adapters.cli import cli
    from memstore.adapters.tools import MemoryTools

    drink = service.remember("Diego prefers green tea", category="preference", key="drink")
    runner = CliRunner()
    args = ["--database", str(db_path), "remember", "Diego prefers black tea", "--memory-id"]
    result = runner.invoke(cli, [*args, drink.id])
    assert result.exit_code == 0 and json.loads(result.stdout)["category"] == "preference"
    updated = MemoryTools(service).remember("Diego prefers oolong", memory_id=drink.id)
    assert updated["result"]["category"] == "preference"
    service.remember("Diego likes hiking", origin="extracted", category="goal")
    assert service.remember("Diego likes hiking.").category == "goal"


def test_a_duplicate_remember_applies_the_fields_it_gives(service: MemoryService) -> None:
    # Found by review: remembering known content again with --expires or --category kept the
    # memory as it was and said nothing; only a new key was applied.
    coffee = service.remember("Diego likes coffee.", category="fact")
    again = service.remember("Diego likes coffee", category="preference", expires_at="2099-01-01")
    assert again.id == coffee.id and again.category == "preference"
    assert again.expires_at is not None and again.expires_at.year in (2098, 2099)
    assert service.remember("Diego likes coffee.").category == "preference"  # nothing given


def test_an_extracted_fact_cannot_update_a_memory_by_its_id(service: MemoryService) -> None:
    # Found by review: remember(..., memory_id=b, key="lang", origin="extracted") rewrote the
    # confirmed memory b and superseded the confirmed a through the key; it is refused.
    a = service.remember("Diego prefers Spanish.", key="lang")
    b = service.remember("Diego has a cat.")
    with pytest.raises(InvalidInput, match="origin: is extracted"):
        service.remember(
            "Diego prefers German.", memory_id=b.id, key="lang", origin="extracted", confidence=0.3
        )
    kept = [service.get_memory(a.id), service.get_memory(b.id)]
    assert [(m.status, m.content) for m in kept if m] == [
        ("active", "Diego prefers Spanish."),
        ("active", "Diego has a cat."),
    ]


def test_a_memory_whose_successor_was_deleted_says_so_and_can_be_remembered_again(
    service: MemoryService,
) -> None:
    # Found by review: after deleting the newest memory under a key, the one it superseded
    # was refused as "superseded by None".
    old = service.remember("Diego prefers Spanish.", key="lang")
    new = service.remember("Diego prefers English.", key="lang")
    assert service.delete_memory(new.id)
    for attempt in (
        lambda: service.update_memory(old.id, "Diego prefers Catalan."),
        lambda: service.pin_memory(old.id, True),
    ):
        with pytest.raises(InvalidInput, match="superseded by a memory since deleted"):
            attempt()
    again = service.remember("Diego prefers Spanish.", key="lang")
    assert again.status == "active" and again.content == "Diego prefers Spanish."


def test_a_superseded_memory_is_sent_to_the_newest_of_its_successors(
    service: MemoryService,
) -> None:
    # Found by review: A's refusal named B, whose own refusal said its successor was deleted.
    first = service.remember("Diego prefers Spanish.", key="lang")
    second = service.remember("Diego prefers English.", key="lang")
    third = service.remember("Diego prefers Catalan.", key="lang")
    with pytest.raises(InvalidInput, match=f"current version is {third.id}: update that one"):
        service.update_memory(first.id, "Diego prefers Basque.")
    assert service.delete_memory(third.id)
    for memory in (first, second):
        with pytest.raises(InvalidInput, match="superseded by a memory since deleted"):
            service.pin_memory(memory.id)


def test_a_page_of_memories_stays_within_recall_chars_and_pages_on(db_path: Path) -> None:
    # Found by review: ten long memories made a page of 33,761 characters for recall_chars
    # 8,000 (the contract: at most recall_chars characters of JSON).
    service = MemoryService(db_path, config=MemoryConfig(max_results=50, recall_chars=8000))
    for n in range(10):
        service.remember(f"Diego fact {n}: " + " ".join(f"w{n}x{j}" for j in range(700))[:3900])
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = service.list_memories(offset=offset, limit=50)
        assert len(page.model_dump_json()) <= 8000 and page.total == 10
        assert [m.truncated for m in page.memories[:-1]] == [False] * (len(page.memories) - 1)
        seen += [m.id for m in page.memories]
        offset = page.next_offset
    assert len(seen) == 10 == len(set(seen))
    whole = MemoryService(db_path, pages=MemoryConfig().reader_page_size()).list_memories(limit=50)
    assert len(whole.memories) == 10 and not any(m.truncated for m in whole.memories)


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_source_ref_is_refused_for_messages_and_memories(
    service: MemoryService, blank: str
) -> None:
    # Found by review: source_ref="" made every later message return the first one, and
    # dropped it.
    session = service.start_session()
    with pytest.raises(InvalidInput, match="source_ref: is blank"):
        service.record_message(session.id, "user", "first message", source_ref=blank)
    with pytest.raises(InvalidInput, match="source_ref: is blank"):
        service.remember("Diego likes owls.", source_ref=blank)
    assert service.messages(session.id) == [] and service.list_memories().total == 0


def test_a_source_ref_longer_than_a_log_path_is_refused_and_one_as_long_pages_within_budget(
    service: MemoryService,
) -> None:
    # Found by review: a 20,000-character reference made every page showing its message
    # 20,000 characters long against a budget of 8,000, and its chunks one character each.
    session = service.start_session()
    with pytest.raises(InvalidInput, match="source_ref: is 20000 characters; at most 4200"):
        service.record_message(session.id, "user", "hello there", source_ref="x" * 20_000)
    with pytest.raises(InvalidInput, match="source_ref: is 4201 characters"):
        service.remember("Diego likes owls.", source_ref="x" * 4201)
    assert service.messages(session.id) == [] and service.list_memories().total == 0
    longest = "x" * 4200
    message = service.record_message(session.id, "user", "hello there " * 1000, source_ref=longest)
    assert message is not None
    chunk = service.read_memory_message(message.id)
    assert len(chunk.model_dump_json()) <= 8000 and len(chunk.content) > 3000
    assert len(service.word_instances("hello").model_dump_json()) <= 8000


def test_a_source_ref_of_another_message_than_the_source_id_is_refused(
    service: MemoryService,
) -> None:
    # Found by review: the link stored one message's id with another's reference.
    session = service.start_session()
    x = service.record_message(session.id, "user", "Me gustan los búhos.", source_ref="/l#byte=1")
    y = service.record_message(session.id, "user", "Y los gatos.", source_ref="/l#byte=2")
    assert x is not None and y is not None
    with pytest.raises(InvalidInput, match=f"source_ref: is not the reference of message {x.id}"):
        service.remember("Diego likes owls.", source_message_id=x.id, source_ref="/l#byte=2")
    assert service.list_memories().total == 0
    owls = service.remember("Diego likes owls.", source_message_id=x.id, source_ref="/l#byte=1")
    assert [(s.message_id, s.source_ref) for s in service.memory_sources(owls.id)] == [
        (x.id, "/l#byte=1")
    ]


def test_a_write_naming_a_record_of_a_missing_database_creates_no_file(tmp_path: Path) -> None:
    # Found by review: `remember --memory-id` on a mistyped --database left a new, empty
    # store behind its NotFound.
    path = tmp_path / "typo" / "memory.sqlite3"
    service = MemoryService(path)
    for write in (
        lambda: service.remember("Diego likes tea.", memory_id="mem_nope"),
        lambda: service.update_memory("mem_nope", "Diego likes tea."),
        lambda: service.remember("Diego likes tea.", supersedes="mem_nope"),
        lambda: service.remember("Diego likes tea.", source_message_id="msg_nope"),
        lambda: service.pin_memory("mem_nope"),
    ):
        with pytest.raises(NotFound):
            write()
    assert service.delete_memory("mem_nope") is False
    assert not path.parent.exists()


def test_a_clock_gone_back_never_takes_a_modification_time_back(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Found by review: an update while the clock was behind stored modified_at before
    # created_at, and import-memories refused the store's own export.
    from memstore.concerns import memories as memory_concern

    tea = service.remember("Diego likes tea.", key="drink")
    behind = tea.created_at - timedelta(seconds=30)
    monkeypatch.setattr(memory_concern, "utc_now", lambda: behind)
    updated = service.update_memory(tea.id, "Diego likes green tea.")
    pinned = service.pin_memory(tea.id)
    service.remember("Diego likes coffee.", key="drink")  # supersedes it
    changes = [tea, updated, pinned, service.get_memory(tea.id)]
    times = [memory.modified_at for memory in changes if memory is not None]
    assert times == sorted(set(times)) and len(times) == 4  # each change later than the last
    service.export(tmp_path / "all.jsonl")
    other = MemoryService(tmp_path / "other.sqlite3")
    assert other.import_memories(tmp_path / "all.jsonl").imported == 2


def test_a_supersession_with_a_right_clock_writes_the_time_of_the_write(
    service: MemoryService,
) -> None:
    # Found by review: the superseded memory's time came out a microsecond after the new
    # memory's creation, from the second statement of the same write.
    old = service.remember("Diego likes tea.", key="drink")
    new = service.remember("Diego likes coffee.", key="drink")
    assert service.get_memory(old.id).modified_at == new.created_at  # type: ignore[union-attr]


def test_an_edit_while_the_clock_is_behind_reaches_a_store_that_synced_before(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Found by review: the edit kept the old modification time, so the other store's import
    # reported a conflict (content) or skipped it (a pin).
    from memstore.concerns import memories as memory_concern

    tea = service.remember("Diego likes tea.")
    service.export(tmp_path / "first.jsonl")
    other = MemoryService(tmp_path / "other.sqlite3")
    other.import_memories(tmp_path / "first.jsonl")
    monkeypatch.setattr(memory_concern, "utc_now", lambda: tea.created_at - timedelta(seconds=30))
    service.update_memory(tea.id, "Diego likes green tea.")
    service.pin_memory(tea.id)
    service.export(tmp_path / "second.jsonl")
    assert other.import_memories(tmp_path / "second.jsonl").updated == 1
    assert other.get_memory(tea.id) == service.get_memory(tea.id)


def test_a_key_far_too_long_is_refused_before_the_guard_reads_it(service: MemoryService) -> None:
    # Found by review: a 40,000-character key took the credential guard 17 s to scan before
    # the length check refused it.
    with pytest.raises(InvalidInput, match="key: is 40000 characters; give at most 1000, .* 200"):
        service.remember("Diego likes tea.", key="1-" * 20_000)
    # found by review: 1,000 was named as the limit, which is 200 once stored
    with pytest.raises(InvalidInput, match="key: is 201 characters once stored; .* at most 200"):
        service.remember("Diego likes tea.", key="k" * 201)
