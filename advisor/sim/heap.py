"""Binary min-heaps, compiled: of events on three parallel arrays (time, and two integers: what
the event is), on which the event simulation's kernel (`advisor.sim.kernel`) and the analytic
engine's closed loop at one limit (`advisor.sim.analytic.closed`) keep the I/Os still to come;
and of plain times (the kernel's queue depth slots). Nothing is allocated: the caller owns the
arrays and the size."""

from advisor.sim.jit import FLAT, njit


@njit(**FLAT, inline="always")
def ev_push(et, er, ek, n, t, r, k):  # type: ignore[no-untyped-def]
    """Push (t, r, k) on the heap of its first n entries; returns the new size."""
    i = n
    while i > 0:
        parent = (i - 1) // 2
        if et[parent] <= t:
            break
        et[i], er[i], ek[i] = et[parent], er[parent], ek[parent]
        i = parent
    et[i], er[i], ek[i] = t, r, k
    return n + 1


@njit(**FLAT, inline="always")
def ev_pop(et, er, ek, n):  # type: ignore[no-untyped-def]
    """Remove the root (caller read it first); returns the new size."""
    n -= 1
    t, r, k = et[n], er[n], ek[n]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= n:
            break
        child = left
        if left + 1 < n and et[left + 1] < et[left]:
            child = left + 1
        if et[child] < t:
            et[i], er[i], ek[i] = et[child], er[child], ek[child]
            i = child
        else:
            break
    et[i], er[i], ek[i] = t, r, k
    return n


@njit(**FLAT, inline="always")
def replace_top(heap, value):  # type: ignore[no-untyped-def]
    """Replace the root of the full heap `heap` by `value` and sift it down."""
    n = heap.shape[0]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= n:
            break
        child = left
        right = left + 1
        if right < n and heap[right] < heap[left]:
            child = right
        if heap[child] < value:
            heap[i] = heap[child]
            i = child
        else:
            break
    heap[i] = value
