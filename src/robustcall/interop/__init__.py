"""Working where users already work: Inspect AI logs and tasks, Hugging Face datasets, BFCL result files,
AgentGym's environment-server API.

Each lives in its own module and needs its own optional extra; importing this package needs none:
a name below loads its module (and that module's extra) the first time it is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from robustcall.core import lazy_names

if TYPE_CHECKING:
    from robustcall.interop._agentgym_server import AgentGymServer, agentgym_app
    from robustcall.interop._bfcl_evaluate import BfclEvaluation, evaluate_bfcl_folder
    from robustcall.interop._bfcl_files import (
        BfclFileError,
        bfcl_model_dir,
        choose_bfcl_categories,
        export_bfcl_results,
        import_bfcl_results,
        read_bfcl_results,
    )
    from robustcall.interop._bfcl_scores import export_bfcl_scores, write_bfcl_scores
    from robustcall.interop._hf import export_hf, sample_from_row, sample_row
    from robustcall.interop._inspect_log import chat_messages, export_inspect
    from robustcall.interop._inspect_task import robustbench_task

_LAZY: dict[str, str] = {
    "AgentGymServer": "_agentgym_server",
    "agentgym_app": "_agentgym_server",
    "BfclEvaluation": "_bfcl_evaluate",
    "evaluate_bfcl_folder": "_bfcl_evaluate",
    "BfclFileError": "_bfcl_files",
    "bfcl_model_dir": "_bfcl_files",
    "choose_bfcl_categories": "_bfcl_files",
    "export_bfcl_results": "_bfcl_files",
    "import_bfcl_results": "_bfcl_files",
    "read_bfcl_results": "_bfcl_files",
    "export_bfcl_scores": "_bfcl_scores",
    "write_bfcl_scores": "_bfcl_scores",
    "export_hf": "_hf",
    "sample_from_row": "_hf",
    "sample_row": "_hf",
    "chat_messages": "_inspect_log",
    "export_inspect": "_inspect_log",
    "robustbench_task": "_inspect_task",
}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "AgentGymServer",
    "BfclEvaluation",
    "BfclFileError",
    "agentgym_app",
    "bfcl_model_dir",
    "chat_messages",
    "choose_bfcl_categories",
    "evaluate_bfcl_folder",
    "export_bfcl_results",
    "export_bfcl_scores",
    "export_hf",
    "export_inspect",
    "import_bfcl_results",
    "read_bfcl_results",
    "robustbench_task",
    "sample_from_row",
    "sample_row",
    "write_bfcl_scores",
]
