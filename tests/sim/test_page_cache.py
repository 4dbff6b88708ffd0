"""The OS between the workload and the device (issue 11, item 3): sysbench runs buffered through a
page cache sized from the instance's RAM unless `--file-extra-flags direct`; fio runs direct
unless `--direct 0`. Reads hit with the cached share of the span, sequential reads go to the
device a readahead window at a time, writes reach it at fsync, merged where sequential."""

import io
import json
from contextlib import redirect_stdout
from typing import Any

import numpy as np
import pytest

from advisor.cli.main import main
from advisor.sim.patterns import build_pattern
from advisor.sim.source import (
    DIRTY_RATIO,
    MERGE_BYTES,
    OP_CPU,
    OP_FLUSH,
    OP_WRITE,
    OP_WRITE_WITH,
    WRITEBACK_BATCH_BYTES,
    IoPattern,
)


def _simulate(*args: str) -> dict[str, Any]:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["simulate", *args, "--format", "json"]) == 0
    return json.loads(buf.getvalue())  # type: ignore[no-any-return]


def _iops(result: dict[str, Any]) -> list[float]:
    return [level["iops"]["total"] for level in result["levels"]]


def test_sysbench_is_buffered_unless_direct_and_fio_is_direct_unless_told() -> None:
    """The tools' own switches: sysbench --file-extra-flags=direct, fio --direct."""
    assert build_pattern(file_test_mode="rndrd").buffered
    assert not build_pattern(file_test_mode="rndrd", file_extra_flags="direct").buffered
    assert not build_pattern(rw="randread").buffered
    assert build_pattern(rw="randread", direct=0).buffered
    assert build_pattern(file_test_mode="rndrd", file_total_size="500g").span_bytes == 500 * 2**30


def test_random_reads_hit_the_cached_share_of_the_files() -> None:
    """m5.8xlarge (128 GiB, 80 % page cache) over 500 GiB of files: 20 % of reads hit, so
    sysbench reports reads above gp2's 3,000 IOPS limit (3,000 / 0.8); direct reads stay at it."""
    args = ["m5.8xlarge:gp2:1000GiB", "--file-test-mode", "rndrd", "--file-total-size", "500g",
            "--threads", "64", "--duration", "4", "--warmup", "1"]
    buffered = _iops(_simulate(*args))[0]
    direct = _iops(_simulate(*args, "--file-extra-flags", "direct"))[0]
    assert direct == pytest.approx(3000, rel=0.02)
    assert buffered == pytest.approx(3000 / (1 - 0.8 * 128 / 500), rel=0.03)


def test_sequential_writes_merge_in_the_block_layer() -> None:
    """sysbench seqwr at one thread on gp2: 100 dirty 16 KiB pages per fsync go out as a few
    merged I/Os, so the run reaches gp2's 250 MiB/s (16,000 x 16 KiB) at one thread, where
    writing each page itself ran at ~1,560 IOPS."""
    args = ["m5.8xlarge:gp2:1000GiB", "--file-test-mode", "seqwr", "--file-total-size", "500g",
            "--threads", "1", "--duration", "4", "--warmup", "1"]
    assert _iops(_simulate(*args))[0] == pytest.approx(16000, rel=0.05)
    assert _iops(_simulate(*args, "--file-extra-flags", "direct"))[0] < 2000


def test_fsync_writes_every_dirty_page_at_once_then_flushes() -> None:
    """An fsync request: the dirty pages issued together (sequential runs merged up to the
    block layer's maximum), then one flush."""
    rnd = IoPattern(name="t", read_fraction=0.0, random=True, block_bytes=16384, concurrency=1,
                    span_bytes=2**36, fsync_every_writes=10, buffered=True, cache_bytes=2**30)
    reqs = rnd.requests(np.random.default_rng(1), 10, 0.0)
    assert list(reqs.kind) == [1] * 10 + [2]
    assert set(reqs.op[:10]) == {OP_CPU}
    fsync = reqs.op[reqs.first[10]:reqs.first[11]]
    assert fsync[0] == OP_WRITE
    assert set(fsync[1:-1]) <= {OP_WRITE_WITH}
    assert fsync[-1] == OP_FLUSH
    seq = IoPattern(name="t", read_fraction=0.0, random=False, block_bytes=16384,
                    concurrency=1, span_bytes=2**36, fsync_every_writes=100, buffered=True,
                    cache_bytes=2**30)
    reqs = seq.requests(np.random.default_rng(1), 100, 0.0)
    writes = reqs.size[reqs.first[100]:reqs.first[101]][:-1]
    assert writes.sum() == 100 * 16384
    assert len(writes) == -(-100 * 16384 // MERGE_BYTES)


def test_an_fsync_writes_back_the_pages_dirtied_in_earlier_chunks() -> None:
    """The DES asks a source for its requests a chunk at a time: an fsync after a chunk boundary
    writes back every page dirtied since the last fsync, not only this chunk's."""
    pat = IoPattern(name="t", read_fraction=0.0, random=True, block_bytes=16384, concurrency=1,
                    span_bytes=2**36, fsync_every_writes=10, buffered=True, cache_bytes=2**30)
    rng = np.random.default_rng(1)
    first = pat.requests(rng, 6, 0.0)  # 6 writes into the cache, no fsync yet
    assert list(first.kind) == [1] * 6
    second = pat.requests(rng, 4, 0.0)  # 4 more: the 10th write's fsync
    assert list(second.kind) == [1] * 4 + [2]
    fsync = second.size[second.first[4]:second.first[5]]
    assert fsync[:-1].sum() == 10 * 16384  # all ten pages, six of them from the first chunk

def test_sequential_reads_read_ahead() -> None:
    """A buffered sequential read goes to the device one 128 KiB readahead window per eight
    16 KiB reads; the other seven are served from the cache."""
    seq = IoPattern(name="t", read_fraction=1.0, random=False, block_bytes=16384, concurrency=1,
                    span_bytes=2**40, buffered=True, cache_bytes=2**30)
    reqs = seq.requests(np.random.default_rng(1), 80, 0.0)
    device = reqs.op == 0
    assert device.sum() == 10
    assert set(reqs.size[device]) == {128 * 1024}


def test_the_analytic_engine_refuses_buffered_io() -> None:
    """The analytic engine models direct I/O only: a buffered run there is one line, exit 2."""
    with redirect_stdout(io.StringIO()):
        code = main(["simulate", "m5.8xlarge:gp2:1000GiB", "--file-test-mode", "rndrd",
                     "--engine", "analytic"])
    assert code == 2


def test_fio_fsync_and_buffered_writes() -> None:
    """fio --direct 0 --fsync 100: random writes land in the cache and go out 100 at a time at
    each fsync, so one job reaches gp2's 3,000 IOPS cap; direct, each write waits for gp2."""
    args = ["m5.8xlarge:gp2:1000GiB", "--rw", "randwrite", "--bs", "16k", "--size", "100g",
            "--fsync", "100", "--duration", "4", "--warmup", "1"]
    assert build_pattern(rw="randwrite", fsync=100).fsync_every_writes == 100
    assert _iops(_simulate(*args, "--direct", "0"))[0] == pytest.approx(3000, rel=0.03)
    assert _iops(_simulate(*args))[0] < 2000


def test_writes_without_fsync_are_throttled_at_the_dirty_limit() -> None:
    """No fsync: writes land in the cache until the dirty pages reach the dirty limit (20 % of the
    cache); then the write that reaches it waits while the oldest 4 MiB are written back (merged
    where sequential, no device cache flush), and so every 4 MiB after that."""
    for random in (True, False):
        pat = IoPattern(name="t", read_fraction=0.0, random=random, block_bytes=16384,
                        concurrency=1, span_bytes=2**36, buffered=True, cache_bytes=2**25)
        limit = pat.dirty_limit_bytes // 16384
        assert limit == int(2**25 * DIRTY_RATIO) // 16384
        reqs = pat.requests(np.random.default_rng(1), limit + 300, 0.0)
        assert set(reqs.kind) == {1}  # writes only: no fsync request
        sizes = np.diff(reqs.first)
        waited = np.flatnonzero(sizes > 1)
        batch = WRITEBACK_BATCH_BYTES // 16384
        assert list(waited) == [limit - 1, limit - 1 + batch]
        ios = slice(reqs.first[waited[0]] + 1, reqs.first[waited[0] + 1])
        assert reqs.size[ios].sum() == WRITEBACK_BATCH_BYTES
        assert OP_FLUSH not in set(reqs.op[ios])
        if random:
            assert len(reqs.op[ios]) == batch
        else:  # the oldest 4 MiB, from offset 0, as 512 KiB I/Os
            assert len(reqs.op[ios]) == WRITEBACK_BATCH_BYTES // MERGE_BYTES
            assert reqs.offset[ios].min() == 0


def test_buffered_writes_run_at_memory_speed_then_at_the_devices_pace() -> None:
    """sysbench seqwr with --file-fsync-freq 0 on m5.large (8 GiB: a 1.3 GiB dirty limit) and
    gp2 (250 MiB/s): a 2 s run reports the memory's speed; over 20 s the run averages the dirty
    limit's worth at memory speed plus gp2's 250 MiB/s for the rest."""
    args = ["m5.large:gp2:1000GiB", "--file-test-mode", "seqwr", "--file-fsync-freq", "0",
            "--file-total-size", "100g", "--threads", "4", "--warmup", "0"]
    short = _simulate(*args, "--duration", "2")["levels"][0]["throughput_mibps"]
    long = _simulate(*args, "--duration", "20")["levels"][0]["throughput_mibps"]
    dirty_mib = 8 * 1024 * 0.8 * DIRTY_RATIO
    assert short > 500  # the cache's speed, far above gp2
    assert long == pytest.approx(250 + dirty_mib / 20, rel=0.05)


def test_rewriting_dirty_pages_adds_no_dirty_page() -> None:
    """A file smaller than the dirty limit is never throttled, however often its pages are
    written again: a dirty page written again is still one dirty page (fio --size 1g --direct 0
    on 8 GiB of RAM runs at memory speed)."""
    pat = IoPattern(name="t", read_fraction=0.0, random=True, block_bytes=4096, concurrency=1,
                    span_bytes=64 * 2**20, buffered=True, cache_bytes=2**30)
    assert pat.span_bytes < pat.dirty_limit_bytes
    rng = np.random.default_rng(1)
    for _ in range(4):  # 40,000 writes over 16,384 pages, in the DES's chunks
        reqs = pat.requests(rng, 10_000, 0.0)
        assert set(np.diff(reqs.first)) == {1}  # every write only a copy into the cache
    assert len(pat.dirty) <= 16_384


def test_a_copied_pattern_keeps_its_own_dirty_pages() -> None:
    """`dataclasses.replace` (ramp levels, the page cache's size) copies the dirty pages: two
    patterns never write into one dict."""
    from dataclasses import replace

    pat = IoPattern(name="t", read_fraction=0.0, random=True, block_bytes=4096, concurrency=1,
                    span_bytes=2**30, buffered=True, cache_bytes=2**30)
    pat.requests(np.random.default_rng(1), 10, 0.0)
    copy = replace(pat)
    assert copy.dirty == pat.dirty
    copy.requests(np.random.default_rng(2), 10, 0.0)
    assert len(pat.dirty) == 10
    assert len(copy.dirty) == 20


@pytest.mark.parametrize(("spec", "args"), [
    ("m5d.8xlarge:store", ["--file-test-mode", "rndwr", "--threads", "128"]),
    ("m5.large:gp2:1000GiB", ["--file-test-mode", "seqwr", "--file-fsync-freq", "0",
                              "--file-total-size", "100g", "--threads", "4"]),
    ("m5.large:gp2:1000GiB", ["--file-test-mode", "rndrw", "--file-total-size", "100g",
                              "--threads", "16"]),
])
def test_the_work_estimate_of_buffered_io_bounds_the_run(spec: str, args: list[str]) -> None:
    """The budget's estimate for buffered patterns is an upper bound on the requests the run
    makes, and not a thousand times one: writes reach the device at fsync or at the dirty limit,
    so past that they run at the device's pace, not the memory's (issue 11's own command,
    sysbench rndwr on m5d.8xlarge at threads 1, 4, 128, was refused as 2 billion I/Os)."""
    from advisor.layout import resolve
    from advisor.sim.plan import compile_plan
    from advisor.sim.run import _estimate_ios, with_page_cache
    from advisor.userfiles import load_catalog

    catalog = load_catalog(use_env=False)
    layout = resolve(spec, catalog)
    pattern = with_page_cache(build_pattern(**_pattern_kwargs(args)), layout)
    estimate = _estimate_ios(compile_plan(layout, catalog), pattern, 5.0)
    ran = _simulate(spec, *args, "--duration", "5", "--warmup", "0", "--engine", "des")
    done = ran["levels"][0]["ios"]["total"]
    assert done <= estimate <= 20 * done + 2e7


def _pattern_kwargs(args: list[str]) -> dict[str, Any]:
    names = {"--file-test-mode": ("file_test_mode", str), "--threads": ("threads", int),
             "--file-fsync-freq": ("file_fsync_freq", int),
             "--file-total-size": ("file_total_size", str)}
    pairs = zip(args[::2], args[1::2], strict=True)
    return {names[k][0]: names[k][1](v) for k, v in pairs}
