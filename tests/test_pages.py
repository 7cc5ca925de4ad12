"""Paging (memstore.concerns.pages): the room a page leaves for its items is the budget less
the page's JSON at its widest, whatever its next-page field ends up holding."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memstore.concerns.pages import room
from memstore.config import PageSize
from memstore.schemas import InstancePage
from memstore.text.clipping import json_size

PAGES = PageSize(items=8, most=50, chars=8000)


@given(
    held=st.none() | st.integers(min_value=0, max_value=2**63 - 1),
    widest=st.integers(min_value=0, max_value=2**63 - 1),
    word=st.text(max_size=40),
)
def test_the_room_is_the_budget_less_the_widest_page(
    held: int | None, widest: int, word: str
) -> None:
    empty = InstancePage(word=word, scope="all", instances=[], total=widest, next_offset=held)
    widest_page = max(
        json_size(empty.model_copy(update={"next_offset": value})) for value in (None, widest)
    )
    assert room(PAGES, empty, "next_offset", widest) == PAGES.chars - widest_page


def test_without_a_character_budget_the_room_is_unbounded() -> None:
    empty = InstancePage(word="w", scope="all", instances=[], total=3, next_offset=3)
    assert room(PageSize(items=8, most=1000, chars=None), empty, "next_offset", 3) > 10**15
