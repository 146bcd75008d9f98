"""A stand-in for ``llama-server`` (tests only): ``--version``, then ``/health`` and an OpenAI chat
endpoint on ``--host``/``--port`` that answers ``[]`` and names the model file it was given."""

from __future__ import annotations

import argparse
import sys

from aiohttp import web


def main() -> None:
    if "--version" in sys.argv:
        print("version: 1 (fake llama-server for robustcall tests)")
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("-m", "--model")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--chat-template-file")
    args, _ = ap.parse_known_args()
    with open(args.model, "rb") as fh:
        assert fh.read(4) == b"GGUF"

    async def health(_: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def chat(request: web.Request) -> web.Response:
        await request.json()
        text = f"[] {args.model} template={args.chat_template_file}"
        return web.json_response(
            {"id": "x", "object": "chat.completion", "created": 0, "model": args.model,
             "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}
        )  # fmt: skip

    app = web.Application()
    app.router.add_get("/health", health)
    app.router.add_post("/v1/chat/completions", chat)
    web.run_app(app, host=args.host, port=args.port, print=None)


if __name__ == "__main__":
    main()
