"""What `bench/attack.py` tries, part 3: files with absurd contents (user catalogs, calibration
profiles, fio JSON) for the commands that read them.
"""

import json

from attack_inputs import CliCase, Workspace, big, json_at, write_file


def catalog_cases(ws: Workspace) -> list[CliCase]:
    """User catalogs with absurd figures: prices, limits, latencies, thousands of types."""
    base = json.loads(ws.profile.read_text())
    instance = {"name": "z9.attack", "vcpu": 2, "memory_gib": 8, "hourly_usd": 0.1, "nitro": True,
                "ebs": {"optimization": "default", "baseline_mbps": 650, "max_mbps": 10000,
                        "baseline_mbs": 81.25, "max_mbs": 1250, "baseline_iops": 3600,
                        "max_iops": 40000, "burst": True}}
    cases: list[CliCase] = []
    n = 0

    def catalog(text: str, label: str, spec: str, *, sim: bool = True) -> None:
        # a tiny positive figure is odd but valid: it must only not break the run
        expect = "any" if text.count("1e-300") else "reject"
        nonlocal n
        n += 1
        path = write_file(ws.root / f"catalog-{n}.json", text)
        cases.append(CliCase(area="catalog", argv=["layout", spec, "--catalog", path],
                             expect=expect, note=f"user catalog: {label}"))
        if sim:
            cases.append(CliCase(area="catalog", argv=["simulate", spec, "--duration", "1",
                                                       "--catalog", path],
                                 expect=expect, note=f"user catalog: {label}"))

    inst = {"schema_version": 1, "instance_types": [instance]}
    for field_name, literal in [("hourly_usd", "Infinity"), ("hourly_usd", "NaN"),
                                ("hourly_usd", "-1"), ("hourly_usd", "1e400"),
                                ("vcpu", "9" * 400), ("memory_gib", "-Infinity"),
                                ("hourly_usd", '"cheap"'), ("vcpu", "0")]:
        text = json_at(inst, ("instance_types", 0, field_name), literal)
        catalog(text, f"instance {field_name} {literal[:20]}", "z9.attack:gp3:100GiB",
                sim=False)
    for field_name, literal in [("max_iops", "Infinity"), ("max_iops", "NaN"),
                                ("max_mbs", "-1"), ("baseline_iops", "1e400")]:
        text = json_at(inst, ("instance_types", 0, "ebs", field_name), literal)
        catalog(text, f"instance ebs.{field_name} {literal}", "z9.attack:gp3:100GiB")
    local = "m5.large:local:vda-this-machine"
    for where, key, literal in [("read", "median_ms", "1e300"), ("read", "median_ms", "1e-300"),
                                ("read", "median_ms", "NaN"), ("read", "sigma", "1e10"),
                                ("write", "tail_max_ms", "Infinity"),
                                ("write", "tail_probability", "2"),
                                ("read", "median_ms", "-1"), ("read", "median_ms", "0")]:
        text = json_at(base, ("latency_profiles", 0, where, key), literal)
        catalog(text, f"latency {where}.{key} {literal}", local)
    for key, literal in [("read_iops", "Infinity"), ("read_iops", "1e-300"),
                         ("capacity_gib", "NaN"), ("seq_read_mibps", "0")]:
        text = json_at(base, ("local_devices", 0, key), literal)
        catalog(text, f"local device {key} {literal}", local)
    many = {"schema_version": 1,
            "instance_types": [{**instance, "name": f"z{i}.attack"} for i in range(3000)]}
    n += 1
    path = write_file(ws.root / "catalog-3000.json", json.dumps(many))
    cases.append(CliCase(area="catalog", argv=["size", "--catalog", path], expect="any",
                         note="user catalog with 3,000 instance types"))
    cases.append(CliCase(area="catalog", argv=["catalog", "instances", "--catalog", path],
                         expect="any", note="user catalog with 3,000 instance types"))
    return cases


def profile_and_fio_cases(ws: Workspace) -> list[CliCase]:
    prof = json.loads(ws.profile.read_text())
    fio = json.loads(ws.fio.read_text())
    cases: list[CliCase] = []
    for i, (label, text) in enumerate([
        ("profile without runs", json_at(prof, ("calibration", "runs"), "[]")),
        ("profile run read_iops NaN", json_at(prof, ("calibration", "runs", 0, "read_iops"),
                                               "NaN")),
        ("profile run threads 400 digits", json_at(
            prof, ("calibration", "runs", 0, "threads"), "9" * 400)),
        ("profile run p99 Infinity", json_at(
            prof, ("calibration", "runs", 0, "percentiles_ms", "p99"), "Infinity")),
        ("profile latency median 1e300", json_at(
            prof, ("latency_profiles", 0, "read", "median_ms"), "1e300")),
        ("profile without latency_profiles", json_at(prof, ("latency_profiles",), None)),
        ("profile runs is a string", json_at(prof, ("calibration", "runs"), '"many"')),
    ]):
        path = write_file(ws.root / f"profile-{i}.json", text)
        cases.append(CliCase(area="validate", argv=["validate", "--duration", "0.5",
                                                    "--profile", path], note=label))
    for args in (["--device", ""], ["--device", "bogus"], ["--device", big("x", 5000)],
                 ["--duration", "nan"], ["--duration", "inf"], ["--duration", "-1"],
                 ["--duration", "0"], ["--duration", "1e400"], ["--duration", "1e12"],
                 ["--seed", "-1"], ["--seed", "9" * 400], ["--seed", "abc"],
                 ["--format", "bogus"]):
        cases.append(CliCase(area="validate", argv=["validate", "--profile", str(ws.profile),
                                                    "--duration", "0.5", *args]))
    for i, (label, text) in enumerate([
        ("fio JSON without jobs", json.dumps({"fio version": "fio-3.36"})),
        ("fio JSON with jobs: []", json_at(fio, ("jobs",), "[]")),
        ("fio JSON with one empty job", json_at(fio, ("jobs",), "[{}]")),
        ("fio JSON jobs is a string", json_at(fio, ("jobs",), '"x"')),
        ("fio JSON read.iops NaN", json_at(fio, ("jobs", 0, "read", "iops"), "NaN")),
        ("fio JSON read.iops 1e400", json_at(fio, ("jobs", 0, "read", "iops"), "1e400")),
        ("fio JSON read.iops -1", json_at(fio, ("jobs", 0, "read", "iops"), "-1")),
        ("fio JSON read.bw null", json_at(fio, ("jobs", 0, "read", "bw"), "null")),
        ("fio JSON read is a list", json_at(fio, ("jobs", 0, "read"), "[]")),
        ("fio JSON bs 1000000t (expect any: an importer may ignore job options)",
         json_at(fio, ("jobs", 0, "job options"), '{"bs": "1000000t", "rw": "randrw"}')),
        ("fio JSON clat percentiles of strings", json_at(
            fio, ("jobs", 0, "read", "clat_ns"), '{"percentile": {"99.000000": "soon"}}')),
        ("warnings and no JSON", "fio: warning: something\nno json here\n"),
    ]):
        path = write_file(ws.root / f"fio-{i}.json", text)
        cases.append(CliCase(area="calibrate", argv=["calibrate", "--import-fio", path,
                                                     "--name", "attack", "--out",
                                                     ws.path(f"fio-profile-{i}.json")],
                             note=label, expect="any" if "expect any" in label else "reject"))
    for args in (["--name", big("x", 5000)], ["--name", "../../etc/x"],
                 ["--name", "a:b"], ["--name", "٣"], ["--format", "bogus"]):
        cases.append(CliCase(area="calibrate", argv=["calibrate", "--import-fio", str(ws.fio),
                                                     "--out", ws.path("fio-p.json"), *args]))
    return cases
