"""What `bench/attack.py` tries, part 1: the case types, the temporary workspace of bad files
and output targets, and the constants the other input modules share (`attack_cli_inputs`,
`attack_file_inputs`, `attack_api_inputs`).

A case only describes an input and what a correct program does with it; `attack.py` runs it and
judges the outcome. Inputs are deterministic (no randomness), so two runs try the same things.
"""

import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SECRET = "hunter2-attack"  # a password the suite plants in URLs; it must never be printed
TOKEN = "attack-token-7f3a"  # the bearer token of the server the suite starts
SPEC = "m5d.large:gp2:385GiB"

# Which simulate options belong to which workload (the base command line must select it, or
# the option is refused for the wrong reason and its own checks are never reached).
AEROSPIKE = frozenset({"x", "reads_per_sec", "writes_per_sec", "record_bytes",
                       "replication_factor", "update_pct", "defrag_lwm_pct", "slice"})
SYSBENCH = frozenset({"threads", "file_block_size", "file_fsync_freq"})
SIZE_OWN = frozenset({"tps", "reads", "p99_ms", "replicas", "data_gb", "headroom", "peak_hours",
                      "off_peak", "max_monthly_usd", "region", "seed", "reads_per_sec",
                      "writes_per_sec", "record_bytes", "replication_factor"})
RAW = frozenset({"spec", "duration", "warmup", "ramp", "engine", "seed", "rw", "rwmixread", "bs",
                 "iodepth", "numjobs", "rate_iops", "size", "pattern", "file_test_mode"})


def big(char: str, n: int, prefix: str = "", suffix: str = "") -> str:
    return prefix + char * n + suffix


Check = Callable[[], str | None]  # after the run: a finding's text, or None


@dataclass(kw_only=True)
class CliCase:
    area: str  # the command attacked
    argv: list[str]  # after `advisor`
    expect: str = "reject"  # reject: exit 0 is a finding; any: only crashes/hangs/tracebacks are
    env: dict[str, str] = field(default_factory=dict)
    timeout_s: float | None = None  # None: the run's --timeout
    serve: bool = False  # a server that starts and keeps running has accepted the input
    check: Check | None = None
    note: str = ""  # what the input is, when the argv does not say it
    control: bool = False  # a valid input: must exit 0 (proves the harness sees the program)
    headline: bool = False  # one of the issue's own inputs: always in --quick

    def display(self, tmp: str) -> str:
        text = " ".join(_quote(a) for a in self.argv).replace(tmp, "$TMP")
        env = " ".join(f"{k}={_quote(v)}" for k, v in self.env.items()).replace(tmp, "$TMP")
        return (env + " " if env else "") + "advisor " + text


@dataclass(kw_only=True)
class ApiCase:
    area: str
    method: str = "POST"
    path: str = "/"
    body: bytes | None = None
    body_label: str | None = None  # how to show a big body
    headers: dict[str, str] = field(default_factory=dict)
    token: str | None = TOKEN  # None: no Authorization header
    expect: str | int = "reject"  # reject (4xx), any, or an exact status
    raw: bytes | None = None  # send these bytes as the whole request (HTTP edges)
    timeout_s: float | None = None
    long_values: tuple[str, ...] = ()  # parts of the input that must not come back whole
    closed_ok: bool = False  # closing the connection without a reply is a fine answer
    control: bool = False
    headline: bool = False

    def display(self) -> str:
        if self.raw is not None:
            text = self.raw[:160].decode("latin-1")
            return f"raw {text!r}" + (f" … ({len(self.raw)} bytes)" if len(self.raw) > 160 else "")
        auth = "" if self.token == TOKEN else (" [no token]" if self.token is None
                                               else f" [token {self.token[:40]!r}]")
        extra = "".join(f" [{k}: {v[:60]}]" for k, v in self.headers.items())
        if self.body is None:
            body = ""
        elif self.body_label:
            body = " " + self.body_label
        else:
            body = " " + self.body.decode("utf-8", "replace")
        return f"{self.method} {self.path[:200]}{auth}{extra}{body}"


def _quote(s: str) -> str:
    """Shell quoting; a long argument with a long run of one character shows as the Python
    expression that builds it, any other long one shortened (the JSON output has it whole)."""
    import re
    import shlex

    if len(s) <= 300:
        return shlex.quote(s)
    runs = list(re.finditer(r"(.)\1{99,}", s, re.S))
    if runs:
        m = max(runs, key=lambda m: len(m.group(0)))
        parts = ([repr(s[:m.start()])] if m.start() else []) + \
            [f"{m.group(1)!r}*{len(m.group(0))}"] + \
            ([repr(s[m.end():])] if m.end() < len(s) else [])
        if sum(map(len, parts)) < 300:
            expr = " + ".join(parts).replace('"', '\\"')
            return f'"$(python3 -c "print({expr}, end=\'\')")"'
    return f"<{len(s)} chars: {shlex.quote(s[:60])}…>"


# ---------------------------------------------------------------------------------------------
# The temporary workspace: bad files, output targets


@dataclass
class Workspace:
    root: Path
    valid_result: Path  # a simulate result JSON (for report)
    profile: Path  # a calibration profile (validate, catalog with a local device)
    fio: Path  # a real fio JSON (calibrate --import-fio)
    bad_inputs: dict[str, str]  # name -> path of an unreadable or malformed input file
    is_root: bool

    def path(self, name: str) -> str:
        return str(self.root / name)


def write_file(path: Path, data: str | bytes) -> str:
    if isinstance(data, str):
        path.write_text(data, "utf-8")
    else:
        path.write_bytes(data)
    return str(path)


def build_workspace(root: Path, repo: Path) -> Workspace:
    """Bad input files of every kind; the valid files the attacks start from."""
    fixtures = repo / "tests" / "workloads" / "fixtures"
    (root / "cwd").mkdir()
    (root / "data").mkdir()
    (root / "cal").mkdir()
    (root / "a-directory").mkdir()
    os.mkfifo(root / "fifo-in")
    loop_a, loop_b = root / "loop-a", root / "loop-b"
    loop_a.symlink_to(loop_b)
    loop_b.symlink_to(loop_a)
    bad = {
        "missing": str(root / "no-such-file.json"),
        "directory": str(root / "a-directory"),
        "fifo": str(root / "fifo-in"),
        "/dev/zero": "/dev/zero",
        "symlink-loop": str(loop_a),
        "empty": write_file(root / "empty.json", ""),
        "binary": write_file(root / "binary.json", bytes(range(256)) * 64),
        "not-json": write_file(root / "not-json.json", "{ this is not json"),
        "json-array": write_file(root / "array.json", "[1, 2, 3]"),
        "json-string": write_file(root / "string.json", '"hello"'),
        "empty-object": write_file(root / "object.json", "{}"),
        "deep-nesting": write_file(root / "deep.json", "[" * 100_000 + "]" * 100_000),
        "deep-object": write_file(root / "deep-object.json", '{"a":' * 50_000 + "1" + "}" * 50_000),
        "nan-values": write_file(root / "nan.json", '{"schema_version": NaN, "x": Infinity}'),
        "huge-int": write_file(root / "huge-int.json", '{"schema_version": ' + "9" * 5000 + "}"),
        "float-overflow": write_file(root / "overflow.json", '{"schema_version": 1e400}'),
        "utf16": write_file(root / "utf16.json", '{"schema_version": 1}'.encode("utf-16")),
        "bom": write_file(root / "bom.json", b"\xef\xbb\xbf" + b'{"schema_version": 1}'),
    }
    return Workspace(root=root, valid_result=root / "sim.json",
                     profile=Path(write_file(root / "profile.json",
                                         (fixtures / "calibration-this-vm.json").read_text())),
                     fio=Path(write_file(root / "fio.json",
                                     (fixtures / "fio_randrw_qd16.json").read_text())),
                     bad_inputs=bad, is_root=os.geteuid() == 0)


def json_at(base: dict[str, Any], where: tuple[str | int, ...], literal: str | None) -> str:
    """`base` as JSON text with the value at `where` replaced by `literal`, raw JSON text that
    may be invalid JSON on purpose (NaN, 1e400, 400 digits); None deletes the key."""
    data = json.loads(json.dumps(base))
    parent = data
    for key in where[:-1]:
        parent = parent[key]
    if literal is None:
        del parent[where[-1]]
        return json.dumps(data)
    parent[where[-1]] = "__RAW__"
    return json.dumps(data).replace('"__RAW__"', literal)


# ---------------------------------------------------------------------------------------------
# Output targets: each case gets its own, and a check that nothing was written through it


def out_targets(ws: Workspace, tag: str) -> list[tuple[str, str, Check | None]]:
    """(label, path, check) for output paths a writer must refuse (or must not write through)."""
    root = ws.root / f"out-{tag}"
    root.mkdir()
    victim = root / "victim.txt"
    victim.write_text("VICTIM")
    link = root / "link.json"
    link.symlink_to(victim)
    fifo = root / "fifo.out"
    os.mkfifo(fifo)

    def link_check() -> str | None:
        if victim.read_text() != "VICTIM":
            return "wrote through the symlink into its target"
        if not link.is_symlink():
            return "replaced the symlink with a file"
        return None

    def fifo_check() -> str | None:
        return None if stat.S_ISFIFO(os.lstat(fifo).st_mode) else "replaced the FIFO with a file"

    targets: list[tuple[str, str, Check | None]] = [
        ("symlink to a file", str(link), link_check),
        ("FIFO", str(fifo), fifo_check),
        ("directory", str(ws.root / "a-directory"), None),
        ("missing parent", str(root / "no" / "such" / "dir" / "x.json"), None),
        ("empty path", "", None),
    ]
    if ws.is_root:  # a device node of our own (never one in /dev: root could replace it)
        dev = root / "full"
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # like /dev/full

        def dev_check() -> str | None:
            return None if stat.S_ISCHR(os.lstat(dev).st_mode) else \
                "replaced the device node with a file"

        targets.append(("character device (like /dev/full)", str(dev), dev_check))
    else:
        targets.append(("/dev/full", "/dev/full", None))
    return targets
