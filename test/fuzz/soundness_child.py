"""Runs work items in a child process and survives its death.

`run_items` starts a ``spawn``-ed child that handles items one by one and
reports each before and after handling it. When the child dies (a signal, an
abort in C++, ``os._exit``) or stops answering, the item it was handling is
reported as :class:`Died` and a fresh child takes the remaining items. This is
how the fuzzer tells a clean error (an exception, reported as data) from a
crashed process.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import multiprocessing as mp
import signal
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["Died", "run_items"]

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Died:
    """The child died (or hung) while handling an item.

    Attributes:
        exitcode: The process exit code; ``-N`` for signal N, None for a hang.
        detail: A readable description.
    """

    exitcode: int | None
    detail: str


def _describe(exitcode: int | None) -> str:
    if exitcode is None:
        return "no answer before the time limit (killed)"
    if exitcode < 0:
        try:
            return f"killed by signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exited with code {exitcode}"


def _serve(conn: Connection, handler: str, setup_arg: Any, items: Sequence[Any]) -> None:
    module_name, _, fn_name = handler.rpartition(".")
    module = importlib.import_module(module_name)
    state = module.setup(setup_arg) if hasattr(module, "setup") else None
    fn = getattr(module, fn_name)
    for i, item in enumerate(items):
        conn.send(("start", i))
        conn.send(("done", i, fn(state, item)))
    conn.send(("end", None))
    conn.close()


def run_items(
    handler: str, setup_arg: Any, items: Sequence[Any], *, timeout: float = 120.0
) -> list[Any]:
    """Handles every item in a child process.

    Args:
        handler: ``module.function`` importable in the child; the function
            takes ``(state, item)`` where state is ``module.setup(setup_arg)``
            if the module defines ``setup``. Its results must pickle.
        setup_arg: Passed to ``setup`` in each (re)started child.
        items: The items, picklable.
        timeout: Seconds allowed per item (and for the child's start).

    Returns:
        One result per item, or a :class:`Died` for the item the child died on.
    """
    ctx = mp.get_context("spawn")
    results: list[Any] = [None] * len(items)
    start = 0
    while start < len(items):
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(
            target=_serve, args=(child, handler, setup_arg, items[start:]), daemon=True
        )
        proc.start()
        child.close()
        current: int | None = None
        finished = False
        while True:
            if not parent.poll(timeout if current is not None else timeout + 60):
                proc.kill()
                proc.join()
                break
            try:
                message = parent.recv()
            except (EOFError, OSError):
                proc.join()
                break
            if message[0] == "start":
                current = start + message[1]
            elif message[0] == "done":
                results[start + message[1]] = message[2]
                current = None
            else:
                finished = True
                proc.join()
                break
        parent.close()
        if finished:
            break
        failed = current if current is not None else start
        results[failed] = Died(proc.exitcode, _describe(proc.exitcode))
        logger.info("child died on item %d: %s", failed, results[failed].detail)
        start = failed + 1
    return results
