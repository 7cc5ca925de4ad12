"""Install as the README says (issue 19): from the checkout, never the package index's
unrelated ``memstore``; ``make demo`` installs the runtime only. The install itself was run
in a fresh venv by hand (closing note); these hold the instructions to it."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
MAKEFILE = (REPO / "Makefile").read_text(encoding="utf-8")


def test_every_install_line_installs_from_the_checkout() -> None:
    lines = [line for line in README.splitlines() if re.search(r"pip install '?\S", line)]
    ours = [line for line in lines if "datasette" not in line and "do not" not in line]
    assert ours, "the README has no install line"
    for line in ours:
        assert re.search(r"pip install (\.|'\./\[(mcp|agent)\]')", line), line
    assert "pip install 'memstore" not in README and "pip install memstore[" not in README


def test_the_extras_the_readme_names_exist() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for extra in re.findall(r"'\./\[(\w+)\]'", README):
        assert extra in project["optional-dependencies"], extra


def test_make_demo_installs_the_runtime_only() -> None:
    demo_install = [
        line for line in MAKEFILE.splitlines() if "DEMO_VENV)/bin/python -m pip" in line
    ]
    assert demo_install and all("[dev]" not in line for line in demo_install)
    assert "$(DEMO_VENV)/bin/memstore" in MAKEFILE.split("demo:", 1)[1].splitlines()[0]


def test_the_dev_targets_need_the_dev_install_not_any_venv() -> None:
    # Found by review: after the README's runtime install (pip install . into .venv), make
    # test took .venv/bin/memstore for the dev install and ran without pytest.
    targets = dict(re.findall(r"^(test|lint|bench|guard|eval): (.*)$", MAKEFILE, re.MULTILINE))
    assert set(targets) == {"test", "lint", "bench", "guard", "eval"}
    assert set(targets.values()) == {"$(DEV)"}
    (dev_recipe,) = re.findall(r"^\$\(DEV\): .*\n((?:\t.*\n)+)", MAKEFILE, re.MULTILINE)
    assert "[dev]" in dev_recipe and "touch $@" in dev_recipe
