"""What one MySQL "transaction" is: the statements of each transaction class, the table they run
on, and how skewed the access is. Pure data and arithmetic (no I/O model here: workloads.mysql
turns a shape into page reads, flushes and commits).

Two classes: a read-only transaction (served by a replica, or by the master when there is none)
and a read-write transaction (always on the master; every replica applies its row changes).
`--reads` is read-only transactions per read-write transaction.

Named presets (`PRESETS`):

- `point-rw` (the default, the model's original shape): a read-only transaction is one primary-key
  point select (autocommit); a read-write transaction changes four rows in BEGIN/COMMIT (an
  update of the indexed column, an update of a non-indexed one, a delete and an insert), on a
  sysbench-like table (190-byte rows, one secondary index), uniform access. 3.25 reads per write.
- `sysbench-oltp-rw`, `sysbench-oltp-ro`, `sysbench-oltp-wo`: one transaction of sysbench 1.0.20's
  oltp_read_write / oltp_read_only / oltp_write_only scripts with their defaults
  (oltp_common.lua: --point-selects 10, --simple-ranges 1, --sum-ranges 1, --order-ranges 1,
  --distinct-ranges 1, --range-size 100, --index-updates 1, --non-index-updates 1,
  --delete-inserts 1, BEGIN/COMMIT; the sbtest table: int id, int k, char(120) c, char(60) pad,
  secondary index on k) and sysbench's default `--rand-type special` access.
- `tpcc-like`: the TPC-C transaction mix folded into two classes: Order-Status and Stock-Level
  (8 %) read-only; New-Order, Payment and Delivery (45 : 43 : 4) as one read-write class with
  their weighted mean statement counts (New-Order with 10 items: 23 selects, 11 updates,
  12 inserts; Payment: 3 selects, 3 updates, 1 insert; Delivery: 20 selects, 10 deletes,
  30 updates); uniform access (TPC-C's NURand skew is not modelled).
"""

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

from advisor.memo import tracked
from advisor.options import FieldError

PAGE = 16384
PAGE_FILL = 15 / 16  # InnoDB leaves pages 1/16 free on sequential inserts (innodb_fill_factor)


@dataclass(frozen=True, slots=True, kw_only=True)
class TxnShape:
    """The statements of one transaction class."""

    point_selects: int = 0
    range_selects: int = 0
    range_rows: int = 100  # rows each range select reads (sysbench --range-size)
    index_updates: int = 0  # UPDATEs of an indexed column (sysbench: k = k + 1)
    updates: int = 0  # UPDATEs of non-indexed columns
    deletes: int = 0
    inserts: int = 0
    autocommit: bool = False  # each statement commits alone (else BEGIN ... COMMIT)

    @property
    def write_statements(self) -> int:
        return self.index_updates + self.updates + self.deletes + self.inserts

    @property
    def read_statements(self) -> int:
        return self.point_selects + self.range_selects

    @property
    def commits(self) -> int:
        """Commits that write the logs: one per transaction, or one per write statement when each
        autocommits (a read-only transaction writes no log)."""
        if not self.write_statements:
            return 0
        return self.write_statements if self.autocommit else 1

    def text(self) -> str:
        """The class in words, e.g. '10 point selects + 4 range selects x 100 rows + ...'."""
        parts = []
        for n, one, many in ((self.point_selects, "point select", "point selects"),
                             (self.range_selects, "range select", "range selects"),
                             (self.index_updates, "update of an indexed column",
                              "updates of an indexed column"),
                             (self.updates, "update", "updates"),
                             (self.deletes, "delete", "deletes"),
                             (self.inserts, "insert", "inserts")):
            if n:
                rows = f" x {self.range_rows} rows" if one == "range select" else ""
                parts.append(f"{n} {one if n == 1 else many}{rows}")
        body = " + ".join(parts)
        if self.autocommit:
            return f"{body} (each statement autocommits)"
        return body if self.read_statements + self.write_statements == 1 else \
            f"{body} in BEGIN/COMMIT"


_KEYS = {"point": "point_selects", "range": "range_selects", "index-update": "index_updates",
         "update": "updates", "delete": "deletes", "insert": "inserts"}
MAX_STATEMENTS = 10_000


def parse_txn(text: str) -> TxnShape:
    """A transaction class from the compact grammar of `--read-txn` / `--write-txn`:
    comma-separated `point=N`, `range=NxROWS`, `index-update=N`, `update=N`, `delete=N`,
    `insert=N`, and optionally `autocommit`; e.g. `point=10,range=4x100` or
    `update=2,delete=1,insert=1`."""
    values: dict[str, int | bool] = {}
    for raw in text.split(","):
        item = raw.strip().lower()
        if not item:
            continue
        if item == "autocommit":
            values["autocommit"] = True
            continue
        key, eq, val = item.partition("=")
        if not eq or key not in _KEYS:
            raise FieldError("txn", text, f"{item!r}: expected point=N, range=NxROWS, "
                             "index-update=N, update=N, delete=N, insert=N or autocommit")
        if key == "range":
            m = re.fullmatch(r"(\d{1,6})(?:x(\d{1,7}))?", val)
            if not m:
                raise FieldError("txn", text, f"range={val}: expected range=NxROWS, e.g. 4x100")
            values["range_selects"] = int(m.group(1))
            if m.group(2) is not None:
                values["range_rows"] = int(m.group(2))
            continue
        if not re.fullmatch(r"\d{1,6}", val):
            raise FieldError("txn", text, f"{key}={val}: a whole number 0..{MAX_STATEMENTS:,}")
        values[_KEYS[key]] = int(val)
    shape = TxnShape(**values)  # type: ignore[arg-type]
    total = shape.read_statements + shape.write_statements
    if total > MAX_STATEMENTS:
        raise FieldError("txn", text, f"{total:,} statements: at most {MAX_STATEMENTS:,}")
    if not 1 <= shape.range_rows <= 1_000_000:
        raise FieldError("txn", text, "range rows must be 1..1,000,000")
    if total == 0:
        raise FieldError("txn", text, "no statements: give at least one")
    return shape


def show_txn(shape: TxnShape) -> str:
    """The grammar `parse_txn` reads (for reproduce commands)."""
    out = []
    for key, name in _KEYS.items():
        n = getattr(shape, name)
        if n:
            out.append(f"range={n}x{shape.range_rows}" if key == "range" else f"{key}={n}")
    if shape.autocommit:
        out.append("autocommit")
    return ",".join(out)


# --- access skew -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Skew:
    """How accesses spread over the rows, as bands of (share of rows, share of accesses); rows are
    stored in key order, so pages inherit the rows' popularity."""

    name: str
    bands: tuple[tuple[float, float], ...]

    def text(self) -> str:
        return SKEW_TEXT.get(self.name.split(":")[0], self.name)


SKEW_TEXT = {
    "uniform": "uniform (every row equally likely)",
    "special": "sysbench 'special' (--rand-spec-pct 1 --rand-spec-res 75: 75 % of accesses to "
               "the middle 1 % of rows, the rest a bell curve around the middle)",
    "hot": "a hot set",
    "zipf": "Zipf",
}


def _special_bands(pct: float = 1.0, res: float = 75.0, iters: int = 12) -> tuple[
        tuple[float, float], ...]:
    """sysbench 1.0.20's special distribution (sb_rand.c `sb_rand_special`): with probability
    res % a uniform value inside the middle pct % of the range; otherwise the mean of `iters`
    uniform values (a bell curve around the middle, sd = 1 / sqrt(12 x iters) of the range)."""
    hot = pct / 100
    sd = 1 / math.sqrt(12 * iters)
    # The bell part, integrated over 41 bands of the range (symmetric around the middle).
    edges = sorted({0.0, 1.0, 0.5 - hot / 2, 0.5 + hot / 2,
                    *(0.5 - 4 * sd + 8 * sd * i / 40 for i in range(41))})
    def cdf(x: float) -> float:
        return 0.5 * (1 + math.erf((x - 0.5) / (sd * math.sqrt(2))))

    bands = []
    for lo, hi in itertools.pairwise(edges):
        if hi <= lo:
            continue
        mass = cdf(hi) - cdf(lo)
        # the special values' share falls inside the middle pct of the range
        overlap = max(0.0, min(hi, 0.5 + hot / 2) - max(lo, 0.5 - hot / 2))
        bands.append((hi - lo, (1 - res / 100) * mass + res / 100 * overlap / hot))
    return tuple(bands)


def _zipf_bands(theta: float, n_rows: float = 1e8, n_bands: int = 48) -> tuple[
        tuple[float, float], ...]:
    """Zipf(theta) over the rows (rank r taking r^-theta of the accesses), in log-spaced rank
    bands integrated in closed form."""
    def integral(a: float, b: float) -> float:
        if abs(theta - 1) < 1e-9:
            return math.log(b / a)
        return float((b ** (1 - theta) - a ** (1 - theta)) / (1 - theta))

    edges = [1.0, *(n_rows ** (i / n_bands) for i in range(1, n_bands + 1))]
    total = integral(0.5, n_rows + 0.5)
    bands = []
    prev = 0.5
    for e in edges[1:]:
        bands.append(((e - prev) / n_rows, integral(prev, e + 0.5 if e == edges[-1] else e)
                      / total))
        prev = e
    norm_acc = sum(a for _, a in bands)
    return tuple((r, a / norm_acc) for r, a in bands)


@tracked
@lru_cache(maxsize=256)
def parse_skew(text: str) -> Skew:
    """`uniform`, `special` (sysbench's default), `hot:ROWS%:ACCESSES%` (e.g. hot:10%:90%: 10 % of
    the rows take 90 % of the accesses) or `zipf:THETA` (e.g. zipf:0.99, YCSB's default)."""
    t = text.strip().lower()
    if t == "uniform":
        return Skew("uniform", ((1.0, 1.0),))
    if t == "special":
        return Skew("special", _special_bands())
    m = re.fullmatch(r"hot:(\d{1,3}(?:\.\d{1,4})?)%?:(\d{1,3}(?:\.\d{1,4})?)%?", t)
    if m:
        rows, acc = float(m.group(1)) / 100, float(m.group(2)) / 100
        if not (0 < rows < 1 and 0 <= acc <= 1):
            raise FieldError("skew", text, "hot:ROWS%:ACCESSES% needs 0 < rows < 100 and "
                             "accesses 0..100")
        return Skew(f"hot:{rows:.4g}:{acc:.4g}", ((rows, acc), (1 - rows, 1 - acc)))
    m = re.fullmatch(r"zipf:(\d{1,2}(?:\.\d{1,4})?)", t)
    if m:
        theta = float(m.group(1))
        if not 0 < theta <= 3:
            raise FieldError("skew", text, "zipf theta must be above 0 and at most 3")
        return Skew(f"zipf:{theta:g}", _zipf_bands(theta))
    raise FieldError("skew", text, "expected uniform, special, hot:ROWS%:ACCESSES% (e.g. "
                     "hot:10%:90%) or zipf:THETA (e.g. zipf:0.99)")


def skew_text(skew: Skew) -> str:
    if skew.name.startswith("hot:"):
        rows, acc = (float(x) for x in skew.name.split(":")[1:])
        return f"hot set: {rows:.1%} of the rows take {acc:.1%} of the accesses"
    if skew.name.startswith("zipf:"):
        return f"Zipf, theta {skew.name.split(':')[1]}"
    return SKEW_TEXT[skew.name]


# --- presets -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class Preset:
    name: str
    read_txn: TxnShape | None  # None: this workload has no read-only transactions
    write_txn: TxnShape | None  # None: no read-write transactions
    reads: float  # read-only transactions per read-write transaction (its default)
    row_bytes: int = 190
    secondary_indexes: int = 1
    skew: str = "uniform"
    about: str = ""


_SB_READS = TxnShape(point_selects=10, range_selects=4, range_rows=100)
_SB_WRITES = TxnShape(index_updates=1, updates=1, deletes=1, inserts=1)
PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset(name="point-rw", read_txn=TxnShape(point_selects=1),
           write_txn=TxnShape(index_updates=1, updates=1, deletes=1, inserts=1), reads=3.25,
           about="the default: a read is one point select; a write changes 4 rows"),
    Preset(name="sysbench-oltp-rw", read_txn=_SB_READS,
           write_txn=replace(_SB_READS, index_updates=1, updates=1, deletes=1, inserts=1),
           reads=0.0, skew="special", about="sysbench 1.0.20 oltp_read_write"),
    Preset(name="sysbench-oltp-ro", read_txn=_SB_READS, write_txn=None, reads=0.0,
           skew="special", about="sysbench 1.0.20 oltp_read_only"),
    Preset(name="sysbench-oltp-wo", read_txn=None, write_txn=_SB_WRITES, reads=0.0,
           skew="special", about="sysbench 1.0.20 oltp_write_only"),
    Preset(name="tpcc-like", read_txn=TxnShape(point_selects=12, range_selects=1, range_rows=200),
           write_txn=TxnShape(point_selects=14, updates=8, deletes=0, inserts=6), reads=8 / 92,
           row_bytes=200, secondary_indexes=1,
           about="TPC-C's mix folded into two classes (write-heavy)"),
)}


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkloadShape:
    """Everything that says what one transaction is."""

    preset: str
    read_txn: TxnShape | None
    write_txn: TxnShape | None
    row_bytes: int
    secondary_indexes: int
    skew: str

    @property
    def skew_bands(self) -> Skew:
        return parse_skew(self.skew)

    def mix_words(self, reads_per_write: float) -> str:
        """The transaction mix: '3.25 reads/write', or 'read-only transactions' (write-only,
        read-write) where the shape has one class, or no reads per write, and a ratio would say
        nothing."""
        if self.write_txn is None:
            return "read-only transactions"
        if self.read_txn is None:
            return "write-only transactions"
        if reads_per_write <= 0:
            return "read-write transactions"
        return f"{reads_per_write:g} reads/write"

    def mix_text(self, reads_per_write: float) -> str:
        """The mix after '{tps} tps': 'at 3.25 reads/write', 'of read-only transactions'."""
        words = self.mix_words(reads_per_write)
        return f"{'at' if words.endswith('reads/write') else 'of'} {words}"

    def lines(self, reads_per_write: float) -> list[str]:
        """What a transaction is, in words (every output states it)."""
        n = self.secondary_indexes
        out = [f"workload shape {self.preset}: {self.row_bytes}-byte rows, {n} secondary "
               f"index{'es' if n != 1 else ''}, access {skew_text(self.skew_bands)}"]
        if self.read_txn is not None and (reads_per_write > 0 or self.write_txn is None):
            out.append(f"read-only transaction = {self.read_txn.text()}")
        if self.write_txn is not None:
            out.append(f"read-write transaction = {self.write_txn.text()}")
        if self.read_txn is not None and self.write_txn is not None and reads_per_write > 0:
            out.append(f"{reads_per_write:g} read-only per read-write transaction; tps counts "
                       "both")
        return out


@tracked
@lru_cache(maxsize=256)
def shape_of(preset: str, *, read_txn: str | None = None, write_txn: str | None = None,
             row_bytes: int | None = None, secondary_indexes: int | None = None,
             skew: str | None = None) -> WorkloadShape:
    """The preset's shape with what the user set on top (parsed once per distinct request: a
    sizing asks for it for every candidate)."""
    p = PRESETS[preset]
    shape = WorkloadShape(
        preset=preset,
        read_txn=parse_txn_field("read_txn", read_txn) if read_txn else p.read_txn,
        write_txn=parse_txn_field("write_txn", write_txn) if write_txn else p.write_txn,
        row_bytes=row_bytes if row_bytes is not None else p.row_bytes,
        secondary_indexes=(secondary_indexes if secondary_indexes is not None
                           else p.secondary_indexes),
        skew=skew if skew is not None else p.skew)
    if read_txn and shape.read_txn is not None and shape.read_txn.write_statements:
        raise FieldError("read_txn", read_txn, "a read-only transaction cannot change rows "
                         "(put them in --write-txn)")
    if write_txn and shape.write_txn is not None and not shape.write_txn.write_statements:
        raise FieldError("write_txn", write_txn, "a read-write transaction changes at least one "
                         "row (update, index-update, delete or insert)")
    parse_skew(shape.skew)
    original = WorkloadShape(preset=preset, read_txn=p.read_txn, write_txn=p.write_txn,
                             row_bytes=p.row_bytes, secondary_indexes=p.secondary_indexes,
                             skew=p.skew)
    if shape != original:
        shape = replace(shape, preset=f"{preset} (modified)")
    return shape


def parse_txn_field(name: str, text: str) -> TxnShape:
    try:
        return parse_txn(text)
    except FieldError as exc:
        raise FieldError(name, text, exc.problem) from None


def _checker(parse: Callable[[str], object], most: int, what: str) -> Callable[[str], str | None]:
    """An option check: the problem `parse` finds with a value, or None (fine)."""
    def check(text: str) -> str | None:
        if len(text) > most:
            return f"too long for {what}"
        try:
            parse(text)
        except FieldError as exc:
            return exc.problem
        return None

    return check


check_txn = _checker(parse_txn, 400, "a transaction shape")  # --read-txn / --write-txn
check_skew = _checker(parse_skew, 60, "a skew")
