"""What `bench/attack.py` tries, part 2: hostile command lines for every command, built from
the option declarations (every size/simulate option) plus hand-written cases for the rest.
"""

import json
import math
from typing import Any

from attack_file_inputs import catalog_cases, profile_and_fio_cases
from attack_inputs import (
    AEROSPIKE,
    RAW,
    SECRET,
    SIZE_OWN,
    SPEC,
    SYSBENCH,
    CliCase,
    Workspace,
    big,
    out_targets,
    write_file,
)


def out_of_range(d: Any, index: int) -> str:
    """A number just outside the declared bounds: above them for odd `index`, else below."""
    integer = d.type in (int, int | None)
    hi = d.opt.le if d.opt.le is not None else d.opt.lt
    lo = d.opt.ge if d.opt.ge is not None else d.opt.gt
    if index % 2 and hi is not None and math.isfinite(hi):
        return str(int(hi) * 10 + 7) if integer else repr(float(hi) * 10 + 0.5)
    if lo is not None:
        return str(int(lo) - 1) if integer or lo == int(lo) else repr(lo - 1)
    return "1e308" if hi is None else str(int(hi) * 10 + 7)


def numeric_values(d: Any, index: int, *, integer: bool) -> list[tuple[str, str]]:
    """(CLI text, label) of bad values for a numeric option with declared bounds: NaN, just out
    of range (above or below, alternating), then a 400-digit number or an odd spelling (every
    other option: each costs a process start, and the check behind them is shared)."""
    bad = out_of_range(d, index)
    out: list[tuple[str, str]] = [("nan", "nan"), (bad, bad)]
    if index % 2 == 0:
        out.append(("9" * 400, "'9'*400"))
    else:
        extras = ["inf", "-inf", "1e400", "", "0x10", "5abc", "7 7", "1,5", "+-1", "Infinity"]
        extra = extras[(index // 2) % len(extras)]
        out.append((extra, repr(extra)))
    return out


def string_values(name: str) -> list[tuple[str, str]]:
    return [("", "''"), (big("9", 5000), "'9'*5000"), ("４ｋ\u202e", "'４ｋ' + RLO")]


# Hand-picked absurd values the issue names, per simulate/size option (CLI text).
SPECIAL_SIMULATE: list[tuple[list[str], str]] = [
    (["--rate-iops", "nan", "--engine", "des"], "reject"),
    (["--rate-iops", "inf"], "reject"),
    (["--rate-iops", "1e15"], "reject"),
    (["--rate-iops", "1000000000", "--duration", "2419200"], "any"),
    (["--ramp", "rate=nan", "--engine", "des"], "reject"),
    (["--ramp", "rate=inf"], "reject"),
    (["--ramp", "rate=1e15"], "reject"),
    (["--ramp", "rate=1e12,2e12"], "any"),
    (["--ramp", ""], "reject"),
    (["--ramp", ","], "reject"),
    (["--ramp", "iodepth=0"], "reject"),
    (["--ramp", "iodepth=" + "9" * 400], "reject"),
    (["--ramp", "threads=" + ",".join(str(2 ** (i % 12) + i) for i in range(64)),
      "--file-test-mode", "rndrd"], "any"),
    (["--ramp", "iodepth=" + ",".join(["1"] * 5000)], "reject"),
    (["--ramp", "bogus=1,2"], "reject"),
    (["--ramp", "x=1e400", "--workload", "aerospike"], "reject"),
    (["--ramp", "tps=nan", "--workload", "mysql"], "reject"),
    (["--bs", "1000000t"], "reject"),
    (["--bs", "0"], "reject"),
    (["--bs", "-4k"], "reject"),
    (["--bs", "nank"], "reject"),
    (["--bs", "1e400k"], "reject"),
    (["--bs", "４k"], "reject"),
    (["--size", "0"], "reject"),
    (["--size", "1e400"], "reject"),
    (["--size", "9" * 400 + "t"], "reject"),
    (["--file-block-size", "1000000t", "--file-test-mode", "rndrd"], "reject"),
    (["--file-fsync-freq", "-1", "--file-test-mode", "rndwr"], "reject"),
    (["--seed", "-1"], "reject"),
    (["--duration", "1e12"], "reject"),
    (["--workload", "aerospike", "--slice", "0"], "reject"),
    (["--workload", "aerospike", "--slice", "-1"], "reject"),
    (["--workload", "aerospike", "--slice", "0.002", "--duration", "60"], "any"),
    (["--workload", "aerospike", "--slice", "1e-6", "--duration", "60"], "any"),
    (["--workload", "mysql", "--p99-ms", "1e-300"], "any"),
    (["--workload", "mysql", "--read-txn", "point=" + "9" * 400], "reject"),
    (["--workload", "mysql", "--read-txn", "point=nan"], "reject"),
    (["--workload", "mysql", "--write-txn", "range=1000000000x1000000000"], "any"),
    (["--workload", "mysql", "--skew", "zipf:nan"], "reject"),
    (["--workload", "mysql", "--skew", "hot:200%:90%"], "reject"),
    (["--workload", "mysql", "--skew", "zipf:" + "9" * 400], "reject"),
    (["--workload", "mysql", "--replica-layout", big("9", 5000)], "reject"),
    (["--workload", "bogus"], "reject"),
    (["--pattern", "bogus"], "reject"),
    (["--format", "bogus"], "reject"),
    (["--engine", ""], "reject"),
]

SPECS: list[tuple[str, str]] = [  # (spec, label) for layout and simulate
    ("", "''"),
    (big("9", 5000), "'9'*5000"),
    (big("9", 5000, "m5d.large:gp2:", "GiB"), ""),
    (big("9", 400, "m5d.large:gp2:", "GiB"), ""),
    (big("9", 400, "m5.8xlarge:raid10:", "xgp3:500GiB"), ""),
    ("m5d.large:gp2:３８５GiB", "full-width digits"),
    ("m5d.large:gp2:٣٨٥GiB", "Arabic-Indic digits"),
    ("m5d.large:gp2:nanGiB", ""),
    ("m5d.large:gp2:infGiB", ""),
    ("m5d.large:gp2:1e400GiB", ""),
    ("m5d.large:gp2:-1GiB", ""),
    ("m5d.large:gp2:0GiB", ""),
    ("m5d.large:gp3:500GiB:1e15iops", ""),
    ("m5d.large:gp3:500GiB:nanmbps", ""),
    ("m5.8xlarge:raid0:1000000xgp3:500GiB", ""),
    ("m5.8xlarge:raid10:0xgp3:500GiB", ""),
    ("m5d.large:gp2:385GiB:", ""),
    (":::::", ""),
    ("m5d.large:gp2:385GiB:" + ":".join(["3000iops"] * 300), ""),
    ("m5d.large:local:" + "x" * 5000, ""),
    ("m5d.large:gp2:99999999999999TiB", ""),
]


def cli_cases(ws: Workspace) -> list[CliCase]:
    from recommend.request import size_fields
    from workloads.simulate_request import simulate_fields

    cases: list[CliCase] = []
    add = cases.append
    sim_base = ["simulate", SPEC, "--duration", "1"]

    # controls: valid inputs that must work, or the suite is blind
    add(CliCase(area="control", argv=["layout", SPEC], expect="ok", control=True))
    add(CliCase(area="control", argv=[*sim_base, "--format", "json"], expect="ok", control=True))

    # every declared simulate option
    for i, (name, d) in enumerate(simulate_fields().items()):
        if d.opt.argument or d.type is bool:
            continue
        base = list(sim_base)
        if name in AEROSPIKE:
            base += ["--workload", "aerospike"]
        elif name in SYSBENCH:
            base += ["--file-test-mode", "rndrd"]
        elif name not in RAW:
            base += ["--workload", "mysql"]
        cases += _option_cases("simulate", base, d, i)
    for n, (spec, _label) in enumerate(SPECS):  # one spec parser: simulate gets a third
        add(CliCase(area="layout", argv=["layout", spec]))
        if n % 3 == 0:
            add(CliCase(area="simulate", argv=["simulate", spec, "--duration", "1"]))
    for extra, expect in SPECIAL_SIMULATE:
        add(CliCase(area="simulate", argv=[*sim_base, *extra], expect=expect,
                    headline=extra[:2] == ["--rate-iops", "nan"]))

    # every declared size option
    for i, (name, d) in enumerate(size_fields().items()):
        if d.type is bool:
            continue
        base = ["size"]
        if name in AEROSPIKE:
            base += ["--workload", "aerospike", "--reads-per-sec", "2000",
                     "--writes-per-sec", "1000"]
        found = _option_cases("size", base, d, i)
        # options size shares with simulate (one declaration, one check): NaN here
        cases += found if name in SIZE_OWN else found[:1]
    for extra, expect in [
        (["--replicas", "-1"], "reject"), (["--replicas", "9" * 400], "reject"),
        (["--replicas", "٣"], "reject"), (["--replicas", "autox"], "reject"),
        (["--replicas", ""], "reject"), (["--tps", "10000000"], "any"),
        (["--tps", "١٢"], "any"),
        (["--p99-ms", "1e-300"], "any"), (["--p99-ms", "0.001"], "any"),
        (["--region", "bogus"], "reject"), (["--region", big("x", 5000)], "reject"),
        (["--workload", "bogus"], "reject"), (["--workload", ""], "reject"),
        (["--preset", "bogus"], "reject"), (["--server", "mysql-9.9"], "reject"),
        (["--skew", "zipf:-1"], "reject"), (["--skew", "hot:10%"], "reject"),
        (["--write-txn", "update=-1"], "reject"), (["--write-txn", "bogus=1"], "reject"),
        (["--read-txn", ""], "reject"), (["--seed", "-1"], "reject"),
        (["--max-monthly-usd", "0"], "reject"), (["--max-monthly-usd", "nan"], "reject"),
        (["--data-gb", "1e400"], "reject"), (["--bogus-flag", "1"], "reject"),
        (["extra-argument"], "reject"),
    ]:
        add(CliCase(area="size", argv=["size", *extra], expect=expect))

    # bad input files everywhere a command reads one
    readers: list[tuple[str, list[str], str | None]] = [
        ("layout", ["layout", SPEC, "--catalog"], None),
        ("catalog", ["catalog", "instances", "--catalog"], None),
        ("catalog", ["catalog", "volumes", "--catalog"], None),
        ("simulate", [*sim_base, "--catalog"], None),
        ("simulate", [*sim_base, "--workload", "mysql", "--io-profile"], None),
        ("size", ["size", "--io-profile"], None),
        ("size", ["size", "--catalog"], None),
        ("validate", ["validate", "--duration", "0.5", "--profile"], None),
        ("report", ["report", "-o", ws.path("r.html")], "positional"),
        ("report", ["report", str(ws.valid_result), "-o", ws.path("r.html"), "--compare"],
         None),
        ("calibrate", ["calibrate", "--name", "x", "--out", ws.path("p.json"), "--import-fio"],
         None),
    ]
    core = ("fifo", "/dev/zero", "directory", "deep-nesting", "nan-values")
    for n, (area, argv, how) in enumerate(readers):
        for label, path in ws.bad_inputs.items():
            if n > 0 and label not in core:
                continue  # one reader gets every bad file; the others the worst of them
            add(CliCase(area=area, argv=[*argv, path] if how is None else
                        [argv[0], path, *argv[1:]], note=f"input file: {label}"))
    add(CliCase(area="layout", argv=["layout", SPEC], env={"ADVISOR_CATALOG": "/dev/zero"}))
    add(CliCase(area="layout", argv=["layout", SPEC],
                env={"ADVISOR_CATALOG": ws.bad_inputs["fifo"]}))

    cases += catalog_cases(ws)
    cases += profile_and_fio_cases(ws)

    # output targets: --out, --report, -o, --io-profile-out
    writers = [
        ("simulate", [*sim_base, "--out"]),
        ("simulate", [*sim_base, "--report"]),
        ("layout", ["layout", SPEC, "--format", "json", "--catalog", str(ws.profile), "--out"]),
        ("report", ["report", str(ws.valid_result), "-o"]),
        ("calibrate", ["calibrate", "--import-fio", str(ws.fio), "--name", "attack", "--out"]),
        ("size", ["size", "--out"]),
        ("size", ["size", "--report"]),
    ]
    for n, (area, argv) in enumerate(writers):
        for label, path, check in out_targets(ws, f"w{n}"):
            if n > 0 and label in ("empty path", "missing parent"):
                continue  # simulate --out covers these; a size run costs seconds
            add(CliCase(area=area, argv=[*argv, path], check=check,
                        note=f"output target: {label}"))

    cases += _replay_cases(ws)
    cases += _other_command_cases(ws)
    return cases


def _option_cases(area: str, base: list[str], d: Any, index: int) -> list[CliCase]:
    flag = d.flag
    kind = d.type
    numeric = kind in (int, float) or kind in (int | None, float | None)
    if d.opt.choices:
        values = [("bogus", "bogus"), (big("x", 5000), "'x'*5000")]
    elif numeric:
        values = numeric_values(d, index, integer=kind in (int, int | None))
    else:
        values = string_values(d.name)
    return [CliCase(area=area, argv=[*base, flag, v]) for v, _label in values]


def _replay_cases(ws: Workspace) -> list[CliCase]:
    db = f"sqlite:///{ws.path('replay.sqlite3')}"
    base = ["replay", "--master", db, "--duration", "0.3", "--warmup", "0", "--ramp", "1",
            "--rows", "100"]
    cases = [CliCase(area="replay", argv=[*base, *args], expect=expect) for args, expect in [
        (["--rate", "1e12"], "reject"), (["--rate", "nan"], "reject"), (["--rate", ""], "reject"),
        (["--rate", "-1"], "reject"), (["--rate", "1e400"], "reject"),
        (["--rate", "9" * 400], "reject"), (["--rate", ",".join(["1"] * 5000)], "reject"),
        (["--duration", "1e12"], "reject"), (["--duration", "nan"], "reject"),
        (["--duration", "inf"], "reject"), (["--duration", "-1"], "reject"),
        (["--duration", "9" * 400], "reject"), (["--warmup", "-1"], "reject"),
        (["--warmup", "nan"], "reject"), (["--warmup", "1e12"], "reject"),
        (["--rows", "0"], "reject"), (["--rows", "-1"], "reject"),
        (["--rows", "9" * 400], "reject"), (["--rows", "1000000000000"], "reject"),
        (["--ramp", ""], "reject"), (["--ramp", "0"], "reject"), (["--ramp", "-1"], "reject"),
        (["--ramp", "nan"], "reject"), (["--ramp", "1000000"], "reject"),
        (["--ramp", "9" * 400], "reject"),
        (["--reads", "nan"], "reject"), (["--reads", "-1"], "reject"),
        (["--reads", "1e400"], "reject"), (["--seed", "-1"], "reject"),
        (["--seed", "9" * 400], "reject"), (["--driver", "bogus"], "reject"),
        (["--replica", ""], "reject"), (["--replica", "notaurl"], "reject"),
        (["--format", "bogus"], "reject"),
    ]]
    for master in ["", "notaurl", big("x", 5000), "mysql://u:p@127.0.0.1:notaport/db",
                   "mysql+pymysql://u:p@127.0.0.1:" + "9" * 400 + "/db",
                   "sqlite:////dev/zero", f"sqlite:///{ws.path('a-directory')}",
                   "bogus+driver://u:p@h/db", "postgresql://u@127.0.0.1:1/db",
                   "mysql://u@[::1/db"]:
        cases.append(CliCase(area="replay", argv=["replay", "--master", master, "--duration",
                                                  "0.3", "--ramp", "1"]))
    for url in (f"mysql+pymysql://attacker:{SECRET}@127.0.0.1:1/db",
                f"mysql+pymysql://attacker@127.0.0.1:1/db?password={SECRET}",
                f"mysql+pymysql://attacker@127.0.0.1:notaport/db?password={SECRET}"):
        cases.append(CliCase(area="secrets", argv=["replay", "--master", url, "--duration",
                                                   "0.3", "--ramp", "1"], expect="any"))
        cases.append(CliCase(area="secrets", argv=["size", "--save"],
                             env={"ADVISOR_DATABASE_URL": url}, expect="any"))
        cases.append(CliCase(area="secrets", argv=["report", "--run", "abc", "-o",
                                                   ws.path("run.html")],
                             env={"ADVISOR_DATABASE_URL": url}, expect="any"))
    for n, (label, path, check) in enumerate(out_targets(ws, "replay")):
        cases.append(CliCase(area="replay", argv=[*base, "--out", path], check=check,
                             note=f"output target: {label}"))
        if n < 3:
            cases.append(CliCase(area="replay", argv=[*base, "--io-profile-out", path],
                                 check=check, note=f"output target: {label}"))
    return cases


def _other_command_cases(ws: Workspace) -> list[CliCase]:
    cases: list[CliCase] = []
    cal = ["calibrate", "--path", ws.path("cal"), "--size", "8M", "--time", "1", "--threads",
           "1", "--name", "attack", "--out", ws.path("cal.json")]
    for args in (["--time", "-1"], ["--time", "0"], ["--time", "nan"], ["--time", "9" * 400],
                 ["--time", "100000000"], ["--threads", ""], ["--threads", "0"],
                 ["--threads", "-1"], ["--threads", "nan"], ["--threads", ",".join(["1"] * 200)],
                 # 100,000 threads once started 32,357 sysbench threads on a shared host
                 ["--threads", "5000"], ["--size", "abc"], ["--size", "0"],
                 ["--size", "-1G"], ["--size", "1000000t"], ["--size", "1e400"],
                 ["--block-size", "0"], ["--block-size", "abc"], ["--block-size", "1t"],
                 ["--path", "/dev/zero"],
                 ["--path", ws.bad_inputs["fifo"]], ["--path", ws.bad_inputs["empty"]],
                 ["--path", ""]):
        cases.append(CliCase(area="calibrate", argv=[*cal, *args]))
    cases.append(CliCase(area="calibrate", argv=["calibrate"]))
    cases.append(CliCase(area="calibrate", argv=["calibrate", "--path", ws.path("cal"),
                                                 "--import-fio", str(ws.fio)]))
    for run_id in ("", "bogus", "9" * 5000, "' OR 1=1 --", "../../etc/passwd", "%00"):
        cases.append(CliCase(area="report", argv=["report", "--run", run_id, "-o",
                                                  ws.path("run.html")]))
    cases.append(CliCase(area="report", argv=["report"]))
    for i, (label, text) in enumerate([
        ("result missing fields", json.dumps({"kind": "simulate"})),
        ("result with NaN levels", '{"kind": "simulate", "levels": [{"iops": NaN}]}'),
        ("size result with a bogus recommendation", json.dumps({"kind": "size",
                                                                "recommendation": "x"})),
        ("unknown kind", json.dumps({"kind": "bogus"})),
        ("result with 400-digit seed", '{"kind": "simulate", "seed": ' + "9" * 400 + "}"),
    ]):
        path = write_file(ws.root / f"result-{i}.json", text)
        cases.append(CliCase(area="report", argv=["report", path, "-o", ws.path("r.html")],
                             note=label))
    for args, env in [(["--port", "0"], {}), (["--port", "-1"], {}), (["--port", "70000"], {}),
                      (["--port", "abc"], {}), (["--port", "9" * 400], {}),
                      (["--log-level", "verbose"], {}), (["--log-level", ""], {}),
                      (["--host", "no.such.host.invalid"], {}), (["--host", ""], {}),
                      (["--host", big("x", 5000)], {}),
                      ([], {"ADVISOR_API_IO_BUDGET": "nan"}),
                      ([], {"ADVISOR_API_IO_BUDGET": "-1"}),
                      ([], {"ADVISOR_API_IO_BUDGET": "inf"}),
                      ([], {"ADVISOR_API_IO_BUDGET": "lots"}),
                      ([], {"ADVISOR_DATABASE_URL": "notaurl"}),
                      ([], {"ADVISOR_DATABASE_URL": "mysql://u:p@127.0.0.1:notaport/db"})]:
        cases.append(CliCase(area="serve", argv=["serve", *args], env=env, serve=True,
                             timeout_s=12))
    for url in (f"mysql+pymysql://attacker:{SECRET}@127.0.0.1:1/db",
                f"mysql+pymysql://attacker@127.0.0.1:1/db?password={SECRET}"):
        cases.append(CliCase(area="secrets", argv=["serve"], env={"ADVISOR_DATABASE_URL": url},
                             serve=True, expect="any", timeout_s=12))
    for argv in (["bogus"], ["size", "--tps"], ["layout"], ["simulate"], ["catalog", "bogus"],
                 ["layout", SPEC, "--format", "bogus"], ["catalog", "instances", "--format", ""],
                 ["layout", SPEC, SPEC], ["--tps", "1"]):
        cases.append(CliCase(area="usage", argv=argv))
    return cases
