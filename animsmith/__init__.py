"""AnimSmith: a linter and workbench for skeletal animation clips."""

__version__ = "0.3.2"  # also in pyproject.toml (a test checks they agree)
