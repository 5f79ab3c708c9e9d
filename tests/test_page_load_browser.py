"""What the behaviours' script (static/js/, served as one file) does while a lesson opens, in
Chromium at 360 px (issue 27, item 5): it reads no layout while it runs. A read of the scroll
position or of a size there makes the browser lay out the whole lesson inside the script's own
task, the longest of a phone's first second; the behaviours read them in a later frame, when
the layout is done anyway."""

from __future__ import annotations

from tests.support.server import LiveServer

# Each property or method that makes Chromium bring the layout up to date, watched while one of
# our scripts is being run (document.currentScript is set only then, not in later callbacks).
WATCH = """
window.__layoutReads = [];
(() => {
  const note = (name) => {
    const script = document.currentScript;
    if (script && script.src.includes('/static/')) window.__layoutReads.push(name);
  };
  const watch = (owner, name) => {
    const found = Object.getOwnPropertyDescriptor(owner, name);
    if (!found) throw new Error('cannot watch ' + name);
    const replaced = found.get
      ? {get() { note(name); return found.get.call(this); }}
      : {value: function (...args) { note(name); return found.value.apply(this, args); }};
    Object.defineProperty(owner, name, {...found, ...replaced});
  };
  ['scrollY', 'scrollX', 'pageYOffset', 'pageXOffset', 'innerHeight', 'innerWidth']
    .forEach((name) => watch(window, name));
  ['getBoundingClientRect', 'getClientRects', 'clientHeight', 'clientWidth', 'scrollTop',
   'scrollHeight'].forEach((name) => watch(Element.prototype, name));
  ['offsetHeight', 'offsetWidth', 'offsetTop', 'offsetLeft']
    .forEach((name) => watch(HTMLElement.prototype, name));
})();
"""


def test_the_behaviours_read_no_layout_while_their_script_runs(new_page, live_server: LiveServer):
    page = new_page(360, 740)
    page.add_init_script(WATCH)
    for path in ("/licoes/kernels", "/licoes/kernels#pergunta-mac-e-ollama", "/"):
        page.goto(live_server.url + path, wait_until="load")
        assert page.evaluate("typeof curso.onLoad") == "function"  # the script has run
        assert page.evaluate("window.__layoutReads") == [], path


def test_a_lesson_opens_without_restyling_the_whole_page_for_the_headers_height(
    new_page, live_server: LiveServer
):
    """Issue 38 (Lighthouse's blocking time): header.js set ``--header-h`` on ``<html>`` at
    every start, though app.css already said the bar's height; a custom property set there
    restyles every element of the lesson (about 900), a long task on a phone. It is set only
    when the bar measures otherwise, and jumps still get the bar's real height."""
    for width in (360, 1280):
        page = new_page(width, 740)
        page.goto(live_server.url + "/licoes/kernels", wait_until="load")
        page.evaluate("new Promise((done) => requestAnimationFrame(() => setTimeout(done, 100)))")
        root, bar = page.evaluate(
            "[document.documentElement.style.getPropertyValue('--header-h'),"
            " document.querySelector('.site-header').offsetHeight]"
        )
        assert root == "", width
        css = page.evaluate(
            "getComputedStyle(document.documentElement).getPropertyValue('--header-h').trim()"
        )
        assert css == f"{bar}px", width
        # A taller bar (larger text) is measured and set.
        page.evaluate("document.querySelector('.site-header').style.minHeight = '67px'")
        page.wait_for_function(
            "(h) => document.documentElement.style.getPropertyValue('--header-h') === h + 'px'",
            arg=67,
        )
