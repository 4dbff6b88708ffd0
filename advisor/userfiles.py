"""The edge where user files and the environment enter: catalog files, I/O profiles, results.

The core (catalog, layout, simulator, recommender) takes text and values; this module reads
them, and writes results, reports and profiles (atomically). The one JSON reader and writer.
"""

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from advisor.catalog.load import builtin_catalog, extend_catalog
from advisor.catalog.model import Catalog
from advisor.errors import CatalogError, InvalidInput

CATALOG_ENV = "ADVISOR_CATALOG"


def read_text(path: str | Path, *, what: str) -> str:
    """The text of a user file, or one line saying why it cannot be read."""
    try:
        return Path(path).read_text("utf-8")
    except FileNotFoundError:
        raise InvalidInput(f"{path}: {what} not found") from None
    except IsADirectoryError:
        raise InvalidInput(f"{path}: {what} is a directory, not a file") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: {what} is not UTF-8 text") from None
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read {what} ({exc.strerror})") from None


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
    """Write atomically: a crash leaves the old file or the new one, never half of one. The file
    gets the usual permissions (0666 less the umask), not the temporary file's 0600."""
    import tempfile

    target = Path(path)
    try:
        with tempfile.NamedTemporaryFile("w", dir=target.parent or ".", prefix=f".{target.name}.",
                                         suffix=".tmp", delete=False, encoding="utf-8") as tmp:
            tmp.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp.name, 0o666 & ~umask)
        os.replace(tmp.name, target)
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot write the {what} ({exc.strerror})") from None


def write_json(path: str | Path, data: object, *, what: str = "result") -> None:
    """`data` as indented JSON, written atomically (`write_text`)."""
    import json

    write_text(path, json.dumps(data, indent=2) + "\n", what=what)
