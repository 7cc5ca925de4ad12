"""The credential guard for explicit memory writes.

Memories are injected into every prompt and sent to the model provider, so a credential kept
as a memory would leak on every turn. A write whose content or key looks like it holds one is
refused with :class:`SecretRejected`, which names the kind found and the text's length, never
the value. The text is scanned as written and normalised (:mod:`.normalize`: NFKC, format
characters dropped, spaced-out runs joined), for shapes (:mod:`.formats`: detect-secrets'
detectors, the formats they lack, entropy) and for labels in twelve languages followed by a
value (:mod:`.labels`, judged by :mod:`.values`). This is a heuristic, not a complete secret
scanner: a credential in a shape it does not know, or written out in words, gets through.
"""

from __future__ import annotations

import re

from memstore.errors import SecretRejected
from memstore.guard.formats import format_kind
from memstore.guard.labels import label_kind
from memstore.guard.normalize import variants, without_links
from memstore.guard.payment import payment_kind

__all__ = ["id_secret_kind", "reject_id", "reject_keyed", "reject_secrets", "secret_kind"]


def secret_kind(text: str, *, entropy: bool = True) -> str | None:
    """The kind of credential ``text`` seems to hold ("AWS Access Key", "labelled
    credential", ...), or None when it looks clean; without the entropy test unless
    ``entropy`` (see :func:`id_secret_kind`)."""
    for form in variants(text):
        kind = (
            format_kind(form, entropy=entropy)
            or label_kind(without_links(form))
            or payment_kind(form)
        )
        if kind is not None:
            return kind
    return None


def reject_secrets(text: str, argument: str = "content") -> None:
    """Raise :class:`SecretRejected` when ``text`` (the ``argument`` of a memory write)
    seems to hold a credential.

    Raises:
        SecretRejected: Naming the argument, the kind found and the text's length in
            characters, never the value.
    """
    kind = secret_kind(text)
    if kind is not None:
        raise SecretRejected(argument, kind, len(text))


def id_secret_kind(text: str) -> str | None:
    """The kind of credential an id seems to hold, or None: :func:`secret_kind` without the
    entropy test, as random ids are the norm (found by review: it took most KSUIDs for
    credentials)."""
    return secret_kind(text, entropy=False)


def reject_id(memory_id: str, argument: str) -> None:
    """Raise :class:`SecretRejected` when an id read from a file (the ``argument`` of an
    import) seems to be a credential (see :func:`id_secret_kind`).

    Raises:
        SecretRejected: Naming the argument, the kind found and the id's length.
    """
    kind = id_secret_kind(memory_id)
    if kind is not None:
        raise SecretRejected(argument, kind, len(memory_id))


def reject_keyed(key: str, content: str) -> None:
    """Raise :class:`SecretRejected` when ``content`` is the credential its ``key`` names:
    the two read as a label and its value, ``wifi_password: Sunflower77!`` (found by review:
    each passed on its own, and the context showed the password).

    Raises:
        SecretRejected: Naming the content, the kind found and the content's length.
    """
    kind = secret_kind(f"{key_label(key)}: {content}")
    if kind is not None:
        raise SecretRejected("content", kind, len(content))


def key_label(key: str) -> str:
    """The words of a key, as a label reads them: "wifiPassword", "wifi_password_2",
    "wifi.password" and, as stored, "wifipassword" are "wifi password", lowercase, so that
    "wifiPasswordLocation" is no brand after a label (found by review: each let the content
    through, or refused "Fridge")."""
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key)
    words = re.sub(r"[\s_.-]+|(?i:(?=passw(?:or)?[dt]|passcode))", " ", words)
    return " ".join(re.sub(r"\d+$", "", words.strip()).split()).lower() or key
