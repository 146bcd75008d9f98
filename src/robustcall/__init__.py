"""robustcall: robustness of tool-calling LLM agents."""

__version__ = "0.1.0"
