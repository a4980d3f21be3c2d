"""Shared fixtures of the Python module's tests: the CLI to compare with.

ctest runs `python3 -m pytest tests/python` with PYTHONPATH=build/python,
ROOFTOP=the CLI binary and SRC=the source tree (tests/CMakeLists.txt).
"""
import json
import os
import subprocess

import pytest
import rooftop

SRC = os.environ.get("SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
ROOFTOP = os.environ.get("ROOFTOP", os.path.join(SRC, "build", "rooftop"))


def pytest_configure(config):
    config.addinivalue_line("markers", "compares(name): the test compares rooftop.<name> with the CLI")


def public_functions():
    """The module's callables that are not types: each needs a test comparing it with the CLI."""
    names = {n for n in rooftop.__all__ if not isinstance(getattr(rooftop, n), type)}
    names |= {"catalog.show", "workload.list"}
    return names


def pytest_collection_modifyitems(session, config, items):
    compared = {m.args[0] for item in items for m in item.iter_markers("compares")}
    missing = public_functions() - compared
    # Only a full run asks for every function (pytest -k selects a few).
    if not config.getoption("keyword") and not config.getoption("markexpr") and missing:
        raise pytest.UsageError("no test compares these with the CLI: " + ", ".join(sorted(missing)))


def pytest_sessionfinish(session, exitstatus):
    # "No tests collected" (5) is a failure here, never a pass.
    if exitstatus == 5:
        session.exitstatus = 1


class Cli:
    """Runs the rooftop binary."""

    def run(self, *args, expect=0):
        p = subprocess.run([ROOFTOP, *map(str, args)], capture_output=True, text=True, cwd=SRC)
        if expect is not None:
            assert p.returncode == expect, f"rooftop {' '.join(map(str, args))}: exit {p.returncode}\n{p.stderr}"
        return p

    def json(self, *args):
        return json.loads(self.run(*args).stdout)

    def error(self, *args):
        """The CLI's message for bad input: (exit code, text after 'rooftop: error: ')."""
        p = self.run(*args, expect=None)
        assert p.returncode != 0, f"rooftop {' '.join(map(str, args))} succeeded"
        prefix = "rooftop: error: "
        at = p.stderr.find(prefix)
        assert at >= 0, p.stderr
        return p.returncode, p.stderr[at + len(prefix):].rstrip("\n")


@pytest.fixture(scope="session")
def cli():
    assert os.access(ROOFTOP, os.X_OK), f"no rooftop binary at {ROOFTOP}"
    return Cli()


@pytest.fixture(scope="session")
def src():
    return SRC
