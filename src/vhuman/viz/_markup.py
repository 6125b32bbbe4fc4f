"""Markdown-lite: the little text markup that report paragraphs understand, rendered to HTML.

Blocks are separated by blank lines; a block whose lines all start with
``- `` or ``* `` is a bullet list, any other block a paragraph. Inline:
```code```, ``**bold**``, ``*italic*`` and ``[label](url)`` for http(s),
mailto, ``#anchor`` or relative URLs. Everything else is escaped, so text can
never inject markup.
"""

from __future__ import annotations

import html
import re

__all__ = ["markup_to_html"]

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(\S(?:.*?\S)?)\*\*")
_ITALIC = re.compile(r"\*(\S(?:.*?\S)?)\*")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_SAFE_URL = re.compile(r"^(?:https?://|mailto:|#|[^:]*$)", re.IGNORECASE)
_BULLET = re.compile(r"^\s*[-*]\s+")


def _link(m: re.Match[str]) -> str:
    label, url = m.group(1), m.group(2)
    if not _SAFE_URL.match(html.unescape(url)):
        return m.group(0)
    return f'<a href="{url}">{label}</a>'


def _inline(text: str) -> str:
    """Escaped ``text`` with inline markup; code spans are left as they are written."""
    parts = _CODE.split(text)
    out = []
    for i, part in enumerate(parts):
        escaped = html.escape(part)
        if i % 2:
            out.append(f"<code>{escaped}</code>")
            continue
        escaped = _LINK.sub(_link, escaped)
        escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
        out.append(_ITALIC.sub(r"<em>\1</em>", escaped))
    return "".join(out)


def markup_to_html(text: str) -> str:
    """HTML of markdown-lite ``text`` (see the module docstring).

    Examples
    --------
    >>> markup_to_html("A **bold** <claim>")
    '<p>A <strong>bold</strong> &lt;claim&gt;</p>'
    """
    blocks = [b for b in re.split(r"\n\s*\n", text.strip()) if b.strip()]
    out = []
    for block in blocks:
        lines = block.splitlines()
        if all(_BULLET.match(line) for line in lines):
            items = "".join(f"<li>{_inline(_BULLET.sub('', line))}</li>" for line in lines)
            out.append(f"<ul>{items}</ul>")
        else:
            out.append(f"<p>{_inline(' '.join(line.strip() for line in lines))}</p>")
    return "\n".join(out)
