"""What a run ran on: package versions, BLAS and its threads, CPU, platform, load.

Recorded once per session in a store's ``environment.json`` (each row names its
session), and beside the benchmarks' results.
"""

import datetime
import os
import platform
import sys
from pathlib import Path


def now():
    """The time now, in UTC, to the second (ISO 8601)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(command=None):
    """Versions, BLAS, threads, CPU and platform of this process, as a dict."""
    from importlib.metadata import PackageNotFoundError, version

    from threadpoolctl import threadpool_info

    packages = {}
    for name in (
        "fdlsr",
        "numpy",
        "scipy",
        "scikit-learn",
        "threadpoolctl",
        "matplotlib",
    ):
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    blas = [
        {
            key: info.get(key)
            for key in (
                "user_api",
                "internal_api",
                "version",
                "num_threads",
                "architecture",
                "filepath",
            )
        }
        for info in threadpool_info()
    ]
    threads = {
        name: os.environ[name]
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
        if name in os.environ
    }
    try:
        load = list(os.getloadavg())  # other jobs on a shared machine skew the timings
    except OSError:
        load = None
    return {
        "date": now(),
        "load_average": load,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "packages": packages,
        "threadpools": blas,
        "thread_variables": threads,
        "command": command if command is not None else sys.argv,
    }
