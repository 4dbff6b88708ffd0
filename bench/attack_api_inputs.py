"""What `bench/attack.py` tries, part 4: hostile HTTP requests, built from the API's request
models (every field of POST /v1/size and /v1/simulate) plus the issue's own requests, bodies of
the wrong shape or size, the bearer token on every route, paths, and raw HTTP edges.
"""

import json
from typing import Any

from attack_cli_inputs import out_of_range
from attack_inputs import AEROSPIKE, RAW, SPEC, SYSBENCH, TOKEN, ApiCase, json_at


def _body(base: dict[str, Any], name: str | None = None, literal: str = "null") -> bytes:
    if name is None:
        return json.dumps(base).encode()
    return json_at(base, (name,), literal).encode()


def api_cases() -> list[ApiCase]:
    from api.models import SimulateBody, SizeBody
    from recommend.request import size_fields
    from workloads.simulate_request import simulate_fields

    cases: list[ApiCase] = []
    add = cases.append
    sim_base: dict[str, Any] = {"spec": SPEC, "duration": 1}

    # controls
    add(ApiCase(area="control", method="GET", path="/healthz", token=None, expect=200,
                control=True))
    add(ApiCase(area="control", method="GET", path="/v1/catalog/volumes", expect=200,
                control=True))
    add(ApiCase(area="control", path="/v1/simulate", body=_body(sim_base), expect=201,
                control=True))

    declared = {**size_fields(), **simulate_fields()}

    def literals(name: str, annotation: Any, index: int) -> list[str]:
        """JSON text of values the field must refuse (never null: it means the default)."""
        numeric = annotation in (int, float) or annotation in (int | None, float | None,
                                                               int | str)
        if numeric:
            extras = ["-Infinity", "-1e400", '"12"', "true", "[1]", '{"v": 1}', '"١٢"']
            return ["NaN", "Infinity", "9" * 400, "1e400", "-" + "9" * 400,
                    extras[index % len(extras)], out_of_range(declared[name], index)]
        return ['""', json.dumps("9" * 5000), '"４ｋ"', "12", "[]"]

    for model, path, base, group in ((SimulateBody, "/v1/simulate", sim_base, True),
                                     (SizeBody, "/v1/size", {}, False)):
        for i, (name, f) in enumerate(model.model_fields.items()):
            if f.annotation is bool or name == "workload":
                continue
            body = dict(base)
            if group and name in AEROSPIKE:
                body["workload"] = "aerospike"
            elif group and name in SYSBENCH:
                body["file_test_mode"] = "rndrd"
            elif group and name not in RAW:
                body["workload"] = "mysql"
            elif not group and name in AEROSPIKE:
                body.update(workload="aerospike", reads_per_sec=2000, writes_per_sec=1000)
            for literal in literals(name, f.annotation, i):
                add(ApiCase(area=path.rsplit("/", 1)[1], path=path,
                            body=_body(body, name, literal),
                            body_label=None if len(literal) < 100 else
                            json.dumps({k: v for k, v in body.items() if k != name})[:-1]
                            + f', "{name}": <{len(literal)}-char value>}}',
                            long_values=(literal[1:-1],) if len(literal) > 1000 else ()))

    # the issue's own requests
    for extra in ({"ramp": "rate=nan", "engine": "des"}, {"rate_iops": "__NaN__"},
                  {"rate_iops": 1e15}, {"rate_iops": "__Infinity__"}, {"ramp": "rate=1e15"},
                  {"ramp": "rate=1e12"}, {"duration": 2419200, "rate_iops": 1e9},
                  {"workload": "aerospike", "slice": 0.002, "duration": 60},
                  {"workload": "aerospike", "slice": 1e-6, "duration": 60},
                  {"workload": "aerospike", "slice": 0}, {"workload": "aerospike", "slice": -1},
                  {"workload": "mysql", "p99_ms": 1e-300},
                  {"ramp": "threads=" + ",".join(str(i + 1) for i in range(64)),
                   "file_test_mode": "rndrd"},
                  {"ramp": ""}, {"bs": "1000000t"}, {"file_fsync_freq": -1,
                                                      "file_test_mode": "rndwr"},
                  {"spec": "m5d.large:gp2:٣٨٥GiB"}, {"seed": -1}, {"workload": "bogus"},
                  {"workload": ""}, {"spec": "m5d.large:gp2:" + "9" * 5000 + "GiB"}):
        text = json.dumps({**sim_base, **extra})
        text = text.replace('"__NaN__"', "NaN").replace('"__Infinity__"', "Infinity")
        add(ApiCase(area="simulate", path="/v1/simulate", body=text.encode(),
                    expect="any" if extra.get("slice") == 0.002 or "p99_ms" in extra or
                    "threads" in str(extra.get("ramp")) else "reject",
                    body_label=None if len(text) < 300 else text[:120] + f"… ({len(text)} bytes)",
                    headline="nan" in text.lower()))

    # bodies of the wrong shape or size
    mega = "a" * 1_000_000
    for label, text, long in [
        ("1 MB spec", json.dumps({"spec": "m5d.large:gp2:" + mega}), mega),
        ("1 MB unknown field", json.dumps({"spec": SPEC, "z" * 1_000_000: 1}), "z" * 1_000_000),
        ("1 MB of garbage", "\x01" * 1_000_000, ""),
        ("8 MB spec", json.dumps({"spec": "b" * 8_000_000}), "b" * 8_000_000),
        ("deep nesting (100,000 levels)", '{"spec": ' + "[" * 100_000 + "]" * 100_000 + "}",
         ""),
        ("deep object nesting", '{"spec": ' + '{"a":' * 20_000 + "1" + "}" * 20_000 + "}", ""),
        ("100,000 unknown fields", json.dumps({f"f{i}": i for i in range(100_000)}), ""),
        ("array of 1,000,000 numbers", json.dumps({"spec": SPEC, "ramp": list(range(1_000_000))}),
         ""),
    ]:
        for path in ("/v1/simulate", "/v1/size"):
            add(ApiCase(area="bodies", path=path, body=text.encode(), body_label=f"<{label}>",
                        long_values=(long,) if long else (), timeout_s=30))
    for label, raw_body in [("empty body", b""), ("null", b"null"), ("a list", b"[]"),
                        ("a string", b'"spec"'), ("a number", b"1e400"), ("NaN", b"NaN"),
                        ("invalid UTF-8", b'{"spec": "\xff\xfe"}'),
                        ("duplicate keys (the last wins, as JSON parsers do)",
                         b'{"spec": "x", "spec": "m5d.large:gp2:385GiB"}'),
                        ("a 400-digit key", b'{"' + b"9" * 400 + b'": 1}'),
                        ("NUL in a string", b'{"spec": "m5d.large\\u0000:gp2:385GiB"}'),
                        ("lone surrogate", b'{"spec": "\\ud800"}'),
                        ("trailing garbage", b'{"spec": "m5d.large:gp2:385GiB"} xyz')]:
        for path in ("/v1/simulate", "/v1/size"):
            add(ApiCase(area="bodies", path=path, body=raw_body, body_label=f"<{label}>",
                        expect="any" if label.startswith("duplicate") else "reject"))
    add(ApiCase(area="bodies", path="/v1/simulate", body=_body(sim_base),
                headers={"Content-Type": "text/plain"}, expect="any"))
    add(ApiCase(area="bodies", path="/v1/simulate", body=json.dumps(sim_base).encode("utf-16"),
                headers={"Content-Type": "application/json; charset=utf-16"}, expect="any"))

    # the token: every /v1 route refuses a request without the right one, before the body
    routes = [("POST", "/v1/size"), ("POST", "/v1/simulate"), ("GET", "/v1/layouts/" + SPEC),
              ("GET", "/v1/catalog/instances"), ("GET", "/v1/catalog/volumes"),
              ("GET", "/v1/runs"), ("GET", "/v1/runs/abc"), ("GET", "/v1/runs/abc/report")]
    for method, path in routes:
        garbage = b"x" * 1_000_000 if method == "POST" else None
        for token in (None, "wrong", "", TOKEN.upper(), TOKEN[:-1], "x" * 100_000):
            add(ApiCase(area="token", method=method, path=path, body=garbage, token=token,
                        body_label="<1 MB of garbage>" if garbage else None,
                        expect=401 if len(token or "") < 10_000 else "reject",
                        closed_ok=len(token or "") >= 10_000))
    add(ApiCase(area="token", method="GET", path="/v1/runs",
                headers={"Authorization": "Basic " + "YTpi"}, token=None, expect=401))
    add(ApiCase(area="token", method="GET", path="/v1/runs",
                headers={"Authorization": "Bearer\u00e9"}, token=None, expect=401))

    # paths and queries
    for spec in ("9" * 5000, "m5d.large:gp2:%EF%BC%93%EF%BC%98%EF%BC%95GiB", "nan", "%00",
                 "..%2F..%2Fetc%2Fpasswd", "m5d.large:gp2:1e400GiB", "x" * 100_000):
        add(ApiCase(area="paths", method="GET", path="/v1/layouts/" + spec,
                    long_values=(spec,) if len(spec) > 1000 else ()))
    for run_id in ("9" * 5000, "..%2F..%2Fetc%2Fpasswd", "%00", "'%20OR%201=1--", "%FF%FE"):
        add(ApiCase(area="paths", method="GET", path="/v1/runs/" + run_id,
                    long_values=(run_id,) if len(run_id) > 1000 else ()))
        add(ApiCase(area="paths", method="GET", path=f"/v1/runs/{run_id}/report",
                    long_values=(run_id,) if len(run_id) > 1000 else ()))
    for limit in ("0", "-1", "1e400", "nan", "abc", "9" * 400, "201", ""):
        add(ApiCase(area="paths", method="GET", path="/v1/runs?limit=" + limit))
    for method, path in (("PUT", "/v1/size"), ("DELETE", "/v1/runs/abc"),
                         ("GET", "/v1/size"), ("POST", "/v1/catalog/volumes")):
        add(ApiCase(area="paths", method=method, path=path, body=b"{}"))

    # the HTTP edges, as raw bytes
    host = b"Host: 127.0.0.1\r\n"
    auth = f"Authorization: Bearer {TOKEN}\r\n".encode()
    post = b"POST /v1/simulate HTTP/1.1\r\n" + host + auth + b"Content-Type: application/json\r\n"
    small = json.dumps(sim_base).encode()
    for label, raw, closed_ok in [
        ("Content-Length 10^12, 10 bytes sent", post + b"Content-Length: 1000000000000\r\n\r\n"
         + small[:10], True),
        ("Content-Length 10^12 without a token", b"POST /v1/size HTTP/1.1\r\n" + host +
         b"Content-Length: 1000000000000\r\n\r\n{", True),
        ("Content-Length larger than the body", post + b"Content-Length: 5000\r\n\r\n" + small,
         True),
        ("Content-Length negative", post + b"Content-Length: -1\r\n\r\n" + small, True),
        ("Content-Length not a number", post + b"Content-Length: lots\r\n\r\n" + small, True),
        ("Content-Length 400 digits", post + b"Content-Length: " + b"9" * 400 + b"\r\n\r\n"
         + small, True),
        ("two Content-Lengths", post + b"Content-Length: 3\r\nContent-Length: " +
         str(len(small)).encode() + b"\r\n\r\n" + small, True),
        ("chunk size 2^48", post + b"Transfer-Encoding: chunked\r\n\r\nffffffffffff\r\n{", True),
        ("chunked body of 2 MB", post + b"Transfer-Encoding: chunked\r\n\r\n" +
         b"".join(b"%x\r\n" % 65536 + b" " * 65536 + b"\r\n" for _ in range(32)) +
         b"%x\r\n" % len(small) + small + b"\r\n0\r\n\r\n", True),
        ("request line of 100 KB", b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n" + host +
         b"\r\n", True),
        ("header of 1 MB", b"GET /healthz HTTP/1.1\r\n" + host + b"X-Big: " +
         b"a" * 1_000_000 + b"\r\n\r\n", True),
        ("10,000 headers", b"GET /healthz HTTP/1.1\r\n" + host +
         b"".join(b"X-H%d: v\r\n" % i for i in range(10_000)) + b"\r\n", True),
        ("not HTTP", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 100, True),
        ("HTTP/0.9", b"GET /healthz\r\n\r\n", True),
        ("NUL in the path", b"GET /v1/runs/\x00 HTTP/1.1\r\n" + host + auth + b"\r\n", True),
        ("bare LF line ends", b"GET /healthz HTTP/1.1\n" + host.replace(b"\r", b"") + b"\n",
         True),
    ]:
        add(ApiCase(area="http", raw=raw, body_label=label, closed_ok=closed_ok, timeout_s=15,
                    expect="any"))
    return cases
