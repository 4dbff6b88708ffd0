"""The edge where user files and the environment enter: catalog files, I/O profiles, results.

The core (catalog, layout, simulator, recommender) takes text and values; this module reads
them, and writes results, reports and profiles (atomically). The one JSON reader and writer.
"""

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from advisor.catalog.load import builtin_catalog, extend_catalog
from advisor.catalog.model import Catalog
from advisor.errors import CatalogError, InvalidInput

CATALOG_ENV = "ADVISOR_CATALOG"
# Catalogs, profiles, fio JSON and results are kilobytes to a few MiB; more is a wrong file.
MAX_READ_BYTES = 16 * 2**20


def read_text(path: str | Path, *, what: str, limit_bytes: int = MAX_READ_BYTES) -> str:
    """The text of a user file, or one line saying why it cannot be read.

    Only a regular file (or a symlink to one) is read, and at most `limit_bytes` of it: a FIFO
    would block, /dev/zero never ends, a device may have side effects on open."""
    data = _read_bytes(Path(path), what=what, limit_bytes=limit_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: {what} is not UTF-8 text") from None


def _read_bytes(path: Path, *, what: str, limit_bytes: int) -> bytes:
    try:
        _readable(path, os.stat(path), what, limit_bytes)
        # O_NONBLOCK: a FIFO swapped in after the check must not block the open; fstat decides.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as file:
            _readable(path, os.fstat(file.fileno()), what, limit_bytes)
            data = file.read(limit_bytes + 1)
    except FileNotFoundError:
        raise InvalidInput(f"{path}: {what} not found") from None
    except IsADirectoryError:
        raise InvalidInput(f"{path}: {what} is a directory, not a file") from None
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read {what} ({exc.strerror})") from None
    if len(data) > limit_bytes:  # grew after the check
        raise InvalidInput(f"{path}: {what} is over the {_mib(limit_bytes)} limit")
    return data


def _readable(path: Path, st: os.stat_result, what: str, limit_bytes: int) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise InvalidInput(f"{path}: {what} is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise InvalidInput(f"{path}: {what} is {_kind(st.st_mode)}, not a regular file")
    if st.st_size > limit_bytes:
        raise InvalidInput(f"{path}: {what} is {st.st_size:,} bytes, over the "
                           f"{_mib(limit_bytes)} limit")


def _kind(mode: int) -> str:
    """What a non-regular file is, as a user would say it."""
    for test, name in ((stat.S_ISLNK, "a symlink"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _mib(size_bytes: int) -> str:
    return f"{size_bytes / 2**20:,.4g} MiB"


def read_json_object(path: str | Path, *, what: str, skip_preamble: bool = False) -> dict[str, Any]:
    """A user file holding one JSON object, or one line saying why it is not one.

    `skip_preamble`: ignore text before the first `{` (fio prints warnings before its JSON)."""
    import json

    text = read_text(path, what=what)
    if skip_preamble and "{" in text:
        text = text[text.index("{"):]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path}: {what} is not JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise InvalidInput(f"{path}: {what} nests JSON too deeply to read") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise InvalidInput(f"{path}: {what} is not JSON this advisor reads "
                           f"({str(exc).split(':')[0]})") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path}: a {what} is a JSON object, this is a {type(data).__name__}")
    return data


def load_catalog(user_files: Iterable[str | Path] = (), *, use_env: bool = True) -> Catalog:
    """The built-in catalog, then `$ADVISOR_CATALOG` (os.pathsep-separated), then `user_files`."""
    catalog = builtin_catalog()
    paths: list[str | Path] = []
    if use_env and os.environ.get(CATALOG_ENV):
        paths += [p for p in os.environ[CATALOG_ENV].split(os.pathsep) if p]
    paths += list(user_files)
    for path in paths:
        try:
            text = read_text(path, what="catalog file")
        except InvalidInput as exc:
            raise CatalogError(str(exc)) from None
        catalog = extend_catalog(catalog, str(path), text)
    return catalog


def write_text(path: str | Path, text: str, *, what: str = "file") -> None:
    """`write_bytes` of the text in UTF-8."""
    write_bytes(path, text.encode("utf-8"), what=what)


def read_bytes(path: str | Path, *, what: str, limit_bytes: int = MAX_READ_BYTES) -> bytes:
    """A user's binary file (a Parquet table, say), read with the same checks as `read_text`."""
    return _read_bytes(Path(path), what=what, limit_bytes=limit_bytes)


def write_bytes(path: str | Path, data: bytes, *, what: str = "file") -> None:
    """The one writer of results, reports and profiles: to a regular file or a new path only,
    atomically (a temporary file in the same directory, fsync, rename, fsync of the directory),
    so a crash leaves the old file or the new one, never half of one.

    A symlink, FIFO, device node or directory at `path` is refused with one line: a rename
    would replace it (as root, /dev/null) and writing through it would reach something else.
    An existing file keeps its permission bits; a new one gets 0666 less the umask."""
    target = Path(path)
    try:
        mode = _writable(target, what)
        tmp = _write_temporary(target, data, mode)
        try:
            _writable(target, what)  # the rename replaces what is there now: check once more
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _fsync_directory(target.parent)
    except FileNotFoundError:
        raise InvalidInput(f"{path}: cannot write the {what} (the directory {target.parent} "
                           "does not exist)") from None
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot write the {what} ({exc.strerror})") from None


def check_output(path: str | Path | None, *, what: str) -> None:
    """Refuse an output path before the work that fills it (a sizing may take a minute), by the
    rule `write_text` applies again when it writes; None: no output asked for."""
    if path is None:
        return
    target = Path(path)
    _writable(target, what)
    if not target.parent.is_dir():
        raise InvalidInput(f"{path}: cannot write the {what} (the directory {target.parent} "
                           "does not exist)")


def _writable(target: Path, what: str) -> int | None:
    """The permission bits of the regular file at `target` (None if there is none), or one line
    refusing to replace anything else."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise InvalidInput(f"{target}: is {_kind(st.st_mode)}; the {what} is written only to a "
                           "regular file or a new path")
    return stat.S_IMODE(st.st_mode)


def _write_temporary(target: Path, data: bytes, mode: int | None) -> Path:
    """`data` in a new file beside `target`, flushed to the disk."""
    import secrets

    while True:  # O_EXCL | O_NOFOLLOW: never an existing file or a planted symlink
        tmp = target.parent / f".{target.name[:200]}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o666)  # the kernel applies the umask
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            if mode is not None:
                os.fchmod(file.fileno(), mode)
            os.fsync(file.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable; file systems that cannot fsync a directory are skipped."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_json(path: str | Path, data: object, *, what: str = "result") -> None:
    """`data` as indented JSON, written by `write_text`."""
    import json

    write_text(path, json.dumps(data, indent=2) + "\n", what=what)


def write_directory(path: str | Path, files: Mapping[str, str], *, executable: Iterable[str] = (),
                    what: str = "directory") -> None:
    """All `files` (name -> text) in the directory `path`, or none: they are written (each
    atomically) to a new directory beside it, which then becomes `path` by one rename (a new or
    empty `path`), or whose files replace theirs one by one (an existing `path` the caller
    agreed to overwrite). Names in `executable` get mode 0755."""
    import secrets
    import shutil

    target = Path(path)
    tmp = target.parent / f".{target.name[:200]}.{secrets.token_hex(6)}.tmp"
    run = set(executable)
    try:
        os.mkdir(tmp, 0o755)
        for name, text in files.items():
            write_text(tmp / name, text, what=name)
            if name in run:
                os.chmod(tmp / name, 0o755)
        if target.is_dir() and not any(target.iterdir()):
            os.rmdir(target)
        if not target.exists():
            os.rename(tmp, target)
            return
        for name in files:
            os.replace(tmp / name, target / name)
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot write the {what} ({exc.strerror})") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def open_stream(path: str | Path, *, what: str) -> IO[str]:
    """A text file to write row by row (results streamed as they finish, which a crash may
    leave part-written by design), opened only over a regular file or at a new path, as
    `write_text` would replace."""
    target = Path(path)
    _writable(target, what)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o666)
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot write the {what} ({exc.strerror})") from None
    return os.fdopen(fd, "w", newline="", encoding="utf-8")
