"""Layouts: one server's storage (instance + devices + RAID), parsed, checked and priced."""

from advisor.layout.model import Layout, resolve
from advisor.layout.spec import LayoutSpec, parse_spec

__all__ = ["Layout", "LayoutSpec", "parse_spec", "resolve"]
