"""The leaderboard service: upload predictions, score them server-side, rank and show them."""

from robustcall.web._app import create_app
from robustcall.web._bench import BenchIndex
from robustcall.web._store import Store, Submission
from robustcall.web._upload import UploadError, parse_upload, score_upload

__all__ = ["BenchIndex", "Store", "Submission", "UploadError", "create_app", "parse_upload", "score_upload"]
