"""The YAML front matter of a Markdown memory file, read strictly: PyYAML's safe loader with
no key given twice, no alias or merge, and only true and false as booleans."""

from __future__ import annotations

import re
from typing import Any

import yaml

BOOL_TAG = "tag:yaml.org,2002:bool"
BOOLEAN = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
"""The booleans of YAML 1.2's core schema, the only ones the front matter takes."""


class DuplicateKey(yaml.constructor.ConstructorError):
    """A mapping of the front matter that gives one key twice.

    Attributes:
        key: The key.
        lines: The lines of the front matter (1-based) that give it.
    """

    def __init__(self, key: object, first: yaml.Mark, again: yaml.Mark) -> None:
        super().__init__(None, None, f"the key {key!r} is given twice", again)
        self.key = key
        self.lines = (first.line + 1, again.line + 1)


class FrontMatterLoader(yaml.SafeLoader):
    """PyYAML's safe loader, stricter: a key given twice in a mapping is an error (not the
    last one winning), and only ``true`` and ``false`` (any case YAML 1.2 allows) are
    booleans, so ``yes``, ``no``, ``on`` and ``off`` stay text."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        """The next node, refusing an alias (``*name``): one repeats a whole value, and a few
        nested ones repeat it exponentially (found by review: 525 bytes of front matter took
        1.5 GB, 631 bytes more than the machine had).

        Raises:
            yaml.composer.ComposerError: For an alias.
        """
        if self.check_event(yaml.AliasEvent):
            alias = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None,
                None,
                "an alias (*name) repeats a value; write each value out",
                alias.start_mark,
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """The mapping of ``node``, refusing a key it gives twice, and a merge (``<<``),
        which gives its keys again and drops what the mapping gives as well (found by
        review: ``key: a`` beside ``<<: {key: b}`` dropped ``b`` in silence).

        Raises:
            DuplicateKey: For a key given twice.
            yaml.constructor.ConstructorError: For a merge.
        """
        seen: dict[Any, yaml.Mark] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    "a merge (<<) gives keys again; write each once",
                    key_node.start_mark,
                )
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:
                continue  # an unhashable key: PyYAML's own error says so
            if first is not None:
                raise DuplicateKey(key, first, key_node.start_mark)
            seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep)

    def construct_yaml_bool(self, node: yaml.ScalarNode) -> bool:
        """A value tagged ``!!bool``: ``true`` or ``false`` only.

        Raises:
            yaml.constructor.ConstructorError: For any other text.
        """
        value = self.construct_scalar(node)
        if not BOOLEAN.match(value):
            raise yaml.constructor.ConstructorError(
                None, None, f"{value!r} is not true or false", node.start_mark
            )
        return value.lower() == "true"


FrontMatterLoader.yaml_implicit_resolvers = {  # the safe loader's, with BOOLEAN for booleans
    first: [(tag, BOOLEAN if tag == BOOL_TAG else regex) for tag, regex in resolvers]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
FrontMatterLoader.add_constructor(BOOL_TAG, FrontMatterLoader.construct_yaml_bool)


def load(text: str) -> Any:
    """The YAML ``text`` read by :class:`FrontMatterLoader`.

    Raises:
        yaml.YAMLError: If it is not YAML (:class:`DuplicateKey` for a key given twice).
    """
    return yaml.load(text, Loader=FrontMatterLoader)  # a safe loader's subclass
