"""Charts for the HTML reports: matplotlib figures saved as inline SVG.

Text stays text (`svg.fonttype = none`), ids are made unique per chart so several charts can
share one page, and the metadata block (with its URLs) is dropped: the SVG has no external
reference. Figures are built without pyplot (no global figure state) and saved under a lock,
because the SVG backend reads rcParams at save time and the API renders from several threads.

Every chart is drawn twice, wide and narrow (`responsive`): an SVG scales with the page, and so
does its text, so a desktop chart squeezed to a phone's width has unreadable 6 px labels; the
stylesheet shows one or the other by the page's width (no script).

Curves stay apart when they overlap: each group of series (the part of the label before " · ",
e.g. one deployment) has its own colour and marker shape, dashed lines are a second percentile
or a second axis, markers of different groups sit on different points, and the emphasised series
is drawn first, wide, so thinner lines on top of it stay visible. The legend shows each line as
drawn (colour, dash and marker).
"""

import io
import math
import re
import textwrap
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import matplotlib
from markupsafe import Markup
from matplotlib.axes import Axes
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from advisor.sim.results import HistogramBin

PALETTE = ("#2563eb", "#ea580c", "#16a34a", "#9333ea", "#0891b2", "#be123c", "#4d7c0f")
MARKERS = ("o", "s", "^", "v", "P", "X", "*")  # not "D": the knee's mark
AUTO = "auto"  # a series' marker: its group's shape
MARKS_PER_LINE = 8  # a long series shows about this many markers
SLO_COLOUR = "#dc2626"
GRID_COLOUR = "#e5e7eb"
INK = "#1f2937"
MUTED = "#6b7280"
WIDTH_IN, HEIGHT_IN = 8.0, 3.6
NARROW_IN = 3.8  # a phone: ~340 CSS px of chart, so 10 pt text shows ~12 px high

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
    marker: str | None = AUTO  # AUTO: the group's shape; None: a line without markers
    right: bool = False  # plot against the right-hand axis
    emphasis: bool = False  # drawn wider, underneath the others (the recommendation)

    @property
    def group(self) -> str:
        """Series of one group (one deployment, one server) share colour and marker shape."""
        return self.label.split(" · ")[0]


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


def _figure(height: float = HEIGHT_IN, width: float = WIDTH_IN) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasSVG(fig)
    ax = fig.add_subplot()
    ax.grid(True, color=GRID_COLOUR, linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig, ax


def _svg(fig: Figure, chart_id: str, alt: str, variant: str = "wide") -> str:
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
    return text.replace("<svg ", f'<svg class="{variant}" role="img" '
                        f'aria-label="{_attr(alt)}" ', 1)


def _attr(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def _finite(xs: Sequence[float], ys: Sequence[float | None]) -> tuple[list[float], list[float]]:
    pts = [(x, y) for x, y in zip(xs, ys, strict=True)
           if y is not None and math.isfinite(y) and math.isfinite(x)]
    return [p[0] for p in pts], [p[1] for p in pts]


def _styles(series: Sequence[Series]) -> list[tuple[str, str | None, Any]]:
    """(colour, marker, markevery) per series: one colour and shape per group, markers of
    different groups on different points of a long series."""
    groups: dict[str, int] = {}
    colours: dict[str, str] = {}
    for s in series:
        groups.setdefault(s.group, len(groups))
        if s.colour is not None:
            colours.setdefault(s.group, s.colour)
    free = iter(c for c in PALETTE if c not in colours.values())
    for name in groups:
        if name not in colours:
            colours[name] = next(free, MUTED)
    out = []
    for s in series:
        g = groups[s.group]
        marker = MARKERS[g % len(MARKERS)] if s.marker == AUTO else s.marker
        n = len(s.x)
        every: Any = None
        if marker is not None and n > MARKS_PER_LINE:
            step = max(len(groups), math.ceil(n / MARKS_PER_LINE))
            every = ((g * step) // len(groups) % step, step)
        out.append((s.colour or colours[s.group], marker, every))
    return out


def line_chart(chart: LineChart, chart_id: str, *, narrow: bool = False) -> str:
    """Lines (optionally some on a right-hand axis), reference lines and the knee point; `narrow`
    draws it for a phone (taller, legend in one or two columns, title wrapped)."""
    with _LOCK, matplotlib.rc_context(_RC):
        entries = [s.label for s in chart.series] + [m.label for m in chart.marks] + (
            [chart.shade_label] if chart.shade_from is not None else [])
        # As many legend columns as fit the width: a column is the line sample, the gap and its
        # longest label (~5.3 pt a character at 9 pt).
        width_pt = 72 * (NARROW_IN if narrow else WIDTH_IN) * 0.95
        column_pt = 9 * (3.2 + 1.8) + 5.3 * max(map(len, entries), default=0)
        ncol = max(1, min(2 if narrow else 3, int(width_pt // column_pt)))
        # a label longer than a column is wrapped onto more lines
        wrap = max(16, int((width_pt / ncol - 9 * 5.0) / 5.3))
        lines = [len(textwrap.wrap(e, wrap)) or 1 for e in entries]
        rows = math.ceil(sum(lines) / ncol)  # legend lines below the plot: room for them
        if narrow:
            fig, ax = _figure(3.1 + 0.19 * rows, NARROW_IN)
        else:
            fig, ax = _figure(HEIGHT_IN + 0.19 * max(0, rows - 2))
        right = ax.twinx() if any(s.right for s in chart.series) else None
        if right is not None:
            right.spines["top"].set_visible(False)
            right.set_ylabel(chart.right_label or "")
            if chart.right_percent:
                right.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:.0%}"))
                right.set_ylim(-0.02, 1.05)
        emphasis = any(s.emphasis for s in chart.series)
        for s, (colour, marker, every) in zip(chart.series, _styles(chart.series), strict=True):
            pts = [(x, y, i) for i, (x, y) in enumerate(zip(s.x, s.y, strict=True))
                   if y is not None and math.isfinite(y) and math.isfinite(x)]
            if not pts:
                continue
            if every is not None:  # the same points whatever was dropped as not finite
                offset, step = every
                every = [k for k, (_, _, i) in enumerate(pts) if i % step == offset]
            target = right if s.right and right is not None else ax
            wide = s.emphasis or not emphasis
            target.plot([p[0] for p in pts], [p[1] for p in pts], label=s.label, color=colour,
                        linestyle=(0, (5, 2.5)) if s.dashed else "-", marker=marker,
                        markevery=every, markersize=6 if s.emphasis else 5,
                        markerfacecolor="white" if s.dashed else colour,
                        markeredgewidth=1.2, linewidth=3.2 if s.emphasis else 1.6 if wide else 1.4,
                        zorder=2 if s.emphasis else 3)
        xmax = max((x for s in chart.series for x in _finite(s.x, s.y)[0]), default=1.0)
        xmax = max([xmax] + [m.x for m in chart.marks if m.x is not None]) * 1.03
        if xmax <= 0:  # every point at x = 0 (an Aerospike load of no reads): a unit axis
            xmax = 1.0
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
        integer = bool(xs_all) and all(float(x).is_integer() for x in xs_all) \
            and max(xs_all) <= 64
        if integer or narrow:  # a phone's axis has room for about five labels
            ax.xaxis.set_major_locator(MaxNLocator(5 if narrow else "auto", integer=integer))
        if chart.ymax is not None:
            ax.set_ylim(top=chart.ymax)
        ax.xaxis.set_major_formatter(FuncFormatter(_fmt))
        ax.yaxis.set_major_formatter(FuncFormatter(_fmt))
        ax.set_title(textwrap.fill(chart.title, 38) if narrow else chart.title)
        ax.set_xlabel(chart.xlabel)
        ax.set_ylabel(chart.ylabel)
        handles, labels = ax.get_legend_handles_labels()
        if right is not None:
            h2, l2 = right.get_legend_handles_labels()
            handles, labels = handles + h2, labels + l2
        if handles:
            labels = [textwrap.fill(t, wrap) for t in labels]
            fig.legend(handles, labels, loc="outside lower center",
                       ncol=min(ncol, len(handles)), handlelength=2.6 if narrow else 3.2)
        return _svg(fig, f"{chart_id}-n" if narrow else chart_id, chart.title,
                    "narrow" if narrow else "wide")


def histogram_chart(bins: Sequence[HistogramBin], chart_id: str, *, title: str,
                    narrow: bool = False) -> str:
    """Latency histogram: one bar per power-of-two bucket, share of I/Os in %."""
    with _LOCK, matplotlib.rc_context(_RC):
        fig, ax = _figure(3.4, NARROW_IN) if narrow else _figure(3.0)
        total = sum(b.count for b in bins) or 1
        labels = [f"{_fmt(b.ge_ms)}–{_fmt(b.lt_ms)}" for b in bins]
        shares = [100 * b.count / total for b in bins]
        ax.bar(range(len(bins)), shares, color=PALETTE[0], width=0.8)
        ax.set_xticks(range(len(bins)), labels, rotation=45 if narrow else 30, ha="right")
        ax.set_ylabel("% of I/Os")
        ax.set_xlabel("latency (ms)")
        ax.set_title(textwrap.fill(title, 38) if narrow else title)
        ax.grid(axis="x", visible=False)
        return _svg(fig, f"{chart_id}-n" if narrow else chart_id, title,
                    "narrow" if narrow else "wide")


def responsive(draw: Callable[..., str], *args: Any, **kwargs: Any) -> Markup:
    """A chart drawn wide and narrow, side by side in the page; the stylesheet shows one."""
    return Markup(draw(*args, **kwargs) + "\n" + draw(*args, narrow=True, **kwargs))
