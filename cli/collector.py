"""The cyclic garbage collector at a command's two edges, where a short command spends time collecting objects that
live until the process ends.

Importing LangGraph, LangChain, psycopg and the agent makes about 130,000 long-lived objects, and the collector walks
the growing heap again and again while they load (about 0.09 s of a 0.85 s import on this machine); at exit,
finalisation walks everything once more (about 0.18 s). Neither walk finds garbage worth having. So a command's
imports run with the collector paused and what they made is frozen (`gc.freeze`: left out of every later collection,
as the Python documentation suggests for long-lived state), and the process freezes what it holds before it exits.
Objects made while a command works are collected as usual, so a long ingest's memory stays bounded; objects still
alive at exit are freed by reference counting as before, and only their reference cycles, which Python never promised
to finalise at exit, are left to the operating system.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def imports_kept_for_the_run() -> Iterator[None]:
    """Import what a command runs on inside this block: the collector is paused while it loads, and what it made is
    frozen before collection resumes."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def freeze_before_exit() -> None:
    """Leave everything the process holds out of the collections of interpreter finalisation."""
    gc.freeze()
