"""The server's API keys: each names an identity, the scopes it may use and whether it may ingest.

Keys live hashed in `<home>/api-keys.json` (written by `ragent keys`), or, where the data folder is not the place
for secrets (a LangGraph Platform deployment), in the `RAGENT_API_KEYS` environment variable holding the same JSON.
A key is `rk_<id>_<secret>`: the id finds the entry, the secret is 32 random bytes checked against a SHA-256 digest
in constant time. A fast hash is the right one here: a slow password hash guards guessable passwords, and a
256-bit random secret cannot be guessed, so each request stays cheap.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import os
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, field_validator

from core.errors import InvalidInput
from core.scope import SCOPE_RE, SCOPE_RULE

KEYS_ENV = "RAGENT_API_KEYS"
KEYS_FILE = "api-keys.json"
LOCAL_KEY_FILE = "local-api-key"
"""The local single-user key's plain text, readable by the data folder's owner only (see `ensure_local_key`)."""
ANY_SCOPE = "*"
"""A scope entry that admits every scope: the local single-user key's, never a default of `ragent keys add`."""


class ApiKey(BaseModel):
    id: str = Field(pattern=r"^[0-9a-f]{8}$")
    identity: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,63}$")
    scopes: list[str] = Field(min_length=1)
    may_ingest: bool = False
    digest: str = Field(pattern=r"^[0-9a-f]{64}$")
    created_at: str = ""

    @field_validator("scopes")
    @classmethod
    def _scopes(cls, scopes: list[str]) -> list[str]:
        bad = [s for s in scopes if s != ANY_SCOPE and not SCOPE_RE.match(s)]
        if bad:
            raise ValueError(f"scope {bad[0]!r} is not valid ({SCOPE_RULE}, or '*')")
        return list(dict.fromkeys(scopes))


KEY_LIST = TypeAdapter(list[ApiKey])


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def key_id(presented: str) -> str | None:
    """The id part of a presented key, or None when it has not the shape of one of ours."""
    parts = presented.split("_")
    return parts[1] if len(parts) == 3 and parts[0] == "rk" and len(parts[1]) == 8 else None


class KeyRing:
    """The keys of one data folder. Reads are cached by the file's inode and modification time (every write
    replaces the file, so the inode changes even within one tick of the clock), and `ragent keys revoke` takes
    effect at the next request of a running server, without a restart."""

    def __init__(self, home: Path, env: dict[str, str] | os._Environ = os.environ):
        self.path = home / KEYS_FILE
        self._env = env
        self._lock = threading.Lock()
        self._cached: tuple[tuple[int, int], list[ApiKey]] | None = None

    @property
    def from_env(self) -> bool:
        return bool(self._env.get(KEYS_ENV))

    def keys(self) -> list[ApiKey]:
        if self.from_env:
            return _parsed(self._env[KEYS_ENV], KEYS_ENV)
        try:
            found = self.path.stat()
        except FileNotFoundError:
            return []
        version = (found.st_ino, found.st_mtime_ns)
        with self._lock:
            if self._cached is None or self._cached[0] != version:
                self._cached = (version, _parsed(self.path.read_text(encoding="utf-8"), str(self.path)))
            return self._cached[1]

    def verify(self, presented: str) -> ApiKey | None:
        wanted = key_id(presented)
        for key in self.keys():
            if key.id == wanted and hmac.compare_digest(key.digest, digest(presented)):
                return key
        return None

    @contextmanager
    def _changing(self) -> Iterator[None]:
        """One change at a time across processes (an OS lock, dropped however the process ends): two `ragent keys
        add` at once would otherwise each write the file without the other's key."""
        if self.from_env:
            raise InvalidInput(f"the keys come from {KEYS_ENV}; change that variable, not the file")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(f".{KEYS_FILE}.lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def add(self, identity: str, scopes: list[str], may_ingest: bool) -> tuple[ApiKey, str]:
        """A new key for `identity`; returns its entry and its plain text, which is shown once and kept nowhere."""
        with self._changing():
            return self._add(identity, scopes, may_ingest)

    def _add(self, identity: str, scopes: list[str], may_ingest: bool) -> tuple[ApiKey, str]:
        ids = {k.id for k in self.keys()}
        new_id = next(i for i in iter(lambda: secrets.token_hex(4), None) if i not in ids)
        plain = f"rk_{new_id}_{secrets.token_urlsafe(32).replace('_', '-')}"
        try:
            key = ApiKey(
                id=new_id,
                identity=identity,
                scopes=scopes,
                may_ingest=may_ingest,
                digest=digest(plain),
                created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            )
        except ValidationError as error:
            raise InvalidInput("; ".join(f"{e['loc'][0]}: {e['msg']}" for e in error.errors())) from None
        self._write([*self.keys(), key])
        return key, plain

    def revoke(self, wanted: str) -> list[ApiKey]:
        """Remove the key with this id, or every key of this identity; returns what was removed."""
        with self._changing():
            keys = self.keys()
            gone = [k for k in keys if wanted in (k.id, k.identity)]
            if not gone:
                raise InvalidInput(f"no key has the id or identity {wanted!r}; `ragent keys list` shows them")
            self._write([k for k in keys if k not in gone])
            return gone

    def _write(self, keys: list[ApiKey]) -> None:
        """Atomically, readable by the owner only: a reader never sees half a file."""
        partial = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(KEY_LIST.dump_json(keys, indent=2).decode())
        os.replace(partial, self.path)


def _parsed(text: str, where: str) -> list[ApiKey]:
    try:
        return KEY_LIST.validate_json(text)
    except ValidationError as error:
        raise InvalidInput(f"the API keys in {where} cannot be read: {error.errors()[0]['msg']}") from None


def ensure_local_key(ring: KeyRing) -> str | None:
    """The single-user default: when the data folder has no key at all, one key for identity `local`, every scope,
    ingestion allowed, whose plain text is written to `<home>/local-api-key` (mode 0600: whoever can read it can
    already read the data folder). Returns the file's text when that file exists, else None (keys were added
    by hand, or come from the environment)."""
    local = ring.path.with_name(LOCAL_KEY_FILE)
    if not ring.from_env and not ring.keys():
        _, plain = ring.add("local", [ANY_SCOPE], may_ingest=True)
        fd = os.open(local, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(plain + "\n")
    if local.is_file():
        text = local.read_text(encoding="utf-8").strip()
        return text if ring.verify(text) else None
    return None
