"""RAID fan-out: how one logical I/O (what the file system issues to the md array) becomes
member I/Os. The one home of the rule; capacity, the candidate grid, the analytic engine and the
simulator plan call it, and the compiled kernel's copy is pinned to it by a test
(`tests/sim/test_raid_fanout.py`).

A mirrored write costs one I/O on every mirror (RAID 1: all members; RAID 10: the pair); an I/O
larger than the chunk splits over up to as many members as hold distinct data.
"""

import math
from dataclasses import dataclass

from advisor.layout.spec import Raid

# Codes the simulator's arrays and compiled kernel use for each level.
NONE, RAID0, RAID1, RAID10 = 0, 1, 2, 3
RAID_CODES: dict[Raid | None, int] = {None: NONE, "raid0": RAID0, "raid1": RAID1,
                                      "raid10": RAID10}
RAID_NAMES: dict[int, Raid | None] = {code: name for name, code in RAID_CODES.items()}


def data_members(raid: Raid | None, members: int) -> int:
    """Members holding distinct data (what capacity and striping count)."""
    return {None: 1, "raid0": members, "raid1": 1, "raid10": members // 2}[raid]


def write_copies(raid: Raid | None, members: int) -> int:
    """Member writes per piece of a logical write (1 unless mirrored)."""
    return {None: 1, "raid0": 1, "raid1": members, "raid10": 2}[raid]


@dataclass(frozen=True, slots=True, kw_only=True)
class Fanout:
    pieces: int  # distinct members a logical I/O's data spans
    copies: int  # member I/Os per piece
    piece_size: float  # size of each member I/O, in the unit of the logical size

    @property
    def member_ios(self) -> int:
        return self.pieces * self.copies


def fanout(raid: Raid | None, members: int, *, write: bool, size: float, chunk: float) -> Fanout:
    """Member I/Os of one chunk-aligned logical I/O of `size` (same unit as `chunk`)."""
    pieces = 1
    if raid in ("raid0", "raid10"):
        pieces = min(data_members(raid, members), max(1, math.ceil(size / chunk)))
    copies = write_copies(raid, members) if write else 1
    return Fanout(pieces=pieces, copies=copies, piece_size=size / pieces)
