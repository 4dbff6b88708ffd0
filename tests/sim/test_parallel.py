"""`advisor.sim.parallel.side_by_side`: independent runs on several threads give the results a
run one after another gives, in order, with the caller's context, its first error, and nothing
nested waiting on a pool that is busy."""

import threading
import time
from contextvars import ContextVar

import pytest

from advisor.errors import InvalidInput
from advisor.sim import parallel
from advisor.sim.parallel import side_by_side, threads

WHO: ContextVar[str] = ContextVar("who", default="nobody")


@pytest.fixture
def two(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.THREADS_ENV, "2")


def test_results_come_back_in_the_order_asked_and_run_on_more_than_one_thread(two: None) -> None:
    seen: set[int] = set()
    both = threading.Barrier(2, timeout=10)  # each run waits for the other: only threads pass

    def task(i: int) -> int:
        seen.add(threading.get_ident())
        if i < 2:
            both.wait()
        return i * i

    assert side_by_side([lambda i=i: task(i) for i in range(6)]) == [i * i for i in range(6)]
    assert len(seen) == 2


def test_one_thread_runs_them_in_the_callers_thread_one_after_another(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.THREADS_ENV, "1")
    assert threads() == 1
    order: list[int] = []
    me = threading.get_ident()
    out = side_by_side([lambda i=i: (order.append(i), threading.get_ident())[1]
                        for i in range(4)])
    assert out == [me] * 4
    assert order == [0, 1, 2, 3]


def test_the_threads_asked_for_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(parallel.THREADS_ENV, raising=False)
    assert 1 <= threads() <= min(parallel.cpus(), parallel.MAX_THREADS)
    monkeypatch.setenv(parallel.THREADS_ENV, str(parallel.MAX_THREADS))
    assert threads() == parallel.MAX_THREADS
    for bad in ("0", "-1", "64", "1.5", "nan", "inf", "many", "9" * 400):
        monkeypatch.setenv(parallel.THREADS_ENV, bad)
        with pytest.raises(InvalidInput, match=r"^ADVISOR_SIM_THREADS='.{1,41}': a whole number "
                                               r"from 1 to 4, e\.g\. \d$"):
            threads()


@pytest.mark.parametrize("argv", [["size", "--tps", "627", "--reads", "3.25"],
                                  ["catalog", "instances"]])
def test_a_bad_thread_count_stops_every_command_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str]) -> None:
    from advisor.cli.main import main

    monkeypatch.setenv(parallel.THREADS_ENV, "nan")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ADVISOR_SIM_THREADS='nan': a whole number from 1 to 4, e.g. ")
    assert err.count("\n") == 1


def test_a_bad_thread_count_stops_the_server_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    from api.service import Settings

    monkeypatch.setenv(parallel.THREADS_ENV, "-3")
    with pytest.raises(InvalidInput, match="ADVISOR_SIM_THREADS='-3'"):
        Settings.from_env()


def test_tasks_see_the_callers_context_variables(two: None) -> None:
    token = WHO.set("the caller")
    try:
        assert side_by_side([WHO.get for _ in range(4)]) == ["the caller"] * 4
    finally:
        WHO.reset(token)


def test_the_first_error_in_order_is_raised_after_the_others_ended(two: None) -> None:
    ended: list[int] = []

    def task(i: int) -> int:
        if i in (1, 3):
            raise ValueError(f"task {i}")
        time.sleep(0.01)
        ended.append(i)
        return i

    with pytest.raises(ValueError, match="task 1"):
        side_by_side([lambda i=i: task(i) for i in range(5)])
    assert sorted(ended) == [0, 2, 4]


def test_a_nested_call_runs_inline_and_a_busy_pool_holds_nobody_up(two: None) -> None:
    def outer(i: int) -> list[int]:
        return side_by_side([lambda j=j: 10 * i + j for j in range(3)])

    assert side_by_side([lambda i=i: outer(i) for i in range(3)]) == [
        [0, 1, 2], [10, 11, 12], [20, 21, 22]]
    # Every helper busy with another caller's long task: this caller runs its tasks itself.
    release = threading.Event()
    pool = parallel._helpers()
    blockers = [pool.submit(release.wait, 10) for _ in range(parallel.MAX_THREADS - 1)]
    try:
        start = time.perf_counter()
        assert side_by_side([lambda i=i: i for i in range(4)]) == [0, 1, 2, 3]
        assert time.perf_counter() - start < 5
    finally:
        release.set()
        for b in blockers:
            b.result()


def test_a_forked_child_makes_its_own_pool(two: None, monkeypatch: pytest.MonkeyPatch) -> None:
    first = parallel._helpers()
    assert parallel._helpers() is first
    monkeypatch.setattr(parallel.os, "getpid", lambda: -1)  # as in a child after fork
    child = parallel._helpers()
    assert child is not first
    assert side_by_side([lambda: 1, lambda: 2]) == [1, 2]


def test_an_interrupt_in_the_callers_thread_stops_the_rest(two: None) -> None:
    """Ctrl-C arrives in the main thread: it is raised at once, and the helpers take no new
    task (they end the one they run)."""
    ran: list[int] = []
    started = threading.Event()

    def task(i: int) -> int:
        ran.append(i)
        if threading.current_thread() is threading.main_thread():
            started.wait(5)  # a helper holds a task too
            raise KeyboardInterrupt
        started.set()
        time.sleep(0.05)
        return i

    with pytest.raises(KeyboardInterrupt):
        side_by_side([lambda i=i: task(i) for i in range(50)])
    time.sleep(0.2)  # the helper ends the task it held
    assert len(ran) <= 4
