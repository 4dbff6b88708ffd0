"""The fleet report: totals, savings by family and by workload, the rows that meet no SLO and
why, and what the fleet would run on (instance families, storage types, RAID levels).

HTML through the shared templates (`templates/fleet.html.j2`); JSON is the summary itself
(`fleet_json`), one serialiser for the CLI, the API and the report.
"""

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from advisor import MODEL_VERSION, __version__
from advisor.serial import to_json
from recommend.fleet import FleetSummary, Savings

MAX_UNMET_ROWS = 500  # rows listed in the HTML; the JSON holds every one


def fleet_json(summary: FleetSummary, *, where: str, seconds: float | None) -> dict[str, Any]:
    """The report as JSON: the summary's figures, where the rows ran and how long they took."""
    out: dict[str, Any] = to_json(summary)
    out.update(where=where, seconds=None if seconds is None else round(seconds, 2),
               advisor_version=__version__, model_version=MODEL_VERSION)
    return out


def _usd(v: float | None) -> str:
    return "-" if v is None else f"${v:,.2f}"


def _savings_rows(groups: Mapping[str, Savings]) -> list[dict[str, Any]]:
    return [{"name": k, "rows": s.rows, "current": _usd(s.current_monthly_usd),
             "recommended": _usd(s.recommended_monthly_usd),
             "savings": _usd(s.savings_monthly_usd),
             "pct": "-" if not s.current_monthly_usd
             else f"{100 * s.savings_monthly_usd / s.current_monthly_usd:,.1f} %"}
            for k, s in groups.items()]


def _share(counts: Mapping[str, int]) -> list[dict[str, Any]]:
    total = sum(counts.values()) or 1
    return [{"name": k, "rows": n, "pct": f"{100 * n / total:,.1f} %"}
            for k, n in counts.items()]


def fleet_context(summary: FleetSummary, *, where: str, seconds: float | None,
                  command: str) -> dict[str, Any]:
    c = summary.compared
    status = summary.by_status
    facts = [
        ("rows", f"{summary.rows:,}"),
        ("sized", f"{status.get('ok', 0):,}"),
        ("meet no SLO", f"{status.get('no_slo', 0):,}"),
        ("refused (bad values)", f"{status.get('invalid', 0):,}"),
        ("failed (internal)", f"{status.get('error', 0):,}"),
        ("recommended, every sized row", _usd(summary.recommended_monthly_usd) + " / month"),
        (f"current, {c.rows:,} rows that state it", _usd(c.current_monthly_usd) + " / month"),
        ("recommended, the same rows", _usd(c.recommended_monthly_usd) + " / month"),
        ("savings, the same rows", _usd(c.savings_monthly_usd) + " / month"),
    ]
    return {
        "kind": "fleet", "eyebrow": "fleet",
        "title": f"Fleet sizing: {summary.rows:,} workloads",
        "summary": f"{_usd(c.current_monthly_usd)} now, {_usd(c.recommended_monthly_usd)} "
                   f"recommended ({_usd(c.savings_monthly_usd)} a month) over {c.rows:,} rows "
                   "with a current cost",
        "facts": facts,
        "by_family": _savings_rows(summary.savings_by_family),
        "by_workload": _savings_rows(summary.savings_by_workload),
        "top": [{"id": r.id, "workload": r.workload, "current": r.current_deployment or "-",
                 "current_usd": _usd(r.current_monthly_usd), "deployment": r.deployment or "-",
                 "usd": _usd(r.monthly_usd), "savings": _usd(r.savings_monthly_usd)}
                for r in summary.top_savings],
        "unmet": [{"id": r.id, "workload": r.workload, "status": r.status, "reason": r.reason}
                  for r in summary.unmet[:MAX_UNMET_ROWS]],
        "unmet_total": len(summary.unmet),
        "families": _share(summary.families), "storage_types": _share(summary.storage_types),
        "raid_levels": _share(summary.raid_levels),
        "where": where, "seconds": "-" if seconds is None else f"{seconds:,.1f} s",
        "command": command, "seed": None, "catalog_version": summary.catalog_version,
    }


def render_fleet(summary: FleetSummary, *, where: str, seconds: float | None,
                 command: str, run_id: str | None = None) -> str:
    """The fleet report as one self-contained HTML page."""
    from advisor.report.render import ENV, _load

    ctx = fleet_context(summary, where=where, seconds=seconds, command=command)
    ctx.update(advisor_version=__version__, model_version=MODEL_VERSION, run_id=run_id,
               created_at=None, rendered_by=__version__, css=Markup(_load("report.css")))
    return ENV.get_template("fleet.html.j2").render(**ctx)
