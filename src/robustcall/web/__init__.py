"""The leaderboard service: upload predictions, score them server-side, rank and show them."""

from robustcall.web._app import Limits, create_app
from robustcall.web._bench_index import BenchIndex
from robustcall.web._guard import RateLimiter, TokenBook, TokenError
from robustcall.web._names import name_key
from robustcall.web._serve import ConnectionLimits, GuardedHttpProtocol, listening_socket, serve_workers, server_config
from robustcall.web._store import Store, StoreError, Submission
from robustcall.web._upload import UploadError, parse_upload, score_upload

__all__ = [
    "BenchIndex",
    "ConnectionLimits",
    "GuardedHttpProtocol",
    "Limits",
    "RateLimiter",
    "Store",
    "StoreError",
    "Submission",
    "TokenBook",
    "TokenError",
    "UploadError",
    "create_app",
    "listening_socket",
    "name_key",
    "parse_upload",
    "score_upload",
    "serve_workers",
    "server_config",
]
