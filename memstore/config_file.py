"""The host's JSON configuration file: its ``memory`` section read strictly and validated
(:func:`read_section`), and read again on each change, keeping the last valid settings
(:class:`ConfigLoader`)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from memstore import files, paths
from memstore.config import MemoryConfig, settings_problems
from memstore.errors import FileError, InvalidInput
from memstore.json_text import KeyedObject

log = logging.getLogger(__name__)

MAX_CONFIG_BYTES = 1024 * 1024


def read_section(path: Path) -> MemoryConfig:
    """The ``memory`` section of a JSON configuration file, validated.

    A leading ``~`` is expanded, as no shell does for an MCP client's arguments or the
    Python API (found by review: ``--config ~/assistant.json`` in a client's ``args``).

    Raises:
        FileError: When the path is not a regular file (a FIFO, a folder, a device), or
            names a home folder that cannot be found.
        OSError: When the file cannot be read.
        ValueError: When it is over 1 MiB, not UTF-8, not JSON, has no object ``memory``
            section, or a setting is invalid (one sentence per bad setting: its name, what
            is wrong, the value given).
    """
    data = files.read_regular(paths.expanded(path), MAX_CONFIG_BYTES, "the configuration")
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(f"the file is over {MAX_CONFIG_BYTES // 1024} KiB; is it the right one?")
    try:
        document: Any = json.loads(data.decode("utf-8-sig"), object_pairs_hook=KeyedObject)
    except UnicodeDecodeError as error:  # found by review: Python's own codec message
        raise ValueError(f"byte {error.start} is not valid UTF-8; save the file as UTF-8") from None
    except json.JSONDecodeError as error:
        raise ValueError(
            f"it is not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
        ) from None
    except RecursionError:  # json gives up on arrays or objects nested a thousand deep
        raise ValueError("the JSON is nested too deeply to be a configuration") from None
    is_object = isinstance(document, KeyedObject)
    section = document.get("memory", KeyedObject([])) if is_object else None
    if not isinstance(section, KeyedObject):
        raise ValueError('the file must be a JSON object whose "memory" is an object')
    repeated = ["memory"] if "memory" in document.repeated else []
    repeated += [f"memory.{key}" for key in section.repeated]
    if repeated:
        raise ValueError(f"{repeated[0]} is given twice; keep one of them")
    try:
        return MemoryConfig.model_validate(section)
    except InvalidInput as error:
        names = [(f"memory.{name}", why) for name, why in settings_problems(error.__cause__)]
        raise ValueError("; ".join(f"{name}: {why}" for name, why in names)) from None


class ConfigLoader:
    """Loads the ``memory`` settings of a host's JSON configuration, again on each change.

    Invalid settings keep the last valid ones (the defaults on the first load) and the
    reason is logged under the ``memstore`` logger, as the host's own settings behave.

    Args:
        path: The configuration file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.current = MemoryConfig()
        """The settings in force."""
        self.loaded = False
        """Whether the file was ever read with success (else the settings are the defaults)."""

    def load(self) -> MemoryConfig:
        """Read the file again; return the new settings, or the last valid ones."""
        try:
            self.current, self.loaded = read_section(self.path), True
        except (OSError, ValueError, FileError) as error:
            reason = error.strerror if isinstance(error, OSError) else str(error)
            kept = "the last valid ones" if self.loaded else "the defaults"  # found by review
            log.warning("memory settings in %s not used (%s); keeping %s", self.path, reason, kept)
        return self.current
