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
from advisor.sim.source import MERGE_BYTES, OP_CPU, OP_FLUSH, OP_WRITE, OP_WRITE_WITH, IoPattern


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
