"""Loading real tool-calling benchmarks into ``Sample``s.

Five sources make up RobustBench-TC (paper §4, Appendix A): BFCL v3 single-turn (from the
``bfcl-eval`` wheel on PyPI), API-Bank level-1/2 (ToolRL-processed), RoTBench First_Turn (five
noise splits), ToolAlpaca eval_simulated and ToolEyes (from a user-given data dir). Each loader's
module docstring records how its source maps onto ``Sample`` and every decision taken where the
paper or the data left a choice; ``source.extra["golden_mode"]`` says how ``golden_answers`` are
meant (see ``GoldenMode``). ``load_jsonl_samples`` reads any benchmark already in the release record
shape; ``load_release`` reads the authors' released RobustBench-TC (both documented layouts).
"""

from robustcall.sources._apibank import APIBANK_THINK_TOOL
from robustcall.sources._bfcl import BENCHMARK as BFCL_BENCHMARK
from robustcall.sources._bfcl import (
    BFCL_CATEGORIES,
    BFCL_VERSION,
    EXTRA_CATEGORIES,
    LANGUAGE_CATEGORIES,
    RELEVANCE_CATEGORY,
    bfcl_code_root,
    bfcl_fc_models,
    bfcl_module,
    bfcl_underscore_models,
    fetch_bfcl,
    load_bfcl,
    load_bfcl_extra,
)
from robustcall.sources._jsonl import load_jsonl_samples
from robustcall.sources._load import NEEDS_DATA_DIR, load_source
from robustcall.sources._release import (
    RELEASE_COMMIT,
    RELEASE_REPO,
    ReleaseData,
    ReleaseRecordError,
    download_release,
    load_release,
    release_sample,
    release_training,
)
from robustcall.sources._rotbench import ROTBENCH_SPLITS
from robustcall.sources._select import mean_tools, select_clean
from robustcall.sources._types import (
    DEFAULT_COMPOSITION,
    PAPER_AVG_TOOLS,
    PAPER_TABLE3,
    SOURCE_NAMES,
    GoldenMode,
    LoadResult,
    MissingDataError,
    SourceError,
    SourceFormatError,
    SourceName,
    UnknownSourceError,
)

__all__ = [
    "APIBANK_THINK_TOOL",
    "BFCL_BENCHMARK",
    "BFCL_CATEGORIES",
    "BFCL_VERSION",
    "DEFAULT_COMPOSITION",
    "EXTRA_CATEGORIES",
    "LANGUAGE_CATEGORIES",
    "NEEDS_DATA_DIR",
    "PAPER_AVG_TOOLS",
    "PAPER_TABLE3",
    "RELEASE_COMMIT",
    "RELEASE_REPO",
    "RELEVANCE_CATEGORY",
    "ROTBENCH_SPLITS",
    "SOURCE_NAMES",
    "GoldenMode",
    "LoadResult",
    "MissingDataError",
    "ReleaseData",
    "ReleaseRecordError",
    "SourceError",
    "SourceFormatError",
    "SourceName",
    "UnknownSourceError",
    "bfcl_code_root",
    "bfcl_fc_models",
    "bfcl_module",
    "bfcl_underscore_models",
    "download_release",
    "fetch_bfcl",
    "load_bfcl",
    "load_bfcl_extra",
    "load_jsonl_samples",
    "load_release",
    "load_source",
    "mean_tools",
    "release_sample",
    "release_training",
    "select_clean",
]
