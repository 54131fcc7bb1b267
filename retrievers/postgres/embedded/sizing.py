"""The embedded Postgres's memory and parallel workers, sized from the machine and applied when a process starts or
joins the server.

initdb's defaults (128 MB of shared buffers, 4 MB of work memory, two parallel workers per query) are sized for any
machine, and a bucket of a million annotation rows (a 670 MB table with its field indexes) then rereads every page it
touches from the operating system's cache, its bitmaps and sorts spill past 4 MB, and on two cores a query's leader
and its two workers take turns. A server someone else runs (`DATABASE_URL`) is its operator's to size; nothing here
touches it.
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

MB = 1 << 20
GB = 1 << 30


def memory_settings(ram_bytes: int, shm_bytes: int | None = None) -> dict[str, str]:
    """The embedded server's memory settings for a machine of `ram_bytes`, as ALTER SYSTEM takes them (kB).

    - shared_buffers: a quarter of the memory, Postgres's own advice for a dedicated server, between the default
      128 MB and 2 GB. The server shares the machine with the engines and the models, and the operating system
      caches the files too, so more would mostly hold pages twice; 2 GB holds a 1M-row bucket's annotations and
      field indexes. Shared memory is taken as pages are used, so a small corpus costs no more than before.
    - effective_cache_size: half the memory (what the server and the operating system may cache between them), so
      that the planner prices index scans as mostly cached.
    - work_mem: 32 MB per sort, hash or bitmap (up to 64 MB on a machine of 16 GB or more), so that the bitmap of a
      field index condition matching a few hundred thousand rows stays exact (a lossy bitmap rechecks every row of
      its pages) and an aggregate's groups hash in memory; the store's pool holds 8 connections. At most a quarter
      of `shm_bytes` (/dev/shm, where parallel workers share a bitmap: a container's is often 64 MB).
    - maintenance_work_mem: a sixteenth of the memory up to 1 GB, for building the field indexes of a large bucket.
    """
    kb = 1024
    ram_bytes -= ram_bytes % (64 * MB)  # a machine whose reported memory moves a little keeps its settings
    shared = min(max(ram_bytes // 4, 128 * MB), 2 * GB)
    return {
        "shared_buffers": f"{shared // kb}kB",
        "effective_cache_size": f"{max(ram_bytes // 2, shared) // kb}kB",
        "work_mem": f"{max(min((64 if ram_bytes >= 16 * GB else 32) * MB, (shm_bytes or GB) // 4), 4 * MB) // kb}kB",
        "maintenance_work_mem": f"{min(max(ram_bytes // 16, 64 * MB), GB) // kb}kB",
    }


def parallel_settings(cores: int) -> dict[str, str]:
    """The workers a query may start beside its leader: Postgres's default of two, but no more than the cores the
    leader leaves. On two cores, a 1M-row aggregate scanned by the leader and two workers ran 11-13% slower than by
    the leader and one (the three processes took turns on two cores; with no worker it was slower still); the
    searches were unchanged."""
    return {"max_parallel_workers_per_gather": str(max(0, min(2, cores - 1)))}


def machine_cores() -> int:
    """The cores this process may run on, or its control group's CPU quota when lower (a container's)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()
        return min(cores, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):  # absent, or "max" (no quota)
        return cores


def machine_memory() -> int:
    """The memory this process may use: the machine's, or its control group's limit when lower (a container's)."""
    import psutil

    total = psutil.virtual_memory().total
    for limit in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            return min(total, int(Path(limit).read_text().strip()))
        except (OSError, ValueError):  # absent, or "max" (no limit)
            continue
    return total


def write_settings(url: str, wanted: dict[str, str]) -> int:
    """ALTER SYSTEM the settings that postgresql.auto.conf does not hold yet, and reload; returns the size of the
    shared buffers the server runs with."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        written = dict(
            conn.execute(
                "SELECT name, setting FROM pg_file_settings WHERE sourcefile LIKE '%%postgresql.auto.conf'"
                " AND name = ANY(%s)",
                (list(wanted),),
            ).fetchall()
        )
        changed = {name: value for name, value in wanted.items() if written.get(name) != value}
        for name, value in changed.items():
            conn.execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value)))
        if changed:
            conn.execute("SELECT pg_reload_conf()")
        return conn.execute("SELECT pg_size_bytes(current_setting('shared_buffers'))").fetchone()[0]


def pg_size_bytes(setting: str) -> int:
    """'131072kB' (as `memory_settings` writes them) in bytes."""
    return int(setting.removesuffix("kB")) * 1024


def machine_settings() -> dict[str, str]:
    """`memory_settings` and `parallel_settings` for this machine: its memory (or its control group's limit), its
    /dev/shm and its cores."""
    shm = Path("/dev/shm")
    return {
        **memory_settings(machine_memory(), shutil.disk_usage(shm).total if shm.is_dir() else None),
        **parallel_settings(machine_cores()),
    }
