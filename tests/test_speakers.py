"""Speakers' names: kept from the logs and the host, shown, filtered on, and a rank signal."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from memstore import MemoryService, Recorder
from memstore.adapters.cli import cli
from memstore.errors import InvalidInput
from memstore.kinds import Mode
from memstore.speakers import speaker_key, speaker_roles

LOG = (
    "Morgan Log \u2014 2026-10-05\n\n"
    "[09:15:00 +0200]\nCaroline: I went to the support group yesterday.\n\n"
    "[09:16:00 +0200]\nMelanie: Caroline, the support group sounds lovely.\n\n"
    "[09:17:00 +0200]\nCaroline: It was, and I painted after."
)


PAISIOS = "\u03a0\u03b1\u0390\u03c3\u03b9\u03bf\u03c2"  # a Greek name holding U+0390


@pytest.fixture
def imported(service: MemoryService, tmp_path: Path) -> MemoryService:
    log = tmp_path / "logs" / "2026-10-05.md"
    log.parent.mkdir()
    log.write_text(LOG, encoding="utf-8")
    speakers = {"Caroline": "user", "Melanie": "assistant"}
    report = service.import_markdown([log], speakers=speakers, include_tail=True)
    assert report.imported == 3
    return service


def test_imported_records_keep_their_speakers_name(imported: MemoryService) -> None:
    result = imported.recall("painted")
    (conversation,) = result.conversations
    names = {m.content[:11]: m.speaker for m in conversation.messages}
    assert names["It was, and"] == "Caroline"
    assert all(m.speaker in {"Caroline", "Melanie"} for m in conversation.messages)


@pytest.mark.parametrize(
    ("in_log", "mapped"),
    [("Jose\u0301", "José"), ("José", "Jose\u0301"), ("JOSÉ", "jose\u0301"),
     (PAISIOS, PAISIOS.upper())],
)  # fmt: skip
def test_a_speaker_is_matched_whether_an_accent_is_composed_or_combining(
    service: MemoryService, tmp_path: Path, in_log: str, mapped: str
) -> None:
    # Found by review: a name written with a combining accent (as macOS keeps text) was an
    # unknown speaker for the same name typed composed, and the other way round; then, by
    # the next, composing before the case fold parted a Greek name from its upper case.
    log = tmp_path / "logs" / "2026-10-05.md"
    log.parent.mkdir()
    log.write_text(f"Morgan Log \u2014 2026-10-05\n\n[09:15:00 +0200]\n{in_log}: Hola", "utf-8")
    report = service.import_markdown([log], speakers={mapped: "user"}, include_tail=True)
    assert (report.imported, report.unknown_speakers) == (1, {})
    assert service.recall("hola", speaker=mapped).conversations[0].messages[0].speaker == in_log


def test_recall_and_word_queries_filter_by_speaker_without_case(
    imported: MemoryService,
) -> None:
    matched = imported.recall("support group", speaker="melanie", limit=8)
    assert {
        m.speaker for c in matched.conversations for m in c.messages if m.id == c.matched_id
    } == {"Melanie"}
    assert imported.word_instances("group", speaker="Caroline").total == 1
    assert imported.word_instances("group").total == 2
    assert [w.word for w in imported.search_words("pai", speaker="Melanie").words] == []
    assert [w.word for w in imported.search_words("pai", speaker="CAROLINE").words] == ["painted"]
    assert imported.recall("support", speaker="Nobody").conversations == []


@pytest.mark.parametrize("written", ["МАРИЯ", "мария", "Мария"])
def test_a_name_outside_ascii_is_matched_in_any_usual_case(
    service: MemoryService, written: str
) -> None:
    # Found by review: SQLite's NOCASE folds A-Z only, so "мария" (a name typed in lower
    # case, as questions often are) neither filtered nor ranked Мария's messages.
    session = service.start_session()
    own = "Вчера я посадила розы в саду."
    service.record_message(session.id, "user", own, speaker="Мария")
    service.record_message(session.id, "user", "Розы в саду красивые.", speaker="Иван")

    def matched(query: str, **filters: str) -> list[str]:
        result = service.recall(query, mode="all", **filters)
        return [m.content for c in result.conversations for m in c.messages if m.id == c.matched_id]

    assert matched("розы", speaker=written) == [own]
    assert service.word_instances("розы", speaker=written).total == 1
    assert [w.word for w in service.search_words("сад", speaker=written).words] == ["саду"]
    assert matched(f"{written} розы саду") == [own, "Розы в саду красивые."]


@pytest.mark.parametrize("written", ["мария", "МАРИЯ", "Мария", "zoë", "ZOË"])
def test_a_filter_finds_every_case_form_one_speakers_name_is_stored_in(
    service: MemoryService, tmp_path: Path, written: str
) -> None:
    # Found by review: an import maps names without case, so one log's "Мария", "МАРИЯ" and
    # "мария" are one speaker, stored as written; a filter found one form's messages only.
    log = tmp_path / "logs" / "2026-10-06.md"
    log.parent.mkdir()
    records = [
        f"[10:00:0{n} +0000] \n{name}: кино {n} movie"
        for n, name in enumerate(["Мария", "МАРИЯ", "мария", "Zoë", "ZOË"])
    ]
    log.write_text("Morgan Log — 2026-10-06\n\n" + "\n\n".join(records), encoding="utf-8")
    speakers = {"Мария": "user", "Zoë": "assistant"}
    assert service.import_markdown([log], speakers=speakers, include_tail=True).imported == 5
    expected = 3 if written.casefold() == "мария" else 2
    assert service.word_instances("movie", speaker=written).total == expected
    assert service.search_words("movie", speaker=written).words[0].occurrences == expected
    found = service.recall("кино movie", speaker=written, limit=8)
    matched = {m.id for c in found.conversations for m in c.messages if m.id == c.matched_id}
    assert len(matched) == expected


@pytest.mark.parametrize(
    ("speaker", "reason"),
    [
        ("  ", "speaker: is blank (spaces around it left out); give a name of 1 to 100"),
        ("x" * 101, "speaker: is 101 characters (spaces around it left out); give a name of 1"),
    ],
)
def test_a_speaker_filter_that_is_blank_or_too_long_is_refused_with_its_reason(
    service: MemoryService, speaker: str, reason: str
) -> None:
    # Found by review: "  " was refused as "is 2 characters; give a name of 1 to 100".
    with pytest.raises(InvalidInput) as refused:
        service.recall("garden", speaker=speaker)
    assert str(refused.value).startswith(reason)


@pytest.mark.parametrize("name", ["Di:ego", "x" * 101])
def test_an_import_refuses_a_speaker_no_log_record_can_name(
    service: MemoryService, runner: CliRunner, tmp_path: Path, name: str
) -> None:
    # Found by review: "--speaker Di:ego=user" was accepted, though no record can match it.
    with pytest.raises(InvalidInput, match="cannot head a log record"):
        service.import_markdown([tmp_path], speakers={name: "user", "Morgan": "assistant"})
    database = ["--database", str(tmp_path / "cli.sqlite3")]
    refused = runner.invoke(cli, [*database, "import", str(tmp_path), "--speaker", f"{name}=user"])
    assert refused.exit_code == 2 and "cannot head a log record" in refused.stderr
    assert not (tmp_path / "cli.sqlite3").exists()


def test_a_query_naming_a_speaker_ranks_their_messages_first(service: MemoryService) -> None:
    # Melanie's short message ranks first on the words alone; a query naming Caroline ranks
    # Caroline's own message first, though neither text holds her name. A signal, not a
    # filter: Melanie's message is still found.
    session = service.start_session()
    caroline = "Yesterday I finally went to the support group at the library, it was good."
    service.record_message(session.id, "user", caroline, speaker="Caroline")
    service.record_message(session.id, "user", "The support group.", speaker="Melanie")

    def first_speakers(query: str) -> list[str | None]:
        result = service.recall(query)
        return [m.speaker for c in result.conversations for m in c.messages if m.id == c.matched_id]

    assert first_speakers("When did she go to the support group?") == ["Melanie", "Caroline"]
    assert first_speakers("When did Caroline go to the support group?") == ["Caroline", "Melanie"]


def test_in_all_mode_a_speakers_name_counts_as_the_speaker_not_as_a_required_word(
    service: MemoryService,
) -> None:
    # Found by review: recall("Caroline support group", mode="all") required "Caroline" in
    # the text, so it missed Caroline's own message: the name acted as a filter.
    session = service.start_session()
    own = "Yesterday I finally went to the support group at the library."
    service.record_message(session.id, "user", own, speaker="Caroline")
    service.record_message(session.id, "user", "The support group met again.", speaker="Melanie")
    service.record_message(session.id, "user", "Caroline looked happy.", speaker="Melanie")

    def matched(query: str, mode: Mode) -> list[str]:
        result = service.recall(query, mode=mode)
        return [m.content for c in result.conversations for m in c.messages if m.id == c.matched_id]

    assert matched("Caroline support group", "all") == [own, "The support group met again."]
    assert matched("caroline", "all") == ["Caroline looked happy."]  # nothing else to require
    assert matched("Caroline support group", "phrase") == []  # a phrase stays literal


@pytest.mark.parametrize(
    ("speaker", "content", "query"),
    [
        # Found by review: the name was blanked out of an all-mode query only when typed as
        # stored, so "Jos\u00e9" required the word of a message by "Jose\u0301".
        ("Jose\u0301", "the concert was long", "Jos\u00e9 concert"),
        # Found by the re-check: the name, keyed, became the unified ideograph (NFC), and
        # the query's own pieces, unkeyed, no longer matched it: "李雷" (李 as U+F9E1) was
        # required.
        ("\uf9e1雷", "我去了音乐会", "\uf9e1雷音乐会"),
    ],
)
def test_in_all_mode_a_name_typed_another_way_is_no_required_word(
    service: MemoryService, speaker: str, content: str, query: str
) -> None:
    session = service.start_session()
    own = service.record_message(session.id, "user", content, speaker=speaker)
    found = service.recall(query, mode="all").conversations
    assert [c.matched_id for c in found] == [own.id]


def test_in_all_mode_a_short_name_is_never_blanked_inside_a_longer_word(
    service: MemoryService,
) -> None:
    # Found by the re-check: "Al" was blanked inside "Alice" and "salad", so that the query
    # required "ice" or "s" and "ad", and found nothing.
    session = service.start_session()
    service.record_message(session.id, "user", "hello", speaker="Al")
    salad = service.record_message(session.id, "user", "Alice made a salad", speaker="Bo")
    # A possessive goes with the name, in any case, and a Turkish case ending too.
    endings = ("Al's salad", "AL\u2019S SALAD", "Al'nin salad", "Al'yle salad", "Al'll salad")
    for query in ("Al Alice", "Al salad", *endings):
        found = service.recall(query, mode="all").conversations
        assert [c.matched_id for c in found] == [salad.id], query
    # A word of its own after the apostrophe stays required (found by the re-check: the
    # "Neill" of "O'Neill" was blanked for a speaker O).
    iced = service.record_message(session.id, "user", "no ice in my salad", speaker="Bo")
    found = service.recall("Al'ice salad", mode="all").conversations
    assert [c.matched_id for c in found] == [iced.id]


def test_a_cjk_name_inside_a_run_of_the_query_counts_as_its_speaker(
    service: MemoryService,
) -> None:
    # Found by review: Chinese and Japanese questions put no space around a name, so
    # "王小明什么时候去的支持小组" ranked 李雷's message first, as if no name were there.
    session = service.start_session()
    service.record_message(session.id, "user", "我去了支持小组\uff0c很好。", speaker="王小明")
    service.record_message(session.id, "user", "支持小组。", speaker="李雷")
    for query in ("王小明什么时候去的支持小组\uff1f", "支持小组王小明", "王小明 支持小组"):
        result = service.recall(query)
        matched = [m for c in result.conversations for m in c.messages if m.id == c.matched_id]
        assert [m.speaker for m in matched] == ["王小明", "李雷"], query


def test_a_name_beyond_ascii_never_filters_for_the_ascii_name_its_upper_case_spells(
    service: MemoryService,
) -> None:
    # Found by review: "Ayd\u0131n".upper() is AYDIN, which NOCASE takes for Aydin, another
    # speaker to an import; the filter for Ayd\u0131n found both.
    for name in ("Ayd\u0131n", "Aydin"):
        session = service.start_session()
        service.record_message(session.id, "user", f"garden note by {name}", speaker=name)
    for written in ("Ayd\u0131n", "ayd\u0131n", "AYD\u0131N"):
        assert service.word_instances("garden", speaker=written).total == 1
        found = service.recall("garden", speaker=written).conversations
        assert [c.messages[0].speaker for c in found] == ["Ayd\u0131n"]
    assert service.word_instances("garden", speaker="AYDIN").total == 1  # Aydin's


def test_a_name_whose_upper_case_an_import_takes_for_it_still_finds_that_form(
    service: MemoryService, tmp_path: Path
) -> None:
    # Found by the next review: an import folds names with casefold, so Strau\u00df's
    # STRAUSS records are his; dropping every ASCII form lost them.
    log = tmp_path / "logs" / "2026-10-05.md"
    log.parent.mkdir()
    log.write_text(
        "Morgan Log — 2026-10-05\n\n[09:00:00 +0000] \nStrau\u00df: otter one"
        "\n\n[09:01:00 +0000] \nSTRAUSS: otter two",
        encoding="utf-8",
    )
    service.import_markdown([log], speakers={"Strau\u00df": "user"}, include_tail=True)
    for written in ("Strau\u00df", "strau\u00df"):
        assert service.word_instances("otter", speaker=written).total == 2


@pytest.mark.parametrize("query", ["李雷的电影", "李雷看电影"])
def test_a_cjk_name_in_a_longer_run_leaves_its_pairs_to_find_the_word(
    service: MemoryService, query: str
) -> None:
    # Found by review: the run split at the name left a rest of three characters, searched
    # whole, so "李雷的电影" found none of the messages about 电影 it found before.
    session = service.start_session()
    service.record_message(session.id, "user", "我喜欢电影", speaker="李雷")
    other = service.start_session()
    service.record_message(other.id, "user", "电影院很远", speaker="Alice")
    assert len(service.recall(query).conversations) == 2


def test_a_cjk_name_glued_to_a_word_finds_memories_of_the_word_too(
    service: MemoryService,
) -> None:
    # Found by review: history found 电影 for "李雷电影", the memories did not.
    session = service.start_session()
    service.record_message(session.id, "user", "hola", speaker="李雷")
    memory = service.remember("韩梅梅周末喜欢看电影")
    assert [m.id for m in service.recall("李雷电影").memories] == [memory.id]


@pytest.mark.parametrize("query", ["李雷电影", "电影李雷"])
def test_a_cjk_name_glued_to_a_short_word_finds_the_word_in_any_mode(
    service: MemoryService, query: str
) -> None:
    # Found by review: a run of up to four characters is searched whole, so "李雷电影" was
    # one phrase no message holds: any mode found nothing, where all mode found the word.
    session = service.start_session()
    own = service.record_message(session.id, "user", "the movie 电影 was great", speaker="李雷")
    other = service.record_message(session.id, "user", "我喜欢电影", speaker="Alice")
    for mode in ("any", "all"):
        result = service.recall(query, mode=mode)
        matched = {m.id for c in result.conversations for m in c.messages if m.id == c.matched_id}
        assert matched == {own.id, other.id}, mode


def test_a_role_word_is_no_speaker_name_though_a_recorder_names_roles_so(
    service: MemoryService,
) -> None:
    # Found by review: a recorder's default names are "User" and "Assistant", so the word
    # "user" in a query doubled the rank of every user message: the user's longer question
    # outranked the assistant's answer, which ranks first on the words alone.
    turns = [("What is running?", "Postgres is up."), ("Is postgres up on the server?", "Hm.")]
    for request, reply in turns:
        session = service.start_session()
        service.record_message(session.id, "user", request, speaker="User")
        service.record_message(session.id, "assistant", reply, speaker="Assistant")
    result = service.recall("user postgres")
    matched = [m for c in result.conversations for m in c.messages if m.id == c.matched_id]
    assert [m.content for m in matched] == ["Postgres is up.", "Is postgres up on the server?"]


def test_record_message_takes_a_speaker_and_refuses_one_a_log_cannot_hold(
    service: MemoryService,
) -> None:
    session = service.start_session()
    message = service.record_message(session.id, "user", "Hola", speaker="Diego")
    assert message is not None and message.speaker == "Diego"
    assert service.messages(session.id)[0].speaker == "Diego"
    # found by review: a NUL went into the log, a name no --speaker could ever match
    for bad in ("", "   ", "Di:ego", "Die\ngo", "x" * 101, "Di\x00ego", "Di\u202eego", "D\u2028i"):
        with pytest.raises(InvalidInput, match="speaker"):
            service.record_message(session.id, "user", "Hola", speaker=bad)
    assert len(service.messages(session.id)) == 1


def test_the_recorder_stores_the_configured_names(service: MemoryService, tmp_path: Path) -> None:
    recorder = Recorder(
        service, speakers={"user": "Diego", "assistant": "Morgan"}, log_dir=tmp_path
    )
    user = recorder.record("user", "I like green tea.")
    reply = recorder.record("assistant", "Noted: green tea.")
    assert user is not None and reply is not None
    assert (user.speaker, reply.speaker) == ("Diego", "Morgan")


def test_the_diary_and_conversation_show_the_names(
    imported: MemoryService, runner: CliRunner
) -> None:
    database = ["--database", str(imported.path)]
    shown = runner.invoke(
        cli, [*database, "diary", "2026-10-05", "--tz", "Europe/Madrid", "--format", "text"]
    )
    assert shown.exit_code == 0, shown.output
    assert "09:15 Caroline (user): I went to the support group yesterday." in shown.stdout
    assert "09:16 Melanie (assistant): Caroline, the support group sounds lovely." in shown.stdout
    session_id = imported.recall("painted").conversations[0].session_id
    read = runner.invoke(cli, [*database, "conversation", session_id])
    assert read.exit_code == 0
    assert '"speaker": "Caroline"' in read.stdout and '"speaker": "Melanie"' in read.stdout


def test_the_cli_filters_recall_by_speaker(imported: MemoryService, runner: CliRunner) -> None:
    database = ["--database", str(imported.path)]
    found = runner.invoke(cli, [*database, "recall", "support", "--speaker", "Melanie"])
    assert found.exit_code == 0 and '"speaker": "Melanie"' in found.stdout


def test_a_name_of_several_words_is_a_rank_signal_too(service: MemoryService) -> None:
    session = service.start_session()
    long = "Yesterday I finally went to the support group at the library, it was good."
    service.record_message(session.id, "user", long, speaker="Mary Ann")
    service.record_message(session.id, "user", "The support group.", speaker="Bob")
    result = service.recall("When did mary ann go to the support group?")
    firsts = [m.speaker for c in result.conversations for m in c.messages if m.id == c.matched_id]
    assert firsts == ["Mary Ann", "Bob"]


def test_a_name_with_a_space_at_either_end_is_refused_everywhere(
    service: MemoryService, tmp_path: Path
) -> None:
    # Found by review: " Diego " was stored, but no filter (stripped) could match it, and its
    # log line could not be imported back by any --speaker name.
    session = service.start_session()
    with pytest.raises(InvalidInput, match="no space at either end"):
        service.record_message(session.id, "user", "garden", speaker=" Diego ")
    with pytest.raises(InvalidInput, match="no space at either end"):
        Recorder(service, speakers={"user": "Diego "}, log_dir=tmp_path).record("user", "hi")
    assert service.messages(session.id) == []


def test_a_log_speaker_with_a_space_at_either_end_is_matched_and_stored_stripped(
    service: MemoryService, tmp_path: Path
) -> None:
    # Found by review: " Diego: ..." was reported with the hint --speaker " Diego=user",
    # which (stripped as every --speaker name is) never matched it.
    logs = tmp_path / "logs"
    logs.mkdir()
    text = "Morgan Log \u2014 2026-10-05\n\n[09:00:00 +0000]\n Diego : spaced heron\n"
    (logs / "2026-10-05.md").write_text(text + "\n[09:00:05 +0000]\nMorgan: ok", encoding="utf-8")
    unmapped = service.import_markdown([logs], speakers={"Morgan": "assistant"})
    assert unmapped.unknown_speakers == {"Diego": 1}
    assert '--speaker "Diego=user|assistant|system"' in unmapped.files[0].warnings[0].message
    report = service.import_markdown(
        [logs], speakers={"Diego": "user", "Morgan": "assistant"}, include_tail=True
    )
    assert report.imported == 2  # Diego's now mapped, and Morgan's no longer the tail
    (conversation,) = service.recall("heron", speaker="diego").conversations
    assert [m.speaker for m in conversation.messages] == ["Diego", "Morgan"]


def test_a_log_speaker_holding_a_tab_or_a_bidi_mark_can_be_imported(
    service: MemoryService, tmp_path: Path
) -> None:
    # Found by review: the live writer's stricter names were asked of --speaker too, and the
    # hint of an unknown speaker asked for a --speaker that was then refused.
    logs = tmp_path / "logs"
    logs.mkdir()
    text = (
        "Morgan Log \u2014 2026-10-05\n\n[09:00:00 +0200] \n"
        "\u200f\u05d3\u05d5\u05d3: \u05e9\u05dc\u05d5\u05dd\n\n"
        "[09:00:09 +0200] \nAna\tB: hi\n\n[09:00:10 +0200] \nMorgan: ok"
    )
    (logs / "2026-10-05.md").write_text(text, encoding="utf-8")
    speakers = {"\u200f\u05d3\u05d5\u05d3": "user", "Ana\tB": "user", "Morgan": "assistant"}
    report = service.import_markdown([logs], speakers=speakers, include_tail=True)
    assert (report.imported, report.unknown_speakers) == (3, {})


@pytest.mark.parametrize(
    ("stored", "written"),
    [
        ("Людвиг ван Бетховен", "людвиг ван бетховен"),
        ("Людвиг ван Бетховен", "ЛЮДВИГ ВАН БЕТХОВЕН"),  # noqa: RUF001 (Cyrillic on purpose)
        ("ДАРЬЯ ивановна", "дарья ивановна"),
        ("Straße", "STRASSE"),
        ("Straße", "strasse"),
    ],
)
def test_a_filter_finds_a_name_in_every_case_an_import_takes_for_it(
    service: MemoryService, stored: str, written: str
) -> None:
    # Found by review: the filter tried the name as typed, in lower and upper case and
    # capitalised word by word, so "людвиг ван бетховен" (the "ван" in lower case) found none
    # of Людвиг ван Бетховен's messages, though an import takes the two for one speaker.
    session = service.start_session()
    own = service.record_message(session.id, "user", "я написал симфонию", speaker=stored)
    other = service.start_session()
    service.record_message(other.id, "user", "симфонию слушали все", speaker="Иван")
    assert service.word_instances("симфонию", speaker=written).total == 1
    assert service.search_words("симф", speaker=written).words[0].occurrences == 1
    found = service.recall("симфонию", speaker=written).conversations
    assert [c.matched_id for c in found] == [own.id]


@pytest.mark.parametrize(
    ("stored", "written"),
    [
        ("Людвиг ван Бетховен", "людвиг ван бетховен"),
        ("Людвиг ван Бетховен", "ЛЮДВИГ ВАН БЕТХОВЕН"),  # noqa: RUF001 (Cyrillic on purpose)
        ("ДАРЬЯ ивановна", "дарья ивановна"),
        # Found by review: the signal looked a name up as typed, and an accent composed in
        # the query missed a name a log wrote with a combining one, and the other way round.
        ("Jose\u0301 Nu\u0301n\u0303ez", "jos\u00e9 n\u00fa\u00f1ez"),
        ("Jos\u00e9", "JOSE\u0301"),
    ],
)
def test_a_name_in_the_query_ranks_its_speaker_whatever_the_case_of_each_word(
    service: MemoryService, stored: str, written: str
) -> None:
    # Found by review: the signal tried the whole name in lower and upper case and
    # capitalised, none of them "Людвиг ван Бетховен"; walking every stored name instead
    # took 7 ms a recall with 5,000 speakers (the next review).
    session = service.start_session()
    text = "я написал симфонию для оркестра"
    own = service.record_message(session.id, "user", text, speaker=stored)
    other = service.start_session()
    service.record_message(other.id, "user", "симфонию", speaker="Иван")
    assert service.recall("симфонию").conversations[0].matched_id != own.id
    assert service.recall(f"{written} симфонию").conversations[0].matched_id == own.id


@pytest.mark.parametrize(
    "name",
    ["café" + " " * 12 + "menu", "Мария" + " " * 30 + "привет", "Мария - - - - - - - - - - Иван"],
)
def test_the_case_forms_of_a_name_stay_few_whatever_its_spaces(name: str) -> None:
    # Found by the re-check: each space counted as a word, and 12 spaces between two words
    # made 4**12 forms: 19 s for one recall.
    from memstore.repository.speaker_names import case_forms

    assert 1 <= len(case_forms(name)) <= 64


def test_a_word_of_a_name_turned_ascii_boosts_no_other_speaker(service: MemoryService) -> None:
    # Found by the re-check: "AYDIN \u00d6zil" (a dotless i upper-cased) was kept as a form,
    # and NOCASE took it for Aydin \u00d6zil, whom an import tells apart from Ayd\u0131n.
    for name, text in (("Ivan", "concert tickets"), ("Aydin Özil", "concert tickets yes")):
        session = service.start_session()
        service.record_message(session.id, "user", text, speaker=name)
    ranked = service.recall("Ayd\u0131n Özil concert").conversations
    assert [c.messages[0].speaker for c in ranked] == ["Ivan", "Aydin Özil"]


@pytest.mark.parametrize(
    ("stored", "query"),
    [
        ("KILI\u00c7", "K\u0131l\u0131\u00e7 concert"),
        ("AY\u015eE I\u015eIK", "Ay\u015fe I\u015f\u0131k concert"),
    ],
)
def test_a_word_that_folds_otherwise_once_cased_boosts_no_other_speaker(
    service: MemoryService, stored: str, query: str
) -> None:
    # Found by the re-check: a form beyond ASCII that folds otherwise (KILI\u00c7, the query's
    # K\u0131l\u0131\u00e7 upper-cased) was kept, and NOCASE took it for the speaker KILI\u00c7,
    # whom an import tells apart from K\u0131l\u0131\u00e7.
    for name, text in (("Ivan", "concert tickets"), (stored, "concert tickets yes")):
        session = service.start_session()
        service.record_message(session.id, "user", text, speaker=name)
    ranked = service.recall(query).conversations
    assert [c.messages[0].speaker for c in ranked] == ["Ivan", stored]


def test_every_case_form_folds_as_the_name_does() -> None:
    from memstore.repository.speaker_names import case_forms

    for name in ("K\u0131l\u0131\u00e7", "Ay\u015fe I\u015f\u0131k", "Strau\u00df", "\u0130brahim"):
        forms = case_forms(name)
        assert name in forms and all(f.casefold() == name.casefold() for f in forms)
    assert "KILI\u00c7" not in case_forms("K\u0131l\u0131\u00e7")
    assert "STRAUSS" in case_forms("Strau\u00df")


def test_one_name_typed_two_ways_given_two_roles_is_refused_naming_both_forms() -> None:
    # Found by review: the refusal showed "José" once, and both forms look alike on screen.
    with pytest.raises(InvalidInput) as refused:
        speaker_roles([("José", "user"), ("Jose\u0301", "assistant")])
    assert str(refused.value) == (
        "speaker 'Jose\\u0301': is given two roles: it is 'Jos\\xe9', mapped to user (names "
        "are compared without case, however their letters are typed)."
    )
    assert speaker_key("  DIEGO ") == speaker_key("diego") == "diego"  # the ASCII shortcut
    assert speaker_key("JOSÉ") == speaker_key("jose\u0301") != speaker_key("jose")
