"""Loading a benchmark script (bench/NAME.py) as a module, as the tests of its logic do: the
scripts are not a package, and some import their siblings (bench/attack.py its inputs)."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_bench(name: str) -> ModuleType:
    """bench/NAME.py as the module NAME (registered in `sys.modules`, with bench/ on the path
    while it runs, so the siblings it imports load too)."""
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))
