"""robustcall: robustness of tool-calling LLM agents."""

from robustcall._native import run_stale_as_source

__version__ = "0.1.0"

run_stale_as_source()  # before any compiled module is imported
