"""The viewer and report pages in headless Chromium: they load without errors, draw WebGL,
and the body shows in the default view (its colour on enough pixels, a third of the height).

Needs the Debian package ``chromium`` at /usr/bin/chromium and the python
package playwright (no browser download: playwright drives that executable).
Skipped when either is missing, unless ``VHUMAN_REQUIRE_BROWSER=1`` (set by
.ci/run), which turns the skip into a failure.
"""

from __future__ import annotations

import io
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from vhuman.cli import app
from vhuman.io import save_motion
from vhuman.skeleton import Motion
from vhuman.viz import VIEWER_DIV_ID, Report, SceneMesh, motion_figure, plot_pose, write_viewer
from vhuman.viz.viewer import BODY_COLOR

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--enable-unsafe-swiftshader",
    "--use-angle=swiftshader",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RENDER_TIMEOUT_S = 30.0
LEFT_BLUE = (0x1F, 0x77, 0xB4)
RIGHT_RED = (0xD6, 0x27, 0x28)
BOX_ORANGE = (0xFF, 0xA5, 0x00)
BODY_TAN = tuple(int(BODY_COLOR[k : k + 2], 16) for k in (1, 3, 5))
SCREENSHOTS = os.environ.get("VHUMAN_SCREENSHOTS")  # a folder to keep the screenshots in


def _unavailable(reason: str) -> None:
    if os.environ.get("VHUMAN_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason}, and VHUMAN_REQUIRE_BROWSER=1 requires the browser test")
    pytest.skip(f"{reason} (install Debian's chromium, or set VHUMAN_REQUIRE_BROWSER=1 to fail)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        _unavailable(f"headless Chromium not found at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("python package playwright not installed")
    # Launch errors are real failures: Chromium is there and must start.
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class _Page:
    """A page opened from a file, with the console errors and uncaught exceptions it raised."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.errors: list[str] = []
        self.page = browser.new_page(viewport={"width": 1000, "height": 800})
        self.page.on(
            "console",
            lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None,
        )
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.goto(path.as_uri())

    def wait_for_plot(self, div_id: str) -> None:
        """Wait until plotly has laid out the plot and created its WebGL canvas."""
        self.page.wait_for_function(
            """id => {
                   const gd = document.getElementById(id);
                   return gd && gd._fullLayout && gd.querySelector('.gl-container canvas');
               }""",
            arg=div_id,
            timeout=RENDER_TIMEOUT_S * 1000,
        )

    def webgl_pixels(
        self, div_id: str, colour: tuple[int, int, int], *, body: bool = False
    ) -> np.ndarray:
        """RGB pixels ``(H, W, 3)`` of the plot's WebGL layer alone.

        Retries until ``colour`` shows (as the shaded body's colour if ``body``;
        WebGL draws on animation frames after plotly returns) or the render
        timeout passes; the caller asserts.
        """
        plot = self.page.locator(f"#{div_id}")
        plot.scroll_into_view_if_needed()
        box = plot.bounding_box()
        self._only_webgl_visible(div_id, True)
        deadline = time.monotonic() + RENDER_TIMEOUT_S
        while True:
            # A page screenshot: an element screenshot would wait for the hidden plot div.
            shot = self.page.screenshot(clip=box)
            pixels = np.asarray(Image.open(io.BytesIO(shot)).convert("RGB"))
            seen = _body_mask(pixels).sum() if body else _count(pixels, colour)
            if seen > 30 or time.monotonic() > deadline:
                break
            self.page.wait_for_timeout(250)
        self._only_webgl_visible(div_id, False)
        return pixels

    def _only_webgl_visible(self, div_id: str, only: bool) -> None:
        """Hide (or show again) everything in the plot but its WebGL layer.

        Legends, buttons and plotly's "WebGL is not supported" note are HTML or
        SVG and would otherwise pass for a drawing.
        """
        self.page.evaluate(
            """([id, only]) => {
                   const gd = document.getElementById(id);
                   gd.style.visibility = only ? 'hidden' : '';
                   gd.querySelectorAll('.gl-container')
                     .forEach(e => { e.style.visibility = only ? 'visible' : ''; });
               }""",
            [div_id, only],
        )

    def has_webgl_canvas(self, div_id: str) -> bool:
        """Whether the plot has a canvas with a WebGL context."""
        return self.page.evaluate(
            """id => [...document.querySelectorAll(`#${id} .gl-container canvas`)]
                      .some(c => !!(c.getContext('webgl2') || c.getContext('webgl')))""",
            div_id,
        )


def _count(pixels: np.ndarray, colour: tuple[int, int, int], tol: float = 40.0) -> int:
    """Pixels within ``tol`` (RGB distance) of ``colour``."""
    d = np.linalg.norm(pixels.astype(float) - np.array(colour, dtype=float), axis=-1)
    return int(np.sum(d < tol))


def _body_mask(pixels: np.ndarray, tol: float = 0.03) -> np.ndarray:
    """Pixels ``(H, W)`` of the shaded body: its chromaticity, any brightness but near black.

    Shading by white light scales a colour's brightness and keeps its
    chromaticity (r, g, b) / (r + g + b); grey floors, white backgrounds, the
    orange test box and the blue/red bones are far from the body's.
    """
    p = pixels.astype(float)
    total = p.sum(axis=-1)
    chroma = p / np.maximum(total, 1.0)[..., None]
    ref = np.array(BODY_TAN, dtype=float) / sum(BODY_TAN)
    return (np.linalg.norm(chroma - ref, axis=-1) < tol) & (total > 150)


def _assert_body_visible(
    pixels: np.ndarray, *, min_pixels: int = 2000, min_span: float = 1.0 / 3.0
) -> float:
    """The body covers ``min_pixels`` and spans ``min_span`` of the height; returns the span."""
    mask = _body_mask(pixels)
    assert mask.sum() > min_pixels, f"body not visible: {mask.sum()} body-coloured pixels"
    rows = np.flatnonzero(mask.any(axis=1))
    span = (rows[-1] - rows[0] + 1) / len(mask)
    assert span >= min_span, f"the body spans {span:.2f} of the view height, under {min_span:.2f}"
    return float(span)


def _keep(pixels: np.ndarray, name: str) -> None:
    """Save a checked screenshot, halved and in 64 colours, if VHUMAN_SCREENSHOTS names a folder.

    Four of the demo's screenshots in docs/images (the generated walk, the
    reach, the physics walk, the posture scene as demo-posture.png) are made this way:
    ``VHUMAN_SCREENSHOTS=docs/images pytest tests/viz/test_browser.py -k demo``.
    """
    if SCREENSHOTS:
        image = Image.fromarray(pixels)
        image = image.resize((image.width // 2, image.height // 2), Image.Resampling.LANCZOS)
        image = image.quantize(64, method=Image.Quantize.MEDIANCUT)
        image.save(Path(SCREENSHOTS) / f"{name}.png", optimize=True)


def _assert_drawn(pixels: np.ndarray, *colours: tuple[int, int, int]) -> None:
    distinct = len(np.unique(pixels.reshape(-1, 3), axis=0))
    assert distinct > 50, f"WebGL canvas looks blank: {distinct} distinct colours"
    assert pixels.std() > 5.0, f"WebGL canvas looks blank: pixel std {pixels.std():.2f}"
    for colour in colours:
        assert _count(pixels, colour) > 30, f"colour {colour} not drawn"


def _body_data(page: Any) -> str:
    return page.evaluate(
        """id => JSON.stringify(document.getElementById(id).data
                 .filter(t => t.name === 'body').map(t => [t.x, t.y, t.z]))""",
        VIEWER_DIV_ID,
    )


def test_viewer_renders_the_body_and_plays(browser, tmp_path, make_motion, box: SceneMesh) -> None:
    motion = make_motion(45)  # the root travels 1.5 m: the camera follows it
    path = write_viewer(motion, tmp_path / "view.html", scene=[box], trajectories=["l_hand"])
    opened = _Page(browser, path)
    opened.wait_for_plot(VIEWER_DIV_ID)
    assert opened.has_webgl_canvas(VIEWER_DIV_ID)
    before = opened.webgl_pixels(VIEWER_DIV_ID, BODY_TAN, body=True)
    _assert_drawn(before, BOX_ORANGE)
    _assert_body_visible(before)
    _keep(before, "viewer")

    page = opened.page
    body_before = _body_data(page)
    active = "id => document.getElementById(id).layout.sliders[0].active"
    assert page.evaluate(active, VIEWER_DIV_ID) == 0
    page.locator(f"#{VIEWER_DIV_ID} .updatemenu-button", has_text="Play").first.click()
    # Played to the end: the slider follows the frames to the last one.
    page.wait_for_function(
        f"id => ({active})(id) === {motion.n_frames - 1}",
        arg=VIEWER_DIV_ID,
        timeout=RENDER_TIMEOUT_S * 1000,
    )
    assert _body_data(page) != body_before
    x_range = "id => document.getElementById(id)._fullLayout.scene.xaxis.range"
    lo, hi = page.evaluate(x_range, VIEWER_DIV_ID)
    frames = motion_figure(motion, scene=[box], trajectories=["l_hand"]).frames
    expected = [f for f in frames if f.group == "motion"][-1].layout.scene.xaxis.range
    assert (lo, hi) == pytest.approx(expected, abs=1e-3)  # the camera followed to the end
    after = opened.webgl_pixels(VIEWER_DIV_ID, BODY_TAN, body=True)
    _assert_body_visible(after)
    assert not np.array_equal(before, after), "the picture did not change while playing"

    page.locator(f"#{VIEWER_DIV_ID} .updatemenu-button", has_text="Play whole path").click()
    page.wait_for_function(
        f"id => {{ const r = ({x_range})(id); return r[1] - r[0] > 2.0; }}",
        arg=VIEWER_DIV_ID,
        timeout=RENDER_TIMEOUT_S * 1000,
    )
    assert opened.errors == []


def test_sticks_viewer_draws_both_sides(browser, tmp_path, motion: Motion) -> None:
    path = write_viewer(motion, tmp_path / "sticks.html", sticks=True)
    opened = _Page(browser, path)
    opened.wait_for_plot(VIEWER_DIV_ID)
    pixels = opened.webgl_pixels(VIEWER_DIV_ID, LEFT_BLUE)
    _assert_drawn(pixels, LEFT_BLUE, RIGHT_RED)
    assert _body_mask(pixels).sum() < 30
    assert opened.errors == []


def test_vhuman_view_file_shows_the_body(browser, tmp_path, make_motion) -> None:
    bvh = tmp_path / "walk.bvh"
    save_motion(make_motion(60), bvh)  # BVH drops the segments: capsules along named bones
    out = tmp_path / "walk.html"
    result = CliRunner().invoke(app, ["view", str(bvh), "-o", str(out)])
    assert result.exit_code == 0, result.output
    opened = _Page(browser, out)
    opened.wait_for_plot(VIEWER_DIV_ID)
    pixels = opened.webgl_pixels(VIEWER_DIV_ID, BODY_TAN, body=True)
    _assert_drawn(pixels)
    _assert_body_visible(pixels)
    _keep(pixels, "vhuman_view")
    assert opened.errors == []


def test_report_renders(browser, tmp_path, motion: Motion) -> None:
    report = Report("Viewer check <&>")
    section = report.add_section("Pose", "The **first** frame.")
    section.add_image(plot_pose(motion), "pose")
    section.add_table([{"joint": "knee", "angle [deg]": 12.5}])
    section.add_json({"frames": motion.n_frames})
    report.add_section("Motion").add_plotly(motion_figure(motion, max_frames=10), "moving")
    path = report.write(tmp_path / "report.html")

    opened = _Page(browser, path)
    div_id = opened.page.locator(".plotly-graph-div").first.get_attribute("id")
    assert div_id
    opened.wait_for_plot(div_id)
    assert opened.has_webgl_canvas(div_id)
    pixels = opened.webgl_pixels(div_id, BODY_TAN, body=True)
    _assert_drawn(pixels)
    _assert_body_visible(pixels)
    img = opened.page.locator("figure img").first
    assert img.evaluate("i => i.complete && i.naturalWidth") == 600
    assert opened.page.title() == "Viewer check <&>"
    assert opened.errors == []


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory) -> Path:
    """The demo's report (about a minute to make)."""
    from vhuman.cli.demo import run_demo

    summary = run_demo(tmp_path_factory.mktemp("demo"))
    return Path(summary["report"])


def test_demo_report_every_figure_renders_with_the_body(browser, demo_report: Path) -> None:
    assert demo_report.stat().st_size <= 10_000_000
    opened = _Page(browser, demo_report)
    page = opened.page
    ids = page.evaluate("() => [...document.querySelectorAll('.plotly-graph-div')].map(d => d.id)")
    assert len(ids) >= 6
    glance = page.locator("#at-a-glance a")
    assert glance.count() >= 6
    for k in range(glance.count()):  # every summary row links to a section on the page
        target = glance.nth(k).get_attribute("href")
        assert page.locator(f"section{target}").count() == 1
    for div_id in ids:
        opened.wait_for_plot(div_id)
        assert opened.has_webgl_canvas(div_id), div_id
        pixels = opened.webgl_pixels(div_id, BODY_TAN, body=True)
        _assert_drawn(pixels)
        animated = page.evaluate(
            "id => !!(document.getElementById(id).layout.updatemenus || []).length", div_id
        )
        if animated:  # a body viewer: the body fills a third of the height
            _assert_body_visible(pixels)
        else:  # a scene view: the body shows among the solids
            _assert_body_visible(pixels, min_pixels=300, min_span=0.0)
        _keep(pixels, "demo-" + re.sub(r"-\d+-plot-\d+$", "", div_id))
    assert opened.errors == []
