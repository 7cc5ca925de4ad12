"""CJK words inside runs, through the service: recall in every mode, memories, updates."""

from __future__ import annotations

import pytest

from memstore import MemoryService
from memstore.errors import InvalidQuery
from memstore.kinds import Mode

MODES: tuple[Mode, ...] = ("any", "all", "phrase")


def matched(service: MemoryService, query: str, mode: Mode) -> set[str]:
    result = service.recall(query, mode=mode, limit=8)
    return {m.content for c in result.conversations for m in c.messages if m.id == c.matched_id}


@pytest.fixture
def talk(service: MemoryService) -> MemoryService:
    session = service.start_session()
    for text in ("部署v2-hotfix后回滚", "我们去看电影吧", "电 影 不是一个词", "映画館で映画を見た"):
        service.record_message(session.id, "user", text)
    return service


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("hotfix", {"部署v2-hotfix后回滚"}),
        ("回滚", {"部署v2-hotfix后回滚"}),
        ("部署", {"部署v2-hotfix后回滚"}),
        ("电影", {"我们去看电影吧"}),  # the characters of two runs are not the word
        ("映画", {"映画館で映画を見た"}),
        ("館で映", {"映画館で映画を見た"}),
    ],
)
def test_a_word_inside_a_run_is_found_in_every_mode(
    talk: MemoryService, query: str, expected: set[str], mode: Mode
) -> None:
    assert matched(talk, query, mode) == expected


def test_a_phrase_across_scripts_and_runs(talk: MemoryService) -> None:
    assert matched(talk, "v2-hotfix后", "phrase") == {"部署v2-hotfix后回滚"}
    assert matched(talk, "部署v2", "phrase") == {"部署v2-hotfix后回滚"}
    assert matched(talk, "电 影", "phrase") == {"电 影 不是一个词"}
    assert matched(talk, "署后", "phrase") == set()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ン・", {"ジョン・スミスさんに会った"}),  # not "ジョンとスミス": ン alone matched
        ("・ス", {"ジョン・スミスさんに会った"}),
        ("ン・ス", {"ジョン・スミスさんに会った"}),
        ("た。", {"映画を見た。"}),  # not "見たよ" nor a run ending in た
        ("「映画", {"「映画」は長かった"}),
        ("ー・", set()),  # ー is in "スーパー" but never before ・
        ("後v2", {"見た後v2"}),  # not "見た後 v2"
        ("後v3", {"その後V3"}),  # folded as the index folds
        ("ね。ok", {"ですね。OK"}),
        ("事。", {"大\u0307事\u0307。"}),  # emphasis dots the fold removes (found by review)
        ('"映画"', {"映画を見た。", "「映画」は長かった"}),  # quotes around it mark a phrase
        ("「映画」", {"映画を見た。", "「映画」は長かった"}),
    ],
)
def test_a_phrase_with_punctuation_among_cjk_matches_it_as_written(
    service: MemoryService, query: str, expected: set[str]
) -> None:
    session = service.start_session()
    texts = (
        "ジョン・スミスさんに会った",
        "ジョンとスミス",
        "映画を見た。",
        "見たよ",
        "「映画」は長かった",
        "見た後v2",
        "見た後 v2",
        "その後V3",
        "ですね。OK",
        "大\u0307事\u0307。",
    )
    for text in (*texts, "スーパー ・ 見た"):
        service.record_message(session.id, "user", text)
    assert matched(service, query, "phrase") == expected
    for text in texts:
        service.remember(text)
    memories = service.recall(query, mode="phrase", history=False).memories
    assert {m.content for m in memories} == expected


def test_a_partner_without_the_written_phrase_is_not_the_matched_message(
    service: MemoryService,
) -> None:
    """Both messages of the pair hold 店; only the reply holds "店。" (found by review: the
    question, ranking better on its own, was the matched message)."""
    session = service.start_session()
    service.record_message(session.id, "user", "这不是汽车店吗")
    reply = service.record_message(session.id, "assistant", "是的我们去了那家店。")
    (conversation,) = service.recall("店。", mode="phrase").conversations
    assert conversation.matched_id == reply.id


def test_memories_are_found_inside_runs_and_after_an_update(service: MemoryService) -> None:
    memory = service.remember("Diego 喜欢看电影和数据库迁移")
    assert [m.id for m in service.recall("电影").memories] == [memory.id]
    assert [m.id for m in service.recall("数据库", mode="phrase").memories] == [memory.id]
    service.update_memory(memory.id, content="Diego 喜欢喝绿茶")
    assert service.recall("电影").memories == []
    assert [m.id for m in service.recall("绿茶").memories] == [memory.id]
    page = service.word_instances("绿茶", scope="memories")
    assert [(i.start, i.end, i.matched_text) for i in page.instances] == [(9, 11, "绿茶")]


def test_a_deleted_message_is_no_longer_found(talk: MemoryService) -> None:
    result = talk.recall("电影", mode="phrase")
    assert talk.delete_message(result.conversations[0].matched_id)
    assert talk.recall("电影", mode="phrase").conversations == []
    assert talk.word_instances("电影").total == 0
    assert talk.health().ok


def test_supplementary_ideographs_and_hangul(service: MemoryService) -> None:
    session = service.start_session()
    service.record_message(session.id, "user", "𠀀𠀁𠀂 and 영화를 봤어요")
    assert matched(service, "𠀁", "any") == {"𠀀𠀁𠀂 and 영화를 봤어요"}
    assert matched(service, "영화", "phrase") == {"𠀀𠀁𠀂 and 영화를 봤어요"}
    located = service.word_instances("𠀁𠀂").instances
    assert [(i.start, i.end, i.matched_text) for i in located] == [(1, 3, "𠀁𠀂")]


def test_a_long_message_is_clipped_around_the_cjk_word_itself(service: MemoryService) -> None:
    # Found by review: the window once centred on the first lone 电, 20,000 characters away.
    session = service.start_session()
    service.record_message(session.id, "user", "电" + "是" * 20000 + "看电影" + "是" * 20000)
    (message,) = service.recall("电影", mode="phrase").conversations[0].messages
    assert message.truncated and "电影" in message.content


def test_a_long_run_searched_by_its_pairs_is_clipped_around_a_pair(
    service: MemoryService,
) -> None:
    # A question typed without spaces is searched by its pairs: the clip once looked for
    # the whole run, found it nowhere and kept the message's start (found by review).
    session = service.start_session()
    service.record_message(session.id, "user", "今天天气很好。" * 3000 + "周末我喜欢看电影。")
    conversation = service.recall("周末看电影吗").conversations[0]
    (message,) = [m for m in conversation.messages if m.id == conversation.matched_id]
    assert message.truncated and "周末" in message.content


def test_offsets_agree_whether_or_not_the_record_holds_cjk(service: MemoryService) -> None:
    # Found by review: a word after a lone diacritic started one character early in a CJK
    # record (Python's spans) and not in another (SQLite's highlight()).
    session = service.start_session()
    for text in (" \u0301ab", " \u0301ab电"):
        service.record_message(session.id, "user", text)
    page = service.word_instances("ab")
    assert sorted((i.start, i.end, i.matched_text) for i in page.instances) == [
        (2, 4, "ab"),
        (2, 4, "ab"),
    ]


def test_a_cjk_word_of_over_32_characters_is_refused(service: MemoryService) -> None:
    with pytest.raises(InvalidQuery, match="at most 32"):
        service.word_instances("哈" * 33)
    assert service.word_instances("哈" * 32).total == 0
