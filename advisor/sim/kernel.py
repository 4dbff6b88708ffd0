"""The discrete-event kernel, compiled with numba: one pass over requests in time order.

Exact for what it models: closed-loop slots are a min-heap of free times, so requests start in
time order and every limiter is a FIFO pacing server (`next_free = start + cost / rate`) with an
optional credit bucket; a member I/O completes after its limiters plus a sampled service time;
a RAID I/O completes with its slowest member. Group commit: one log write + flush at a time per
log, commits that arrive meanwhile share the next one.

Ops: 0 read, 1 write, 2 group-commit write (log `aux`), 3 flush only, 4 CPU (`size` us),
5 write issued together with the I/O before it (the page cache's writeback of dirty pages: a
run of them completes with the slowest).
"""

import math

import numpy as np

from advisor.layout.raid import NONE, RAID0, RAID1
from advisor.sim.heap import ev_pop as _ev_pop
from advisor.sim.heap import ev_push as _ev_push
from advisor.sim.heap import replace_top as _heap_replace_top
from advisor.sim.jit import FLAT as _FLAT  # numba's options and cache: advisor.sim.jit
from advisor.sim.jit import njit
from advisor.sim.plan import KIND_IOPS, KIND_MIB

# The RAID and limiter codes are the plan's (numba compiles them in as constants); the RAID
# mapping and per-I/O charges below are the kernel's compiled copy of `advisor.layout.raid` and
# `advisor.layout.limits.charge`, pinned to them by tests/sim/test_raid_fanout.py.
MIB = 1048576.0


# Packed arrays (fewer arguments per call keeps the per-I/O cost low):
#   limi[l] = (kind, owner)            limf[l] = (unit bytes, rate, burst, cap, earn, tau s)
#   lims[l] = (next free, balance, balance time, used, exhausted at, I/Os it held back)
#   devf[m, op] = (mu, sigma, p tail, log tail lo, log tail hi, device cost s)
#   devm[m] = (transfer B/s, flush s, serial, rated bytes, sequential B/s, own last limiter,
#              write cache s, spinning, slow slot s, slow share, slow max loss, slow key,
#              slow phase)
#   mems[m] = (device free at, last end offset, unused (was the latest completion, never
#              read), serial busy seconds, current slow slot, its service factor)


@njit(**_FLAT, inline="always")
def _lim_pass(l, t, cost, limi, limf, lims, ahead):  # type: ignore[no-untyped-def]
    # GCRA: lims[l, 0] is the theoretical arrival time; an I/O may start up to `tau` before it
    # (`ahead` more: a write a device's write-back cache acknowledges before its flash work).
    tat = lims[l, 0]
    earliest = tat - limf[l, 5] - ahead
    start = t if t > earliest else earliest
    rate = limf[l, 1]
    if limf[l, 3] > 0.0:
        bal = lims[l, 1] + limf[l, 4] * (start - lims[l, 2])
        if bal > limf[l, 3]:
            bal = limf[l, 3]
        lims[l, 2] = start
        if bal >= cost:
            rate = limf[l, 2]
        elif lims[l, 4] < 0.0:
            lims[l, 4] = start
        lims[l, 1] = bal - cost
    else:
        owner = limi[l, 1]
        if owner >= 0 and lims[owner, 1] > 0.0:
            rate = limf[l, 2]
    lims[l, 0] = (start if start > tat else tat) + cost / rate
    lims[l, 3] += cost
    if start > t:  # this limit held the I/O back
        lims[l, 5] += 1.0
    return start


@njit(**_FLAT, inline="always")
def _mix64(x):  # type: ignore[no-untyped-def]
    """splitmix64's finaliser: a well-spread 64-bit hash of x (uint64 arithmetic wraps)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(**_FLAT, inline="always")
def _unit(x):  # type: ignore[no-untyped-def]
    """A 64-bit hash as a uniform number in [0, 1)."""
    return (x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(**_FLAT)
def _slow_factor(m, t, devm):  # type: ignore[no-untyped-def]
    """Service-time multiplier of member m at time t: time is cut into slots of one episode's
    length at a per-member phase; a slot is slow with the profile's share, and a slow slot loses a
    uniform share of speed up to the profile's maximum, both from a hash of (member key, slot):
    per volume, time-varying, and the same for the same seed."""
    slot_s = devm[m, 8]
    if slot_s <= 0.0:
        return 1.0
    key = np.uint64(devm[m, 11])
    phase = _unit(_mix64(key))
    return _slot_factor(key, int(t / slot_s + phase), devm[m, 9], devm[m, 10])


@njit(**_FLAT, inline="always")
def _slot_factor(key, slot, share, max_loss):  # type: ignore[no-untyped-def]
    k = np.uint64(slot + 1)
    h = _mix64(key ^ (k * np.uint64(0x9E3779B97F4A7C15)))
    if _unit(h) >= share:
        return 1.0
    return 1.0 / (1.0 - _unit(_mix64(h)) * max_loss)


@njit(cache=True, nogil=True)
def slow_phases(keys):  # type: ignore[no-untyped-def]
    """Per member key, where its episode slots start (a fraction of a slot), as `_slow_factor`."""
    out = np.zeros(keys.shape[0])
    for i in range(keys.shape[0]):
        out[i] = _unit(_mix64(np.uint64(keys[i])))
    return out


@njit(**_FLAT, inline="always")
def _slow_now(m, t, devm, mems):  # type: ignore[no-untyped-def]
    """`_slow_factor` with the member's current slot remembered in mems (one division per I/O
    while the slot lasts; the phase is precomputed in devm)."""
    slot = int(t / devm[m, 8] + devm[m, 12])
    if slot != mems[m, 4]:
        mems[m, 4] = slot
        mems[m, 5] = _slot_factor(np.uint64(devm[m, 11]), slot, devm[m, 9], devm[m, 10])
    return mems[m, 5]


# Random numbers are drawn where they are used, from a counter-based generator: SplitMix64's
# output at position c of the stream keyed `key` (its state after c steps, mixed). Each device
# I/O has its own positions: (row * (n + 1) + member) * DRAWS + 0..DRAWS-1, so a draw depends on
# the seed and the I/O alone, and only the draws a service time reads are made (three arrays of
# (I/Os x members) drawn ahead in numpy cost the driver more than the kernel's whole work).
DRAWS = 4
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(**_FLAT, inline="always")
def _uniform(key, c):  # type: ignore[no-untyped-def]
    """Uniform in [0, 1): position c of the stream `key` (both non-negative int64)."""
    return _unit(_mix64(np.uint64(key) + np.uint64(c) * _GOLDEN))


@njit(**_FLAT, inline="always")
def _normal(key, c):  # type: ignore[no-untyped-def]
    """Standard normal from positions c and c + 1 (Box-Muller)."""
    r = math.sqrt(-2.0 * math.log(1.0 - _uniform(key, c)))
    return r * math.cos(2.0 * math.pi * _uniform(key, c + 1))


@njit(**_FLAT, inline="always")
def _service(m, opc, key, c, size, devf, devm, seq, t, mems):  # type: ignore[no-untyped-def]
    """Service time of member m's I/O; its random draws at positions c .. c + DRAWS - 1."""
    if devm[m, 7] > 0.0 and seq:  # a spinning disk's head is already there: transfer only
        svc = 0.0
    elif devf[m, opc, 1] < 0.0:  # exponential service with mean exp(mu) (theory checks)
        svc = -math.exp(devf[m, opc, 0]) * math.log(1.0 - _uniform(key, c + 1))
    elif _uniform(key, c) < devf[m, opc, 2]:
        v = _uniform(key, c + 1)
        svc = math.exp(devf[m, opc, 3] + v * (devf[m, opc, 4] - devf[m, opc, 3]))
    else:
        svc = math.exp(devf[m, opc, 0] + devf[m, opc, 1] * _normal(key, c + 2))
    svc += size / devm[m, 0]
    if devm[m, 9] > 0.0:
        svc *= _slow_now(m, t, devm, mems)
    return svc


@njit(**_FLAT, inline="always")
def _backlog(m, devm, lims, mems):  # type: ignore[no-untyped-def]
    """How far ahead member m's own pacing runs: mdadm sends a mirror read to the least busy."""
    own = int(devm[m, 5])
    if own >= 0:
        return lims[own, 0]
    return mems[m, 0]


def _submit_py(t, op, size, off, key, row, raid, n, chunk, chain, limi, limf, lims, devf,  # type: ignore[no-untyped-def]
               devm, mems, tmp):
    """Completion time of one logical I/O issued at `t` (row: its index in the stream `key`)."""
    write = 1 if op == 1 or op == 2 else 0
    if op == 4:  # CPU or other work off the devices: `size` microseconds
        return t + size * 1e-6
    if op == 3:  # flush only: every member flushes its cache
        done = t
        for m in range(n):
            d = t + devm[m, 1]
            if d > done:
                done = d
        return done
    # Map the logical I/O onto (member, offset, size) entries in tmp[0..2].
    cnt = 0
    if raid == NONE:
        tmp[0, 0] = 0
        tmp[1, 0] = off
        tmp[2, 0] = size
        cnt = 1
    else:
        data = n if raid == RAID0 else (1 if raid == RAID1 else n // 2)
        pos = off
        remaining = size
        pieces = 0
        while remaining > 0:
            c = pos // chunk
            within = pos - c * chunk
            take = chunk - within
            if take > remaining:
                take = remaining
            if raid == RAID1:
                slot = 0
                moff = pos
            else:
                slot = c % data
                moff = (c // data) * chunk + within
            found = -1
            for k in range(pieces):
                if tmp[0, k] == slot:
                    found = k
            if found >= 0:
                tmp[2, found] += take
            else:
                tmp[0, pieces] = slot
                tmp[1, pieces] = moff
                tmp[2, pieces] = take
                pieces += 1
            pos += take
            remaining -= take
        if raid == RAID0:
            cnt = pieces
        elif raid == RAID1:
            if write == 1:
                for k in range(n):
                    tmp[0, k] = k
                    tmp[1, k] = tmp[1, 0]
                    tmp[2, k] = tmp[2, 0]
                cnt = n
            else:
                best = 0
                for k in range(1, n):
                    if _backlog(k, devm, lims, mems) < _backlog(best, devm, lims, mems):
                        best = k
                tmp[0, 0] = best
                cnt = 1
        else:
            if write == 1:
                for k in range(pieces - 1, -1, -1):
                    pair = tmp[0, k]
                    tmp[0, 2 * k] = 2 * pair
                    tmp[0, 2 * k + 1] = 2 * pair + 1
                    tmp[1, 2 * k + 1] = tmp[1, k]
                    tmp[1, 2 * k] = tmp[1, k]
                    tmp[2, 2 * k + 1] = tmp[2, k]
                    tmp[2, 2 * k] = tmp[2, k]
                cnt = 2 * pieces
            else:
                for k in range(pieces):
                    a = 2 * tmp[0, k]
                    ba = _backlog(a, devm, lims, mems)
                    tmp[0, k] = a if ba <= _backlog(a + 1, devm, lims, mems) else a + 1
                cnt = pieces
    done = t
    for j in range(cnt):
        m = tmp[0, j]
        moff = tmp[1, j]
        msize = tmp[2, j]
        seq = moff == mems[m, 1]
        mems[m, 1] = moff + msize
        tm = t
        for ci in range(chain.shape[1]):
            l = chain[m, ci]
            if l < 0:
                break
            kind = limi[l, 0]
            unit = limf[l, 0]
            # A random I/O of at most one unit is charged one unit: the common case, without the
            # division and rounding (the same numbers).
            whole = not seq and 0 < msize <= unit
            if kind == KIND_IOPS:
                if whole:
                    cost = 1.0
                else:
                    units = msize / unit
                    if not seq:
                        units = math.ceil(units)
                        if units < 1.0:
                            units = 1.0
                    cost = units
            elif kind == KIND_MIB:
                if whole:
                    cost = unit / MIB
                elif unit > 0.0 and not seq:
                    cost = math.ceil(msize / unit) * unit / MIB
                else:
                    cost = msize / MIB
            else:
                extra = msize - devm[m, 3]
                cost = devf[m, write, 5] + (extra / devm[m, 4] if extra > 0 else 0.0)
                if write == 1:  # the write-back cache acknowledges it ahead of the flash work
                    tm = _lim_pass(l, tm, cost, limi, limf, lims, devm[m, 6])
                    continue
            tm = _lim_pass(l, tm, cost, limi, limf, lims, 0.0)
        svc = _service(m, write, key, (row * (n + 1) + j) * DRAWS, msize, devf, devm, seq, tm,
                       mems)
        if op == 2:
            svc += devm[m, 1]
        if devm[m, 2] > 0.0:
            st = tm if tm > mems[m, 0] else mems[m, 0]
            mems[m, 0] = st + svc
            mems[m, 3] += svc
            d = mems[m, 0]
        else:
            d = tm + svc
        if d > done:
            done = d
    return done


# A call passes every array as its fields (~100 words here): the per-request loop of run_chunk
# gets its own copy, inlined; the rarer callers share one compiled function.
_submit = njit(**_FLAT)(_submit_py)
_submit_inline = njit(**_FLAT, inline="always")(_submit_py)


# Background control, bg_ctl (floats):
#   [0] couple: 1 = the background stream is work the foreground generates (page flushes of the
#       transactions run): a background I/O due at s is released when the foreground's progress
#       reaches s, not at s (past saturation it follows the transactions run, not those offered);
#   [1] throttle lag (s): > 0 = a write request (kind 1) does not start, nor (event kernel)
#       issue its next I/O, while background work already issued would finish more than this
#       after now (InnoDB's checkpoint-age rule: when page flushing falls that far behind,
#       foreground writes wait for it);
#   [2] a closed loop's nominal rate (requests/s; 0 = open loop);
#   [3] requests run (closed loop); [4] the foreground's progress anchor: open loop, the arrival
#       time of the first request not yet run (counting n finished in the event kernel, n
#       started in run_chunk; +inf when none is waiting), closed loop n / rate;
#   [5] latest finish of issued background work.
# Open loop, the background may run up to BG_SLACK_S ahead of the foreground's progress (InnoDB's
# page cleaner works in batches about once a second): below saturation, where the oldest request
# in the system is far younger than that, the stream runs on its own schedule, unchanged.
BG_CTL_SIZE = 6
BG_SLACK_S = 1.0


@njit(**_FLAT)
def _drain_background(t, bg_sched, bg_op, bg_size, bg_off, bg_key, bg_pos,  # type: ignore[no-untyped-def]
                      bg_issue, bg_done, raid, n, chunk, chain, limi, limf, lims, devf, devm,
                      mems, tmp, bg_ctl):
    """Issue every background I/O due at or before `t`, in time order; when coupled, every one
    due at or before the foreground's progress, each as late as the foreground runs behind its
    own schedule (so they keep their spacing instead of leaving in bursts)."""
    nbg = bg_sched.shape[0]
    due = _bg_progress(t, bg_ctl)
    behind = t - due
    while bg_pos[0] < nbg and bg_sched[bg_pos[0]] <= due:
        b = bg_pos[0]
        bt = bg_sched[b] + behind
        if bt < 0.0:
            bt = 0.0
        bg_issue[b] = bt
        d = _submit(bt, bg_op[b], bg_size[b], bg_off[b], bg_key, b,
                    raid, n, chunk, chain, limi, limf, lims, devf, devm, mems, tmp)
        bg_done[b] = d
        if d > bg_ctl[5]:
            bg_ctl[5] = d
        bg_pos[0] += 1


@njit(**_FLAT, inline="always")
def _bg_progress(t, bg_ctl):  # type: ignore[no-untyped-def]
    """Background due up to this time at `t` (its own schedule when not coupled)."""
    if bg_ctl[0] <= 0.0:
        return t
    if bg_ctl[2] > 0.0:
        return bg_ctl[4]
    ahead = bg_ctl[4] + BG_SLACK_S
    return ahead if ahead < t else t


@njit(**_FLAT, inline="always")
def _bg_due(t, bg_sched, bg_pos, bg_ctl):  # type: ignore[no-untyped-def]
    """Whether a background I/O is due (the common case is none, and the drain is not free)."""
    if bg_pos[0] >= bg_sched.shape[0]:
        return False
    return bg_sched[bg_pos[0]] <= _bg_progress(t, bg_ctl)


@njit(**_FLAT, inline="always")
def _progressed(next_arrival, bg_ctl):  # type: ignore[no-untyped-def]
    """One more foreground request run; `next_arrival`: when the next one not yet run arrived."""
    if bg_ctl[2] > 0.0:
        bg_ctl[3] += 1.0
        bg_ctl[4] = bg_ctl[3] / bg_ctl[2]
    else:
        bg_ctl[4] = next_arrival


@njit(**_FLAT, inline="always")
def _throttled(t, kind, bg_ctl):  # type: ignore[no-untyped-def]
    """Earliest admission of a request of `kind` at `t` under the checkpoint-age rule."""
    if kind == 1 and bg_ctl[1] > 0.0:
        hold = bg_ctl[5] - bg_ctl[1]
        if hold > t:
            return hold
    return t


@njit(**_FLAT)
def _group_commit(t, k, io_size, io_off, io_aux, io_key, log_state, raid, n, chunk,  # type: ignore[no-untyped-def]
                  chain, limi, limf, lims, devf, devm, mems, tmp):
    """Completion of a commit arriving at `t` on log io_aux[k]: one log write + flush at a time;
    commits arriving meanwhile share the next one, and so do those arriving at the instant a
    flush starts (the members of one redo group reach the binlog together: MySQL's ordered
    commit syncs the binlog once for the whole group). log_state[log] = (current flush done,
    forming group's start, its done or -1, current flush's start)."""
    log = io_aux[k]
    if log_state[log, 2] >= 0.0 and t > log_state[log, 1]:
        log_state[log, 0] = log_state[log, 2]
        log_state[log, 3] = log_state[log, 1]
        log_state[log, 2] = -1.0
    if t == log_state[log, 3] and t < log_state[log, 0]:
        return log_state[log, 0]
    if log_state[log, 2] >= 0.0:
        return log_state[log, 2]
    if t >= log_state[log, 0]:
        d = _submit(t, 2, io_size[k], io_off[k], io_key, k, raid, n, chunk,
                    chain, limi, limf, lims, devf, devm, mems, tmp)
        log_state[log, 0] = d
        log_state[log, 3] = t
        return d
    # The next group's flush starts when the current one ends; its limit cost is charged now so
    # the limits keep seeing I/Os in time order.
    start = log_state[log, 0]
    d = start + (_submit(t, 2, io_size[k], io_off[k], io_key, k, raid, n, chunk,
                         chain, limi, limf, lims, devf, devm, mems, tmp) - t)
    log_state[log, 1] = start
    log_state[log, 2] = d
    return d


@njit(**_FLAT, inline="always")
def _record_balances(t, tl_dt, tl_track, tl_bal, lims, limf):  # type: ignore[no-untyped-def]
    """Credit balance of each tracked limit at `t`, into the timeline bin of `t`."""
    if tl_track.shape[0] == 0:  # no credit bucket: nothing to record (no division per request)
        return
    bin_ = int(t / tl_dt)
    if bin_ < tl_bal.shape[0]:
        for b in range(tl_track.shape[0]):
            l = tl_track[b]
            bal = lims[l, 1] + limf[l, 4] * (t - lims[l, 2])
            tl_bal[bin_, b] = bal if bal < limf[l, 3] else limf[l, 3]


@njit(**_FLAT, inline="always")
def _add_in_flight(in_flight, start, end, t_warm, t_end):  # type: ignore[no-untyped-def]
    """Add the part of [start, end] inside the window [t_warm, t_end]."""
    a = start if start > t_warm else t_warm
    b = end if end < t_end else t_end
    if b > a:
        in_flight[0] += b - a


@njit(**_FLAT)
def run_chunk(req_sched, req_first, io_op, io_size, io_off, io_aux, io_key,  # type: ignore[no-untyped-def]
              bg_sched, bg_op, bg_size, bg_off, bg_key, bg_pos,
              raid, n, chunk, chain, limi, limf, devf, devm, lims, mems,
              heap, log_state, t_end, t_warm, tl_dt, tl_track, tl_bal,
              out_start, out_end, io_issue, io_done, bg_issue, bg_done, in_flight,
              req_kind, bg_ctl, tmp):
    """Run requests in order until one would start at or after `t_end`; returns how many ran.

    A request starts at max(free slot, intended start) and runs its I/Os one after another;
    background I/Os (page flushes, defrag) are issued at their own times between requests.
    in_flight[0] accumulates each request's time in flight within [t_warm, t_end]: their sum is
    the integral of the number of requests in flight (Little's L once divided by the window).
    tmp: scratch, int64 [3, n + 1].
    """
    nreq = req_sched.shape[0]
    for i in range(nreq):
        slot = heap[0]
        sched = req_sched[i]
        t = slot if slot > sched else sched
        if t >= t_end:
            return i
        # Background I/Os due before this request starts (checked here: the common case is
        # none, and the call is not free).
        if bg_ctl[0] > 0.0:
            _progressed(req_sched[i + 1] if i + 1 < nreq else np.inf, bg_ctl)
        if _bg_due(t, bg_sched, bg_pos, bg_ctl):
            _drain_background(t, bg_sched, bg_op, bg_size, bg_off, bg_key, bg_pos,
                              bg_issue, bg_done, raid, n, chunk, chain, limi, limf, lims, devf,
                              devm, mems, tmp, bg_ctl)
        if bg_ctl[1] > 0.0:
            t = _throttled(t, req_kind[i], bg_ctl)
            if t >= t_end:
                return i
        intended = sched if sched >= 0.0 else t
        out_start[i] = intended
        cur = t
        gstart = t
        for k in range(req_first[i], req_first[i + 1]):
            op = io_op[k]
            together = op == 5  # with the I/O before it: issued at once, done with the slowest
            if together:
                op = 1
            else:
                gstart = cur
            io_issue[k] = gstart
            if op == 2:
                d = _group_commit(gstart, k, io_size, io_off, io_aux, io_key, log_state,
                                  raid, n, chunk, chain, limi, limf, lims, devf, devm, mems, tmp)
            else:  # one call site: the per-I/O path is inlined once
                d = _submit_inline(gstart, op, io_size[k], io_off[k], io_key, k, raid,
                                   n, chunk, chain, limi, limf, lims, devf, devm, mems, tmp)
            io_done[k] = d
            if not together or d > cur:
                cur = d
        out_end[i] = cur
        _add_in_flight(in_flight, intended, cur, t_warm, t_end)
        _heap_replace_top(heap, cur)
        _record_balances(t, tl_dt, tl_track, tl_bal, lims, limf)
    return nreq




@njit(**_FLAT)
def run_events(req_sched, req_first, io_op, io_size, io_off, io_aux, io_key,  # type: ignore[no-untyped-def]
               bg_sched, bg_op, bg_size, bg_off, bg_key, bg_pos,
               raid, n, chunk, chain, limi, limf, devf, devm, lims, mems,
               slots, log_state, t_end, t_warm, tl_dt, tl_track, tl_bal,
               out_start, out_end, io_issue, io_done, bg_issue, bg_done, in_flight,
               req_kind, bg_ctl, tmp, et, er, ek):
    """Open-loop multi-I/O requests (transactions) as true events: every I/O of every request is
    issued in time order, so limits see the real interleaving. At most `slots` requests are in
    flight (connections); the others wait in arrival order. Runs until every request that
    arrived before `t_end` has finished; returns how many were admitted. in_flight[0]
    accumulates time in flight (from arrival, queueing for a connection included) as in
    run_chunk. tmp: scratch as run_chunk's; et, er, ek [slots + 1]: the event heap (time,
    request, its next I/O)."""
    nreq = req_sched.shape[0]
    size = 0
    done_n = 0  # requests finished
    if bg_ctl[0] > 0.0 and bg_ctl[2] <= 0.0 and nreq > 0:
        bg_ctl[4] = req_sched[0]
    nxt = 0  # next request to admit
    inflight = 0
    now = 0.0
    while True:
        # Next admission: arrival time, or the moment a connection frees if all are busy.
        t_adm = np.inf
        if nxt < nreq and inflight < slots:
            a = req_sched[nxt]
            t_adm = a if a > now else now
            if bg_ctl[1] > 0.0:
                t_adm = _throttled(t_adm, req_kind[nxt], bg_ctl)
            if a >= t_end or t_adm >= t_end:
                t_adm = np.inf
        t_ev = et[0] if size > 0 else np.inf
        if t_adm == np.inf and t_ev == np.inf:
            break
        t = t_adm if t_adm <= t_ev else t_ev
        if _bg_due(t, bg_sched, bg_pos, bg_ctl):
            _drain_background(t, bg_sched, bg_op, bg_size, bg_off, bg_key, bg_pos,
                              bg_issue, bg_done, raid, n, chunk, chain, limi, limf, lims, devf,
                              devm, mems, tmp, bg_ctl)
        now = t
        if t_adm <= t_ev:
            i = nxt
            nxt += 1
            inflight += 1
            out_start[i] = req_sched[i]
            size = _ev_push(et, er, ek, size, t, i, req_first[i])
            _record_balances(t, tl_dt, tl_track, tl_bal, lims, limf)
            continue
        i = er[0]
        k = ek[0]
        size = _ev_pop(et, er, ek, size)
        if k >= req_first[i + 1]:  # all its I/Os done: the request completes now
            out_end[i] = t
            _add_in_flight(in_flight, req_sched[i], t, t_warm, t_end)
            inflight -= 1
            done_n += 1
            if bg_ctl[0] > 0.0:  # requests are admitted in arrival order
                _progressed(req_sched[done_n] if done_n < nreq else np.inf, bg_ctl)
            continue
        if bg_ctl[1] > 0.0:  # a write's next I/O waits while flushing is too far behind
            hold = _throttled(t, req_kind[i], bg_ctl)
            if hold > t:
                size = _ev_push(et, er, ek, size, hold, i, k)
                continue
        # I/O k and those issued together with it (op 5), done with the slowest.
        d = t
        kk = k
        while True:
            op = io_op[kk]
            io_issue[kk] = t
            if op == 2:
                dk = _group_commit(t, kk, io_size, io_off, io_aux, io_key, log_state,
                                   raid, n, chunk, chain, limi, limf, lims, devf, devm, mems, tmp)
            else:
                dk = _submit_inline(t, 1 if op == 5 else op, io_size[kk], io_off[kk], io_key, kk,
                                    raid, n, chunk, chain, limi, limf, lims, devf, devm, mems,
                                    tmp)
            io_done[kk] = dk
            if kk == k or dk > d:
                d = dk
            kk += 1
            if kk >= req_first[i + 1] or io_op[kk] != 5:
                break
        size = _ev_push(et, er, ek, size, d, i, kk)
    return nxt
