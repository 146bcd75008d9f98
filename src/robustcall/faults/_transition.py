"""The six RobustBench-TC transition errors (Appendix G strings, verbatim)."""

from __future__ import annotations

TRANSITION_MESSAGES: dict[str, str] = {
    "transient_timeout": (
        "Tool execution timed out after the configured request timeout. "
        "The remote endpoint did not respond within the allotted time."
    ),
    "transient_rate_limit": (
        "HTTP 429 Too Many Requests. "
        "The provider rejected the call because the per-minute rate limit has been exceeded."
    ),
    "transient_auth_error": (
        "HTTP 401 Unauthorized. The provider rejected the call because the supplied credentials are invalid or expired."
    ),
    "transient_server_error": ("HTTP 500 Internal Server Error. The remote endpoint failed to handle the request."),
    "transient_malformed_response": ("Malformed response from tool execution: the body could not be parsed as JSON."),
    "transient_schema_drift": (
        "Schema validation failed: the response did not match the tool's declared output schema (extra/missing fields)."
    ),
}
