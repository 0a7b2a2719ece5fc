"""Where the suite's time goes, and the order that keeps every test process busy to the end.

- **Measured.** Each module's seconds (its tests' setup, call and teardown) and each test
  process's busy seconds are added up as the reports arrive, and beside them the CPU
  seconds each module spent: its test process's own and those of the processes it started
  and waited for (workers, servers, browsers: ``os.times``'s children; PostgreSQL's and
  Redis's work for it is not counted). The run ends with a "where the time went" section:
  every process's busy time (a process far above the others is the run's critical path),
  the whole machine's CPU over the run (``/proc/stat``: busy seconds of all its cores, and
  how much stayed idle: a run that leaves none is bound by CPU, where only less work makes
  it shorter), and the slowest modules with their CPU seconds.
- **Kept.** A run of the whole suite (no paths, no ``-k``) stores the modules' seconds in
  this machine's cache (``$XDG_CACHE_HOME/king-league/module-seconds.json``, outside the
  checkout, shared by CI's clean clones like mypy's cache). ``tests/module_seconds.json``
  is the committed reference a machine without that cache starts from
  (``scripts/test-order-update`` copies the cache over it).
- **Used.** ``module_seconds_known`` gives tests/parallel_processes.py each module's
  expected seconds, which hands the longest modules out first: longest first is what keeps
  the processes' ends close together (Graham's LPT rule).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

CPU_PROPERTY = "cpu_seconds"
"""The report's user property that carries the CPU seconds spent since the previous report."""

REFERENCE = Path(__file__).with_name("module_seconds.json")
"""The committed module seconds of a whole run on this project's machine kind."""
SLOWEST_SHOWN = 15


def cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "king-league" / "module-seconds.json"


def seconds_read(path: Path) -> dict[str, float]:
    try:
        loaded = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(loaded, dict):
        return {}
    return {str(k): float(v) for k, v in loaded.items() if isinstance(v, int | float)}


def module_seconds_known() -> dict[str, float]:
    """Each module's seconds as last measured here, else as the reference has them."""
    return seconds_read(REFERENCE) | seconds_read(cache_path())


def whole_suite(args_source: pytest.Config.ArgsSource, keyword: str) -> bool:
    """Whether a run is of the whole suite: its paths from ``testpaths``, no ``-k``."""
    return args_source == pytest.Config.ArgsSource.TESTPATHS and not keyword


def module_of(nodeid: str) -> str:
    return nodeid.split("::")[0]


def process_cpu_seconds() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def machine_cpu_seconds() -> tuple[float, float]:
    """The whole machine's (busy, idle) CPU seconds since boot, every core added, from
    /proc/stat; (0, 0) where there is none."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(n) for n in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and iowait
    busy = sum(fields[:8]) - idle  # user .. steal; guest time is already in user
    return busy / ticks, idle / ticks


class CpuStamp:
    """In each test process: the CPU seconds since its previous report, on every report."""

    def __init__(self) -> None:
        self.last = process_cpu_seconds()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self) -> object:
        outcome = yield
        report = outcome.get_result()  # type: ignore[attr-defined]
        now = process_cpu_seconds()
        report.user_properties.append((CPU_PROPERTY, round(now - self.last, 3)))
        self.last = now
        return None


class ModuleClock:
    def __init__(self) -> None:
        self.module_seconds: dict[str, float] = defaultdict(float)
        self.process_seconds: dict[str, float] = defaultdict(float)
        self.process_modules: dict[str, set[str]] = defaultdict(set)
        self.module_cpu: dict[str, float] = defaultdict(float)
        self.machine_start = machine_cpu_seconds()

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        node = getattr(report, "node", None)  # pytest-xdist's controller: the process
        process = node.gateway.id if node is not None else "main"
        module = module_of(report.nodeid)
        self.module_seconds[module] += report.duration
        self.process_seconds[process] += report.duration
        self.process_modules[process].add(module)
        for name, value in report.user_properties:
            if name == CPU_PROPERTY and isinstance(value, int | float):
                self.module_cpu[module] += value

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.module_seconds:
            return
        terminalreporter.section("where the time went")
        for process in sorted(self.process_seconds):
            terminalreporter.write_line(
                f"{process}: {self.process_seconds[process]:7.1f} s busy, "
                f"{len(self.process_modules[process])} modules"
            )
        busy_start, idle_start = self.machine_start
        busy_end, idle_end = machine_cpu_seconds()
        busy, idle = busy_end - busy_start, idle_end - idle_start
        if busy + idle > 0:
            terminalreporter.write_line(
                f"the machine: {busy:7.1f} CPU seconds busy, {idle:.1f} idle "
                f"({100 * idle / (busy + idle):.0f} % of its cores' time idle)"
            )
        terminalreporter.write_line(
            f"the test processes and their children: {sum(self.module_cpu.values()):7.1f} "
            "CPU seconds"
        )
        slowest = sorted(self.module_seconds.items(), key=lambda item: -item[1])
        for module, seconds in slowest[:SLOWEST_SHOWN]:
            cpu = self.module_cpu.get(module, 0.0)
            terminalreporter.write_line(f"{seconds:7.1f} s  {cpu:7.1f} CPU s  {module}")

    @pytest.hookimpl
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        config = session.config
        if not whole_suite(config.args_source, config.getoption("keyword")):
            return
        if not self.module_seconds:
            return
        path = cache_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            measured = {m: round(s, 1) for m, s in sorted(self.module_seconds.items())}
            path.write_text(json.dumps(measured, indent=1) + "\n")
        except OSError:
            pass  # a cache that cannot be written only costs the next run its order


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(CpuStamp(), "module_clock_cpu")  # where tests run
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return  # the controller (or the single process) adds up the reports
    config.pluginmanager.register(ModuleClock(), "module_clock")
