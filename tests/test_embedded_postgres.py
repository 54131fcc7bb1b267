"""The embedded Postgres's memory follows the machine: the settings for a size of memory, and a started server that
runs with them (set with ALTER SYSTEM, the shared buffers by a restart when the starting process is its only user)."""

from __future__ import annotations

import shutil
from pathlib import Path

import psycopg

from retrievers.embedded_postgres import embedded_database_url
from retrievers.embedded_postgres_memory import GB, MB, machine_memory, memory_settings, pg_size_bytes


def test_memory_settings_follow_the_machine_within_bounds():
    small, laptop, large = memory_settings(512 * MB), memory_settings(8 * GB), memory_settings(64 * GB)
    assert pg_size_bytes(small["shared_buffers"]) == 128 * MB  # never below Postgres's default
    assert pg_size_bytes(laptop["shared_buffers"]) == 2 * GB  # a quarter
    assert pg_size_bytes(large["shared_buffers"]) == 2 * GB  # capped
    assert pg_size_bytes(laptop["effective_cache_size"]) == 4 * GB
    assert pg_size_bytes(laptop["work_mem"]) == 32 * MB and pg_size_bytes(large["work_mem"]) == 64 * MB
    assert pg_size_bytes(large["maintenance_work_mem"]) == GB
    assert pg_size_bytes(memory_settings(64 * GB, shm_bytes=64 * MB)["work_mem"]) == 16 * MB  # a container's /dev/shm


def _running(url: str) -> dict:
    with psycopg.connect(url) as conn:
        return {
            "started": conn.execute("SELECT extract(epoch FROM pg_postmaster_start_time())").fetchone()[0],
            **{
                name: conn.execute("SELECT pg_size_bytes(current_setting(%s))", (name,)).fetchone()[0]
                for name in ("shared_buffers", "work_mem", "maintenance_work_mem")
            },
        }


def test_the_embedded_server_runs_with_them_and_a_second_join_does_not_restart_it(tmp_path):
    shm = shutil.disk_usage("/dev/shm").total if Path("/dev/shm").is_dir() else None
    wanted = {name: pg_size_bytes(value) for name, value in memory_settings(machine_memory(), shm).items()}
    url = embedded_database_url(tmp_path / "postgres", idle_stop_s=0)
    first = _running(url)
    assert {name: first[name] for name in ("shared_buffers", "work_mem", "maintenance_work_mem")} == {
        name: wanted[name] for name in ("shared_buffers", "work_mem", "maintenance_work_mem")
    }
    again = _running(embedded_database_url(tmp_path / "postgres", idle_stop_s=0))
    assert again["started"] == first["started"]  # the settings were there: no restart
