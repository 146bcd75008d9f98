"""Getting text and tool calls out of a model: one async interface, several backends.

- ``openai/<model>`` (``--base-url`` or ``OPENAI_BASE_URL``) or ``openai:<model>@<base_url>``: any
  OpenAI-compatible chat endpoint (vLLM, SGLang, llama.cpp, OpenAI),
  ``fc`` or ``prompt`` mode, retries with backoff, infra vs model-format errors told apart;
- ``local``: the embedded Qwen2.5-Coder-0.5B behind our own llama-server (``robustcall model setup``);
- ``replay:<predictions.jsonl>``: a previous run's raw text, to re-parse and re-score;
- ``scripted:<policy>``: deterministic policies for tests; ``scripted:expert|memorise|random`` play an
  episode's environment through its expert (bound to each episode's environment).

Each kind is registered by name (``register_model_kind``, ``MODEL_KINDS``); scripted policies and
scripted models by name too (``policy``, ``scripted_model``).
"""

from robustcall.models._api import ChatModel, Mode, ModelRequest, ModelResponse
from robustcall.models._convert import json_schema, tool_parameters, unwire_calls
from robustcall.models._factory import OPENAI_DEFAULT_BASE_URL, SPEC_HELP, check_spec, make_model, resolve_base_url
from robustcall.models._http import HttpClient, HttpConnectionError, HttpResponse
from robustcall.models._openai import OpenAIChatModel, RetryRequest, chat_url
from robustcall.models._registry import MODEL_KINDS, ModelKind, ModelSpec, parse_spec, register_model_kind, spec_help
from robustcall.models._replay import ReplayModel
from robustcall.models._retry import BackoffLender, backoff_lender, backoff_s, retry_after_s, retryable_status
from robustcall.models._scripted import (
    ENV_POLICIES,
    GIVE_UP_TEXT,
    POLICIES,
    SCRIPTED_MODELS,
    BindsToEnv,
    EnvScriptedModel,
    ExpertEnv,
    RenamingEnv,
    ScriptedFactory,
    ScriptedModel,
    env_policy,
    make_scripted,
    policy,
    scripted_model,
    scripted_names,
)
from robustcall.models._settings import (
    DEFAULT_CONCURRENCY,
    PAPER,
    ModelSettings,
    SettingsError,
    load_settings,
    paper_choice,
    paper_entry,
    paper_settings,
    settings_source,
)
from robustcall.models._text import KEEP, TextModel, TextModelError, openai_endpoint
from robustcall.models._watch import STOP_AFTER, FailureWatch, UnitWatch, Watch, failure_watch

__all__ = [
    "DEFAULT_CONCURRENCY",
    "ENV_POLICIES",
    "GIVE_UP_TEXT",
    "KEEP",
    "MODEL_KINDS",
    "OPENAI_DEFAULT_BASE_URL",
    "PAPER",
    "POLICIES",
    "SCRIPTED_MODELS",
    "SPEC_HELP",
    "STOP_AFTER",
    "BackoffLender",
    "BindsToEnv",
    "ChatModel",
    "EnvScriptedModel",
    "ExpertEnv",
    "FailureWatch",
    "HttpClient",
    "HttpConnectionError",
    "HttpResponse",
    "Mode",
    "ModelKind",
    "ModelRequest",
    "ModelResponse",
    "ModelSettings",
    "ModelSpec",
    "OpenAIChatModel",
    "RenamingEnv",
    "ReplayModel",
    "RetryRequest",
    "ScriptedFactory",
    "ScriptedModel",
    "SettingsError",
    "TextModel",
    "TextModelError",
    "UnitWatch",
    "Watch",
    "backoff_lender",
    "backoff_s",
    "chat_url",
    "check_spec",
    "env_policy",
    "failure_watch",
    "json_schema",
    "load_settings",
    "make_model",
    "make_scripted",
    "openai_endpoint",
    "paper_choice",
    "paper_entry",
    "paper_settings",
    "parse_spec",
    "policy",
    "register_model_kind",
    "resolve_base_url",
    "retry_after_s",
    "retryable_status",
    "scripted_model",
    "scripted_names",
    "settings_source",
    "spec_help",
    "tool_parameters",
    "unwire_calls",
]
