"""Raw I/O patterns from the options users know: fio (`--rw --rwmixread --bs --iodepth
--numjobs --rate-iops --size`), sysbench fileio (`--file-test-mode --threads --file-block-size
--file-fsync-freq`) and ioping. One builder for the CLI and the API, so both check the same way
and say the same thing."""

from advisor.errors import InvalidInput
from advisor.io_modes import FIO_RW_MODES as RW_MODES
from advisor.io_modes import SYSBENCH_MODES
from advisor.sim.source import IoPattern
from advisor.units import parse_bytes


def build_pattern(*, rw: str = "randread", rwmixread: float = 50.0, bs: str = "4k",
                  iodepth: int = 1, numjobs: int = 1, rate_iops: float | None = None,
                  size: str = "4g", pattern: str | None = None,
                  file_test_mode: str | None = None, threads: int = 1,
                  file_block_size: str = "16k", file_fsync_freq: int = 100,
                  direct: int = 1, file_extra_flags: str | None = None,
                  file_total_size: str | None = None, fsync: int = 0) -> IoPattern:
    """The pattern these options describe; `InvalidInput` naming the option that is wrong.
    sysbench runs buffered (through the page cache) unless `file_extra_flags` is "direct", as
    sysbench does; fio runs direct unless `direct` is 0 (fio's own default is 0: advisor's is
    1, the setting of storage benchmarks, e.g. BRIEF section 8 item 1)."""
    if direct not in (0, 1):
        raise InvalidInput(f"--direct {direct}: 0 (buffered) or 1 (O_DIRECT)")
    if file_extra_flags not in (None, "", "direct"):
        raise InvalidInput(f"--file-extra-flags {file_extra_flags!r}: the only flag modelled "
                           "is direct")
    if not 0 <= rwmixread <= 100:
        raise InvalidInput(f"--rwmixread {rwmixread:g}: must be between 0 and 100")
    for name, value in (("--iodepth", iodepth), ("--numjobs", numjobs), ("--threads", threads)):
        if not 1 <= value <= 4096:
            raise InvalidInput(f"{name} {value}: must be between 1 and 4096")
    if rate_iops is not None and rate_iops <= 0:
        raise InvalidInput(f"--rate-iops {rate_iops:g}: must be positive")
    if pattern is not None and pattern != "ioping":
        raise InvalidInput(f"--pattern {pattern!r}: the only preset is ioping")
    span = parse_bytes(size, what="--size")
    if file_total_size is not None:
        span = parse_bytes(file_total_size, what="--file-total-size")
    if file_test_mode is not None:
        if file_test_mode not in SYSBENCH_MODES:
            raise InvalidInput(f"--file-test-mode {file_test_mode!r}: choose one of "
                               f"{', '.join(SYSBENCH_MODES)}")
        frac, rnd = SYSBENCH_MODES[file_test_mode]
        return IoPattern(name=f"sysbench fileio {file_test_mode}", read_fraction=frac,
                         random=rnd,
                         block_bytes=parse_bytes(file_block_size, what="--file-block-size"),
                         concurrency=threads, span_bytes=span, open_rate=rate_iops,
                         fsync_every_writes=max(0, file_fsync_freq) if frac < 1 else 0,
                         buffered=file_extra_flags != "direct")
    if pattern == "ioping":
        # one 4 KiB read at a time, one a second by default (ioping -i 1); --rate-iops for -i
        return IoPattern(name="ioping", read_fraction=1.0, random=True, block_bytes=4096,
                         concurrency=1, span_bytes=span, open_rate=rate_iops or 1.0)
    if rw not in RW_MODES:
        raise InvalidInput(f"--rw {rw!r}: choose one of {', '.join(RW_MODES)}")
    frac_opt, rnd = RW_MODES[rw]
    frac = rwmixread / 100 if frac_opt is None else frac_opt
    return IoPattern(name=f"fio {rw}", read_fraction=frac, random=rnd,
                     block_bytes=parse_bytes(bs, what="--bs"), concurrency=iodepth * numjobs,
                     span_bytes=span, open_rate=rate_iops, buffered=direct == 0,
                     fsync_every_writes=max(0, fsync) if frac < 1 else 0)
