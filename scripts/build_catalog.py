"""Build the catalog's `instance_types` and `sources` from the source extracts in
scripts/catalog_sources/ (see its README.md): a refresh is a rerun, not hand typing.

    python scripts/build_catalog.py [--check] [--catalog PATH]

Only the two keys it owns are rewritten; every other key of the catalog file (`volume_types`,
`latency_profiles`, ...) is kept byte for byte as it is on disk when the script writes (the file is
read again just before writing). Entries already in the catalog keep every figure they have (the
validation table and fitted models rest on them); the build only adds what they lack (architecture,
network, plan prices) and fills new types from the sources, each figure with its source tag. A
figure no source gives is left out (null) and named in the entry's notes, never guessed.

Source precedence per figure, newest usable first where the brief names one:
  EBS limits     S6 (awsdocs ebs-optimized.md, 2023), else S31 (AWS instance types guide, 2024)
  vCPU, memory   S8 (awsdocs *-instances.md), else S31
  network        S8 baseline/burst table, else S8 "N Gigabit", else S31
  store          S7 (InstanceStorage.md) count x size, S8 "SSD I/O performance" IOPS, else S31
  architecture, Nitro, generation   S31 (platform summary, current/previous generation lists)
  on-demand $/h  S32 (karpenter generated price list, 2026-07-20)
  1yr-reserved   S34 (ec2-instances-info's ec2instances.info extract, 2023-08-30: 1-yr Standard All
                 Upfront, effective hourly), taken only where S34's on-demand price equals S32's
                 (the snapshot's prices still current); types it lacks are left unpriced
  3yr-reserved   S33 (service-capacity-modeling 3-yr All Upfront, annual cost / 8,760 h)
"""

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SRC = Path(__file__).resolve().parent / "catalog_sources"
CATALOG = ROOT / "advisor" / "catalog" / "data" / "us-east-1.json"
HOURS_PER_YEAR = 8760

NEW_SOURCES = {
    "S31": "jihoo529/ragstone@fc702f1e backend/data/AWS/ec2-types.md: a text extract of AWS's "
           "'Amazon EC2: Instance Types' guide (PDF, (c) 2024 Amazon Web Services), sections "
           "Performance, Network, Amazon EBS and Instance store specifications, Platform summary",
    "S32": "aws/karpenter-provider-aws@1d927085 pkg/providers/pricing/zz_generated.pricing_aws.go "
           "(generated 2026-07-20 for us-east-1; Linux, Shared tenancy, OnDemand)",
    "S33": "service-capacity-modeling 0.3.212 (PyPI, Apache-2.0) hardware/profiles/pricing/aws/"
           "3yr-reserved_ec2.json + 3yr-reserved_zz-overrides.json: 3-yr All Upfront standard "
           "Reserved Instance (upfront / 3 a year; the 3-yr All Upfront EC2 Instance Savings Plan "
           "rate where AWS sells no RI); hourly = annual cost / 8,760 h",
    "S34": "LeanerCloud/ec2-instances-info@ef5638af generated_instances_data.txt (2023-08-30, the "
           "library's example run over the ec2instances.info data of that day, built from AWS's "
           "Price List API): 'Linux Standard RI 1y AllUpfront cost in us-east-1', the 1-yr "
           "All Upfront standard Reserved Instance as an effective hourly rate (upfront / "
           "8,760 h); used where its 'Linux OD cost in us-east-1' equals S32's",
}
# The plans the build prices, each with its source tag, in PRICING_PLANS order.
PLAN_TAGS = {"1yr-reserved": "S34", "3yr-reserved": "S33"}

# The families a database would run on (issue 14), x86 and Graviton, plus the old ones the
# published runs used (kept as they are).
FAMILIES = ("m5", "m6i", "m7i", "m6g", "m7g", "r5", "r5b", "r6i", "r7i", "r6g", "r7g",
            "c5", "c6i", "c7i", "c6g", "c7g", "x2idn", "m5d", "m6id", "m6gd", "r5d", "r6gd",
            "r6id", "c5d", "c6gd", "c6id", "i3", "i3en", "i4i", "i4g", "im4gn", "is4gen")
SIZES = ("large", "xlarge", "2xlarge", "3xlarge", "4xlarge", "6xlarge", "8xlarge", "9xlarge",
         "12xlarge", "16xlarge")
ALL_SIZES = ("x2idn",)  # their smallest size is 16xlarge: every size
# Instance-store latency profiles by generation (names from the catalog's latency_profiles).
STORE_PROFILE = {"i3": "nvme-i3", "m5d": "nvme-5th-gen", "r5d": "nvme-5th-gen",
                 "c5d": "nvme-5th-gen", "i3en": "nvme-5th-gen"}
SIXTH_GEN_PROFILE = "nvme-6th-gen"
# The hand-curated entries the published runs, the validation table and the fitted models use:
# kept figure for figure (the build only adds what they lack); every other entry is rebuilt.
KEPT = frozenset("""m5.large m5.xlarge m5.2xlarge m5.4xlarge m5.8xlarge m5d.large m5d.8xlarge
r5.large r5.xlarge r5.2xlarge r5.4xlarge c5.large c4.2xlarge i3.large i3.xlarge i3.2xlarge
i3.4xlarge i3.8xlarge i3.16xlarge i3en.large i3en.xlarge i3en.2xlarge i3en.3xlarge i3en.6xlarge
i4i.large i4i.xlarge i4i.2xlarge i4i.4xlarge i4i.8xlarge m6i.large m6i.xlarge m6i.2xlarge
m6id.large m6id.xlarge m6id.2xlarge r6i.large r6i.xlarge r6i.2xlarge r6id.large r6id.xlarge
r6id.2xlarge m1.large c1.medium""".split())  # noqa: SIM905


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _name(cell: str) -> str:
    """'1 r7gd.12xl arge' -> 'r7gd.12xlarge'; 'm5\\.large \\*' -> 'm5.large'."""
    text = cell.replace("\\", "").replace("*", "").replace("†", "")
    text = re.sub(r"^\d+\s+", "", text.strip())
    return text.replace(" ", "")


def _num(cell: str) -> float:
    return float(cell.replace("\\", "").replace(",", "").strip())


def _tables(path: Path) -> Iterator[tuple[str, str, list[str]]]:
    """(heading, header, row cells) of every markdown table row under a heading."""
    heading, header = "", ""
    for line in path.read_text("utf-8").splitlines():
        if line.startswith("#"):
            heading, header = line.lstrip("#").strip(), ""
        elif line.startswith("|"):
            cells = _cells(line)
            if cells and cells[0].replace("\\", "") in ("Instance type", "Instance size",
                                                         "Instance Size"):
                header = " | ".join(cells).replace("\\", "")
            elif set(cells[0]) <= set("-") or cells[0].startswith("Col"):
                continue
            else:
                yield heading, header, cells


NAME_RE = re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9]+$")


def awsdocs_ebs() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for heading, header, cells in _tables(SRC / "awsdocs-ebs-optimized.md"):
        if "Baseline IOPS" not in header and "Maximum IOPS" not in header:
            continue
        name = _name(cells[0])
        if not NAME_RE.match(name):
            continue
        optional = heading.startswith("EBS optimization supported")
        if len(cells) >= 7:
            b, m, bt, mt, bi, mi = (_num(c) for c in cells[1:7])
        else:
            b = m = _num(cells[1])
            bt = mt = _num(cells[2])
            bi = mi = _num(cells[3])
        out[name] = {"optimization": "optional" if optional else "default",
                     "baseline_mbps": b, "max_mbps": m, "baseline_mbs": bt, "max_mbs": mt,
                     "baseline_iops": bi, "max_iops": mi, "burst": "*" in cells[0]}
    return out


def _pair(cell: str) -> tuple[float, float]:
    parts = cell.split("/")
    if len(parts) == 2:
        return _num(parts[0]), _num(parts[1])
    return _num(parts[0]), _num(parts[0])


def guide() -> dict[str, dict[str, Any]]:
    """Per instance: shape, network, EBS, store from the 2024 instance-types guide (S31)."""
    out: dict[str, dict[str, Any]] = {}
    platform: dict[str, tuple[bool, str]] = {}
    for heading, _, cells in _tables(SRC / "aws-ec2-instance-types-guide-2024.md"):
        section = heading
        raw = cells[0]
        name = _name(raw)
        if section == "Platform summary" and len(cells) >= 3 and re.match(r"^[A-Z]", raw):
            arch = "arm64" if "arm64" in cells[2] else "x86_64" if "x86_64" in cells[2] else ""
            if arch:
                platform[raw.lower()] = (cells[1].startswith("Nitro"), arch)
            continue
        if not NAME_RE.match(name):
            continue
        row = out.setdefault(name, {})
        try:
            if section == "Performance specifications" and len(cells) >= 5:
                row["memory_gib"], row["vcpu"] = _num(cells[2]), int(_num(cells[4]))
            elif section == "Network specifications":
                text = cells[1]
                if "/" in text:
                    row["network"] = _pair(text)
                elif gbit := re.match(r"^([\d.]+) Gigabit$", text):
                    row["network"] = (float(gbit[1]), float(gbit[1]))
                else:
                    row["network_text"] = text
            elif section == "Amazon EBS specifications" and len(cells) >= 6:
                (b, m), (bt, mt), (bi, mi) = (_pair(c) for c in cells[1:4])
                row["ebs"] = {"optimization": "default" if cells[5] == "default" else "optional",
                              "baseline_mbps": b, "max_mbps": m, "baseline_mbs": bt,
                              "max_mbs": mt, "baseline_iops": bi, "max_iops": mi,
                              "burst": raw.startswith("1 ") and m > b}
            elif section == "Instance store specifications" and len(cells) >= 3:
                row["store"] = _store_cells(cells[1], cells[2],
                                            cells[3] if len(cells) > 3 else "",
                                            cells[4] if len(cells) > 4 else "")
        except (ValueError, IndexError):
            continue
    for name, row in out.items():
        family = name.split(".")[0]
        if family in platform:
            row["nitro"], row["arch"] = platform[family]
    return out


def _store_cells(volumes: str, kind: str, iops: str, init: str) -> dict[str, Any] | None:
    m = re.match(r"^(\d+)\s*x\s*([\d,]+)\s*GB$", volumes.replace("\\", ""))
    if not m:
        return None
    kinds = {"NVMe SSD": "nvme", "SSD": "ssd", "HDD": "hdd"}
    if kind.replace("\\", "") not in kinds:
        return None
    store: dict[str, Any] = {"count": int(m[1]), "size_gb": _num(m[2]),
                             "kind": kinds[kind.replace("\\", "")],
                             "needs_init": "✔" in init or "✓" in init}
    if "/" in iops:
        store["read_iops"], store["write_iops"] = _pair(iops)
    return store


def awsdocs_pages() -> dict[str, dict[str, Any]]:
    """Shape, network and store IOPS from the 2023 *-instances.md pages (S8), store volumes
    from InstanceStorage.md (S7)."""
    out: dict[str, dict[str, Any]] = {}
    for page in ("general-purpose", "compute-optimized", "memory-optimized", "storage-optimized"):
        for _, header, cells in _tables(SRC / f"awsdocs-{page}-instances.md"):
            name = _name(cells[0])
            if not NAME_RE.match(name) or len(cells) < 3:
                continue
            row = out.setdefault(name, {})
            try:
                if "Default vCPUs" in header:
                    row["vcpu"], row["memory_gib"] = int(_num(cells[1])), _num(cells[2])
                elif "Baseline bandwidth (Gbps)" in header:
                    row["network"] = (_num(cells[1]), _num(cells[2]))
                elif "Network performance" in header and "network" not in row:
                    if m := re.match(r"^([\d.]+) Gigabit$", cells[1].replace("\\", "")):
                        row["network"] = (float(m[1]), float(m[1]))
                elif "Random Read IOPS" in header:
                    row["store_iops"] = (_num(cells[1]), _num(cells[2]))
            except ValueError:
                continue
    for _, header, cells in _tables(SRC / "awsdocs-InstanceStorage.md"):
        name = _name(cells[0])
        if NAME_RE.match(name) and "Instance store volumes" in header and len(cells) >= 4:
            store = _store_cells(cells[1], cells[2], "", cells[3])
            if store:
                out.setdefault(name, {})["store"] = store
    return out


def prices_on_demand() -> dict[str, float]:
    text = (SRC / "karpenter-pricing-aws.go").read_text("utf-8")
    body = text.split('"us-east-1": {', 1)[1]
    return {m[1]: float(m[2]) for m in re.finditer(r'"([a-z0-9.-]+)": ([\d.]+)', body)}


def prices_3yr() -> dict[str, float]:
    annual: dict[str, float] = {}
    for name in ("scm-3yr-reserved_ec2.json", "scm-3yr-reserved_zz-overrides.json"):
        data = json.loads((SRC / name).read_text("utf-8"))["us-east-1"]["instances"]
        annual.update({k: v["annual_cost"] for k, v in data.items() if "annual_cost" in v})
    return {k: round(v / HOURS_PER_YEAR, 6) for k, v in annual.items()}


def prices_1yr(on_demand: dict[str, float], log: list[str]) -> dict[str, float]:
    """S34's 1-yr All Upfront rates, for the types whose S34 on-demand price is S32's: a type
    whose on-demand price moved since the snapshot may have a new reserved price too."""
    text = (SRC / "ec2-instances-info_generated_instances_data.txt").read_text("utf-8")
    out: dict[str, float] = {}
    for line in text.splitlines():
        row = dict(part.split(": ", 1) for part in line.split(",\t") if ": " in part)
        name = row.get("Instance type", "").strip()
        rate = float(row.get("Linux Standard RI 1y AllUpfront cost in us-east-1", "0"))
        if not name or rate <= 0:
            continue
        od = float(row.get("Linux OD cost in us-east-1", "0"))
        if name in on_demand and od != on_demand[name]:
            log.append(f"{name}: S34's on-demand {od:g} is not S32's {on_demand[name]:g}; "
                       "its 1yr-reserved rate is not used")
            continue
        out[name] = rate
    return out


def previous_generation_families() -> set[str]:
    text = (SRC / "aws-ec2-instance-types-guide-2024.md").read_text("utf-8")
    block = text.split("### Previous generation instances", 1)[1].split("###", 1)[0]
    return {f.strip().lower() for line in block.splitlines() if line.startswith("-")
            for f in line.split(":", 1)[1].split("|")}


def _size_rank(name: str) -> tuple[str, int]:
    family, size = name.split(".")
    if size == "large":
        return family, 1
    m = re.match(r"^(\d*)xlarge$", size)
    return family, 2 * int(m[1] or 1) if m else 999


def wanted(names: set[str]) -> list[str]:
    out = [n for n in names if n.split(".")[0] in FAMILIES
           and (n.split(".")[1] in SIZES or n.split(".")[0] in ALL_SIZES)
           and "metal" not in n]
    return sorted(out, key=_size_rank)


def build(existing: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The new `instance_types` list and a log of what was skipped and why."""
    ebs6, docs, g = awsdocs_ebs(), awsdocs_pages(), guide()
    log: list[str] = []
    od = prices_on_demand()
    plans = {"1yr-reserved": prices_1yr(od, log), "3yr-reserved": prices_3yr()}
    old_gen = previous_generation_families()
    rows: list[dict[str, Any]] = []
    kept = [e for e in existing if e["name"] in KEPT]
    missing = KEPT - {e["name"] for e in kept}
    if missing:
        raise SystemExit(f"the catalog lost kept entries: {', '.join(sorted(missing))}")
    for e in kept:
        rows.append(_complete(dict(e), docs.get(e["name"], {}), g.get(e["name"], {}), plans,
                              log))
    for name in wanted(set(ebs6) | set(g) | set(docs)):
        if name in KEPT:
            continue
        entry = _new(name, ebs6.get(name), docs.get(name, {}), g.get(name, {}), od, plans,
                     old_gen, log)
        if entry is not None:
            rows.append(entry)
    return rows, log


def _network(entry: dict[str, Any], doc: dict[str, Any], gd: dict[str, Any]) -> None:
    sources, notes = entry["sources"], entry["notes"]
    if "network" in doc:
        tag = "S8"
        base, burst = doc["network"]
    elif "network" in gd:
        tag = "S31"
        base, burst = gd["network"]
    else:
        entry["network_baseline_gbps"] = entry["network_burst_gbps"] = None
        said = gd.get("network_text")
        notes.append(f"Network bandwidth: AWS gives no figure{f' ({said!r} only)' if said else ''}"
                     " [S31]; left null (unsourced).")
        return
    entry["network_baseline_gbps"], entry["network_burst_gbps"] = base, burst
    sources["network_baseline_gbps"] = sources["network_burst_gbps"] = tag


def _plans(entry: dict[str, Any], plans: dict[str, dict[str, float]], log: list[str]) -> None:
    """Each plan's effective hourly rate where its source has one; a plan it lacks is left out
    (a sizing under that plan does not consider the type) and logged."""
    name = entry["name"]
    entry["plan_hourly_usd"] = {}
    for plan, tag in PLAN_TAGS.items():
        key = f"plan_hourly_usd.{plan}"
        if name in plans[plan]:
            entry["plan_hourly_usd"][plan] = plans[plan][name]
            entry["sources"][key] = tag
        else:
            entry["sources"].pop(key, None)
            log.append(f"{name}: no {plan} price in {tag}")


# S6's rows for types where EBS optimization is optional give 64 IOPS per MB/s on every row
# (m1.large 62.5 MB/s, 4,000 IOPS; m1.xlarge 125 MB/s, 8,000): one I/O per 15.625 KB.
S6_IOPS_PER_MBS = 64
OLD_EBS_NOTES = ("EBS limits assume EBS optimization", "No EBS optimization")


def _old_ebs(entry: dict[str, Any]) -> None:
    """The EBS ceiling of an old type: with optional EBS optimization, S6's figures are what it
    gives once enabled (the model assumes it is); with none, EBS traffic shares the instance's
    network link, so its ceiling is taken as the network baseline (S8), IOPS at S6's ratio for
    the old types: an assumption, tagged unverified."""
    sources = entry["sources"]
    notes = [n for n in entry["notes"] if not n.startswith(OLD_EBS_NOTES)
             and not n.startswith("EBS optimization unsupported (ebs null)")]
    entry["notes"] = notes
    ebs, base = entry.get("ebs"), entry.get("network_baseline_gbps")
    if ebs is not None and ebs["optimization"] == "optional":
        notes.append(f"EBS limits assume EBS optimization is enabled (optional for this type: "
                     f"{ebs['baseline_mbps']:g} Mbps / {ebs['baseline_iops']:g} IOPS once on "
                     f"[{sources.get('ebs', 'S6')}]); without it EBS traffic shares the "
                     "instance's network link with no dedicated bandwidth.")
    if not entry["previous_generation"] or (ebs is not None
                                            and ebs["optimization"] != "unsupported"):
        return
    net = sources.get("network_baseline_gbps", "S8")
    # where the type's lack of EBS optimization is stated (the entry's first `ebs` tag)
    said = sources.setdefault("ebs.optimization", sources.get("ebs") or net)
    if base is None:
        entry["ebs"] = None
        notes.append("No EBS optimization: EBS traffic shares the network link, whose bandwidth "
                     "is not published; no EBS ceiling modelled (unsourced).")
        return
    mbps = base * 1000
    mbs = mbps / 8
    iops = mbs * S6_IOPS_PER_MBS
    entry["ebs"] = {"optimization": "unsupported", "baseline_mbps": mbps, "max_mbps": mbps,
                    "baseline_mbs": mbs, "max_mbs": mbs, "baseline_iops": iops,
                    "max_iops": iops, "burst": False}
    sources["ebs"] = f"unsourced (assumed from the {net} network baseline and the S6 IOPS ratio)"
    notes.append(f"No EBS optimization [{said.replace(',', '][')}]: EBS traffic shares the "
                 "instance's network link; volumes still attach. Assumed ceiling (AWS publishes "
                 f"none): the network baseline [{net}], {mbps:g} Mbps ({mbs:g} MB/s), all of it "
                 "available to EBS, and "
                 f"{iops:,.0f} IOPS at the {S6_IOPS_PER_MBS} IOPS per MB/s of S6's rows for "
                 "the old types that offer EBS optimization; no burst.")


def _complete(entry: dict[str, Any], doc: dict[str, Any], gd: dict[str, Any],
              plans: dict[str, dict[str, float]], log: list[str]) -> dict[str, Any]:
    """An existing entry keeps every figure; it gains what it lacks (arch, network, plans)."""
    entry["sources"] = dict(entry.get("sources", {}))
    entry["notes"] = [n for n in entry.get("notes", []) if not n.startswith("Network bandwidth:")]
    if "arch" in gd:
        entry["arch"] = gd["arch"]
        entry["sources"]["arch"] = "S31"
    if gd.get("nitro") is not None and gd["nitro"] == entry["nitro"] \
            and entry["sources"].get("nitro", "").startswith("unsourced"):
        entry["sources"]["nitro"] = "S31"
    _network(entry, doc, gd)
    _old_ebs(entry)
    _plans(entry, plans, log)
    return _ordered(entry)


def _new(name: str, ebs6: dict[str, Any] | None, doc: dict[str, Any], gd: dict[str, Any],
         od: dict[str, float], plans: dict[str, dict[str, float]], old_gen: set[str],
         log: list[str]) -> dict[str, Any] | None:
    family = name.split(".")[0]
    sources: dict[str, str] = {}
    notes: list[str] = []
    shape = doc if "vcpu" in doc else gd if "vcpu" in gd else None
    if shape is None:
        log.append(f"{name}: skipped, no vCPU/memory in S8 or S31")
        return None
    sources["vcpu"] = sources["memory_gib"] = "S8" if shape is doc else "S31"
    if name not in od:
        log.append(f"{name}: skipped, no on-demand price in S32")
        return None
    ebs = ebs6 or gd.get("ebs")
    if ebs is None:
        log.append(f"{name}: skipped, no EBS limits in S6 or S31")
        return None
    sources["ebs"] = "S6" if ebs6 else "S31"
    if "arch" not in gd or "nitro" not in gd:
        log.append(f"{name}: skipped, no architecture/hypervisor in S31")
        return None
    sources["hourly_usd"] = "S32"
    sources["arch"] = sources["nitro"] = "S31"
    entry: dict[str, Any] = {"name": name, "vcpu": shape["vcpu"],
                             "memory_gib": shape["memory_gib"], "hourly_usd": od[name],
                             "nitro": gd["nitro"], "previous_generation": family in old_gen,
                             "arch": gd["arch"], "ebs": ebs, "store": None, "sources": sources,
                             "notes": notes}
    if ebs["burst"]:
        notes.append(f"EBS burst: maximum for 30 minutes at least once every 24 hours, then "
                     f"baseline [{sources['ebs']}].")
    store = _new_store(name, family, doc, gd, sources, notes)
    if store is False:
        log.append(f"{name}: skipped, an instance-store family without a store figure")
        return None
    entry["store"] = store or None
    _network(entry, doc, gd)
    _old_ebs(entry)
    _plans(entry, plans, log)
    return _ordered(entry)


def _new_store(name: str, family: str, doc: dict[str, Any], gd: dict[str, Any],
               sources: dict[str, str], notes: list[str]) -> dict[str, Any] | bool | None:
    has_store = family.endswith("d") or family.startswith("i") or family == "x2idn"
    volumes = doc.get("store") or gd.get("store")
    if not has_store:
        return None
    if volumes is None:
        return False
    store = {"count": volumes["count"], "size_gb": volumes["size_gb"], "kind": volumes["kind"],
             "read_iops": None, "write_iops": None, "needs_init": volumes["needs_init"]}
    sources["store"] = "S7" if doc.get("store") else "S31"
    if "store_iops" in doc:
        store["read_iops"], store["write_iops"] = doc["store_iops"]
        sources["store.read_iops"] = sources["store.write_iops"] = "S8"
    elif gd.get("store", {}).get("read_iops"):
        store["read_iops"], store["write_iops"] = gd["store"]["read_iops"], \
            gd["store"]["write_iops"]
        sources["store.read_iops"] = sources["store.write_iops"] = "S31"
    else:
        notes.append("Instance-store IOPS not published in S8 or S31 (null, unsourced).")
    profile = STORE_PROFILE.get(family, SIXTH_GEN_PROFILE)
    store["latency_profile"] = profile
    store["seq_mibps_per_device"] = None
    store["measured_read_iops"] = store["measured_write_iops"] = None
    notes.append(f"Store latency profile {profile}: the catalog's NVMe profile of this "
                 "generation, not a measurement of this family (build_catalog.py).")
    notes.append("Instance-store sequential throughput per device not published (null, "
                 "unsourced); the model uses the latency profile's transfer_mibps.")
    return store


ORDER = ("name", "vcpu", "memory_gib", "hourly_usd", "plan_hourly_usd", "nitro",
         "previous_generation", "arch", "network_baseline_gbps", "network_burst_gbps", "ebs",
         "store", "sources", "notes")


def _ordered(entry: dict[str, Any]) -> dict[str, Any]:
    out = {k: entry[k] for k in ORDER if k in entry}
    out.update({k: v for k, v in entry.items() if k not in out})
    for key in ("ebs",):
        if out.get(key):
            out[key] = {k: (int(v) if isinstance(v, float) and v.is_integer() else v)
                        for k, v in out[key].items()}
    return out


def _value_span(text: str, key: str) -> tuple[int, int]:
    """Where the top-level `key`'s value lies in the file's text (the file is indented by 1)."""
    marker = f'\n "{key}": '
    start = text.index(marker) + len(marker)
    _, end = json.JSONDecoder().raw_decode(text, start)
    return start, end


def _dump(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False).replace("\n", "\n ")


def write(path: Path, instances: list[dict[str, Any]], sources: dict[str, str]) -> str:
    """The file's text with only `instance_types` and `sources` replaced."""
    text = path.read_text("utf-8")  # read again just before writing: others edit other keys
    for key, value in sorted((("instance_types", instances), ("sources", sources)),
                             key=lambda kv: -_value_span(text, kv[0])[0]):
        start, end = _value_span(text, key)
        text = text[:start] + _dump(value) + text[end:]
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--catalog", type=Path, default=CATALOG)
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if the file differs from what the sources build")
    args = ap.parse_args(argv)
    current = json.loads(args.catalog.read_text("utf-8"))
    rows, log = build(current["instance_types"])
    sources = {**current["sources"], **NEW_SOURCES}
    text = write(args.catalog, rows, sources)
    for line in log:
        print(line, file=sys.stderr)
    if args.check:
        same = text == args.catalog.read_text("utf-8")
        print(f"{args.catalog.name}: {'up to date' if same else 'differs from the sources'}")
        return 0 if same else 1
    args.catalog.write_text(text, "utf-8")
    print(f"{args.catalog.name}: {len(rows)} instance types, {len(sources)} sources")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
