"""The layout spec grammar of BRIEF §6: parsing, the canonical str(), and resolving."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.catalog import builtin_catalog
from advisor.layout import LayoutSpec, parse_spec, resolve
from advisor.layout.describe import describe
from tests.layout.strategies import layout_specs, valid_layout_specs

CATALOG = builtin_catalog()

# The six examples BRIEF §6 says must parse, with what each one means.
BRIEF6_EXAMPLES = {
    "m5d.large:gp2:385GiB":
        LayoutSpec(instance="m5d.large", device="gp2", size_gib=385),
    "m5d.large:store":
        LayoutSpec(instance="m5d.large", device="store"),
    "m5d.8xlarge:raid1:2xstore":
        LayoutSpec(instance="m5d.8xlarge", device="store", raid="raid1", count=2),
    "m5.8xlarge:io1:1000GiB:50000iops":
        LayoutSpec(instance="m5.8xlarge", device="io1", size_gib=1000, iops=50000),
    "c4.2xlarge:raid0:5xgp2:100GiB":
        LayoutSpec(instance="c4.2xlarge", device="gp2", raid="raid0", count=5, size_gib=100),
    "m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps":
        LayoutSpec(instance="m5.8xlarge", device="gp3", raid="raid10", count=4, size_gib=500,
                   iops=6000, throughput_mibps=250),
}


@pytest.mark.parametrize(("text", "expected"), BRIEF6_EXAMPLES.items(), ids=list(BRIEF6_EXAMPLES))
def test_brief_examples_parse_to_what_they_say(text: str, expected: LayoutSpec) -> None:
    """Each BRIEF §6 example parses into the instance, RAID level, devices and values it names."""
    assert parse_spec(text) == expected


@pytest.mark.parametrize("text", BRIEF6_EXAMPLES)
def test_brief_examples_round_trip(text: str) -> None:
    """str() of a parsed BRIEF §6 example is the example itself."""
    assert str(parse_spec(text)) == text


@pytest.mark.parametrize("text", BRIEF6_EXAMPLES)
def test_brief_examples_resolve_against_builtin_catalog(text: str) -> None:
    """Every BRIEF §6 example is a valid layout of the built-in catalog."""
    layout = resolve(text, CATALOG)
    assert layout.spec == BRIEF6_EXAMPLES[text]
    assert str(layout) == text


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("m5.large:gp2:2TiB", "m5.large:gp2:2TiB"),
        ("m5.large:gp2:1024GiB", "m5.large:gp2:1TiB"),  # whole TiB are written as TiB
        ("m5.large:gp2:1536GiB", "m5.large:gp2:1536GiB"),
        ("m5.large:1xgp2:100GiB", "m5.large:gp2:100GiB"),  # one device needs no count
        ("m5.large:GP3:100GiB:3000IOPS:125MBPS", "m5.large:gp3:100GiB:3000iops:125mbps"),
        ("m5.large:gp3:4000iops:200mbps:100GiB", "m5.large:gp3:100GiB:4000iops:200mbps"),
        ("m5.large:RAID0:2xgp2:100GiB", "m5.large:raid0:2xgp2:100GiB"),
        ("m5.large:raid0:2xgp2:100GiB:chunk1MiB", "m5.large:raid0:2xgp2:100GiB:chunk1024KiB"),
        ("m5.large:raid0:2xgp2:100GiB:chunk512KiB", "m5.large:raid0:2xgp2:100GiB"),  # default
        ("  m5d.large:store  ", "m5d.large:store"),
    ],
)
def test_str_is_canonical(text: str, canonical: str) -> None:
    """Equivalent spellings print as one canonical spec, which parses back to the same spec."""
    spec = parse_spec(text)
    assert str(spec) == canonical
    assert parse_spec(canonical) == spec


def test_sizes_in_tib_are_binary() -> None:
    """2TiB is 2,048 GiB (binary units throughout; mbps means MiB/s)."""
    spec = parse_spec("m5.large:gp3:2TiB:3000iops:250mbps")
    assert (spec.size_gib, spec.iops, spec.throughput_mibps) == (2048, 3000, 250)


def test_local_device_keeps_its_name() -> None:
    """`local:NAME` names a calibrated device; the name keeps its case and round-trips."""
    spec = parse_spec("localhost:raid0:2xlocal:My_Disk.1")
    assert spec == LayoutSpec(instance="localhost", device="local:My_Disk.1", raid="raid0",
                              count=2)
    assert spec.local_name == "My_Disk.1"
    assert str(spec) == "localhost:raid0:2xlocal:My_Disk.1"


@settings(max_examples=500, deadline=None)
@given(layout_specs())
def test_every_spec_round_trips(spec: LayoutSpec) -> None:
    """parse_spec(str(spec)) == spec for every grammatically valid spec."""
    assert parse_spec(str(spec)) == spec


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_specs_within_catalog_limits_resolve(data: st.DataObject) -> None:
    """A spec within the catalog's own limits resolves; usable capacity follows its RAID level.

    RAID 0 adds the members, RAID 1 holds one device's worth, RAID 10 half the members [BRIEF §4].
    """
    spec = data.draw(valid_layout_specs(CATALOG))
    layout = resolve(spec, CATALOG)
    out = describe(layout, CATALOG)
    if spec.is_store:
        store = CATALOG.instance_types[spec.instance].store
        assert store is not None
        device_gib = store.size_gb * 1e9 / 2**30  # AWS states instance store in decimal GB [S7]
    else:
        assert spec.size_gib is not None
        device_gib = spec.size_gib
    expected = {None: device_gib, "raid0": device_gib * spec.count,
                "raid1": device_gib, "raid10": device_gib * spec.count / 2}[spec.raid]
    assert out["spec"] == str(spec)
    assert out["capacity_gib"] == pytest.approx(expected, abs=0.01)
    assert out["ephemeral"] is spec.is_store
    json.dumps(out)  # the layout JSON contract: serialisable as is
