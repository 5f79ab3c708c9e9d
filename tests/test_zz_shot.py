import json
from pathlib import Path

def test_shot(new_page, live_server):
    out = Path("test-artifacts")
    for w, h in ((1280, 800), (1024, 800), (360, 740)):
        page = new_page(w, h)
        page.goto(live_server.url + "/licoes/kernels")
        page.wait_for_timeout(300)
        page.screenshot(path=out / f"frame-{w}.png")
        print(w, json.dumps(page.evaluate("document.querySelector('.site-header').getBoundingClientRect().height")))
