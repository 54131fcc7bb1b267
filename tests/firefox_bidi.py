"""Debian's Firefox ESR for Playwright's WebDriver BiDi driver (`channel="moz-firefox"`), with nothing downloaded.

Playwright 1.65 drives a stock Firefox over WebDriver BiDi, but at launch and for each context it sends a few
commands that Firefox 140 ESR does not know yet (it answers "unknown command" and Playwright gives up). Run as
Playwright's `executable_path`, this starts the real Firefox with Playwright's arguments and stands between the two:
it passes every message through untouched, except that it answers those few commands itself with an empty success.
What they would have set is left at Firefox's defaults: no response bodies kept for Playwright (the tests read none),
downloads saved where the profile's preferences say (the tests set a folder and read the file there), no screen
orientation or other emulation the tests do not use. Any other command Firefox refuses still fails the test.

140 ESR also applies the page's Content-Security-Policy to the `eval` Playwright's injected script calls in the page
(the page under test rightly forbids `unsafe-eval`), so each Playwright evaluate is sent with the texts it would
`eval` compiled into the function itself (`without_eval`); the page and its CSP are left as served.

`python tests/firefox_bidi.py FIREFOX_ARGS...`; its stderr is Firefox's, with the BiDi address this one listens on.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import signal
import sys

import websockets

FIREFOX = "/usr/bin/firefox-esr"
UNKNOWN_TO_FIREFOX_140 = frozenset(
    {
        "network.addDataCollector",
        "browser.setDownloadBehavior",
        "emulation.setMediaFeaturesOverride",
        "emulation.setScreenOrientationOverride",
        "emulation.setScreenSettingsOverride",
    }
)
LISTENING = re.compile(r"WebDriver BiDi listening on (ws://\S+)")
PLAYWRIGHT_EVALUATE = "(utilityScript, ...args) => utilityScript.evaluate(...args)"
"""How Playwright runs every expression and locator action in a page: its utility script `eval`s the expression
(argument 3), and the expression in turn `eval`s source text it was given in its arguments (EVALUATED)."""
EVALUATED = {
    "functionText": "({})",  # a locator action's function
    "callbackText": "{}",  # a wait on a locator
    "source": "\n    (() => {{\n      const module = {{}};\n      {}\n      return module.exports.default();\n    }})()",  # noqa: E501  an extension
}
"""An argument's key -> the text Playwright 1.65's injected script `eval`s for it (InjectedScript.eval, .extend)."""
PRECOMPILED_EVALUATE = """(utilityScript, ...args) => {
  const precompiled = new Map([%s]);
  const realms = [...new Set([utilityScript.global, globalThis, window])];
  const originals = realms.map((realm) => realm.eval);
  realms.forEach((realm, n) => {
    realm.eval = (source) => (precompiled.has(source) ? precompiled.get(source)() : originals[n](source));
  });
  try {
    return utilityScript.evaluate(...args);
  } finally {
    realms.forEach((realm, n) => (realm.eval = originals[n]));
  }
}"""


def serialized_objects(node):
    """Each object Playwright serialized into a BiDi argument ({o: [{k, v}...]}), as its key -> BiDi value."""
    if isinstance(node, dict):
        if node.get("type") == "array" and isinstance(node.get("value"), list):
            pairs = [
                dict((k["value"] if isinstance(k, dict) else k, v) for k, v in item.get("value", []))
                for item in node["value"]
                if item.get("type") == "object"
            ]
            if pairs and all("k" in pair and "v" in pair for pair in pairs):
                yield {pair["k"].get("value"): pair["v"] for pair in pairs}
        for child in node.values():
            yield from serialized_objects(child)
    elif isinstance(node, list):
        for child in node:
            yield from serialized_objects(child)


def evaluated_sources(arguments: list) -> list[str]:
    """The texts Playwright's evaluate will `eval`: the expression, and those its arguments hold (EVALUATED)."""
    found = [arguments[3]["value"]] if len(arguments) > 3 and arguments[3].get("type") == "string" else []
    for fields in serialized_objects(arguments[4:]):
        for key, text in EVALUATED.items():
            if fields.get(key, {}).get("type") == "string" and (key != "source" or "arg" in fields):
                found.append(text.format(fields[key]["value"]))
    return found


def without_eval(command: dict) -> dict:
    """Playwright's evaluate with what it would `eval` compiled into the function Firefox is sent instead: 140 ESR
    refuses that `eval` under the page's own Content-Security-Policy even when WebDriver BiDi calls it, and the page
    under test forbids `unsafe-eval` (as it should). The page's `eval` is swapped only while the call runs."""
    params = command["params"]
    sources = evaluated_sources(params.get("arguments", []))
    entries = ", ".join(f"[{json.dumps(source)}, () => (\n{source}\n)]" for source in sources)
    return {**command, "params": {**params, "functionDeclaration": PRECOMPILED_EVALUATE % entries}}


async def relay(client, upstream_url: str) -> None:
    """One BiDi session: the client's commands to Firefox, except the unknown ones, answered here."""
    async with websockets.connect(upstream_url + client.request.path, max_size=None) as firefox:

        async def to_firefox() -> None:
            async for message in client:
                command = json.loads(message)
                if command.get("method") in UNKNOWN_TO_FIREFOX_140:
                    await client.send(json.dumps({"type": "success", "id": command["id"], "result": {}}))
                elif command.get("params", {}).get("functionDeclaration") == PLAYWRIGHT_EVALUATE:
                    await firefox.send(json.dumps(without_eval(command)))
                else:
                    await firefox.send(message)

        async def to_client() -> None:
            async for message in firefox:
                await client.send(message)

        tasks = [asyncio.create_task(to_firefox()), asyncio.create_task(to_client())]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()


async def main(args: list[str]) -> int:
    browser = await asyncio.create_subprocess_exec(FIREFOX, *args, stderr=asyncio.subprocess.PIPE)
    for stop in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(stop, browser.send_signal, stop)
    server = None
    async for raw in browser.stderr:
        line = raw.decode(errors="replace")
        listening = LISTENING.search(line)
        if listening and server is None:
            server = await websockets.serve(
                functools.partial(relay, upstream_url=listening.group(1)), "127.0.0.1", 0, max_size=None
            )
            line = f"WebDriver BiDi listening on ws://127.0.0.1:{server.sockets[0].getsockname()[1]}\n"
        sys.stderr.write(line)
        sys.stderr.flush()
    return await browser.wait()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
