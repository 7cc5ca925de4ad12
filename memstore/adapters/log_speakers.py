"""The names a :class:`~memstore.adapters.recorder.Recorder` writes in the log for each role."""

from __future__ import annotations

from collections.abc import Mapping

from memstore.errors import InvalidInput
from memstore.logs.write import check_speaker
from memstore.speakers import speaker_key

DEFAULT_SPEAKERS = {"user": "User", "assistant": "Assistant", "system": "System"}


def log_speakers(speakers: Mapping[str, str]) -> dict[str, str]:
    """Each role's name in the log: ``speakers`` over :data:`DEFAULT_SPEAKERS`.

    Raises:
        InvalidInput: For ``speakers`` that is no mapping, a role that is none of ``user``,
            ``assistant``, ``system``, a name a log record cannot hold (see
            :func:`~memstore.logs.write.check_speaker`), or one name for two roles, which an
            import (matching names without case) could not tell apart (found by review: the
            log then imported back under one role, and an empty assistant name made a
            header no import reads).
    """
    if not isinstance(speakers, Mapping):  # found by review: a TypeError traceback
        raise InvalidInput("speakers", f"is {speakers!r}; give a mapping of role to name.")
    unknown = sorted(set(speakers) - set(DEFAULT_SPEAKERS))
    if unknown:
        raise InvalidInput("speakers", f"{unknown} are no roles; use user, assistant, system.")
    named = {**DEFAULT_SPEAKERS, **speakers}
    for name in named.values():
        if not isinstance(name, str):
            raise InvalidInput("speakers", f"has the name {name!r}; names are text.")
        check_speaker(name)
    if len({speaker_key(name) for name in named.values()}) < len(named):
        raise InvalidInput(
            "speakers",
            f"{named} gives two roles one name (case, and how accents are typed, aside); give each "
            "its own.",
        )
    return named
