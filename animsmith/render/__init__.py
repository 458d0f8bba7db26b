"""Renderers: a :class:`~animsmith.lint.LintResult` -> text, JSON, ...

``render_lint(result, fmt, color=False) -> str``; ``FORMATS`` maps a format
name to the ``module:function`` of its renderer, imported only when that format is
asked for.
"""

from __future__ import annotations

from typing import Callable, Dict

FORMATS: Dict[str, str] = {
    "text": "animsmith.render.text:render_text",
    "json": "animsmith.render.json:render_json",
    "sarif": "animsmith.render.sarif:render_sarif",
    "github": "animsmith.render.github:render_github",
    "junit": "animsmith.render.junit:render_junit",
    "markdown": "animsmith.render.markdown:render_markdown",
}


#: how each format is made safe for a CI log on stdout (``animsmith.text.runner_safe``); the
#: GitHub format guards its own lines (its annotations are meant to be commands)
RUNNER_KIND: Dict[str, str] = {"text": "text", "json": "json", "sarif": "json", "junit": "xml", "markdown": "markdown"}


def for_stdout(text: str, fmt: str) -> str:
    """``text`` of format ``fmt`` as printed on stdout: no line a CI runner reads as a command."""
    kind = RUNNER_KIND.get(fmt)
    if kind is None:
        return text
    from animsmith.text import runner_safe

    return runner_safe(text, kind)


def renderer(fmt: str) -> Callable:
    import importlib

    module_name, attr = FORMATS[fmt].split(":")
    return getattr(importlib.import_module(module_name), attr)


def render_lint(result, fmt: str = "text", **kwargs) -> str:
    return renderer(fmt)(result, **kwargs)
