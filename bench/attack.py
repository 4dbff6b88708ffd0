"""Attack the advisor as a careless or hostile user would (issue 16): bad input to every command
and hostile HTTP requests to a real `advisor serve`, each judged from the outside.

    .venv/bin/python bench/attack.py [--quick] [--format table|json] [--jobs N] [--timeout S]
                                     [--only cli|api] [--skip-load] [--keep]

Command line: each input runs as its own process (`advisor ...`, under a 4 GiB address-space
limit, killed after --timeout seconds). Exit 0, 1 or 2 with at most one error line on stderr is
fine ("note:"/"warning:" lines aside); exit 3, a traceback, a signal, more than one error line,
a timeout, a secret printed, an output written through a symlink/FIFO/device node, or a value the
program should refuse accepted with exit 0 is a finding.

HTTP: the script starts `advisor serve` on a free loopback port with ADVISOR_API_TOKEN set and a
throw-away runs database, and sends each request over a raw socket. A 5xx, no reply in time, the
server dying, a reply quoting a long input (or any error reply over 16 KiB), a wrong-token request
not answered 401, or a value that should be refused answered 2xx is a finding. After a hang or a
crash the server is restarted, so one finding does not cascade.

Controls (valid inputs that must succeed) prove the harness sees the program; when one fails the
script exits 2. Otherwise it exits 0 only when there are no findings, 1 when there are.
Afterwards it runs helper scripts when present (bench/api_load.py: 50 clients; a kill -9
durability check bench/*kill*.py or bench/*durab*.py) and reports their outcome.
"""

import argparse
import contextlib
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from attack_api_inputs import api_cases  # the script runs from anywhere
from attack_cli_inputs import cli_cases
from attack_inputs import SECRET, SPEC, TOKEN, ApiCase, CliCase, Workspace, build_workspace
from live_server import free_port

REPO = Path(__file__).resolve().parent.parent
MEMORY_KIB = 4 * 1024 * 1024  # address-space limit of every process the suite starts
SIZE_FACTOR = 3  # `advisor size` runs get this many times --timeout
MAX_ERROR_REPLY = 16 * 1024  # an error reply longer than this quotes too much
ECHO_SLICE = 200  # quoting this many characters of a long input is echoing it
COLUMN = {"exit-3": "exit-3/5xx", "traceback": "exit-3/5xx", "bad-exit": "exit-3/5xx",
          "5xx": "exit-3/5xx", "hang": "hangs", "crash": "crashes"}
COLUMNS = ("tried", "ok", "exit-3/5xx", "hangs", "crashes", "other")


@dataclass
class Outcome:
    kind: str  # cli | api
    area: str
    verdict: str  # ok, or the finding's kind
    input: str  # how to reproduce it ($TMP: the suite's temporary directory)
    detail: str  # exit code / status and the first error line
    seconds: float
    control: bool = False
    exact: Any = None  # the exact argv / request when the display shortens it


def _limited(argv: list[str]) -> list[str]:
    """`argv` under the suite's address-space limit (a shell ulimit: safe with threads)."""
    return ["sh", "-c", f'ulimit -v {MEMORY_KIB}; exec "$@"', "sh", *argv]


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):  # the session started for this process
        os.killpg(proc.pid, signal.SIGKILL)


def _first_line(text: str, limit: int = 240) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    first = lines[0] if lines else ""
    more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return (first[:limit] + ("…" if len(first) > limit else "")) + more


def _echoes(text: str, values: list[str]) -> bool:
    for v in values:
        if len(v) >= 1000:
            for start in (0, len(v) // 2, len(v) - ECHO_SLICE):
                if v[start:start + ECHO_SLICE] in text:
                    return True
    return False


# ---------------------------------------------------------------------------------------------
# Command line


def run_cli(case: CliCase, advisor: list[str], env: dict[str, str], ws: Workspace,
            timeout: float) -> Outcome:
    # a sizing is the longest legitimate job (the Aerospike one: 19 s on an idle machine)
    limit = case.timeout_s or (timeout * SIZE_FACTOR if case.argv[:1] == ["size"] else timeout)
    start = time.monotonic()
    proc = subprocess.Popen(_limited([*advisor, *case.argv]), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**env, **case.env}, cwd=ws.root / "cwd",
                            start_new_session=True)
    timed_out = False
    try:
        out_b, err_b = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill(proc)
        out_b, err_b = proc.communicate()
    seconds = time.monotonic() - start
    out, err = out_b.decode("utf-8", "replace"), err_b.decode("utf-8", "replace")
    rc = proc.returncode
    verdict, detail = judge_cli(case, rc, out, err, timed_out, limit)
    tmp = str(ws.root)
    return Outcome(kind="cli", area=case.area, verdict=verdict, input=case.display(tmp),
                   detail=detail.replace(tmp, "$TMP"), seconds=round(seconds, 2),
                   control=case.control,
                   exact={"argv": case.argv, "env": case.env} if verdict != "ok" else None)


def judge_cli(case: CliCase, rc: int, out: str, err: str, timed_out: bool,
              limit: float) -> tuple[str, str]:
    errors = [ln for ln in err.splitlines()
              if ln.strip() and not ln.lstrip().lower().startswith(("note:", "warning:"))]
    said = _first_line("\n".join(errors) or out)
    if case.control:
        return ("ok", f"exit {rc}") if rc == 0 and not timed_out else \
            ("control-failed", f"exit {rc}: {said}")
    if timed_out:
        if case.serve:
            started = "the server started and kept running"
            if SECRET in out + err:
                return "secret", f"{started}; printed the password: {_first_line(err)}"
            return ("accepted", f"{started} ({limit:.0f} s)") if case.expect == "reject" else \
                ("ok", started)
        return "hang", f"no answer in {limit:.0f} s"
    if rc < 0:
        return "crash", f"killed by signal {signal.Signals(-rc).name}: {said}"
    if "Traceback (most recent call last)" in out + err:
        return "traceback", f"exit {rc}: {_first_line(err)}"
    if rc == 3:
        return "exit-3", f"exit 3: {said}"
    if rc not in (0, 1, 2):
        return "bad-exit", f"exit {rc}: {said}"
    if SECRET in out + err:
        return "secret", f"exit {rc}: printed the password"
    if rc != 0 and len(errors) != 1:
        return "multi-line", f"exit {rc} with {len(errors)} error lines: {said}"
    if _echoes(out + err, case.argv):
        return "echo", f"exit {rc}: quotes a long input whole ({len(err)} chars on stderr)"
    if case.check is not None and (unsafe := case.check()):
        return "unsafe-write", f"exit {rc}: {unsafe}"
    if case.expect == "reject" and rc == 0:
        return "accepted", "exit 0"
    return "ok", f"exit {rc}: {said}" if rc else "exit 0"


# ---------------------------------------------------------------------------------------------
# HTTP


class Server:
    """`advisor serve` on a free loopback port, restarted after a hang or a crash."""

    def __init__(self, advisor: list[str], env: dict[str, str], log: Path) -> None:
        self.advisor, self.env, self.log = advisor, env, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.starts = 0
        self.deaths: list[str] = []

    def start(self) -> None:
        self.port = free_port()
        self.starts += 1
        with open(self.log, "ab") as log:
            log.write(f"--- start {self.starts} on port {self.port}\n".encode())
            self.proc = subprocess.Popen(
                _limited([*self.advisor, "serve", "--port", str(self.port), "--log-level",
                          "warning"]),
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=self.env,
                start_new_session=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"advisor serve exited {self.proc.returncode} at start "
                                   f"(see {self.log})")
            status, _body, _ = http(self.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                                    b"Connection: close\r\n\r\n", 2)
            if status == 200:
                return
            time.sleep(0.3)
        raise RuntimeError(f"advisor serve did not answer /healthz in 90 s (see {self.log})")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(10)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                _kill(self.proc)
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


def http(port: int, raw: bytes, timeout: float) -> tuple[int | None, bytes, str]:
    """Send `raw` (in a thread, so a server that answers early is still heard) and read the
    reply until the server closes: (status or None, body, what went wrong)."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except OSError as exc:
        return None, b"", f"connect: {exc}"
    send_error: list[str] = []

    def send() -> None:
        try:
            sock.sendall(raw)
        except OSError as exc:
            send_error.append(type(exc).__name__)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    problem = ""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                problem = "timeout"
                break
            sock.settimeout(left)
            try:
                data = sock.recv(1 << 16)
            except TimeoutError:
                problem = "timeout"
                break
            except OSError as exc:
                problem = type(exc).__name__
                break
            if not data:
                break
            chunks.append(data)
            if sum(map(len, chunks)) > 64 << 20:
                problem = "reply over 64 MB"
                break
    finally:
        sock.close()
    reply = b"".join(chunks)
    head, _, body = reply.partition(b"\r\n\r\n")
    status: int | None = None
    if head.startswith(b"HTTP/"):
        with contextlib.suppress(IndexError, ValueError):
            status = int(head.split(b" ", 2)[1])
    if status is not None and b"transfer-encoding: chunked" in head.lower():
        body = _unchunk(body)
    if status is None and not problem:
        problem = "closed without a reply" + (f" ({send_error[0]} while sending)"
                                              if send_error else "")
    return status, body, problem


def _unchunk(body: bytes) -> bytes:
    out, rest = [], body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        out.append(rest[:size])
        rest = rest[size + 2:]
    return b"".join(out)


def request_bytes(case: ApiCase, port: int) -> bytes:
    if case.raw is not None:
        return case.raw
    lines = [f"{case.method} {case.path} HTTP/1.1", f"Host: 127.0.0.1:{port}",
             "Connection: close"]
    headers = dict(case.headers)
    if case.token is not None:
        headers["Authorization"] = f"Bearer {case.token}"
    if case.body is not None:
        headers.setdefault("Content-Type", "application/json")
        headers["Content-Length"] = str(len(case.body))
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return "\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + (case.body or b"")


def run_api(case: ApiCase, server: Server, timeout: float) -> Outcome:
    limit = case.timeout_s or timeout
    start = time.monotonic()
    status, body, problem = http(server.port, request_bytes(case, server.port), limit)
    seconds = time.monotonic() - start
    text = body.decode("utf-8", "replace")
    verdict, detail = judge_api(case, status, text, problem, server.alive(), limit)
    if verdict == "crash" and server.proc is not None:
        server.deaths.append(f"exit {server.proc.returncode} after: {case.display()[:200]}")
    exact = None
    if verdict != "ok":
        exact = {"raw": case.raw.decode("latin-1")} if case.raw is not None and \
            len(case.raw) < 4000 else {
            "method": case.method, "path": case.path if len(case.path) < 4000 else None,
            "token": case.token if case.token is None or len(case.token) < 200 else "long",
            "headers": case.headers,
            "body": case.body.decode("utf-8", "replace")
            if case.body is not None and len(case.body) < 4000 else case.body_label}
    return Outcome(kind="api", area=case.area, verdict=verdict, input=case.display(),
                   detail=detail, seconds=round(seconds, 2), control=case.control, exact=exact)


def judge_api(case: ApiCase, status: int | None, text: str, problem: str, alive: bool,
              limit: float) -> tuple[str, str]:
    said = _first_line(text, 200)
    if case.control:
        ok = status == case.expect
        return ("ok" if ok else "control-failed"), f"{status or problem}: {said}"
    if not alive:
        return "crash", f"the server died ({status or problem}: {said})"
    if status is None:
        if problem == "timeout":
            return "hang", f"no reply in {limit:.0f} s"
        return ("ok" if case.closed_ok else "no-reply"), problem
    if status >= 500:
        return "5xx", f"{status}: {said}"
    if isinstance(case.expect, int) and status != case.expect:
        return ("auth" if case.expect == 401 else "status"), \
            f"{status} (expected {case.expect}): {said}"
    if _echoes(text, list(case.long_values)) or \
            (not 200 <= status < 300 and len(text) > MAX_ERROR_REPLY):
        return "echo", f"{status}: a {len(text):,}-character reply quotes the input"
    if case.expect == "reject" and 200 <= status < 300:
        return "accepted", f"{status}: {said}"
    return "ok", f"{status}: {said}"


# ---------------------------------------------------------------------------------------------
# The run


def advisor_command() -> list[str]:
    script = Path(sys.executable).parent / "advisor"
    return [str(script)] if script.exists() else [sys.executable, "-m", "advisor.cli.main"]


def base_env(ws: Workspace) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADVISOR_")}
    env.update(ADVISOR_DATABASE_URL=f"sqlite:///{ws.root / 'data' / 'runs.sqlite3'}",
               ADVISOR_DATA_DIR=str(ws.root / "data"), XDG_DATA_HOME=str(ws.root / "data"),
               XDG_CONFIG_HOME=str(ws.root / "config"), COLUMNS="100", NO_COLOR="1",
               TERM="dumb")
    return env


def sample(cases: list[Any], n: int, areas: tuple[str, ...]) -> list[Any]:
    """Controls, the issue's NaN requests, and `n` hostile cases picked evenly from the cheap
    areas (--quick)."""
    picked = [c for c in cases if c.control or c.headline]
    pool = [c for c in cases if not (c.control or c.headline) and c.area in areas]
    step = max(1, len(pool) // n)
    return picked + pool[::step][:n]


class Progress:
    def __init__(self, label: str, total: int) -> None:
        self.label, self.total, self.done, self.found = label, total, 0, 0
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()

    def tick(self, o: Outcome) -> None:
        with self.lock:
            self.done += 1
            self.found += o.verdict != "ok"
            if self.tty:
                print(f"\r{self.label}: {self.done}/{self.total}, {self.found} findings",
                      end="", file=sys.stderr, flush=True)
            elif self.done % 50 == 0 or self.done == self.total:
                print(f"{self.label}: {self.done}/{self.total}, {self.found} findings",
                      file=sys.stderr, flush=True)
            if self.tty and self.done == self.total:
                print(file=sys.stderr)


def attack_cli(cases: list[CliCase], ws: Workspace, jobs: int, timeout: float) -> list[Outcome]:
    advisor, env = advisor_command(), base_env(ws)
    progress = Progress("command line", len(cases))

    def one(case: CliCase) -> Outcome:
        o = run_cli(case, advisor, env, ws, timeout)
        progress.tick(o)
        return o

    # slow-looking cases first, so a hang overlaps with the many quick ones
    order = sorted(cases, key=lambda c: not (c.serve or c.area in ("size", "catalog")))
    with ThreadPoolExecutor(jobs) as pool:
        done = list(pool.map(one, order))
    by_id = {id(c): o for c, o in zip(order, done, strict=True)}
    return [by_id[id(c)] for c in cases]


def attack_api(cases: list[ApiCase], ws: Workspace, timeout: float) -> tuple[list[Outcome],
                                                                           dict[str, Any]]:
    env = {**base_env(ws), "ADVISOR_API_TOKEN": TOKEN,
           "ADVISOR_DATABASE_URL": f"sqlite:///{ws.root / 'data' / 'api-runs.sqlite3'}"}
    server = Server(advisor_command(), env, ws.root / "serve.log")
    progress = Progress("HTTP", len(cases))
    outcomes: list[Outcome] = []
    server.start()
    try:
        serial = [c for c in cases if c.raw is None]
        for case in serial:
            o = run_api(case, server, timeout)
            outcomes.append(o)
            progress.tick(o)
            if o.verdict in ("hang", "crash"):
                server.restart()  # a fresh server: a stuck core or a dead one taints the rest
        # raw HTTP edges hold connections open: in parallel, then one liveness check
        with ThreadPoolExecutor(8) as pool:
            raw = list(pool.map(lambda c: run_api(c, server, timeout),
                                [c for c in cases if c.raw is not None]))
        for o in raw:
            progress.tick(o)
        outcomes += raw
        status, _b, problem = http(server.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                                   b"Connection: close\r\n\r\n", 10)
        healthy = status == 200
    finally:
        server.stop()
    log = server.log.read_text("utf-8", "replace")
    info = {"server_starts": server.starts, "server_deaths": server.deaths,
            "healthy_after": healthy, "tracebacks_in_server_log": log.count("Traceback"),
            "secret_in_server_log": SECRET in log}
    if not healthy:
        outcomes.append(Outcome(kind="api", area="http", verdict="hang",
                                input="GET /healthz after the raw HTTP edges",
                                detail=f"{status or problem}", seconds=10))
    return outcomes, info


def run_hooks(timeout: float) -> list[dict[str, Any]]:
    """Helper B's load test and kill -9 durability check, when they exist."""
    scripts = [REPO / "bench" / "api_load.py"]
    scripts += sorted(p for p in (REPO / "bench").glob("*.py")
                      if ("kill" in p.name or "durab" in p.name) and p not in scripts)
    out: list[dict[str, Any]] = []
    for script in scripts:
        name = str(script.relative_to(REPO))
        if not script.exists():
            out.append({"script": name, "status": "missing",
                        "note": "not in this tree yet: run it separately when it lands"})
            continue
        start = time.monotonic()
        print(f"running {name} ...", file=sys.stderr, flush=True)
        try:
            proc = subprocess.run([sys.executable, str(script), "--format", "json"], cwd=REPO,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            out.append({"script": name, "status": "timeout", "seconds": timeout})
            continue
        summary: Any = None
        try:
            summary = json.loads(proc.stdout)
        except json.JSONDecodeError:
            summary = proc.stdout.strip().splitlines()[-5:]
        out.append({"script": name, "status": "ok" if proc.returncode == 0 else "failed",
                    "exit": proc.returncode, "seconds": round(time.monotonic() - start, 1),
                    "summary": summary, "stderr": _first_line(proc.stderr, 300)})
    return out


def counts(outcomes: list[Outcome]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for kind in ("cli", "api"):
        rows = [o for o in outcomes if o.kind == kind and not o.control]
        c = Counter(COLUMN.get(o.verdict, "other") if o.verdict != "ok" else "ok" for o in rows)
        table[kind] = {"tried": len(rows), **{k: c.get(k, 0) for k in COLUMNS[1:]}}
    table["total"] = {k: table["cli"][k] + table["api"][k] for k in COLUMNS}
    return table


def print_table(report: dict[str, Any]) -> None:
    t = report["counts"]
    print(f"{'':14}" + "".join(f"{k:>12}" for k in COLUMNS))
    for name, key in (("command line", "cli"), ("HTTP API", "api"), ("total", "total")):
        print(f"{name:14}" + "".join(f"{t[key][k]:>12,}" for k in COLUMNS))
    print(f"\ncontrols: {report['controls']['passed']} of {report['controls']['run']} "
          f"valid inputs worked; {report['seconds']:.0f} s with {report['jobs']} jobs "
          f"({report['cpu_seconds']:.0f} CPU seconds in the processes it started)")
    if report.get("server"):
        s = report["server"]
        print(f"server: started {s['server_starts']} time(s), died {len(s['server_deaths'])}, "
              f"{s['tracebacks_in_server_log']} traceback(s) in its log")
    for hook in report["hooks"]:
        print(f"hook {hook['script']}: {hook['status']}"
              + (f" (exit {hook['exit']}, {hook['seconds']} s)" if "exit" in hook else "")
              + (f": {json.dumps(hook['summary'])[:300]}" if hook.get("summary") else ""))
    findings = report["findings"]
    if not findings:
        print("\nno findings")
        return
    print(f"\n{len(findings)} findings ($TMP = the suite's temporary directory):")
    for f in sorted(findings, key=lambda f: (f["kind"], f["area"], f["verdict"])):
        print(f"  [{f['verdict']}] {f['kind']}/{f['area']}: {f['input'][:300]}")
        print(f"      -> {f['detail'][:300]}")


def _children_cpu() -> float:
    """CPU seconds of the processes the suite started and reaped (the load-independent cost)."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a sample of ~20 inputs")
    ap.add_argument("--format", choices=("table", "json"), default="table")
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2),
                    help="command-line inputs run at once")
    ap.add_argument("--timeout", type=float, default=20.0,
                    help="seconds before an input counts as a hang")
    ap.add_argument("--only", choices=("cli", "api"))
    ap.add_argument("--skip-load", action="store_true",
                    help="do not run the load test and the kill -9 check after the attack")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args(argv)

    started = time.monotonic()
    cpu_before = _children_cpu()
    root = Path(tempfile.mkdtemp(prefix="advisor-attack-"))
    try:
        ws = build_workspace(root, REPO)
        sys.path.insert(0, str(REPO))
        setup = subprocess.run(_limited([*advisor_command(), "simulate", SPEC, "--duration", "1",
                                         "--format", "json", "--out", str(ws.valid_result)]),
                               capture_output=True, env=base_env(ws), timeout=120)
        if setup.returncode != 0:
            print(f"setup failed: {setup.stderr.decode()[:500]}", file=sys.stderr)
            return 2
        outcomes: list[Outcome] = []
        server_info: dict[str, Any] = {}
        if args.only != "api":
            cases = cli_cases(ws)
            if args.quick:
                cases = sample(cases, 9, ("layout", "usage", "validate"))
            outcomes += attack_cli(cases, ws, args.jobs, args.timeout)
        if args.only != "cli":
            requests = api_cases()
            if args.quick:
                requests = sample(requests, 6, ("simulate", "token", "paths"))
            api_out, server_info = attack_api(requests, ws, args.timeout)
            outcomes += api_out
        hooks = [] if args.quick or args.skip_load or args.only == "cli" else \
            run_hooks(timeout=600)
    finally:
        if args.keep:
            print(f"kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)

    controls = [o for o in outcomes if o.control]
    findings = [o for o in outcomes if o.verdict != "ok" and not o.control]
    report = {
        "counts": counts(outcomes),
        "controls": {"run": len(controls), "passed": sum(o.verdict == "ok" for o in controls),
                     "failed": [asdict(o) for o in controls if o.verdict != "ok"]},
        "findings": [asdict(o) for o in findings],
        "slowest": [{"input": o.input[:200], "seconds": o.seconds, "verdict": o.verdict}
                    for o in sorted(outcomes, key=lambda o: -o.seconds)[:8]],
        "server": server_info, "hooks": hooks,
        "seconds": round(time.monotonic() - started, 1), "jobs": args.jobs,
        "cpu_seconds": round(_children_cpu() - cpu_before, 1),
        "quick": args.quick,
    }
    hook_failed = any(h["status"] in ("failed", "timeout") for h in hooks)
    if args.format == "json":
        json.dump(report, sys.stdout, indent=1)
        print()
    else:
        print_table(report)
        for c in report["controls"]["failed"]:
            print(f"CONTROL FAILED: {c['input']} -> {c['detail']}", file=sys.stderr)
    if report["controls"]["passed"] != report["controls"]["run"]:
        return 2
    return 1 if findings or hook_failed else 0


if __name__ == "__main__":
    sys.exit(main())
