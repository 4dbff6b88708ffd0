"""A rich progress bar on stderr for long runs (silent when stderr is not a terminal)."""

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn


@contextmanager
def level_progress(levels: int, label: str) -> Iterator[Callable[[int, float], None]]:
    """Yields `update(level_index, fraction_of_level_done)`."""
    if not sys.stderr.isatty():
        yield lambda i, f: None
        return
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                  TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=levels)

        def update(i: int, frac: float) -> None:
            bar.update(task, completed=i + frac)

        yield update


@contextmanager
def activity(label: str, unit: str = "") -> Iterator[Callable[[int, float], None]]:
    """A spinner with the elapsed time for work of unknown length (a sizing search); yields
    `update(steps_done, fraction)`, which shows `steps_done` `unit` in the label."""
    if not sys.stderr.isatty():
        yield lambda i, f: None
        return
    with Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(i: int, frac: float) -> None:
            bar.update(task, description=f"{label} ({i} {unit} searched)" if unit else label)

        yield update
