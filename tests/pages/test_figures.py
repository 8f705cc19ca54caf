"""Lesson figures (issue #28): the renderer places `figures/…` images at the
lesson's figure URL, and the route serves only safe .svg/.png files from that
lesson's own figures folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.content.markdown import images, render_markdown
from app.main import create_app
from app.migrate import upgrade

from .conftest import FIXTURE_LESSONS, page_settings

SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
       b'<title>x</title><rect width="10" height="10" fill="#3a63d8"/></svg>')
SCRIPTED = SVG.replace(b"<title>", b"<script>alert(1)</script><title>")
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def test_a_figure_becomes_an_img_at_the_lessons_figure_url() -> None:
    html = render_markdown('![A warp\'s "32" loads](figures/warp-32.svg)', "en", "/lessons/add-one/figures/")
    assert html == ('<p><img class="lesson-figure" src="/lessons/add-one/figures/warp-32.svg" '
                    'alt="A warp&#x27;s &quot;32&quot; loads" loading="lazy"></p>\n')


def test_a_figure_carries_its_proportions_so_the_text_below_does_not_jump(tmp_path: Path) -> None:
    """The lazy figure keeps its room before it loads: a click aimed at the tabs
    below it must not land on whatever slid into their place."""
    figures = tmp_path / "figures"
    figures.mkdir()
    (figures / "wide.svg").write_bytes(SVG.replace(b'viewBox="0 0 10 10"', b'viewBox="0 0 480 364.4"'))
    (figures / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + (640).to_bytes(4, "big")
                                        + (90).to_bytes(4, "big") + b"\x08\x02\x00\x00\x00")
    (figures / "broken.svg").write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'/>")
    text = "![w](figures/wide.svg) ![p](figures/photo.png) ![b](figures/broken.svg) ![m](figures/missing.svg)"
    html = render_markdown(text, "en", "/lessons/x/figures/", str(tmp_path))
    assert 'src="/lessons/x/figures/wide.svg" alt="w" width="480" height="364" loading="lazy"' in html
    assert 'src="/lessons/x/figures/photo.png" alt="p" width="640" height="90" loading="lazy"' in html
    assert 'src="/lessons/x/figures/broken.svg" alt="b" loading="lazy"' in html
    assert 'src="/lessons/x/figures/missing.svg" alt="m" loading="lazy"' in html


@pytest.mark.parametrize("src", ["https://example.com/a.svg", "figures/../lesson.toml", "figures/a.gif",
                                 "/static/favicon.svg", "figures/sub/a.svg"])
def test_any_other_image_address_is_shown_as_its_alt_text_never_fetched(src: str) -> None:
    html = render_markdown(f"![the alt <b>]({src})", "en", "/lessons/add-one/figures/")
    assert "<img" not in html and src not in html
    assert '<span class="figure-missing">the alt &lt;b&gt;</span>' in html


def test_a_script_address_stays_plain_text() -> None:
    html = render_markdown("![x](javascript:alert(1))", "en", "/lessons/add-one/figures/")
    assert "<img" not in html and "src=" not in html and "href=" not in html


def test_without_a_lesson_no_figure_is_fetched() -> None:
    assert "<img" not in render_markdown("![a](figures/a.svg)", "en")


def test_images_lists_every_image_with_its_alt_text() -> None:
    text = "Intro ![one](figures/a.svg)\n\n- item ![](figures/b.png)\n\n```md\n![no](figures/c.svg)\n```\n"
    assert images(text) == [("figures/a.svg", "one"), ("figures/b.png", "")]


@pytest.fixture
def figure_client(tmp_path: Path):
    lessons = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS, lessons)
    figures = lessons / "01-add-one" / "figures"
    figures.mkdir()
    (figures / "grid.svg").write_bytes(SVG)
    (figures / "photo.png").write_bytes(PNG)
    (figures / "scripted.svg").write_bytes(SCRIPTED)
    (figures / "notes.txt").write_text("not a figure")
    (figures / "linked.svg").symlink_to(lessons / "01-add-one" / "lesson.toml")
    (lessons / "01-add-one" / "secret.svg").write_bytes(SVG)
    settings = page_settings(tmp_path, lessons_dir=lessons)
    upgrade(settings.database_url)
    with TestClient(create_app(settings)) as client:
        yield client


def test_a_figure_is_served_with_its_type_and_an_etag(figure_client: TestClient) -> None:
    response = figure_client.get("/lessons/add-one/figures/grid.svg")
    assert response.status_code == 200 and response.content == SVG
    assert response.headers["content-type"] == "image/svg+xml"
    assert response.headers["cache-control"] == "public, no-cache"
    assert "script-src" in response.headers["content-security-policy"]
    etag = response.headers["etag"]
    again = figure_client.get("/lessons/add-one/figures/grid.svg", headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    png = figure_client.get("/lessons/add-one/figures/photo.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png" and png.content == PNG


@pytest.mark.parametrize("path", [
    "/lessons/add-one/figures/missing.svg",        # no such file
    "/lessons/add-one/figures/notes.txt",          # not an image type
    "/lessons/add-one/figures/scripted.svg",       # an SVG with a script is never served
    "/lessons/add-one/figures/linked.svg",         # a link out of the folder
    "/lessons/add-one/figures/..%2Fsecret.svg",    # traversal, encoded
    "/lessons/add-one/figures/%2E%2E%2Flesson.toml",
    "/lessons/add-one/figures/../secret.svg",
    "/lessons/add-one/figures/.grid.svg",
    "/lessons/no-such-lesson/figures/grid.svg",    # no such lesson
    "/lessons/next-steps/figures/grid.svg",        # another lesson's figure is not this one's
])
def test_everything_else_is_a_404(figure_client: TestClient, path: str) -> None:
    response = figure_client.get(path)
    assert response.status_code == 404
    assert b"<svg" not in response.content and b"[lesson]" not in response.content


def test_a_lesson_page_shows_its_figure(figure_client: TestClient, tmp_path: Path) -> None:
    text = tmp_path / "lessons" / "01-add-one" / "en.md"
    text.write_text(text.read_text() + "\n![A grid of threads](figures/grid.svg)\n")
    with TestClient(create_app(page_settings(tmp_path, lessons_dir=tmp_path / "lessons"))) as client:
        page = client.get("/lessons/add-one?lang=en").text
    assert '<img class="lesson-figure" src="/lessons/add-one/figures/grid.svg" alt="A grid of threads"' in page
