"""`Report`: one self-contained HTML page of sections with text, images, plots, tables, JSON.

A summary table at the top ("At a glance") holds one row per section that
asks for one (`Report.add_summary`), linking to it.

Engines (walk, reach, posture, physics, prediction) each add a section of
their results; the page is written as a single file that opens offline:
images are embedded as base64 and plotly.js is included once.

Examples
--------
>>> report = Report("Walk")
>>> section = report.add_section("Gait", "One cycle at **1.2 m/s**.")
>>> section.add_table([{"step length [m]": 0.7, "cadence [steps/min]": 103}], caption="Gait")
Section('Gait', 2 blocks)
>>> section.add_json({"speed": 1.2}, caption="Parameters")
Section('Gait', 3 blocks)
>>> report.write("walk.html")  # doctest: +SKIP
"""

from __future__ import annotations

import base64
import dataclasses
import html
import io
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import plotly.graph_objects as go
import plotly.offline
from matplotlib.figure import Figure

from vhuman.errors import InputError
from vhuman.io import atomic_path
from vhuman.viz._files import output_path
from vhuman.viz._markup import markup_to_html

__all__ = ["Report", "Section"]

_IMAGE_TYPES: dict[str, str] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".svg": "image/svg+xml",
    ".webp": "image/webp",
}

_CSS = """
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #222; max-width: 1100px; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
h1 { font-size: 1.8rem; border-bottom: 2px solid #ddd; padding-bottom: .3rem; }
h2 { font-size: 1.35rem; margin-top: 2.5rem; border-bottom: 1px solid #eee; }
nav.toc { background: #f7f7f7; border: 1px solid #e4e4e4; border-radius: 6px;
  padding: .5rem 1.2rem; display: inline-block; min-width: 18rem; }
nav.toc h2 { font-size: 1rem; margin: .3rem 0; border: none; }
nav.toc ol { margin: .2rem 0 .4rem; padding-left: 1.3rem; }
a { color: #1f5fa8; }
figure { margin: 1.2rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: .92rem; margin-top: .3rem; }
table { border-collapse: collapse; font-size: .92rem; }
th, td { border: 1px solid #ddd; padding: .25rem .6rem; text-align: left; }
th { background: #f2f2f2; }
caption { text-align: left; color: #555; font-size: .92rem; padding: .2rem 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafafa; }
details { margin: 1rem 0; border: 1px solid #e4e4e4; border-radius: 6px; padding: .4rem .8rem; }
summary { cursor: pointer; font-weight: 600; }
pre { background: #f7f7f7; padding: .6rem; overflow-x: auto; font-size: .85rem; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.plot { margin: 1.2rem 0; }
table.summary td:first-child { white-space: nowrap; font-weight: 600; }
"""


def _json_default(obj: Any) -> Any:
    """What `json.dumps` cannot write by itself: arrays, numpy scalars, paths, results."""
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if callable(getattr(obj, "to_dict", None)):
        return obj.to_dict()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    raise TypeError(f"cannot write {type(obj).__name__} as JSON")


def _cell(value: Any) -> tuple[str, bool]:
    """Table cell text and whether it is a number (right-aligned)."""
    if value is None:
        return "", False
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value)), False
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}", True
    if isinstance(value, (int, np.integer)):
        return str(int(value)), True
    return str(value), False


@dataclasses.dataclass(frozen=True)
class _FileLink:
    """A link to a file, made relative to the report's folder when the page is written."""

    path: Path
    label: str

    def html(self, base: Path) -> str:
        href = quote(Path(os.path.relpath(self.path, base)).as_posix())
        return f'<p class="file"><a href="{href}">{html.escape(self.label)}</a></p>'


class Section:
    """A titled part of a `Report`; its ``add_*`` methods append content in order.

    Content is captured when added (figures are rendered, image files read),
    so later changes to a figure or file do not reach the report. Every
    ``add_*`` method returns the section, so calls can be chained. Get a
    section from `Report.add_section`.
    """

    def __init__(self, title: str, anchor: str) -> None:
        self.title = title
        self.anchor = anchor
        self._blocks: list[str | _FileLink] = []
        self._has_plotly = False

    def __repr__(self) -> str:
        return f"Section({self.title!r}, {len(self._blocks)} blocks)"

    def add_text(self, text: str) -> Section:
        """Add paragraphs in markdown-lite.

        Blank lines separate paragraphs; lines starting with ``- `` make a bullet
        list; inline ```code```, ``**bold**``, ``*italic*``, ``[label](url)``.
        Everything else is shown as written (HTML is escaped).
        """
        self._blocks.append(markup_to_html(text))
        return self

    def add_image(self, image: Figure | str | os.PathLike[str], caption: str = "") -> Section:
        """Add a picture, embedded in the page.

        Parameters
        ----------
        image : matplotlib Figure, str or os.PathLike
            A figure (rendered to PNG now) or an image file (.png, .jpg, .jpeg,
            .gif, .svg or .webp).
        caption : str, optional
            Shown under the picture and used as its alternative text.

        Raises
        ------
        InputError
            If the file is missing or not one of those types.
        """
        if isinstance(image, Figure):
            buffer = io.BytesIO()
            image.savefig(buffer, format="png")
            data, mime = buffer.getvalue(), "image/png"
        else:
            path = Path(image)
            mime = _IMAGE_TYPES.get(path.suffix.lower(), "")
            if not mime:
                raise InputError(
                    f"image {str(path)!r} must be a matplotlib Figure or a file ending in "
                    f"{', '.join(_IMAGE_TYPES)}"
                )
            if not path.is_file():
                raise InputError(f"image file {str(path)!r} does not exist")
            data = path.read_bytes()
        src = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        self._blocks.append(
            f'<figure><img src="{src}" alt="{html.escape(caption)}">'
            f"{self._caption(caption)}</figure>"
        )
        return self

    def add_plotly(self, fig: go.Figure, caption: str = "", *, height: int = 600) -> Section:
        """Add an interactive plotly figure (plotly.js is included once per report).

        Parameters
        ----------
        fig : plotly.graph_objects.Figure
            For example :func:`~vhuman.viz.motion_figure` of a motion.
        caption : str, optional
            Shown under the figure.
        height : int, optional
            Height [px] unless the figure's layout sets one.

        Raises
        ------
        InputError
            If ``fig`` is not a plotly figure.
        """
        if not isinstance(fig, go.Figure):
            raise InputError(f"fig must be a plotly Figure; got {type(fig).__name__}")
        div = fig.to_html(
            full_html=False,
            include_plotlyjs=False,
            div_id=f"{self.anchor}-plot-{len(self._blocks)}",
            auto_play=False,
            default_height=f"{int(height)}px",
            config={"displaylogo": False, "responsive": True},
        )
        self._has_plotly = True
        self._blocks.append(f'<div class="plot">{div}{self._caption(caption)}</div>')
        return self

    def add_table(
        self,
        rows: Sequence[Mapping[str, Any]] | Sequence[Sequence[Any]],
        *,
        headers: Sequence[str] | None = None,
        caption: str = "",
    ) -> Section:
        """Add a table.

        Parameters
        ----------
        rows : sequence of mappings or of sequences
            Mappings (column name → value; the columns are ``headers`` or else
            every key in order of first appearance) or sequences of values (one
            per header, if ``headers`` is given). Floats are shown with 6
            significant digits, None as an empty cell.
        headers : sequence of str, optional
            Column names.
        caption : str, optional
            Shown above the table.

        Raises
        ------
        InputError
            If there are neither rows nor headers, rows mix kinds, or a row's
            length differs from the number of headers.
        """
        if not rows and not headers:
            raise InputError("add_table needs rows or headers")
        mappings = [r for r in rows if isinstance(r, Mapping)]
        if rows and len(mappings) == len(rows):
            columns = (
                list(headers)
                if headers is not None
                else list(dict.fromkeys(k for r in mappings for k in r))
            )
            values = [[r.get(c) for c in columns] for r in mappings]
        elif mappings:
            raise InputError("rows must be all mappings or all sequences")
        else:
            columns = list(headers) if headers is not None else []
            values = [list(r) for r in rows]
            for i, r in enumerate(values):
                if columns and len(r) != len(columns):
                    raise InputError(f"row {i} has {len(r)} values for {len(columns)} headers")
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
        body = []
        for r in values:
            cells = []
            for v in r:
                text, numeric = _cell(v)
                cls = ' class="num"' if numeric else ""
                cells.append(f"<td{cls}>{html.escape(text)}</td>")
            body.append(f"<tr>{''.join(cells)}</tr>")
        cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
        thead = f"<thead><tr>{head}</tr></thead>" if columns else ""
        self._blocks.append(f"<table>{cap}{thead}<tbody>{''.join(body)}</tbody></table>")
        return self

    def add_json(self, obj: Any, caption: str = "JSON", *, expanded: bool = False) -> Section:
        """Add data as pretty JSON in a collapsible block.

        Numpy arrays and scalars, paths, dataclasses and objects with a
        ``to_dict()`` method are converted.

        Parameters
        ----------
        obj : object
            The data.
        caption : str, optional
            The block's summary line.
        expanded : bool, optional
            Whether the block starts open.

        Raises
        ------
        InputError
            If ``obj`` holds something that cannot be written as JSON.
        """
        try:
            text = json.dumps(obj, indent=2, default=_json_default, ensure_ascii=False)
        except (TypeError, ValueError) as e:
            raise InputError(f"add_json cannot write its object: {e}") from e
        is_open = " open" if expanded else ""
        self._blocks.append(
            f"<details{is_open}><summary>{html.escape(caption)}</summary>"
            f"<pre><code>{html.escape(text)}</code></pre></details>"
        )
        return self

    def add_file_link(self, path: str | os.PathLike[str], label: str | None = None) -> Section:
        """Add a link to a file (a BVH, a video, a JSON result) beside the report.

        The link is relative to the folder the report is written to, so the
        report and its files can be moved together.

        Parameters
        ----------
        path : str or os.PathLike
            The file; a relative path is taken from the current folder.
        label : str, optional
            Link text; the file name by default.
        """
        p = Path(path).absolute()
        self._blocks.append(_FileLink(p, p.name if label is None else label))
        return self

    @staticmethod
    def _caption(caption: str) -> str:
        return f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""

    def to_dict(self) -> dict[str, Any]:
        """The section's content as captured (JSON values), for :meth:`Report.add_stored`."""
        blocks = [
            b if isinstance(b, str) else {"path": str(b.path), "label": b.label}
            for b in self._blocks
        ]
        return {
            "title": self.title,
            "anchor": self.anchor,
            "blocks": blocks,
            "plotly": self._has_plotly,
        }

    def _html(self, base: Path) -> str:
        blocks = [b if isinstance(b, str) else b.html(base) for b in self._blocks]
        return (
            f'<section id="{self.anchor}">\n<h2>{html.escape(self.title)}</h2>\n'
            + "\n".join(blocks)
            + "\n</section>"
        )


class Report:
    """An HTML report: a title, a table of contents and sections, written as one file.

    Parameters
    ----------
    title : str
        Page title and heading.

    Examples
    --------
    >>> report = Report("Reach")
    >>> report.add_section("Result").add_text("Reached in *1.0 s*.")
    Section('Result', 1 blocks)
    >>> "<h2>Result</h2>" in report.to_html()
    True
    """

    def __init__(self, title: str) -> None:
        self.title = title
        self._sections: list[Section] = []
        self._summary: list[tuple[Section, str, str]] = []

    @property
    def sections(self) -> tuple[Section, ...]:
        """The sections, in order."""
        return tuple(self._sections)

    def add_section(self, title: str, text: str | None = None) -> Section:
        """Append a section titled ``title``, starting with markdown-lite ``text`` if given."""
        slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40]
        section = Section(title, f"{slug or 'section'}-{len(self._sections) + 1}")
        self._sections.append(section)
        if text is not None:
            section.add_text(text)
        return section

    def stored(self, start: int = 0) -> list[dict[str, Any]]:
        """Sections ``start`` on, each with its "At a glance" rows, as JSON values.

        For a job that keeps finished parts of a report: :meth:`add_stored`
        puts them back as they were.
        """
        out = []
        for section in self._sections[start:]:
            rows = [[f, r] for s, f, r in self._summary if s is section]
            out.append({**section.to_dict(), "summary": rows})
        return out

    def add_stored(self, stored: list[dict[str, Any]]) -> Report:
        """Append sections (and their "At a glance" rows) from :meth:`stored`.

        Raises
        ------
        InputError
            If an entry is not such a section.
        """
        for d in stored:
            try:
                section = Section(str(d["title"]), str(d["anchor"]))
                for b in d["blocks"]:
                    section._blocks.append(
                        b if isinstance(b, str) else _FileLink(Path(b["path"]), str(b["label"]))
                    )
                section._has_plotly = bool(d["plotly"])
                rows = [(section, str(f), str(r)) for f, r in d["summary"]]
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(f"not a stored report section ({exc!r})") from None
            self._sections.append(section)
            self._summary.extend(rows)
        return self

    def add_summary(self, section: Section, figures: str, reference: str = "") -> Report:
        """Add a row to the "At a glance" table at the top of the page.

        Parameters
        ----------
        section : Section
            One of this report's sections; the row's first cell links to it.
        figures : str
            Its headline figures, with units.
        reference : str, optional
            What to compare them with (a published value, a baseline).

        Returns
        -------
        Report
            This report, for chaining.

        Raises
        ------
        InputError
            If ``section`` is not one of this report's.
        """
        if not any(section is s for s in self._sections):
            raise InputError(f"add_summary needs a section of this report; got {section!r}")
        self._summary.append((section, figures, reference))
        return self

    def _summary_html(self) -> str:
        if not self._summary:
            return ""
        rows = "".join(
            f'<tr><td><a href="#{s.anchor}">{html.escape(s.title)}</a></td>'
            f"<td>{html.escape(figures)}</td><td>{html.escape(reference)}</td></tr>"
            for s, figures, reference in self._summary
        )
        return (
            '<section id="at-a-glance"><h2>At a glance</h2><table class="summary">'
            "<thead><tr><th>part</th><th>headline figures</th><th>compare with</th></tr>"
            f"</thead><tbody>{rows}</tbody></table></section>"
        )

    def to_html(self, base: str | os.PathLike[str] | None = None) -> str:
        """The page as one HTML string.

        Parameters
        ----------
        base : str or os.PathLike, optional
            Folder that file links are relative to; the current folder by default.
        """
        base_dir = Path(base if base is not None else ".").absolute()
        title = html.escape(self.title)
        toc = "".join(
            f'<li><a href="#{s.anchor}">{html.escape(s.title)}</a></li>' for s in self._sections
        )
        nav = f'<nav class="toc"><h2>Contents</h2><ol>{toc}</ol></nav>' if toc else ""
        uses_plotly = any(s._has_plotly for s in self._sections)
        plotly_js = f"<script>{plotly.offline.get_plotlyjs()}</script>" if uses_plotly else ""
        body = "\n".join(s._html(base_dir) for s in self._sections)
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{title}</title>\n<style>{_CSS}</style>\n{plotly_js}\n</head>\n<body>\n"
            f"<header><h1>{title}</h1></header>\n{self._summary_html()}\n{nav}\n"
            f"<main>\n{body}\n</main>\n"
            "</body>\n</html>\n"
        )

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (``.html``), atomically; file links are relative to it.

        Raises
        ------
        InputError
            If ``path`` does not end in ``.html`` or ``.htm``, or its folder does not exist.
        """
        p = output_path(path, (".html", ".htm"), "report")
        page = self.to_html(p.parent)
        with atomic_path(p) as tmp:
            tmp.write_text(page, encoding="utf-8")
        return p
