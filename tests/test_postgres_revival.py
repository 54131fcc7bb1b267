"""`ragent serve` brings back its embedded Postgres after a `kill -9` of the postmaster (issue 34, item 5): runs on a
thread that failed while it was down answer again on that thread, the documents graph answers, and `ragent stats`
and the server's log say the server restarted it. Before, every run failed "Postgres is unavailable" for as long as
one waited, and only a CLI command started Postgres again."""

from __future__ import annotations

import os
import signal
import time

from evals.served_agent import ServedAgent
from retrievers.postgres.embedded.process import alive, postmaster_pid, server_lock
from tests.test_cli import ragent

QUESTION = "How do I get onto the VPN when working from home?"
BACK_WITHIN_S = 90.0


def _until(attempt, what: str, within_s: float = BACK_WITHIN_S):
    """Call `attempt` until it returns something true, failing after `within_s`; returns that."""
    deadline = time.monotonic() + within_s
    while True:
        result = attempt()
        if result:
            return result
        assert time.monotonic() < deadline, f"not within {within_s} s: {what}"
        time.sleep(0.5)


def _answered(output: dict) -> bool:
    return "__error__" not in output and output["answer"]["citations"][0]["doc_id"] == "sample-generic-002"


def _ask(api, thread: str) -> dict:
    return api.runs.wait(thread, "agent", input={"question": QUESTION}, raise_error=False)


def test_the_server_restarts_its_embedded_postgres_after_a_kill_9_and_the_failed_thread_answers(tmp_path):
    data_dir = tmp_path / "postgres"
    served = ServedAgent(tmp_path, {"RAGENT_CACHE_DIR": str(tmp_path / "cache"), "RAGENT_POSTGRES_IDLE_STOP_S": "0"})
    served.env.pop("DATABASE_URL", None)
    with served:
        api = served.client()
        thread = api.threads.create()["thread_id"]
        assert _answered(_ask(api, thread))
        died = postmaster_pid(data_dir)

        # Held as a CLI command starting Postgres holds it: the server's restart waits for it, so this run meets
        # Postgres dead.
        with server_lock():
            os.kill(died, signal.SIGKILL)
            _until(lambda: not alive(died), "the postmaster dies")
            failed = _ask(api, thread)
            assert "Postgres is unavailable" in str(failed), failed

        _until(lambda: _answered(_ask(api, thread)), "a run on the thread that failed answers again")
        listed = api.runs.wait(
            api.threads.create()["thread_id"], "documents", input={"action": "list", "bucket": "invoices"}
        )
        assert len(listed["documents"]) == 8, "the documents graph answers"

        restarted = postmaster_pid(data_dir)
        assert restarted not in (None, died)
        stats = ragent("stats", home=tmp_path, RAGENT_POSTGRES_IDLE_STOP_S="0")
        assert stats.returncode == 0, stats.stderr
        assert f"running (pid {restarted})" in stats.stdout
        assert f"restarted by {served.process.pid}" not in stats.stdout, "by the server, not `ragent serve`"
        assert f"after its postmaster (pid {died}) died" in stats.stdout and "restarted by " in stats.stdout
        assert postmaster_pid(data_dir) == restarted, "`ragent stats` joined the restarted server"
    log = served.log.read_text()
    assert f"the embedded Postgres in {data_dir.resolve()} died (pid {died})" in log
    assert f"restarted the embedded Postgres in {data_dir.resolve()} (pid {restarted}; pid {died} had died)" in log
