"""A real Dask cluster on loopback for the tests: `dask scheduler` and `dask worker` processes."""

import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def stop(self) -> None:
        for p in [*self.workers, self.scheduler]:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=30)


def start(workers: int, log_dir: str) -> Cluster:
    """A scheduler and `workers` single-threaded workers without a nanny (a killed worker stays
    dead, as a lost machine does), each a process of its own on a free loopback port."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    common = ["--no-dashboard"]
    with open(f"{log_dir}/scheduler.log", "wb") as log:
        scheduler = subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host",
                                      "127.0.0.1", "--port", str(port), *common],
                                     stdout=log, stderr=subprocess.STDOUT)
    cluster = Cluster(address, scheduler)
    for i in range(workers):
        with open(f"{log_dir}/worker{i}.log", "wb") as log:
            cluster.workers.append(subprocess.Popen(
                [sys.executable, "-m", "dask", "worker", address, "--nthreads", "1",
                 "--no-nanny", "--host", "127.0.0.1", "--name", f"w{i}", *common],
                stdout=log, stderr=subprocess.STDOUT))
    return cluster


def wait_for_workers(client: object, n: int, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while len(client.scheduler_info()["workers"]) < n:  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise TimeoutError(f"{n} Dask workers did not join in {timeout_s:.0f} s")
        time.sleep(0.2)
