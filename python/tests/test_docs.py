"""The usage example of docs/python.md runs as written."""

from __future__ import annotations

import contextlib
import io
import re

from conftest import REPO

DOC = REPO / "docs" / "python.md"


def blocks() -> list:
    text = DOC.read_text(encoding="utf-8")
    return re.findall(r"<!-- test: run -->\n```python\n(.*?)```", text, flags=re.S)


def test_docs_example_runs():
    code = blocks()
    assert len(code) == 1, "docs/python.md should have one example marked <!-- test: run -->"
    out = io.StringIO()
    ns: dict = {"__name__": "__docs__"}
    with contextlib.redirect_stdout(out):
        exec(compile(code[0], str(DOC), "exec"), ns)
    printed = out.getvalue()
    assert printed.startswith("convolution-15x15 on RTX-A4000: ")
    assert "<stdin> 6 " in printed  # the error example printed its position
    assert re.search(r"\d+ configurations; predicted best \{'block_size_x'", printed)
    # The example's ranking is what it claims: fastest first.
    g = [x for _, x in ns["ranking"]]
    assert g == sorted(g, reverse=True) and len(g) == len(ns["space"])


def test_docs_instructions_example_runs():
    # The example compiles a source with clang-19, which make test installs.
    code = re.findall(r"<!-- test: instructions -->\n```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(code) == 1, "docs/python.md should have one example marked <!-- test: instructions -->"
    out = io.StringIO()
    ns: dict = {"__name__": "__docs__"}
    with contextlib.redirect_stdout(out):
        exec(compile(code[0], str(DOC), "exec"), ns)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("compiled clang ") and " sm_86 " in lines[0]
    # What the comments in the example claim.
    assert lines[1] == "2.0 1.0 1.0"
    assert float(lines[2]) > 0
    assert ns["ins"].registers == int(lines[0].split()[-1])
