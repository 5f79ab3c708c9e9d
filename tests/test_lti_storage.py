"""LTI Platform Storage: when the LMS names its storage frame (``lti_storage_target`` at the
login and the launch), the login's state and nonce are kept there by postMessage
(``lti.put_data``) instead of the state cookie, and the launch page gets them back
(``lti.get_data``) before the launch is accepted. Over HTTPS and cross-site, as a real Moodle:
the protocol over HTTP with httpx, and the whole launch in a Chromium that blocks third-party
cookies."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.html import soup, text
from tests.support.lti_platform import STORAGE_FRAME, course_and_lms, launch_form
from tests.support.tls import make_certificates

THIRD_PARTY_COOKIES_BLOCKED = "--test-third-party-cookie-phaseout"
# The course's frame goes LMS -> course -> LMS (/auth) -> course, as in Moodle. With site
# isolation each step moves the frame to another renderer process, and Playwright, under load,
# sometimes misses the last move: it keeps the frame at the LMS's /auth while the course's page
# runs in it (its requests and its postMessages are seen), and every locator in the frame waits
# forever (about one run in ten). Cookies, partitioning and postMessage do not depend on the
# process model, so this browser keeps cross-site frames in the tab's process.
ONE_PROCESS_PER_TAB = "--disable-site-isolation-trials"


@pytest.fixture(scope="module")
def lms(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lti-storage")
    with course_and_lms(folder, tls=make_certificates(folder / "tls")) as pair:
        yield pair


def storage_box(html: str):
    box = soup(html).select_one("[data-lti-storage]")
    assert box is not None, html[:500]
    return box


def test_the_login_puts_state_and_nonce_in_the_lms_storage_instead_of_a_cookie(lms):
    tool, platform = lms
    with httpx.Client(verify=platform.verify) as browser:
        login = browser.get(
            platform.url + "/launch",
            params={"user": "rui-1", "licao": "kernels", "armazenamento": "1"},
            follow_redirects=True,
        )
        assert login.status_code == 200 and str(login.url).startswith(tool.url + "/lti/login?")
        set_cookies = login.headers.get_list("set-cookie")
        assert not [c for c in set_cookies if c.startswith("lti1p3-")], (
            set_cookies
        )  # no state cookie
        assert login.headers["cache-control"] == "no-store"
        put = storage_box(login.text)
        assert put["data-lti-storage"] == "put" and put["data-target"] == STORAGE_FRAME
        assert put["data-origin"] == platform.url
        next_url = httpx.URL(put["data-next"])
        assert str(next_url).startswith(platform.url + "/auth?")
        assert (next_url.params["state"], next_url.params["nonce"]) == (
            put["data-state"],
            put["data-nonce"],
        )
        # The platform signs the launch; it posts it with its storage frame's name.
        signed = browser.get(put["data-next"])
        action, fields = launch_form(signed.text)
        assert fields["lti_storage_target"] == STORAGE_FRAME
        cross_site = {"Sec-Fetch-Site": "cross-site"}
        check = browser.post(action, data=fields, headers=cross_site)
        assert check.status_code == 200
        get = storage_box(check.text)
        assert get["data-lti-storage"] == "get" and get["data-origin"] == platform.url
        assert (get["data-state"], get["data-nonce"]) == (put["data-state"], put["data-nonce"])
        again = soup(check.text).select_one("form#lti-conferida")
        assert again["action"] == "/lti/launch"
        refields = {i["name"]: i["value"] for i in again.select("input")}
        assert refields == {**fields, "lti_storage_checked": "1"}
        # Checked by the course's page only: another site cannot post it as checked.
        forged = browser.post(tool.url + "/lti/launch", data=refields, headers=cross_site)
        assert forged.status_code == 403
        assert "precisa vir da própria página do curso" in text(
            soup(forged.text).select_one("main")
        )
        same_origin = {"Sec-Fetch-Site": "same-origin"}
        # A launch refused there offers a tab of its own, which keeps the state in a cookie:
        # no LMS frame around it to keep it in.
        bad = {**refields, "id_token": refields["id_token"][:-4] + "AAAA"}
        refused = browser.post(tool.url + "/lti/launch", data=bad, headers=same_origin)
        assert refused.status_code == 403
        link = soup(refused.text).select_one("main a[target=_blank]")
        assert "lti1p3_new_window=1" in link["href"] and "lti_storage_target" not in link["href"]
        done = browser.post(tool.url + "/lti/launch", data=refields, headers=same_origin)
        assert done.status_code == 303
        assert done.headers["location"].startswith("/licoes/kernels?lancamento=")
        replay = browser.post(tool.url + "/lti/launch", data=refields, headers=same_origin)
        assert replay.status_code == 403


def signed_launch_through_storage(browser: httpx.Client, platform, user: str) -> dict[str, str]:
    """The launch fields the platform posts after a login that announced its storage."""
    login = browser.get(
        platform.url + "/launch",
        params={"user": user, "licao": "kernels", "armazenamento": "1"},
        follow_redirects=True,
    )
    _action, fields = launch_form(browser.get(storage_box(login.text)["data-next"]).text)
    return fields


def test_a_launch_checked_against_another_logins_state_is_refused(lms):
    tool, platform = lms
    with httpx.Client(verify=platform.verify) as browser:
        first = signed_launch_through_storage(browser, platform, "rui-5")
        second = signed_launch_through_storage(browser, platform, "rui-5")
        # The first login's token with the second login's state (both found in storage).
        swapped = {**first, "state": second["state"], "lti_storage_checked": "1"}
        same_origin = {"Sec-Fetch-Site": "same-origin"}
        refused = browser.post(tool.url + "/lti/launch", data=swapped, headers=same_origin)
        assert refused.status_code == 403
        assert "o nonce da entrada não é o que o login dela guardou" in refused.text
        checked = {**first, "lti_storage_checked": "1"}
        done = browser.post(tool.url + "/lti/launch", data=checked, headers=same_origin)
        assert done.status_code == 303


def test_without_storage_announced_the_login_keeps_the_state_cookie(lms):
    tool, platform = lms
    with httpx.Client(verify=platform.verify) as browser:
        start = browser.get(
            platform.url + "/launch",
            params={"user": "rui-2", "licao": "kernels"},
            follow_redirects=True,
        )
        action, fields = launch_form(start.text)
        assert "lti_storage_target" not in fields
        assert [c.name for c in browser.cookies.jar if c.name.startswith("lti1p3-")] == [
            "lti1p3-" + fields["state"]
        ]
        done = browser.post(action, data=fields, headers={"Sec-Fetch-Site": "cross-site"})
        assert done.status_code == 303


@pytest.fixture
def blocking_page(browser_type, browser_type_launch_args):
    """A page of a Chromium that blocks third-party cookies (partitioned ones still work)."""
    args = [*browser_type_launch_args["args"], THIRD_PARTY_COOKIES_BLOCKED, ONE_PROCESS_PER_TAB]
    blocking = browser_type.launch(**{**browser_type_launch_args, "args": args})
    context = blocking.new_context(locale="pt-BR", ignore_https_errors=True)
    yield context.new_page()
    context.close()
    blocking.close()


@pytest.mark.browser
def test_a_launch_with_third_party_cookies_blocked_passes_through_platform_storage(
    lms, blocking_page
):
    tool, platform = lms
    page = blocking_page
    page.goto(f"{platform.url}/iframe?user=rui-3&nome=Rui+Prado&licao=kernels&armazenamento=1")
    frame = page.frame_locator("#ferramenta")
    # the launch page has the account link too ("Entrar") while it asks the LMS's storage:
    # wait for the lesson it posts on to
    expect(frame.locator(".nav-account")).to_have_text("Conta: Rui Prado", timeout=30_000)
    inner = next(f for f in page.frames if f.url.startswith(tool.url))
    assert inner.url.startswith(f"{tool.url}/licoes/kernels?lancamento=")
    # Third-party cookies are blocked in this browser: an unpartitioned one is not kept.
    inner.evaluate("document.cookie = 'terceiro=1; SameSite=None; Secure; path=/'")
    assert "terceiro=1" not in inner.evaluate("document.cookie")
    storage = page.frame(name=STORAGE_FRAME)
    received = [(m["subject"], m["key"].split("-")[0]) for m in storage.evaluate("recebidas")]
    assert received == [
        ("lti.put_data", "state"),
        ("lti.put_data", "nonce"),
        ("lti.get_data", "state"),
        ("lti.get_data", "nonce"),
    ]
    assert {m["origin"] for m in storage.evaluate("recebidas")} == {tool.url}
    assert not [c for c in page.context.cookies() if c["name"].startswith("lti1p3-")]


@pytest.mark.browser
def test_a_storage_that_does_not_hold_the_state_refuses_the_launch(lms, blocking_page):
    tool, platform = lms
    page = blocking_page
    page.goto(f"{platform.url}/iframe?user=rui-4&licao=kernels&armazenamento=adulterado")
    status = page.frame_locator("#ferramenta").locator("#lti-armazenamento")
    status.filter(has_text="O AVA não confirmou esta entrada").wait_for()
    inner = next(f for f in page.frames if f.url.startswith(tool.url))
    assert inner.url == f"{tool.url}/lti/launch"  # the launch page, never the lesson
    account = page.frame_locator("#ferramenta").locator(".nav-account")
    assert account.inner_text() == "Entrar"  # nobody was signed in
