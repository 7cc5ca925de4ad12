"""Stable string ids: what the outside world calls a session, message or memory."""

from __future__ import annotations

import secrets


def new_id(prefix: str) -> str:
    """A new stable string id such as ``msg_`` followed by 32 random hex digits."""
    return f"{prefix}_{secrets.token_hex(16)}"
