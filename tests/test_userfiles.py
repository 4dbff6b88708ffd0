"""User files: results, reports and profiles are written only to a regular file or a new path, by
an atomic rename in the same directory; user files are read only from regular files, bounded.

Tests that aim a writer at a device node check it with os.lstat first and guard `os.replace`,
so a wrong writer fails the test instead of replacing the node."""

import ast
import errno
import json
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from advisor import userfiles
from advisor.errors import InvalidInput
from advisor.userfiles import read_json_object, read_text, write_json, write_text

REPO = Path(__file__).resolve().parents[1]
REFUSED = r"is written only to a regular file or a new path"
Guard = Callable[[Path], None]


def umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def temporaries(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".tmp")]


@pytest.fixture
def no_replace_of(monkeypatch: pytest.MonkeyPatch) -> Guard:
    """Make `os.replace` onto the given path fail the test instead of replacing it."""
    guarded: list[Path] = []
    real = os.replace

    def guard(src: object, dst: object) -> None:
        if any(Path(str(dst)).absolute() == g for g in guarded):
            pytest.fail(f"the writer tried to replace {dst}")
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", guard)
    return lambda path: guarded.append(path.absolute())


# -- writing ----------------------------------------------------------------------------------


def test_a_new_path_gets_the_text_and_the_usual_permissions(tmp_path: Path) -> None:
    """A new file holds the text, has mode 0666 less the umask, and no temporary file is left."""
    target = tmp_path / "result.json"
    write_json(target, {"a": [1, 2]})
    assert json.loads(target.read_text("utf-8")) == {"a": [1, 2]}
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask()
    assert temporaries(tmp_path) == []


def test_a_regular_file_is_replaced_whole_and_keeps_its_mode(tmp_path: Path) -> None:
    """Replacing an existing file: new content, the file's own permission bits kept."""
    target = tmp_path / "report.html"
    target.write_text("old", "utf-8")
    target.chmod(0o600)
    inode = target.stat().st_ino
    write_text(target, "new", what="report")
    assert target.read_text("utf-8") == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.stat().st_ino != inode  # renamed into place, not rewritten in place
    assert temporaries(tmp_path) == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk at fsync: one line naming the path and the reason; the old file intact."""
    target = tmp_path / "result.json"
    target.write_text("old", "utf-8")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(InvalidInput, match=r"result.json: cannot write the result \(No space"):
        write_json(target, {"a": 1})
    assert target.read_text("utf-8") == "old"
    assert temporaries(tmp_path) == []


def test_a_fifo_is_refused_and_left_alone(tmp_path: Path, no_replace_of: Guard) -> None:
    """A FIFO at the path: one line, and the FIFO is still a FIFO (nothing blocks on it)."""
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    no_replace_of(fifo)
    with pytest.raises(InvalidInput,
                       match=rf"out.json: is a FIFO \(named pipe\); the result {REFUSED}"):
        write_json(fifo, {"a": 1})
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert temporaries(tmp_path) == []


def test_a_symlink_is_refused_and_neither_it_nor_its_target_changes(
        tmp_path: Path, no_replace_of: Guard) -> None:
    """A symlink at the path (to a file the user may not mean to overwrite): one line."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", "utf-8")
    link = tmp_path / "report.html"
    link.symlink_to(victim)
    no_replace_of(link)
    with pytest.raises(InvalidInput, match=rf"report.html: is a symlink; the report {REFUSED}"):
        write_text(link, "<html>", what="report")
    assert os.path.islink(link)
    assert os.readlink(link) == str(victim)
    assert victim.read_text("utf-8") == "keep"


def test_a_directory_is_refused(tmp_path: Path) -> None:
    """A directory at the path: one line, the directory and its content untouched."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").write_text("x", "utf-8")
    with pytest.raises(InvalidInput, match=rf"d: is a directory; the result {REFUSED}"):
        write_json(tmp_path / "d", {})
    assert (tmp_path / "d" / "x").read_text("utf-8") == "x"


def test_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match=r"the directory .*nowhere does not exist"):
        write_text(tmp_path / "nowhere" / "r.html", "x", what="report")


def test_dev_null_is_refused_and_left_intact(no_replace_of: Guard) -> None:
    """/dev/null itself (checked to be a character device first): refused, still a device, and
    no temporary file was made beside it."""
    dev_null = Path("/dev/null")
    if not stat.S_ISCHR(os.lstat(dev_null).st_mode):
        pytest.skip("/dev/null is not a character device here")
    no_replace_of(dev_null)
    before = os.lstat(dev_null)
    with pytest.raises(InvalidInput,
                       match=rf"/dev/null: is a character device; the report {REFUSED}"):
        write_text(dev_null, "<html>", what="report")
    after = os.lstat(dev_null)
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert not [n for n in os.listdir("/dev") if n.startswith(".null.") and n.endswith(".tmp")]


def test_a_device_node_of_our_own_is_refused(tmp_path: Path) -> None:
    """A character device made in tmp_path (needs CAP_MKNOD), written to with no guard."""
    node = tmp_path / "full"
    try:
        os.mknod(node, 0o600 | stat.S_IFCHR, os.makedev(1, 7))  # /dev/full's numbers
    except PermissionError:
        pytest.skip("cannot make device nodes here (no CAP_MKNOD)")
    with pytest.raises(InvalidInput, match=rf"full: is a character device; the result {REFUSED}"):
        write_json(node, {"a": 1})
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert temporaries(tmp_path) == []


def _writes(node: ast.Call) -> bool:
    """Whether a call writes, creates or renames a file (the ways Python has to)."""
    func = node.func
    owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
        else None
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in ("write_text", "write_bytes", "touch") and owner != "userfiles":
        return isinstance(func, ast.Attribute)  # Path methods; our own helper is a plain name
    if (owner, name) in {("os", "replace"), ("os", "rename"), ("os", "renames"), ("os", "link"),
                         ("os", "mkfifo"), ("shutil", "move"), ("shutil", "copy"),
                         ("shutil", "copyfile"), ("shutil", "copy2"), ("json", "dump"),
                         ("tempfile", "mkstemp"), ("tempfile", "NamedTemporaryFile")}:
        return True
    if owner == "os" and name == "open":
        if node.args and ast.unparse(node.args[0]) == "os.devnull":  # silencing a stream
            return False
        flags = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        return bool(flags & {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"})
    if name == "open":
        modes = [a for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        modes += [k.value for k in node.keywords if k.arg == "mode"
                  and isinstance(k.value, ast.Constant)]
        return any(set(str(m.value)) & set("wax+") for m in modes)
    return False


def test_every_writer_goes_through_the_one_helper() -> None:
    """No module but advisor/userfiles.py writes, creates or renames files (the disk
    benchmarks' raw test files in workloads/real/calibrate.py and sysbench.py aside)."""
    allowed = {"advisor/userfiles.py", "workloads/real/calibrate.py", "workloads/real/sysbench.py"}
    found = [f"{path.relative_to(REPO).as_posix()}:{node.lineno}"
             for package in ("advisor", "api", "recommend", "workloads")
             for path in sorted((REPO / package).rglob("*.py"))
             if path.relative_to(REPO).as_posix() not in allowed
             for node in ast.walk(ast.parse(path.read_text("utf-8")))
             if isinstance(node, ast.Call) and _writes(node)]
    assert found == []


def test_the_writer_check_sees_writes() -> None:
    """The check above is not blind: each way of writing a file is caught."""
    for code in ("Path(p).write_text(t)", "os.replace(a, b)", "open(p, 'w')", "p.open(mode='ab')",
                 "json.dump(d, f)", "os.open(p, os.O_WRONLY | os.O_CREAT)",
                 "tempfile.NamedTemporaryFile('w')"):
        call = ast.parse(code).body[0].value  # type: ignore[attr-defined]
        assert _writes(call), code
    for code in ("open(p)", "p.read_text()", "userfiles.write_text(p, t)", "write_text(p, t)",
                 "os.open(p, os.O_RDONLY)", "s.replace('a', 'b')",
                 "os.open(os.devnull, os.O_WRONLY)"):
        call = ast.parse(code).body[0].value  # type: ignore[attr-defined]
        assert not _writes(call), code


# -- reading ----------------------------------------------------------------------------------


def test_dev_zero_is_refused_without_reading_it() -> None:
    """/dev/zero never ends: refused by its kind, in one line."""
    with pytest.raises(InvalidInput, match=r"/dev/zero: catalog file is a character device, "
                                           r"not a regular file"):
        read_text("/dev/zero", what="catalog file")


@pytest.fixture
def fifo_with_late_writer(tmp_path: Path) -> Iterator[Path]:
    """A FIFO; should a reader wrongly open it, a writer turns up within 2 s so the test fails
    instead of hanging."""
    fifo = tmp_path / "catalog.json"
    os.mkfifo(fifo)
    done = threading.Event()

    def late_writer() -> None:
        deadline = time.monotonic() + 2
        while not done.is_set() and time.monotonic() < deadline:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO while nobody reads
            except OSError:
                time.sleep(0.05)
                continue
            os.write(fd, b"{}")
            os.close(fd)
            return

    thread = threading.Thread(target=late_writer, daemon=True)
    thread.start()
    yield fifo
    done.set()
    thread.join(5)


@pytest.mark.timeout(10)
def test_a_fifo_is_refused_without_blocking(fifo_with_late_writer: Path) -> None:
    started = time.monotonic()
    with pytest.raises(InvalidInput, match=r"catalog.json: catalog file is a FIFO \(named pipe\)"):
        read_text(fifo_with_late_writer, what="catalog file")
    assert time.monotonic() - started < 1


def test_a_huge_file_is_refused_by_its_size(tmp_path: Path) -> None:
    """A sparse file one byte over the limit: refused before anything is read."""
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(userfiles.MAX_READ_BYTES + 1)
    with pytest.raises(InvalidInput, match=r"big.json: io profile is 16,777,217 bytes, over "
                                           r"the 16 MiB limit"):
        read_json_object(big, what="io profile")


def test_a_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text('{"a": 1}', "utf-8")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    assert read_json_object(tmp_path / "link.json", what="result file") == {"a": 1}


@pytest.mark.parametrize(("text", "message"), [
    ("[" * 100_000, "nests JSON too deeply to read"),
    ('{"n": 1' + "0" * 5000 + "}", r"is not JSON this advisor reads \(Exceeds the limit"),
    ("{", r"is not JSON \(Expecting property name"),
    ("[1]", "a result file is a JSON object, this is a list"),
    (b"\xff\xfe{}", "is not UTF-8 text"),
])
def test_bad_json_is_one_line(tmp_path: Path, text: str | bytes, message: str) -> None:
    path = tmp_path / "r.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, "utf-8")
    with pytest.raises(InvalidInput, match=message) as err:
        read_json_object(path, what="result file")
    assert "\n" not in str(err.value)
