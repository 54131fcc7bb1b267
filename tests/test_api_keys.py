"""API keys and the identities they name, without a server: what `ragent keys` stores, what the auth handler
accepts, and the scope a run gets (the server-level tests are in test_server_tenancy)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from langgraph_sdk import Auth

from core.errors import InvalidInput
from graph.access import auth
from graph.access.keys import KEYS_ENV, KeyRing, ensure_local_key
from graph.access.tenancy import Identity, ScopeRefused, checked_run_scope
from graph.ingest_graph import ingest_scope


def test_a_key_is_stored_hashed_readable_by_its_owner_only_and_revoked_at_once(tmp_path):
    ring = KeyRing(tmp_path, env={})
    key, plain = ring.add("alice", ["team-a"], may_ingest=False)
    stored = (tmp_path / "api-keys.json").read_text()
    assert plain not in stored and plain.split("_")[2] not in stored, "only the digest is kept"
    assert stat.S_IMODE(os.stat(tmp_path / "api-keys.json").st_mode) == 0o600
    assert ring.verify(plain) == key and KeyRing(tmp_path, env={}).verify(plain) == key
    assert ring.verify(plain[:-1]) is None and ring.verify("rk_" + key.id + "_guess") is None
    assert ring.verify("") is None and ring.verify("Bearer " + plain) is None
    ring.revoke(key.id)
    assert ring.verify(plain) is None


@pytest.mark.parametrize(
    ("identity", "scopes", "reason"),
    [
        ("alice", ["../team"], "scope '../team' is not valid"),
        ("alice", [], "scopes: List should have at least 1 item"),
        ("al ice", ["a"], "identity: String should match pattern"),
    ],
)
def test_a_bad_key_request_is_refused_with_the_reason(tmp_path, identity, scopes, reason):
    with pytest.raises(InvalidInput, match=reason):
        KeyRing(tmp_path, env={}).add(identity, scopes, may_ingest=False)
    assert not (tmp_path / "api-keys.json").exists()


def test_keys_added_at_the_same_time_are_all_kept(tmp_path):
    rings = [KeyRing(tmp_path, env={}) for _ in range(12)]  # each as a separate `ragent keys add` would hold it
    with ThreadPoolExecutor(max_workers=12) as pool:
        added = list(pool.map(lambda ring: ring.add("svc", ["prod"], may_ingest=False), rings))
    ring = KeyRing(tmp_path, env={})
    assert len(ring.keys()) == 12 and all(ring.verify(plain) == key for key, plain in added)


def test_keys_from_the_environment_are_read_and_not_written(tmp_path):
    source = KeyRing(tmp_path / "elsewhere", env={})
    key, plain = source.add("svc", ["prod"], may_ingest=True)
    ring = KeyRing(tmp_path, env={KEYS_ENV: source.path.read_text()})
    assert ring.verify(plain) == key
    with pytest.raises(InvalidInput, match=f"the keys come from {KEYS_ENV}"):
        ring.add("other", ["prod"], may_ingest=False)
    with pytest.raises(InvalidInput, match="cannot be read"):
        KeyRing(tmp_path, env={KEYS_ENV: "[{}]"}).keys()


def test_the_local_key_is_made_once_and_only_for_an_empty_data_folder(tmp_path):
    ring = KeyRing(tmp_path, env={})
    plain = ensure_local_key(ring)
    assert ring.verify(plain).identity == "local" and ring.verify(plain).scopes == ["*"]
    assert stat.S_IMODE(os.stat(tmp_path / "local-api-key").st_mode) == 0o600
    assert ensure_local_key(ring) == plain and len(ring.keys()) == 1
    other = KeyRing(tmp_path / "configured", env={})
    other.add("alice", ["team-a"], may_ingest=False)
    assert ensure_local_key(other) is None and len(other.keys()) == 1, "a configured folder gets no open key"


def test_ragent_keys_add_list_revoke(tmp_path):
    env = {**os.environ, "RAGENT_HOME": str(tmp_path)}

    def keys(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "cli", "keys", *args], env=env, capture_output=True, text=True)

    added = keys("add", "bob", "--scope", "team-b", "--scope", "shared", "--ingest")
    assert added.returncode == 0 and "scopes team-b, shared; may ingest" in added.stdout
    listed = json.loads(keys("list", "--json").stdout)
    assert [(k["identity"], k["scopes"], k["may_ingest"]) for k in listed] == [("bob", ["team-b", "shared"], True)]
    assert "digest" not in listed[0] and "rk_" not in keys("list").stdout
    refused = keys("add", "eve", "--scope", "a/b")
    assert refused.returncode != 0 and "not valid" in refused.stderr
    assert keys("revoke", "bob").stdout.startswith("revoked") and json.loads(keys("list", "--json").stdout) == []
    assert "no key has the id or identity 'bob'" in keys("revoke", "bob").stderr


def test_the_scope_of_a_run_comes_from_the_identity():
    alice = Identity("alice", ("team-a",), may_ingest=False)
    carol = Identity("carol", ("team-a", "team-b"), may_ingest=True)
    local = Identity("local", ("*",), may_ingest=True)
    assert alice.scope_for(None) == "team-a" and local.scope_for(None) == "default"
    assert carol.scope_for("team-b") == "team-b" and carol.scope_for(None, "team-a") == "team-a"
    for refused, args in [(alice, ("team-b",)), (carol, (None,)), (carol, ("team-b", "team-a"))]:
        with pytest.raises(ScopeRefused):
            refused.scope_for(*args)
    as_user = Identity.of_user(type("User", (), alice.as_user())())
    assert as_user == alice, "the identity survives the server's user object, in its permissions"


def test_the_graph_refuses_a_scope_the_server_did_not_grant_or_the_thread_does_not_have():
    user = type("User", (), Identity("alice", ("team-a",), may_ingest=False).as_user())()
    assert checked_run_scope("team-a", user, None) == "team-a"
    with pytest.raises(ScopeRefused, match="alice may not use scope 'default'"):
        checked_run_scope("default", user, None)
    with pytest.raises(ScopeRefused, match="belongs to scope 'team-a'"):
        checked_run_scope("team-b", None, "team-a")
    assert checked_run_scope("team-b", None, None) == "team-b", "outside the server (the CLI) any scope is the user's"
    stranger = type("User", (), {"identity": "x", "permissions": []})()
    with pytest.raises(ScopeRefused):
        checked_run_scope("default", stranger, None)
    with pytest.raises(ScopeRefused, match="may not ingest"):
        ingest_scope("team-a", user)


def test_without_keys_only_loopback_clients_are_served(monkeypatch):
    monkeypatch.setenv(auth.NO_AUTH_ENV, "1")
    assert asyncio.run(auth.authenticate({}, {"client": ("127.0.0.1", 5000)}))["identity"] == "local"
    for address in ("10.0.0.5", "192.168.1.2", "", None):
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            asyncio.run(auth.authenticate({}, {"client": (address, 5000) if address is not None else None}))
        assert refused.value.status_code == 401


def test_serve_without_keys_refuses_a_non_loopback_address(tmp_path):
    served = subprocess.run(
        [sys.executable, "-m", "cli", "serve", "--no-auth", "--host", "0.0.0.0"],
        env={**os.environ, "RAGENT_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert served.returncode != 0 and "--no-auth serves without keys" in served.stderr
