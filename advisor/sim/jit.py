"""numba, configured once for every compiled function of the project: its cache per user, and
its array lowering loaded without a BLAS probe. Import `njit` from here, never from numba, so
that the configuration is in force before any decorator runs."""

import os
from typing import Any

import platformdirs

# numba caches compiled code beside the module by default, i.e. inside site-packages: files pip
# does not know of, which survive an uninstall and leave `advisor/` behind as a namespace package
# that shadows the next install (and fail on a read-only site-packages). Cache per user instead
# ($NUMBA_CACHE_DIR still wins). numba reads its environment once, at its own import, and each
# `@njit(cache=True)` picks its cache directory when it runs: so when numba was imported before
# this module, the configuration must be re-read here, before any decorator.
os.environ.setdefault("NUMBA_CACHE_DIR", str(platformdirs.user_cache_path("advisor") / "numba"))

from numba import njit
from numba.core.config import reload_config

reload_config()  # type: ignore[no-untyped-call]


def _array_lowering_without_blas_probe() -> None:
    """Load numba's array lowering (`numba.np.arraymath`) without its BLAS probe.

    The CPU target loads that module when it first initialises (the first compiled call, cached
    or not), and at its import the module probes for BLAS by importing `scipy.linalg`: ~0.13 s
    of a cold `advisor size`, for `np.dot` and the like, which no compiled function here uses (were
    one to, its compilation would fail loudly, naming BLAS). The probe's import fails fast while the
    name is None in `sys.modules`; the entry is removed at once, so `scipy.linalg` imports as
    usual afterwards."""
    import sys

    name = "scipy.linalg.cython_blas"
    if "numba.np.arraymath" in sys.modules or name in sys.modules:
        return
    sys.modules[name] = None  # type: ignore[assignment]
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules[name]


_array_lowering_without_blas_probe()


# Compiled without numba's reference counting (NRT), cached, without the GIL: the kernel
# (`advisor.sim.kernel`) and the level crossing allocate nothing (their scratch arrays come from
# the caller) and every array they are handed outlives the call. In the kernel, with counting
# on, each helper inlined into the per-I/O loop took an atomic increment and decrement per array
# argument, which numba's pruning leaves in place in branching code (numba issue 2350): over half
# the kernel's time per I/O. `_nrt` is numba's own switch for this (an unknown option fails at
# the first call, loudly).
FLAT: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}

__all__ = ["FLAT", "njit"]
