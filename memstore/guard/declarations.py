"""Code that declares a name with a type, after a credential label: ``val password:
StateFlow`` holds no password, where ``password: BlueSky`` does."""

from __future__ import annotations

import re

from memstore.guard.values import CAMEL, clean

MODIFIERS = (
    r"(?:(?:export|public|private|protected|internal|static|override|lateinit|open|abstract"
    r"|readonly|final|declare|fileprivate|weak|unowned|const)\s+)*"
)
KEYWORD = r"(?:va[lr]|let|const|var|readonly|final|public|private|protected|declare|static)\s+"
CALLED = r"@\w+\((?:[^()\n]|\([^()\n]*\))*\)\s+"  # a decorator with its arguments
# What starts a line declaring a name: decorators, modifiers and a keyword, or decorators
# called with arguments ("@Published var", "@Input() private"; not a mention, "@alice")
DECLARING = re.compile(
    rf"\s*(?:(?:@\w+\s+|{CALLED})*{MODIFIERS}{KEYWORD}|(?:{CALLED})+{MODIFIERS})?$"
)
# A parameter list's opening or its earlier parameters: "login(", "f(user: str, ", "= ("
PARAMETER = re.compile(rf"(?:\w|=\s*)\((?:[^()\n]*,\s*)?{MODIFIERS}(?:{KEYWORD})?$")
QUOTES = "\"'`\u2018\u2019\u201c\u00ab\u300c\u300e"  # before a literal, backticks too


def declared_type(text: str, label_start: int, value: str) -> bool:
    """Whether ``value`` after a label at ``label_start`` in ``text`` and a colon is a type:
    CamelCase, unquoted, after a line's keyword or decorator ("val password: StateFlow"),
    ending a line with ";" ("password: InputProps;"), or a parameter ("f(password: LoginPage)").
    Looser versions let "Password=sunflower;", "user: bob; password: Sunny; host: x" and
    "my private password: ..." through (found by reviews)."""
    at = text.find(value, label_start)
    if CAMEL.match(clean(value)) is None or ":" not in text[label_start:at] or at < 1:
        return False
    low = max(0, label_start - 64)  # bounded looks: the whole text at each label was quadratic
    line = text[text.rfind("\n", low, label_start) + 1 or low : label_start]
    rest = text[at + len(value) : at + len(value) + 256].split("\n", 1)[0]
    ends_line = value[-1] == ";" and not rest.strip(" \t\r}")
    declared = DECLARING.fullmatch(line) is not None and (bool(line.strip()) or ends_line)
    quoted = text[at - 1] in QUOTES or value[0] in QUOTES
    return (declared or PARAMETER.search(line) is not None) and not quoted
