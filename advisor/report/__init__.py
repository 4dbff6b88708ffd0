"""HTML reports: one self-contained file per result (inline CSS and SVG charts, no script)."""

from advisor.report.render import kind_of, read_result, render_report, write_html

__all__ = ["kind_of", "read_result", "render_report", "write_html"]
