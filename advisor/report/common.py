"""Pieces every report uses: number formatting, cost tables, timeline and histogram charts."""

from typing import Any

from markupsafe import Markup

from advisor.report.charts import (
    PALETTE,
    LineChart,
    Series,
    histogram_chart,
    line_chart,
    responsive,
)
from advisor.sim.results import Level, TimelinePoint
from workloads.results import MysqlLevel

BURST_MATTERS = 0.995  # a bucket that never falls below this is not worth a chart


def fmt_usd(value: float | None) -> str:
    return "-" if value is None else f"${value:,.2f}"


def fmt_value(value: Any, unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.3g}"
    elif isinstance(value, int):
        text = f"{value:,}"
    else:
        text = str(value)
    return text + unit


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f}" if value >= 100 else f"{value:,.3g}"


def load_label(load: dict[str, Any]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v:,g}" if isinstance(v, int | float) else f"{k} {v}"
                     for k, v in load.items())


def cost_table(title: str, cost: dict[str, Any]) -> dict[str, Any]:
    rows = [{"item": i["item"], "quantity": f"{i['quantity']:,.0f} {i['unit']}",
             "unit": f"${i['unit_usd']:g}", "usd": f"{i['monthly_usd']:,.2f}"}
            for i in cost.get("items", [])]
    return {"title": title, "rows": rows, "total": fmt_usd(cost.get("monthly_usd")),
            "instance": fmt_usd(cost.get("instance_usd")),
            "storage": fmt_usd(cost.get("storage_usd")), "notes": cost.get("notes", [])}


def _timelines(level: Level | MysqlLevel) -> list[tuple[str, tuple[TimelinePoint, ...]]]:
    if isinstance(level, MysqlLevel):
        return [(f"{s.role} {s.layout}", s.timeline) for s in level.servers if s.timeline]
    return [("", level.timeline)] if level.timeline else []


def timeline_chart(level: Level | MysqlLevel, chart_id: str, *, at: str,
                   hours: float | None = None, always: bool = False) -> dict[str, Any]:
    """IOPS and every burst bucket's balance over time; `matters` False when none drains (then
    no chart, unless `always`: simulation reports always draw the IOPS timeline)."""
    parts = _timelines(level)
    if not parts:
        return {"matters": False, "svg": None, "text": "No timeline in this result."}
    lowest: dict[str, float] = {}
    for who, points in parts:
        for p in points:
            for bucket, frac in (p.buckets or {}).items():
                key = f"{who}: {bucket}" if who else bucket
                lowest[key] = min(lowest.get(key, 1.0), frac)
    if not lowest:
        text = (f"No burst bucket on these layouts at {at}: gp3, io1, io2 and instance store "
                "have none, so the rate is the same all day.")
    elif min(lowest.values()) >= BURST_MATTERS:
        names = sorted({k.split(": ", 1)[-1] for k in lowest})
        floor = min(lowest.values())
        text = (f"No burst bucket drains at {at}" + (f" over {hours:g} h" if hours else "")
                + f": {', '.join(names)} " + ("stay full." if floor >= 0.9995 else
                                              f"stay above {floor:.1%}."))
    else:
        text = "; ".join(f"{k} falls to {max(0.0, v):.0%}" for k, v in sorted(lowest.items())
                         if v < BURST_MATTERS) + (f" over {hours:g} h" if hours else "") + "."
    matters = bool(lowest) and min(lowest.values()) < BURST_MATTERS
    if not matters and not always:
        return {"matters": False, "svg": None, "text": text}
    span = max((p.t_s for _, pts in parts for p in pts), default=0.0)
    scale, unit = (3600.0, "hours") if span > 7200 else (60.0, "minutes") if span > 600 else \
        (1.0, "seconds")
    series: list[Series] = []
    for n, (who, points) in enumerate(parts):
        colour = PALETTE[n % len(PALETTE)]
        xs = [p.t_s / scale for p in points]
        series.append(Series(label=f"{who} · IOPS" if who else "IOPS", x=xs,
                             y=[p.iops for p in points], colour=colour))
        buckets = sorted({b for p in points for b in (p.buckets or {})})
        for k, bucket in enumerate(buckets):
            key = f"{who}: {bucket}" if who else bucket
            if lowest.get(key, 1.0) >= BURST_MATTERS:
                continue
            series.append(Series(label=f"{who} · {bucket} credits" if who else f"{bucket} credits",
                                 x=xs,
                                 y=[(p.buckets or {}).get(bucket) for p in points],
                                 colour=PALETTE[(n + k + 2) % len(PALETTE)], dashed=True,
                                 right=True))
    title = (f"IOPS and burst credits over time at {at}" if matters else
             f"IOPS over time at {at}")
    chart = LineChart(title=title, xlabel=unit, ylabel="IOPS", series=series,
                      right_label="credits left", right_percent=True)
    return {"matters": matters, "svg": responsive(line_chart, chart, chart_id), "text": text}


def histogram_section(level: Level, chart_id: str, title: str) -> Markup | None:
    bins = level.histogram or ()
    if not any(b.count for b in bins):
        return None
    return responsive(histogram_chart, bins, chart_id, title=title)
