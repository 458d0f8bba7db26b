import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
# Shared helpers (builders, gltf_raw, checks_support, lint_support, transform_builders, ...)
# live in tests/support/ and are imported by their module names from any test folder. A few
# test modules also import helpers from another test module by name (test file names are
# unique across tests/): every test folder is on sys.path, as pytest's default import mode
# leaves it after collecting the whole suite, so one folder run alone imports the same way.
SUPPORT = os.path.join(HERE, "support")
for _folder in [SUPPORT] + sorted(
    os.path.join(HERE, d) for d in os.listdir(HERE) if d not in ("support", "data", "out") and os.path.isdir(os.path.join(HERE, d))
):
    if _folder not in sys.path:
        sys.path.insert(0, _folder)

DATA = os.path.join(HERE, "data")


@pytest.fixture
def data_dir():
    return DATA


def oracles_dir():
    """Folder with the three.js / glTF-validator oracles installed, or None.

    CI (`.ci/run`) installs them into tests/out/oracles and exports
    ANIMSMITH_ORACLES; locally, point ANIMSMITH_ORACLES at a copy of
    ../shared/oracles where `npm ci` has run.
    """
    import shutil

    if shutil.which("node") is None:
        return None
    for cand in (os.environ.get("ANIMSMITH_ORACLES"), os.path.join(HERE, "out", "oracles")):
        if cand and os.path.isdir(os.path.join(cand, "node_modules", "three")):
            return cand
    return None


@pytest.fixture
def oracles():
    d = oracles_dir()
    if d is None:
        pytest.skip("three.js / gltf-validator oracles not installed (node + npm ci)")
    return d


def pytest_addoption(parser):
    """``--long``: the long fuzz run of tests/product/test_fuzz.py (>= 10,000 cases;
    same as ANIMSMITH_FUZZ_LONG=1; docs/hardening.md)."""
    parser.addoption("--long", action="store_true", default=False, help="run the long fuzz suite (tests/product/test_fuzz.py)")


#: Whole modules that fuzz, start worker processes, drive a browser, call node or run a
#: benchmark (with the tests below that ask for the ``oracles`` or ``browser`` fixture, and
#: the tests marked ``@pytest.mark.slow`` in place): ``pytest -m "not slow"`` skips them.
SLOW_MODULES = {
    "test_fuzz.py",
    "test_lint_jobs.py",
    "test_docs_run.py",
    "test_oracle_threejs.py",
    "test_report_browser.py",
    "test_report_layout.py",
    "test_sim_bench.py",
}
SLOW_FIXTURES = {"oracles", "browser"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SLOW_MODULES or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
