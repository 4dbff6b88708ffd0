"""Render any result (size, simulate, replay; anything else as a plain summary) to one HTML file.

Templates live in the installed `templates` package and are read through importlib.resources,
so a wheel install finds them as well as a checkout. Autoescape is on for everything and
undefined names raise: a template typo fails the render instead of printing nothing.
The page is self-contained: inline CSS, inline SVG charts, no script, font or image link.
"""

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from advisor import MODEL_VERSION, __version__
from advisor.catalog.model import Catalog
from advisor.errors import AdvisorError, InvalidInput

TEMPLATE_PACKAGE = "templates"
RENDERED_KINDS = ("size", "simulate", "replay")


def _load(name: str) -> str:
    try:
        return resources.files(TEMPLATE_PACKAGE).joinpath(name).read_text("utf-8")
    except FileNotFoundError:
        raise jinja2.TemplateNotFound(name) from None


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FunctionLoader(_load), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["usd"] = lambda v: "-" if v is None else f"${v:,.2f}"
    env.filters["pct"] = lambda v, digits=1: "-" if v is None else f"{100 * v:.{digits}f} %"
    env.filters["sci"] = lambda v: "-" if v is None else f"{v:.2e}"
    env.filters["loss"] = _loss
    env.filters["spec"] = _breakable
    return env


def _breakable(text: object) -> Markup:
    """A layout spec that may wrap after its colons (never inside a token) in narrow cells."""
    return Markup(":<wbr>").join(escape(str(text)).split(":"))


def _loss(p: float | None) -> str:
    """An annual probability as people read it: 0.80 % (about 1 in 125)."""
    if p is None:
        return "-"
    if p <= 0:
        return "0"
    return f"{100 * p:.2g} % (about 1 in {round(1 / p):,})"


ENV = _environment()


def kind_of(result: dict[str, Any]) -> str:
    """size | simulate | replay, from the result's own `kind` (or its shape, for old files)."""
    kind = result.get("kind")
    if kind in RENDERED_KINDS:
        return str(kind)
    if "recommendation" in result and "request" in result:
        return "size"
    if "levels" in result and "layout" in result:
        return "simulate"
    if "levels" in result and "target" in result:
        return "replay"
    return "other"


def _check(result: dict[str, Any], kind: str) -> None:
    need = {"size": ("request", "slo", "recommendation", "alternatives", "rejected"),
            "simulate": ("layout", "levels", "duration_s", "bottleneck"),
            "replay": ("levels",)}.get(kind, ())
    missing = [k for k in need if k not in result]
    if missing:
        raise InvalidInput(f"not a complete {kind} result: missing {', '.join(missing)}")
    if kind == "simulate" and not result["levels"]:
        raise InvalidInput("not a complete simulate result: no levels")


def render_report(result: dict[str, Any], *, catalog: Catalog | None = None,
                  compare: dict[str, Any] | None = None, run_id: str | None = None,
                  created_at: str | None = None) -> str:
    """The HTML report of `result`. `catalog` lets a size report draw its latency curves;
    `compare` is a simulation to overlay on a replay's measurements."""
    if not isinstance(result, dict):
        raise InvalidInput("a result is a JSON object")
    kind = kind_of(result)
    _check(result, kind)
    try:
        if kind == "size":
            from advisor.report.size_view import size_context

            ctx = size_context(*_size_parts(result, catalog))
        elif kind == "simulate":
            from advisor.report.simulate_view import simulate_context
            from workloads.results import load_simulate_result

            ctx = simulate_context(load_simulate_result(result))
        elif kind == "replay":
            from advisor.report.replay_view import replay_context

            ctx = replay_context(result, compare)
        else:
            ctx = _other_context(result)
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        raise InvalidInput(f"cannot read this {kind} result: {type(exc).__name__} {exc}") from None
    ctx.update(advisor_version=result.get("advisor_version", __version__),
               model_version=result.get("model_version", MODEL_VERSION),
               catalog_version=result.get("catalog_version", "-"), run_id=run_id,
               created_at=created_at, rendered_by=__version__, css=Markup(_load("report.css")))
    return ENV.get_template(f"{ctx['kind']}.html.j2").render(**ctx)


def _size_parts(result: dict[str, Any], catalog: Catalog | None) -> tuple[Any, Any, str | None]:
    """The typed size result, its curves (computed by the core, when a catalog is given) and
    why they are missing, if they are."""
    from recommend.curves import size_curves
    from recommend.result import load_size_result

    typed = load_size_result(result)
    if catalog is None:
        return typed, None, None
    try:
        return typed, size_curves(typed, catalog), None
    except AdvisorError as exc:  # a layout this catalog no longer knows
        return typed, None, f"curves not drawn: {exc}"


def _other_context(result: dict[str, Any]) -> dict[str, Any]:
    scalars = [(k, v) for k, v in result.items() if isinstance(v, str | int | float | bool)
               or v is None]
    label = result.get("kind") or ("calibrate" if "calibration" in result or "runs" in result
                                   else "result")
    return {"kind": "other", "title": f"{str(label).capitalize()} result", "scalars": scalars,
            "document": json.dumps(result, indent=2, default=str)[:200_000],
            "command": str(result.get("command", "-")), "seed": result.get("seed")}


def read_result(path: str | Path) -> dict[str, Any]:
    """A result JSON file (as written by --out or --format json), or one line saying why not."""
    from advisor.userfiles import read_json_object

    return read_json_object(path, what="result file")


def write_html(path: str | Path, html: str) -> None:
    """Write the report atomically (a crash leaves the old file or the new one)."""
    from advisor.userfiles import write_text

    write_text(path, html, what="report")
