"""Charts for the HTML reports: matplotlib figures saved as inline SVG.

Text stays text (`svg.fonttype = none`), ids are made unique per chart so several charts can
share one page, and the metadata block (with its URLs) is dropped: the SVG has no external
reference. Figures are built without pyplot (no global figure state) and saved under a lock,
because the SVG backend reads rcParams at save time and the API renders from several threads.
"""

import io
import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from advisor.sim.results import HistogramBin

PALETTE = ("#2563eb", "#ea580c", "#16a34a", "#9333ea", "#0891b2", "#be123c", "#4d7c0f")
SLO_COLOUR = "#dc2626"
GRID_COLOUR = "#e5e7eb"
INK = "#1f2937"
MUTED = "#6b7280"
WIDTH_IN, HEIGHT_IN = 8.0, 3.6

_RC: dict[Any, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "advisor-report",  # stable ids: the same data gives the same SVG
    "font.family": ["DejaVu Sans", "sans-serif"],
    "font.size": 10,
    "axes.edgecolor": "#9ca3af",
    "axes.labelcolor": INK,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "xtick.color": MUTED,
    "ytick.color": MUTED,
    "legend.frameon": False,
    "legend.fontsize": 9,
}
_LOCK = threading.Lock()
_ID = re.compile(r'\bid="([^"]+)"')


@dataclass(frozen=True, slots=True, kw_only=True)
class Series:
    label: str
    x: Sequence[float]
    y: Sequence[float | None]
    colour: str | None = None
    dashed: bool = False
    marker: str | None = "o"
    right: bool = False  # plot against the right-hand axis
    emphasis: bool = False  # drawn thicker and on top (the recommendation)


@dataclass(frozen=True, slots=True, kw_only=True)
class Mark:
    """A reference line (SLO, target load) or point (the knee)."""

    label: str
    x: float | None = None
    y: float | None = None
    colour: str = SLO_COLOUR
    style: str = "--"


@dataclass(frozen=True, slots=True, kw_only=True)
class LineChart:
    title: str
    xlabel: str
    ylabel: str
    series: list[Series]
    marks: list[Mark] = field(default_factory=list)
    right_label: str | None = None
    right_percent: bool = False
    logy: bool = False
    ymax: float | None = None
    shade_from: float | None = None  # x beyond which the load fails the SLO
    shade_label: str = "misses the SLO"


def _fmt(value: float, _pos: int | None = None) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.0f}"
    if abs(value) >= 1:
        return f"{value:.1f}".rstrip("0").rstrip(".")
    return f"{value:.3g}"


def _figure(height: float = HEIGHT_IN) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(WIDTH_IN, height), layout="constrained")
    FigureCanvasSVG(fig)
    ax = fig.add_subplot()
    ax.grid(True, color=GRID_COLOUR, linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig, ax


def _svg(fig: Figure, chart_id: str, alt: str) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Format": None,
                                             "Type": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    text = re.sub(r'\s(width|height)="[\d.]+pt"', "", text, count=2)  # scale with the page
    for old in set(_ID.findall(text)):
        new = f"{chart_id}-{old}"
        text = text.replace(f'id="{old}"', f'id="{new}"').replace(f"#{old})", f"#{new})") \
            .replace(f'"#{old}"', f'"#{new}"')
    return text.replace("<svg ", f'<svg role="img" aria-label="{_attr(alt)}" ', 1)


def _attr(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def _finite(xs: Sequence[float], ys: Sequence[float | None]) -> tuple[list[float], list[float]]:
    pts = [(x, y) for x, y in zip(xs, ys, strict=True)
           if y is not None and math.isfinite(y) and math.isfinite(x)]
    return [p[0] for p in pts], [p[1] for p in pts]


def line_chart(chart: LineChart, chart_id: str) -> str:
    """Lines (optionally some on a right-hand axis), reference lines and the knee point."""
    with _LOCK, matplotlib.rc_context(_RC):
        fig, ax = _figure()
        right = ax.twinx() if any(s.right for s in chart.series) else None
        if right is not None:
            right.spines["top"].set_visible(False)
            right.set_ylabel(chart.right_label or "")
            if chart.right_percent:
                right.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:.0%}"))
                right.set_ylim(-0.02, 1.05)
        colours = iter(PALETTE)
        seen: dict[str, str] = {}
        for s in chart.series:
            xs, ys = _finite(s.x, s.y)
            if not xs:
                continue
            base = s.label.split(" · ")[0]
            colour = s.colour or seen.get(base) or next(colours, MUTED)
            seen.setdefault(base, colour)
            target = right if s.right and right is not None else ax
            target.plot(xs, ys, label=s.label, color=colour, linestyle="--" if s.dashed else "-",
                        marker=s.marker, markersize=4 if s.emphasis else 3,
                        linewidth=2.6 if s.emphasis else 1.5, zorder=4 if s.emphasis else 2,
                        alpha=1.0 if s.emphasis or not any(x.emphasis for x in chart.series)
                        else 0.75)
        xmax = max((x for s in chart.series for x in _finite(s.x, s.y)[0]), default=1.0)
        xmax = max([xmax] + [m.x for m in chart.marks if m.x is not None]) * 1.03
        ax.set_xlim(0, xmax)
        if chart.shade_from is not None and chart.shade_from < xmax:
            ax.axvspan(chart.shade_from, xmax, color="#fee2e2", alpha=0.6, lw=0,
                       label=chart.shade_label)
        for m in chart.marks:
            if m.x is not None and m.y is not None:
                ax.plot([m.x], [m.y], marker="D", markersize=8, color=m.colour,
                        linestyle="none", label=m.label, zorder=5)
            elif m.y is not None:
                ax.axhline(m.y, color=m.colour, linestyle=m.style, linewidth=1.2, label=m.label)
            elif m.x is not None:
                ax.axvline(m.x, color=m.colour, linestyle=m.style, linewidth=1.2, label=m.label)
        if chart.logy:
            ax.set_yscale("log")
        else:
            top = max((y for s in chart.series if not s.right for y in _finite(s.x, s.y)[1]),
                      default=1.0)
            ax.set_ylim(0, max(top * 1.08, 1e-9))
        xs_all = [x for s in chart.series for x in s.x]
        if xs_all and all(float(x).is_integer() for x in xs_all) and max(xs_all) <= 64:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if chart.ymax is not None:
            ax.set_ylim(top=chart.ymax)
        ax.xaxis.set_major_formatter(FuncFormatter(_fmt))
        ax.yaxis.set_major_formatter(FuncFormatter(_fmt))
        ax.set_title(chart.title)
        ax.set_xlabel(chart.xlabel)
        ax.set_ylabel(chart.ylabel)
        handles, labels = ax.get_legend_handles_labels()
        if right is not None:
            h2, l2 = right.get_legend_handles_labels()
            handles, labels = handles + h2, labels + l2
        if handles:
            fig.legend(handles, labels, loc="outside lower center",
                       ncol=min(3, len(handles)))
        return _svg(fig, chart_id, chart.title)


def histogram_chart(bins: Sequence[HistogramBin], chart_id: str, *, title: str) -> str:
    """Latency histogram: one bar per power-of-two bucket, share of I/Os in %."""
    with _LOCK, matplotlib.rc_context(_RC):
        fig, ax = _figure(3.0)
        total = sum(b.count for b in bins) or 1
        labels = [f"{_fmt(b.ge_ms)}–{_fmt(b.lt_ms)}" for b in bins]
        shares = [100 * b.count / total for b in bins]
        ax.bar(range(len(bins)), shares, color=PALETTE[0], width=0.8)
        ax.set_xticks(range(len(bins)), labels, rotation=30, ha="right")
        ax.set_ylabel("% of I/Os")
        ax.set_xlabel("latency (ms)")
        ax.set_title(title)
        ax.grid(axis="x", visible=False)
        return _svg(fig, chart_id, title)
