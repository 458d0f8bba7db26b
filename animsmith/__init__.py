"""AnimSmith: a linter and workbench for skeletal animation clips."""

__version__ = "0.1.0"
