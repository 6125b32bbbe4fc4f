"""The HTML report: structure, escaping, embedded images and plots, tables, JSON, links."""

from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass

import imageio.v3 as iio
import numpy as np
import plotly.offline
import pytest
from matplotlib.figure import Figure

from vhuman.errors import InputError
from vhuman.skeleton import Motion
from vhuman.viz import Report, motion_figure

PLOTLY_JS_HEAD = plotly.offline.get_plotlyjs()[:500]


def _small_figure() -> Figure:
    fig = Figure(figsize=(2.0, 1.0), dpi=50)
    fig.add_subplot().plot([0, 1], [1, 0])
    return fig


def test_sections_and_table_of_contents() -> None:
    report = Report("Walk & reach")
    gait = report.add_section("Gait", "One cycle.")
    again = report.add_section("Gait")
    assert report.sections == (gait, again)
    assert gait.anchor != again.anchor
    page = report.to_html()
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>Walk &amp; reach</title>" in page
    nav = page[page.index("<nav") : page.index("</nav>")]
    assert re.findall(r'href="#([^"]+)"', nav) == [gait.anchor, again.anchor]
    assert f'<section id="{gait.anchor}">' in page
    assert page.index("One cycle.") > page.index(f'id="{gait.anchor}"')


def test_all_user_text_is_escaped() -> None:
    evil = "<script>alert(1)</script>"
    report = Report(evil)
    section = report.add_section(evil, evil)
    section.add_table([{evil: evil}], caption=evil)
    section.add_json({"k": evil}, caption=evil)
    section.add_image(_small_figure(), caption=evil)
    section.add_file_link("x.bvh", label=evil)
    page = report.to_html()
    assert "<script>alert" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 8


def _body(report: Report) -> str:
    page = report.to_html()
    return page[page.index("<main>") : page.index("</main>")]


def test_markdown_lite() -> None:
    report = Report("r")
    report.add_section("s").add_text(
        "A **bold** and *italic* `x<y` claim, 2 * 3 * 4.\n"
        "[docs](https://example.org/?a=1&b=2) [bad](javascript:alert(1))\n\n"
        "- one\n- two"
    )
    html = _body(report)
    assert "<strong>bold</strong>" in html
    assert "<em>italic</em>" in html
    assert "<code>x&lt;y</code>" in html
    assert "2 * 3 * 4" in html
    assert re.findall(r'href="([^"]*)"', html) == ["https://example.org/?a=1&amp;b=2"]
    assert "[bad](javascript:alert(1))" in html
    assert "<ul><li>one</li><li>two</li></ul>" in html
    assert html.count("<p>") == 1


def test_no_table_of_contents_without_sections() -> None:
    assert "<nav" not in Report("empty").to_html()


def test_images_are_embedded(tmp_path) -> None:
    png = tmp_path / "plot.png"
    _small_figure().savefig(png, format="png")
    report = Report("r")
    report.add_section("s").add_image(_small_figure(), "from a figure").add_image(
        png, "from a file"
    )
    page = report.to_html()
    sources = re.findall(r'<img src="data:image/png;base64,([^"]+)" alt="([^"]*)">', page)
    assert [alt for _, alt in sources] == ["from a figure", "from a file"]
    for data, _ in sources:
        assert iio.imread(io.BytesIO(base64.b64decode(data))).shape[:2] == (50, 100)
    assert "<figcaption>from a file</figcaption>" in page
    section = report.add_section("bad")
    with pytest.raises(InputError, match="does not exist"):
        section.add_image(tmp_path / "missing.png")
    with pytest.raises(InputError, match=r"\.png"):
        section.add_image(tmp_path / "notes.txt")


def test_plotly_js_is_included_once(motion: Motion) -> None:
    report = Report("r")
    assert PLOTLY_JS_HEAD not in report.to_html()
    section = report.add_section("motion")
    section.add_plotly(motion_figure(motion), "first").add_plotly(motion_figure(motion[:5]))
    page = report.to_html()
    assert page.count(PLOTLY_JS_HEAD) == 1
    assert page.index(PLOTLY_JS_HEAD) < page.index("<body>")
    ids = re.findall(r'<div id="([^"]+)" class="plotly-graph-div"', page)
    assert len(ids) == len(set(ids)) == 2
    assert not re.search(r"<script[^>]*\ssrc=", page)
    with pytest.raises(InputError, match="plotly Figure"):
        section.add_plotly(_small_figure())


def test_tables_from_dicts_and_from_rows() -> None:
    report = Report("r")
    section = report.add_section("s")
    section.add_table(
        [{"joint": "knee", "angle [deg]": 12.345678912}, {"joint": "hip", "ok": True}],
        caption="Angles",
    )
    html = _body(report)
    assert re.findall(r"<th>([^<]*)</th>", html) == ["joint", "angle [deg]", "ok"]
    assert "<caption>Angles</caption>" in html
    assert '<td class="num">12.3457</td>' in html
    assert "<td>True</td>" in html
    assert html.count("<td></td>") == 2
    section = report.add_section("rows")
    section.add_table([(1, np.float32(2.5)), (np.int64(3), None)], headers=["a", "b"])
    section.add_table([], headers=["only"])
    html = _body(report).split('<section id="rows-2">')[1]
    assert re.findall(r"<td[^>]*>([^<]*)</td>", html) == ["1", "2.5", "3", ""]
    assert re.findall(r"<th>([^<]*)</th>", html) == ["a", "b", "only"]
    with pytest.raises(InputError, match="3 values for 2 headers"):
        section.add_table([(1, 2, 3)], headers=["a", "b"])
    with pytest.raises(InputError, match="all mappings"):
        section.add_table([{"a": 1}, (1,)])
    with pytest.raises(InputError, match="rows or headers"):
        section.add_table([])


@dataclass
class _Result:
    error: float

    def to_dict(self) -> dict[str, float]:
        return {"error [m]": self.error}


def test_json_is_pretty_and_collapsible(tmp_path) -> None:
    report = Report("r")
    section = report.add_section("s")
    section.add_json(
        {"array": np.arange(3), "x": np.float64(0.5), "path": tmp_path, "result": _Result(1.5)},
        caption="Data",
    )
    section.add_json([1], expanded=True)
    html = _body(report)
    assert "<details><summary>Data</summary><pre><code>{\n  &quot;array&quot;: [\n    0," in html
    assert "0.5" in html
    assert "error [m]" in html
    assert str(tmp_path) in html
    assert "<details open><summary>JSON</summary>" in html
    with pytest.raises(InputError, match="add_json"):
        section.add_json({"f": object()})


def test_write_is_atomic_with_relative_file_links(tmp_path, monkeypatch) -> None:
    (tmp_path / "out" / "motions").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    report = Report("r")
    section = report.add_section("files")
    section.add_file_link("out/motions/walk 1.bvh")
    section.add_file_link(tmp_path / "elsewhere.json", label="data")
    out = report.write(tmp_path / "out" / "report.html")
    assert sorted(p.name for p in out.parent.iterdir()) == ["motions", "report.html"]
    page = out.read_text(encoding="utf-8")
    assert '<a href="motions/walk%201.bvh">walk 1.bvh</a>' in page
    assert '<a href="../elsewhere.json">data</a>' in page
    with pytest.raises(InputError, match=r"\.html"):
        report.write(tmp_path / "report.pdf")
    with pytest.raises(InputError, match="does not exist"):
        report.write(tmp_path / "missing" / "report.html")


def test_summary_rows_link_to_their_sections_at_the_top() -> None:
    report = Report("Demo")
    walk = report.add_section("Walk <1>")
    reach = report.add_section("Reach")
    report.add_summary(walk, "1.3 m/s & 0.7 m", "asked 1.3 m/s").add_summary(reach, "0 mm")
    page = report.to_html()
    glance = page.index('<section id="at-a-glance">')
    assert glance < page.index('<nav class="toc">') < page.index(f'<section id="{walk.anchor}">')
    table = page[glance : page.index("</section>", glance)]
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td></tr>", table)
    assert rows == [
        (f'<a href="#{walk.anchor}">Walk &lt;1&gt;</a>', "1.3 m/s &amp; 0.7 m", "asked 1.3 m/s"),
        (f'<a href="#{reach.anchor}">Reach</a>', "0 mm", ""),
    ]
    with pytest.raises(InputError, match="section of this report"):
        report.add_summary(Report("other").add_section("x"), "1")
    assert "at-a-glance" not in Report("empty").to_html()


def test_stored_sections_come_back_as_they_were(tmp_path) -> None:
    import json

    import plotly.graph_objects as go

    (tmp_path / "data.txt").write_text("x")
    first = Report("r")
    first.add_section("intro", "plain *text*")
    done = first.add_section("part").add_plotly(go.Figure(go.Scatter(y=[1, 2])), "a plot")
    done.add_file_link(tmp_path / "data.txt", "the data")
    first.add_summary(done, "1 m", "2 m")
    kept = json.loads(json.dumps(first.stored(1)))
    second = Report("r")
    second.add_section("intro", "plain *text*")
    second.add_stored(kept)
    assert second.to_html(tmp_path) == first.to_html(tmp_path)
    with pytest.raises(InputError, match="not a stored report section"):
        second.add_stored([{"title": "x"}])
