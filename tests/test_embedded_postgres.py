"""The embedded Postgres's memory and parallel workers follow the machine: the settings for a size of memory and a
number of cores, and a started server that runs with them (set with ALTER SYSTEM, the shared buffers by a restart when
the starting process is its only user)."""

from __future__ import annotations

import shutil
from pathlib import Path

import psycopg

from retrievers.postgres.embedded.server import embedded_database_url
from retrievers.postgres.embedded.sizing import (
    GB,
    MB,
    machine_cores,
    machine_memory,
    memory_settings,
    parallel_settings,
    pg_size_bytes,
)


def test_memory_settings_follow_the_machine_within_bounds():
    small, laptop, large = memory_settings(512 * MB), memory_settings(8 * GB), memory_settings(64 * GB)
    assert pg_size_bytes(small["shared_buffers"]) == 128 * MB  # never below Postgres's default
    assert pg_size_bytes(laptop["shared_buffers"]) == 2 * GB  # a quarter
    assert pg_size_bytes(large["shared_buffers"]) == 2 * GB  # capped
    assert pg_size_bytes(laptop["effective_cache_size"]) == 4 * GB
    assert pg_size_bytes(laptop["work_mem"]) == 32 * MB and pg_size_bytes(large["work_mem"]) == 64 * MB
    assert pg_size_bytes(large["maintenance_work_mem"]) == GB
    assert pg_size_bytes(memory_settings(64 * GB, shm_bytes=64 * MB)["work_mem"]) == 16 * MB  # a container's /dev/shm


def test_a_query_starts_no_more_workers_than_the_cores_beside_its_leader():
    workers = {cores: parallel_settings(cores)["max_parallel_workers_per_gather"] for cores in (1, 2, 3, 16)}
    assert workers == {1: "0", 2: "1", 3: "2", 16: "2"}  # Postgres's default of 2 where the cores allow it


def _running(url: str) -> dict:
    with psycopg.connect(url) as conn:
        return {
            "started": conn.execute("SELECT extract(epoch FROM pg_postmaster_start_time())").fetchone()[0],
            **{
                name: conn.execute("SELECT pg_size_bytes(current_setting(%s))", (name,)).fetchone()[0]
                for name in ("shared_buffers", "work_mem", "maintenance_work_mem")
            },
            "workers": conn.execute("SHOW max_parallel_workers_per_gather").fetchone()[0],
        }


def test_the_embedded_server_runs_with_them_and_a_second_join_does_not_restart_it(tmp_path):
    shm = shutil.disk_usage("/dev/shm").total if Path("/dev/shm").is_dir() else None
    wanted = {name: pg_size_bytes(value) for name, value in memory_settings(machine_memory(), shm).items()}
    url = embedded_database_url(tmp_path / "postgres", idle_stop_s=0)
    first = _running(url)
    assert {name: first[name] for name in ("shared_buffers", "work_mem", "maintenance_work_mem")} == {
        name: wanted[name] for name in ("shared_buffers", "work_mem", "maintenance_work_mem")
    }
    assert first["workers"] == parallel_settings(machine_cores())["max_parallel_workers_per_gather"]
    again = _running(embedded_database_url(tmp_path / "postgres", idle_stop_s=0))
    assert again["started"] == first["started"]  # the settings were there: no restart
