"""Where numba caches the compiled kernel: per user, never inside the installed package."""

import json
import os
import subprocess
import sys
from pathlib import Path

# A fresh interpreter: numba is imported (and its configuration read) before the kernel module.
_PROBE = """
import json, numba
from advisor.sim import kernel
print(json.dumps({"config": numba.config.CACHE_DIR,
                  "kernel": kernel._submit._cache.cache_path,
                  "package": kernel.__file__}))
"""


def _cache_paths(tmp_path: Path, **env: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_"))}
    environ.update(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"), **env)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=environ, capture_output=True,
                         text=True, check=True, timeout=120)
    paths: dict[str, str] = json.loads(out.stdout)
    return paths


def test_kernel_is_cached_per_user_even_when_numba_was_imported_first(tmp_path: Path) -> None:
    """numba already loaded: the kernel still goes to the user's cache, not site-packages."""
    paths = _cache_paths(tmp_path)
    user_cache = tmp_path / "cache" / "advisor" / "numba"
    assert Path(paths["config"]) == user_cache
    assert Path(paths["kernel"]).is_relative_to(user_cache)
    assert not Path(paths["kernel"]).is_relative_to(Path(paths["package"]).parent)


def test_numba_cache_dir_set_by_the_user_wins(tmp_path: Path) -> None:
    """$NUMBA_CACHE_DIR, when set, is where the kernel goes."""
    mine = tmp_path / "mine"
    paths = _cache_paths(tmp_path, NUMBA_CACHE_DIR=str(mine))
    assert Path(paths["kernel"]).is_relative_to(mine)


_BLAS_PROBE = """
import contextlib, io, json, sys
import numpy as np
from advisor.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):  # an event simulation: the kernel runs
    code = main(["simulate", "c5.large:gp3:100GiB", "--rw", "randread", "--iodepth", "4",
                 "--duration", "1", "--engine", "des", "--format", "json"])
assert code == 0, code
loaded = "scipy.linalg" in sys.modules
import scipy.linalg
print(json.dumps({"linalg_before": loaded, "linalg_after": "scipy.linalg" in sys.modules,
                  "lu": float(scipy.linalg.det(np.eye(2)))}))
"""


def test_the_kernel_loads_without_scipy_linalg_which_imports_as_usual_after() -> None:
    """numba's array lowering probes for BLAS by importing scipy.linalg (~0.13 s of a cold
    `advisor size`); an event simulation runs the kernel, which uses no BLAS, without it, and
    scipy.linalg still imports and works afterwards in the same process."""
    out = subprocess.run([sys.executable, "-c", _BLAS_PROBE], capture_output=True, text=True,
                         check=True, timeout=300)
    seen = json.loads(out.stdout)
    assert seen == {"linalg_before": False, "linalg_after": True, "lu": 1.0}
