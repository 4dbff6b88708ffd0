"""The I/O test modes of sysbench fileio and fio, in one table.

`advisor simulate --file-test-mode/--rw` builds patterns from it, calibration runs and fits its
pure modes, the sysbench parser reads sysbench's own wording of them, the fio importer files a
fio job under the sysbench name of the same pattern, and `advisor validate` re-simulates them.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class FileTestMode:
    """One sysbench `--file-test-mode`."""

    name: str  # rndrd
    label: str  # how sysbench 1.0 names it in its output: "random read"
    read_fraction: float
    random: bool


FILE_TEST_MODES: dict[str, FileTestMode] = {m.name: m for m in (
    FileTestMode(name="seqwr", label="sequential write (creation)", read_fraction=0.0,
                 random=False),
    FileTestMode(name="seqrewr", label="sequential rewrite", read_fraction=0.0, random=False),
    FileTestMode(name="seqrd", label="sequential read", read_fraction=1.0, random=False),
    FileTestMode(name="rndrd", label="random read", read_fraction=1.0, random=True),
    FileTestMode(name="rndwr", label="random write", read_fraction=0.0, random=True),
    # sysbench's default --file-rw-ratio is 1.5 reads per write
    FileTestMode(name="rndrw", label="random r/w", read_fraction=0.6, random=True),
)}
SYSBENCH_MODES: dict[str, tuple[float, bool]] = {  # name: (read fraction, random)
    m.name: (m.read_fraction, m.random) for m in FILE_TEST_MODES.values()
}
# The pure modes a device profile is fitted from (and calibration runs by default).
CALIBRATION_MODES = ("rndrd", "rndwr", "seqrd", "seqwr")

FIO_RW_MODES: dict[str, tuple[float | None, bool]] = {  # fio --rw: (read fraction, random)
    "read": (1.0, False), "write": (0.0, False), "randread": (1.0, True),
    "randwrite": (0.0, True), "rw": (None, False), "readwrite": (None, False),
    "randrw": (None, True),  # None: the mix is --rwmixread
}


def sysbench_name(fio_rw: str) -> str:
    """The sysbench spelling of a fio `--rw` pattern: randread -> rndrd, rw -> seqrw."""
    read_fraction, random = FIO_RW_MODES[fio_rw]
    kind = {1.0: "rd", 0.0: "wr"}.get(read_fraction, "rw") if read_fraction is not None else "rw"
    return ("rnd" if random else "seq") + kind
