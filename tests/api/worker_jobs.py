"""Jobs for the worker-pool tests: top-level functions of stdlib only, so a worker process
imports this module quickly."""

import os
import time


def pid() -> int:
    return os.getpid()


def spin(seconds: float) -> int:
    """Keep a core busy for `seconds`, as a long sizing would."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return os.getpid()


def crash() -> None:
    """Die as a crash in compiled code would (SIGABRT)."""
    os.abort()
