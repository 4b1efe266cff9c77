"""The Python examples of docs/clients.md, docs/collections.md and python/README.md run as written.

Each ``python`` block runs in order against the suite's server (its address in place of
``http://127.0.0.1:8080``), in a temporary working directory. A ``print(...)  # value`` line
is checked: what it prints must be the value in the comment.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
import unittest
from pathlib import Path
from typing import Any

from tests.roost_server import REPO, server

DOC_URL = "http://127.0.0.1:8080"
PRINT_CHECK = re.compile(r"^(\s*)print\((.*)\)\s*#\s*(.+)$")


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown, re.DOTALL)


def checked(source: str) -> str:
    """Turn each ``print(x)  # value`` into a check that ``x`` prints as ``value``."""
    lines = []
    for line in source.splitlines():
        found = PRINT_CHECK.match(line)
        lines.append(f"{found.group(1)}_check({found.group(3)!r}, {found.group(2)})" if found else line)
    return "\n".join(lines)


class DocsTest(unittest.TestCase):
    def run_blocks(self, markdown: str) -> int:
        blocks = python_blocks(markdown)
        self.assertTrue(blocks)
        checks: list[str] = []

        def check(expected: str, *values: Any) -> None:
            checks.append(expected)
            self.assertEqual(" ".join(str(v) for v in values), expected)

        here = os.getcwd()
        with tempfile.TemporaryDirectory() as folder:
            os.chdir(folder)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    for block in blocks:
                        code = checked(block.replace(DOC_URL, server().base_url))
                        exec(compile(code, "<docs>", "exec"), {"_check": check})  # noqa: S102 - our own docs
            finally:
                os.chdir(here)
        return len(checks)

    def test_clients_md_python_section(self) -> None:
        text = (REPO / "docs" / "clients.md").read_text()
        section = text[text.index("## Python"):]
        following = re.search(r"^## ", section[3:], re.MULTILINE)
        section = section[: following.start() + 3] if following else section
        self.assertGreaterEqual(self.run_blocks(section), 8)

    def test_collections_md_python_section(self) -> None:
        # The suite's server has a `posts` of the fields the example uses (tests/roost_server.py).
        text = (REPO / "docs" / "collections.md").read_text()
        section = text[text.index("## Python"):]
        section = section[: section.index("\n## ", 3)]
        self.assertGreaterEqual(self.run_blocks(section), 5)

    def test_python_readme(self) -> None:
        self.assertGreaterEqual(self.run_blocks((REPO / "python" / "README.md").read_text()), 2)


if __name__ == "__main__":
    unittest.main()
