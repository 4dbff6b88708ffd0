"""Process-wide memos of pure computations: results kept by everything they are computed from,
bounded, and emptied together.

A sizing asks for the same sums, costs and steady states many times over (candidates alike in
storage and server, the knee's probes, the alternatives), and an API process asks again for the
next request. Each memo holds results that depend only on their key, so keeping them changes no
answer; `clear_all` empties every one (a benchmark of a new request in a fresh process).
"""

from collections.abc import Callable, Hashable
from typing import Any, Generic, Protocol, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _Clearable(Protocol):
    def cache_clear(self) -> None: ...


_MEMOS: list["Memo[Any, Any]"] = []
_CACHED: list[_Clearable] = []


class Memo(Generic[K, V]):
    """Results by key, emptied when `size` are held: a sizing's working set is far below it, and
    emptying costs nothing on the hot path that an LRU's bookkeeping would."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._held: dict[K, V] = {}
        self.made = 0  # values put since the process started (emptying does not reset it)
        _MEMOS.append(self)

    def get(self, key: K) -> V | None:
        return self._held.get(key)

    def kept(self, key: K, make: Callable[[], V]) -> V:
        """The value held for `key`, made by `make()` and held first if there is none."""
        value = self._held.get(key)
        return self.put(key, make()) if value is None else value

    def put(self, key: K, value: V) -> V:
        if len(self._held) >= self.size:
            self._held.clear()
        self._held[key] = value
        self.made += 1
        return value

    def clear(self) -> None:
        self._held.clear()

    def __len__(self) -> int:
        return len(self._held)


C = TypeVar("C", bound=_Clearable)


def tracked(fn: C) -> C:
    """A `functools.lru_cache` function that `clear_all` empties too (put above the cache)."""
    _CACHED.append(fn)
    return fn


def clear_all() -> None:
    """Empty every memo: the next computation starts as in a fresh process."""
    for memo in _MEMOS:
        memo.clear()
    for fn in _CACHED:
        fn.cache_clear()
