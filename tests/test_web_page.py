"""The web page (`graph.page`) in real browsers: Debian's Chromium and Firefox ESR driven by Playwright against one
real `ragent serve --sample` on a fresh data folder, as a person uses it: sign in, ask, answer the agent's question
with a button, open a citation, export, follow up, upload a folder, delete a document; and as an attacker would: a
wrong key, another key's thread, a document whose text holds a script.

One server for the module and one browser of each kind; each test opens its own browser context (its own
sessionStorage), so the tests are independent and take seconds each. Every test runs in Chromium; those marked
`in_firefox_too` run in Firefox as well: the ones whose browser-side behaviour differs between engines (sign-in and
sessionStorage, the streamed answer, the side panel, the clarification's buttons and the download, a folder upload,
a document's markup shown as text, the Content-Security-Policy, the layout at 200% zoom), not the ones whose outcome
is the server's (scopes and keys), which a second engine would only make slower."""

from __future__ import annotations

import csv
import importlib.util
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import psycopg
import pytest

from evals.served_agent import ServedAgent
from tests.conftest import fresh_database
from tests.test_server_tenancy import _add_key

CHROMIUM = Path("/usr/bin/chromium")
FIREFOX = Path("/usr/bin/firefox-esr")
FIREFOX_BIDI = Path(__file__).with_name("firefox_bidi.py")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RUN_TIMEOUT_MS = 90_000
"""A run on two busy cores; the page shows its answer when the run ends."""
SCREENSHOTS_ENV = "RAGENT_WEB_SCREENSHOTS"
"""A folder to save the page's pictures in (docs/images/ holds the ones docs/operations.md shows); none when unset."""

if importlib.util.find_spec("playwright") is None:
    pytest.skip("the browser tests need the playwright package (the test extra)", allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def served(postgres_url, tmp_path_factory):
    """`ragent serve --sample` (its local key may use every scope and ingest), and a key of another identity and
    scope that may not ingest."""
    home = tmp_path_factory.mktemp("web")
    with fresh_database(postgres_url) as url, ServedAgent(home, {"DATABASE_URL": url}) as server:
        server.other_key = _add_key({"RAGENT_HOME": str(home), "DATABASE_URL": url}, "other", "--scope", "default")
        yield server


def in_firefox_too(test):
    """Run `test` in Firefox as well as in Chromium."""
    test.in_firefox_too = True
    return test


def pytest_generate_tests(metafunc):
    """Firefox first: pytest runs a module's tests grouped by browser, in the order the kinds first appear, and the
    Firefox group then sees the sample data as the count test expects it, before the Chromium tests add documents."""
    if "browser" in metafunc.fixturenames:
        kinds = ["firefox", "chromium"] if getattr(metafunc.function, "in_firefox_too", False) else ["chromium"]
        metafunc.parametrize("browser", kinds, indirect=True, scope="module")


def launch_firefox(playwright, downloads: Path, folder: Path):
    """Debian's Firefox ESR through `tests/firefox_bidi.py` (which answers the few BiDi commands 140 ESR lacks),
    saving downloads in `downloads` without asking."""
    wrapper = folder / "firefox"
    wrapper.write_text(f"#!/bin/sh\nexec '{sys.executable}' '{FIREFOX_BIDI}' \"$@\"\n")
    wrapper.chmod(0o755)
    prefs = {
        "browser.download.folderList": 2,
        "browser.download.dir": str(downloads),
        "browser.download.useDownloadDir": True,
        "browser.download.always_ask_before_handling_new_types": False,
    }
    return playwright.firefox.launch(channel="moz-firefox", executable_path=str(wrapper), firefox_user_prefs=prefs)


@pytest.fixture(scope="module")
def browser(request, tmp_path_factory):
    kind = request.param
    executable = CHROMIUM if kind == "chromium" else FIREFOX
    if not executable.exists():
        pytest.skip(
            f"the {kind} tests need Debian's {executable.name} at {executable} (apt-get install {executable.name})"
        )
    with sync_playwright() as playwright:
        if kind == "chromium":
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        else:
            downloads = tmp_path_factory.mktemp("firefox-downloads")
            browser = launch_firefox(playwright, downloads, tmp_path_factory.mktemp("firefox"))
            browser.downloads = downloads
        yield browser
        browser.close()


@pytest.fixture
def page(browser, served):
    """A fresh browser context on the page, every request it makes recorded; a script error or a refusal by the
    Content-Security-Policy fails the test."""
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(RUN_TIMEOUT_MS)
    page.requested = []
    page.on("request", lambda request: page.requested.append(request.url))
    problems = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    page.on(
        "console", lambda message: re.search(r"Content.Security.Policy", message.text) and problems.append(message.text)
    )
    yield page
    context.close()
    assert not problems, problems


def downloaded(page, click) -> Path:
    """The file that `click()` makes the page download: Playwright's download in Chromium; in Firefox (whose BiDi
    reports no downloads in 140 ESR) the new file in the profile's download folder, waited for with a deadline."""
    browser = page.context.browser
    if browser.browser_type.name == "chromium":
        with page.expect_download() as download:
            click()
        return Path(download.value.path())
    before = set(browser.downloads.iterdir())
    click()
    deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        done = [p for p in set(browser.downloads.iterdir()) - before if not p.name.endswith(".part")]
        if done and not any(p.name.endswith(".part") for p in browser.downloads.iterdir()):
            return done[0]
        time.sleep(0.1)
    raise AssertionError(f"nothing downloaded into {browser.downloads}")


def screenshot(page, name: str) -> None:
    """The README's pictures, from Chromium (Firefox reports the style Playwright injects to take one as a breach
    of the page's Content-Security-Policy, which the flows count as a script error)."""
    if (folder := os.environ.get(SCREENSHOTS_ENV)) and page.context.browser.browser_type.name == "chromium":
        page.screenshot(path=os.path.join(folder, f"web-{name}.png"))


def page_url(served) -> str:
    return f"{served.url}/web/"


def sign_in(page, served, key: str | None = None, fragment: str = ""):
    """With the keyboard, as every step of `ask` too."""
    page.goto(page_url(served) + fragment)
    page.get_by_label("API key").fill(key or served.api_key)
    page.get_by_label("API key").press("Enter")
    expect(page.get_by_text(re.compile("^Signed in as"))).to_be_visible()
    if not fragment:  # signing in ends on a new thread, its question box focused: acting before raced it under load
        expect(page.get_by_label("Question")).to_be_focused()


def ask(page, question: str, max_hits: int | None = None):
    if max_hits is not None:
        page.get_by_text("Run options").click()
        page.get_by_label("Most rows to list before asking").fill(str(max_hits))
    turns = page.locator("#turns > li").count()
    page.get_by_label("Question").fill(question)
    page.get_by_label("Question").press("Enter")
    expect(page.locator("#turns > li")).to_have_count(turns + 1)
    expect(page.get_by_role("button", name="Ask", exact=True)).to_be_enabled()
    return page.locator("#turns > li").last


CUT = """() => {
  const shown = (selector) => [...document.querySelectorAll(selector)].filter((node) => node.offsetParent);
  const cells = shown("td, th").filter((cell) => {
    const box = cell.getBoundingClientRect();
    const inside = [...cell.querySelectorAll("*")].every((part) => part.getBoundingClientRect().right <= box.right + 1);
    return cell.scrollWidth > cell.clientWidth + 1 || !inside;
  });
  const tables = shown("table").filter((table) => {
    const box = table.parentElement;
    return table.offsetWidth > box.clientWidth + 1 && !["auto", "scroll"].includes(getComputedStyle(box).overflowX);
  });
  const said = (what) => (node) => `${what} ${node.innerText.slice(0, 80)}`;
  return [...cells.map(said("cell")), ...tables.map(said("table"))];
}"""


def cut_off(page) -> list[str]:
    """The table cells on show whose content reaches past their own box, and the tables past their container's, cut
    off there: a table too wide for its place must wrap its cells or scroll sideways inside its own box instead (an
    outside probe saw a date cut to "2020-02" and the side panel's "Show where" buttons cut at its edge, in a
    1300-pixel window)."""
    return page.evaluate(CUT)


def log_since(served, offset: int, awaited: str) -> str:
    """The server's log from `offset` on, once it holds `awaited` (the log is written as the run ends, at about the
    time the page shows it)."""
    deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
    while awaited not in (written := served.log.read_text()[offset:]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return written


def choose_folder(page, folder: Path) -> None:
    """The folder chosen in the upload form; in Firefox its files instead, as WebDriver BiDi in 140 ESR cannot set a
    folder on an input ("unsupported operation: File error: Is directory")."""
    if page.context.browser.browser_type.name == "chromium":
        page.get_by_label("Or a folder").set_input_files(folder)
    else:
        page.get_by_label("Files").set_input_files(sorted(folder.iterdir()))


def test_serve_prints_the_page_first_and_keeps_langgraphs_log_quiet(served):
    log = served.log.read_text()
    assert log.index(f"  Page:   {served.url}/web/") < log.index("  API:") < log.index("get_client(")
    assert "Welcome to" not in log and "designed for development" not in log


@in_firefox_too
def test_a_wrong_key_is_refused_in_words_and_not_kept(page, served):
    page.goto(page_url(served))
    page.get_by_label("API key").fill("rk_00000000_forged")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text(re.compile("Sign-in refused: this API key is not valid here"))
    assert page.evaluate("sessionStorage.length") == 0
    assert page.get_by_label("API key").is_visible()


def test_a_key_revoked_while_signed_in_signs_the_page_out_saying_why(page, served):
    """Before: every call answered 401 and the page went on saying "Signed in as ..." with the revoked key kept."""
    key = _add_key(served.env, "revoked", "--scope", "sample")
    sign_in(page, served, key)
    page.get_by_role("button", name="Documents").click()
    expect(page.locator("#doc-count")).to_contain_text("document")
    subprocess.run([sys.executable, "-m", "cli", "keys", "revoke", "revoked"], env=served.env, check=True)
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.locator("#alert")).to_have_text("This key is no longer accepted; sign in again.")
    expect(page.get_by_label("API key")).to_be_focused()
    expect(page.get_by_text(re.compile("^Signed in as"))).to_be_hidden()
    expect(page.locator("#documents")).to_be_hidden()
    assert key not in page.evaluate("Object.values(sessionStorage)")
    page.get_by_label("API key").fill(served.api_key)
    page.get_by_label("API key").press("Enter")
    expect(page.get_by_text(re.compile("^Signed in as"))).to_be_visible()


@in_firefox_too
def test_a_count_shows_its_figure_derivation_and_sources_and_a_citation_opens_its_row(page, served):
    sign_in(page, served)
    assert served.api_key in page.evaluate("Object.values(sessionStorage)")
    assert page.evaluate("localStorage.length") == 0, "the key is kept for the browser session only"
    turn = ask(page, "How many contracts per governing law?")
    expect(turn.locator(".figure-value")).to_have_text("10")
    expect(turn).to_contain_text("count over 10 documents of bucket contracts")
    expect(turn.get_by_role("row", name=re.compile(r"^Delaware 3$"))).to_be_visible()
    sources = turn.get_by_role("list", name="Sources").get_by_role("button")
    expect(sources).to_have_count(10)
    sources.first.click()
    panel = page.locator("#source")
    expect(panel).to_be_focused()
    expect(panel.get_by_role("heading", name="Cited row")).to_be_visible()
    expect(panel.get_by_role("row", name=re.compile("^governing_law "))).to_be_visible()
    expect(panel.locator(".body-text")).to_contain_text("AGREEMENT")
    screenshot(page, "chat")
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(sources.first).to_be_focused()  # the keyboard is back where it was
    page.set_viewport_size({"width": 640, "height": 900})  # a 1280-pixel window at 200% zoom
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scrolling"
    origin = served.url
    assert all(url.startswith(origin) for url in page.requested), "every asset and call is the server's own"
    headers = page.request.get(page_url(served)).headers
    assert headers["content-security-policy"].startswith("default-src 'none'; script-src 'self'")


@in_firefox_too
def test_a_list_that_asks_back_is_answered_with_a_button_and_followed_up_on_the_same_thread(page, served):
    sign_in(page, served)
    turn = ask(page, "Which contracts have a notice period of at least 30 days?", max_hits=3)
    expect(turn.locator(".clarify")).to_contain_text("I need your help")
    screenshot(page, "clarification")
    narrow = turn.locator(".clarify button[data-choice=narrow]").first
    chosen = re.search(r"only (\w+) = (.+?) \(", narrow.inner_text())
    field, wanted = chosen.group(1), chosen.group(2)
    thread = page.evaluate("location.hash")
    narrow.click()
    expect(turn.locator(".clarify")).to_have_count(0)
    expect(page.get_by_label("Question")).to_be_focused()  # not lost with the button pressed: the next step's box
    table = turn.locator("table")
    expect(table).to_be_visible()
    column = [h.strip() for h in table.locator("th").all_inner_texts()].index(field)
    values = [row.locator("td").nth(column).inner_text() for row in table.locator("tbody tr").all()]
    assert values and set(values) == {wanted}
    followed = ask(page, "and which of them are governed by Delaware law?")
    expect(followed.locator("table")).to_be_visible()
    assert page.evaluate("location.hash") == thread and page.locator("#turns > li").count() == 2
    expect(page.locator("#thread-list button[aria-current=true]")).to_have_count(1)
    page.reload()  # the thread opened again: its earlier turn as it was shown, its sources opening their rows
    earlier = page.locator("#turns > li").first
    expect(earlier.locator("table")).to_be_visible()
    earlier.get_by_role("list", name="Sources").get_by_role("button").first.click()
    expect(page.locator("#source").get_by_role("heading", name="Cited row")).to_be_visible()
    for width in (1300, 640):  # a 1300-pixel window, and a 1280-pixel one at 200% zoom
        page.set_viewport_size({"width": width, "height": 900})
        assert not cut_off(page), (width, cut_off(page))


def test_a_clarification_left_for_a_new_question_says_it_was_left_unanswered(page, served):
    """A question asked while the agent waits for an answer drops the wait (the new run starts afresh): the earlier
    question says it was left unanswered, then and after a reload, and the thread is no longer listed as waiting
    (an outside probe saw the earlier question with nothing under it)."""
    sign_in(page, served)
    ask(page, "Which contracts have a notice period of at least 30 days?", max_hits=3)
    earlier = page.locator("#turns > li").first
    expect(earlier.locator(".clarify")).to_contain_text("I need your help")
    listed = page.locator("#thread-list button[aria-current=true]")
    expect(listed).to_have_text("Which contracts have a notice period of at least 30 days? (waiting for you)")
    ask(page, "How many contracts per governing law?")
    expect(earlier).to_contain_text("Left unanswered: another question was asked before this one was answered.")
    expect(earlier.locator(".clarify")).to_have_count(0)
    expect(listed).not_to_contain_text("waiting for you")
    page.reload()
    expect(earlier).to_contain_text("Left unanswered")
    expect(page.locator("#turns > li").last.locator(".figure-value")).to_be_visible()


def test_one_contract_asked_about_by_a_party_two_share_is_chosen_with_a_button(page, served):
    """Two sample contracts have Silverleaf Software as a party: the page offers each as a button, with the values
    that tell them apart, and the answer is about the one chosen."""
    sign_in(page, served)
    turn = ask(page, "What is the governing law of the contract with Silverleaf Software?")
    expect(turn.locator(".clarify")).to_contain_text("2 documents match 'Silverleaf Software Ltd'")
    expect(turn.locator(".clarify button[data-choice=document]")).to_have_count(2)
    turn.locator(".clarify button[data-choice=document]", has_text="Reseller Agreement").click()
    expect(turn.locator(".clarify")).to_have_count(0)
    expect(turn.locator("table")).to_contain_text("Delaware")
    expect(turn.locator("table")).not_to_contain_text("California")


@in_firefox_too
def test_the_export_option_downloads_the_csv(page, served):
    sign_in(page, served)
    turn = ask(page, "Which contracts have a notice period of at least 30 days?", max_hits=3)
    csv_file = downloaded(page, turn.locator(".clarify button[data-choice=export]").click)
    with open(csv_file, newline="") as exported:
        rows = list(csv.DictReader(exported))
    assert len(rows) == 7 and all(int(r["notice_period_days"]) >= 30 for r in rows)
    expect(turn).to_contain_text("Exported all 7 matching rows")


@in_firefox_too
def test_a_folder_is_uploaded_listed_shown_as_text_and_a_document_deleted(page, served, tmp_path):
    batch = uuid.uuid4().hex[:8]  # this run's documents only, whichever browser ran the test before
    folder = tmp_path / "handbook"
    folder.mkdir()
    (folder / f"{batch}-canteen.md").write_text("# Canteen\nThe zarquon canteen opens at noon on weekdays.")
    hostile = '# Notice\n<script>window.pwned = 1</script>\n<img src=x onerror="window.pwned = 2">\n**not bold** [a](b)'
    (folder / f"{batch}-notice.md").write_text(hostile)
    sign_in(page, served)
    page.get_by_role("button", name="Documents").click()
    choose_folder(page, folder)
    page.get_by_label("Bucket to add them to").fill("generic")
    page.get_by_role("button", name="Upload and ingest").click()
    expect(page.locator("#upload-status")).to_contain_text("Ingested", timeout=RUN_TIMEOUT_MS)
    page.set_viewport_size({"width": 640, "height": 900})  # a 1280-pixel window at 200% zoom, every title listed
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scrolling"
    page.get_by_label("Search titles and ids").fill(batch)
    rows = page.locator("#doc-table tbody tr")
    expect(rows).to_have_count(2)
    page.get_by_role("button", name="Notice", exact=True).click()
    shown = page.locator("#doc-view .body-text")
    expect(shown).to_contain_text('<script>window.pwned = 1</script>\n<img src=x onerror="window.pwned = 2">')
    expect(shown).to_contain_text("**not bold** [a](b)")
    assert page.locator("#doc-view script, #doc-view img, #doc-view strong").count() == 0
    assert page.evaluate("window.pwned") is None
    page.get_by_role("button", name="Delete Canteen").click()
    expect(page.get_by_role("button", name="Cancel")).to_be_focused()
    page.get_by_role("button", name="Yes, delete it").click()
    expect(page.locator("#doc-view")).to_contain_text("Deleted")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Notice")
    kept = {p.name for p in (served.home / "inbox" / "sample" / "uploaded").rglob(f"{batch}-*")}
    assert kept == {f"{batch}-notice.md"}, "the deleted document's kept upload goes with it, the other's stays"


def test_a_value_read_from_a_document_cites_the_sentence_it_was_read_from(page, served, tmp_path):
    contract = tmp_path / "quarrystone-lease.md"
    contract.write_text(
        "# Equipment Lease\nThis Equipment Lease is made between Quarrystone Ltd and Maplewood Farms Inc.\n\n"
        "12. Governing law. This Agreement shall be governed by the laws of the State of Vermont.\n"
    )
    sentence = "This Agreement shall be governed by the laws of the State of Vermont."
    inbox = served.home / "inbox" / "sample"

    def staged() -> set[Path]:
        return {p for p in (inbox / "uploads").rglob("*") if p.is_file()}

    before = staged()  # other tests' uploads
    sign_in(page, served)
    page.get_by_role("button", name="Documents").click()

    def upload(bucket: str) -> None:
        page.get_by_label("Files").set_input_files(contract)
        page.get_by_label("Bucket to add them to").fill(bucket)
        page.get_by_role("button", name="Upload and ingest").click()

    logged = len(served.log.read_text())
    upload("leases")  # a bucket that does not exist: refused in words beside the button, nothing of the upload kept
    expect(page.locator("#upload-form").get_by_role("alert")).to_contain_text(
        re.compile(
            r"bucket 'leases' is unknown; use one of .*contracts.* or ask whoever runs the server to add it "
            r"\(`ragent buckets add leases --description \.\.\.`\)$"
        )
    )
    assert staged() == before, "a refused upload leaves no file"
    refusal = log_since(served, logged, "bucket 'leases' is unknown")
    assert refusal.count("bucket 'leases' is unknown") == 1 and "Traceback" not in refusal, "one line, as a refusal"
    upload("contracts")
    status = page.locator("#upload-status")
    expect(status).to_contain_text("New: quarrystone-lease.md")
    upload("contracts")  # the same file again: reported unchanged, not skipped as another file's document
    expect(status).to_contain_text("Unchanged (the same as the stored version): quarrystone-lease.md")
    contract.write_text(contract.read_text() + "\n13. Notices. Notices are given in writing.\n")
    upload("contracts")  # a new version of it: ingested as that document's new version
    expect(status).to_contain_text("Updated to this version: quarrystone-lease.md")
    assert (inbox / "uploaded" / contract.name).read_text() == contract.read_text(), "the latest version is kept"
    assert staged() == before, "an ingested upload's batch is not kept beside it"
    page.get_by_role("button", name="Equipment Lease", exact=True).click()
    expect(page.locator("#doc-view .body-text")).to_contain_text("13. Notices.")
    field = page.locator("#doc-view tr", has=page.locator("th", has_text=re.compile("^governing_law$")))
    expect(field).to_contain_text("Vermont")
    field.get_by_role("button", name=re.compile(r"^Show where \(rule, right \d+% of the time\)$")).click()
    expect(page.locator("#doc-view mark")).to_contain_text(sentence)
    screenshot(page, "documents")
    page.get_by_label("Bucket to read").fill("contracts")
    page.get_by_role("button", name="Read fields").click()
    expect(page.locator("#extract-status")).to_contain_text(
        re.compile(r"contracts \(.*governing_law.*\): \d+ documents read")
    )
    page.get_by_role("button", name="Chat").click()
    turn = ask(page, "Which contracts are governed by Vermont law?")
    turn.get_by_role("list", name="Sources").get_by_role("button", name=re.compile("Equipment Lease")).click()
    expect(page.locator("#source mark")).to_have_text(re.compile(re.escape(sentence)))
    page.get_by_role("button", name="Close").click()
    counted = ask(page, "How many contracts are governed by Vermont law?")  # a figure: no table says which field
    counted.get_by_role("list", name="Sources").get_by_role("button", name=re.compile("Equipment Lease")).click()
    expect(page.locator("#source mark")).to_have_text(re.compile(re.escape(sentence)))
    for width in (1300, 640):  # a 1300-pixel window, and a 1280-pixel one at 200% zoom
        page.set_viewport_size({"width": width, "height": 900})
        assert not cut_off(page), (width, cut_off(page))


def test_a_thread_of_another_scope_is_not_listed_and_cannot_continue_there(page, served):
    thread = served.client().threads.create()["thread_id"]
    served.client().runs.wait(thread, "agent", input={"question": "How many contracts per governing law?"})
    sign_in(page, served)
    expect(page.locator(f"#thread-list [data-thread='{thread}']")).to_have_text("How many contracts per governing law?")
    page.get_by_label("Scope", exact=True).select_option("default")
    expect(page.locator("#thread-list")).to_contain_text("No threads yet in this scope.")
    page.goto(page_url(served) + f"#thread={thread}")
    page.reload()  # signed in again from the tab's session, in scope default, the thread named in the address
    expect(page.locator("#turns > li")).to_have_count(1)
    # not `ask`: the refused question's turn is drawn and then dropped when the thread is shown again as it stands,
    # which can happen before a count of two is ever seen
    page.get_by_label("Question").fill("and per contract type?")
    page.get_by_label("Question").press("Enter")
    expect(page.get_by_role("alert")).to_have_text(
        "Not allowed: this thread belongs to scope 'sample' and cannot continue in 'default'; resume it without a "
        "scope (it keeps its own), or ask in a new thread"
    )
    expect(page.locator("#turns > li")).to_have_count(1)  # the thread as it stands: the refused question not in it
    expect(page.get_by_text(re.compile("^Signed in as"))).to_be_visible()  # a 403 refuses, it does not sign out


def test_a_reload_while_an_answer_streams_joins_its_run_and_shows_the_answer(page, served):
    """The run is held at its first read of the documents table (a lock the test takes), so the reload surely
    comes while it runs: the page shows the question, follows the run, and shows its answer when it ends (before,
    it showed an empty thread and never the answer)."""
    sign_in(page, served)
    with psycopg.connect(served.env["DATABASE_URL"]) as held:
        held.execute("LOCK TABLE documents IN ACCESS EXCLUSIVE MODE")
        page.get_by_label("Question").fill("How many contracts per governing law?")
        page.get_by_label("Question").press("Enter")
        expect(page.locator("#progress")).to_contain_text("Working")
        thread = page.evaluate("location.hash").removeprefix("#thread=")
        deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
        while served.client().threads.get(thread)["status"] != "busy" and time.monotonic() < deadline:
            time.sleep(0.1)
        page.reload()
        turn = page.locator("#turns > li")
        expect(turn).to_have_count(1)
        expect(turn).to_contain_text("How many contracts per governing law?")
        expect(page.locator("#progress")).to_contain_text("Working")
        held.rollback()  # the run goes on
        expect(turn.locator(".figure-value")).to_have_text(re.compile(r"^\d+$"))  # other tests add contracts
    expect(page.locator("#progress")).to_have_text("")
    expect(turn.get_by_role("list", name="Sources").get_by_role("button").first).to_be_visible()


def test_a_question_the_server_refuses_reads_as_a_refusal_not_a_server_fault(page, served):
    """A question over the server's limit ends its run with an error event: the page says the request was refused,
    and why (an outside probe saw "The server answered 500: ..." for it)."""
    sign_in(page, served)
    page.get_by_label("Question").fill("How many contracts " + "x" * 2000)
    page.get_by_label("Question").press("Enter")
    expect(page.get_by_role("alert")).to_contain_text("The request was refused: the question is 2019 characters")


def test_a_message_naming_a_command_says_what_the_page_does_instead(page, served):
    """A scope without documents answers with the way to add some, worded for the command line too: on the page it
    names the page's own Upload and ingest (before: `ragent ingest PATH --bucket NAME ...`, which a person on the page
    cannot run)."""
    sign_in(page, served)
    empty = f"empty-{uuid.uuid4().hex[:8]}"
    page.get_by_label("Other scope").fill(empty)
    page.get_by_label("Other scope").press("Tab")  # the change is committed as the field is left
    expect(page.get_by_label("Scope", exact=True)).to_have_value(empty)  # before asking: the question is the scope's
    turn = ask(page, "How many contracts are there?")
    expect(turn.locator(".answer")).to_contain_text("Add documents to it (Documents, then Upload and ingest), or ask")
    expect(turn).not_to_contain_text("ragent")


def test_the_documents_listed_are_the_chosen_scopes(page, served):
    """The documents graph takes its scope from its input (a key of every scope, or of several, names one there):
    before, the page named it in the run's context only, so a key of every scope listed, showed and deleted the
    documents of `default` whichever scope was chosen, and a key of two scopes was refused in both."""

    def total(scope: str) -> int:
        listed = served.client().runs.wait(None, "documents", input={"action": "list", "scope": scope, "limit": 1})
        return listed["total"]

    sign_in(page, served)
    for scope in ("sample", "default"):
        page.get_by_label("Scope", exact=True).select_option(scope)
        page.get_by_role("button", name="Documents").click()
        expect(page.locator("#doc-count")).to_contain_text(f"{total(scope)} document")
        page.get_by_role("button", name="Chat").click()


def test_another_keys_thread_is_not_reachable_and_a_reader_cannot_add_or_delete(page, browser, served):
    thread = served.client().threads.create()["thread_id"]
    served.client().runs.wait(thread, "agent", input={"question": "How many contracts per governing law?"})
    sign_in(page, served, served.other_key, fragment=f"#thread={thread}")
    expect(page.get_by_role("alert")).to_contain_text("Not found")
    expect(page.locator(f"#thread-list [data-thread='{thread}']")).to_have_count(0)
    expect(page.locator("#turns > li")).to_have_count(0)
    page.get_by_role("button", name="Documents").click()
    expect(page.locator("#doc-count")).to_contain_text("document")
    expect(page.locator("#upload-form")).to_be_hidden()
    expect(page.get_by_role("button", name=re.compile("^Delete"))).to_have_count(0)


def test_an_upload_stays_inside_its_batch_and_needs_a_key_that_may_ingest(served):
    batch = uuid.uuid4().hex

    def put(path: str, key: str | None) -> httpx.Response:
        headers = {"x-api-key": key} if key else {}
        url = f"{served.url}/web/api/upload/{path}?scope=sample"
        return httpx.put(url, content=b"# Note\nhello", headers=headers, timeout=30)

    assert put(f"{batch}/notes/a.md", None).status_code == 401
    refused = put(f"{batch}/notes/a.md", served.other_key)
    assert refused.status_code == 403 and "may not ingest documents" in refused.json()["detail"]
    for path in (f"{batch}/..%2F..%2Fescaped.md", f"{batch}/a%00b.md", f"{batch}/a%5Cb.md", "not-a-batch/a.md"):
        assert put(path, served.api_key).status_code == 422, path
    assert not list(served.home.rglob("escaped.md"))
    stored = put(f"{batch}/notes/a.md", served.api_key)
    assert stored.status_code == 201 and stored.json()["path"] == f"uploads/{batch}/notes/a.md"
    staged = served.home / "inbox" / "sample" / "uploads" / batch
    assert (staged / "notes" / "a.md").read_bytes() == b"# Note\nhello"
    request = {"path": f"uploads/{batch}", "bucket": "leases", "scope": "sample"}
    refused = served.client().runs.wait(None, "ingest", input=request, raise_error=False)
    assert "bucket 'leases' is unknown" in refused["__error__"]["message"]
    assert not staged.exists(), "a refused ingest deletes the upload it was asked for"
    assert put(f"{batch}/notes/a.md", served.api_key).status_code == 201
    given_up = f"{served.url}/web/api/upload/{batch}?scope=sample"
    assert httpx.delete(given_up, headers={"x-api-key": served.other_key}).status_code == 403
    assert httpx.delete(given_up, headers={"x-api-key": served.api_key}).status_code == 204
    assert not staged.exists(), "an upload the page gave up is deleted"
