"""Our records to the OpenAI chat shape and back.

- BFCL's schema dialect (``"type": "dict"``, ``"float"``, ``"tuple"``, ...) becomes JSON schema, so
  servers that validate ``tools=`` accept it; only schema positions are rewritten, never a
  property that happens to be *named* ``type``.
- Tool names outside OpenAI's ``^[a-zA-Z0-9_-]{1,64}$`` (BFCL's ``math.factorial``) are sent under a
  sanitised alias and translated back exactly in the answer.
- Assistant ``tool_calls`` and ``tool`` turns get deterministic call ids (``call_<turn>_<k>``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from robustcall.core import Message, ToolCall, ToolSpec, Usage

_TYPE_NAMES = {
    # JSON Schema's own
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
    "null": "null",
    # BFCL's dialect (Java / JavaScript / Python type names)
    "dict": "object",
    "float": "number",
    "double": "number",
    "tuple": "array",
    "list": "array",
    "bool": "boolean",
    "any": "string",
    "byte": "integer",
    "short": "integer",
    "long": "integer",
    "bigint": "integer",
    "char": "string",
    "arraylist": "array",
    "hashmap": "object",
    "hashtable": "object",
    "queue": "array",
    "stack": "array",
    # API-Bank's and other Python-style names
    "str": "string",
    "int": "integer",
    "set": "array",
    "none": "null",
    "nonetype": "null",
}
_GENERIC = re.compile(r"^\s*(list|array|tuple|set|sequence)\s*[\(\[<]\s*(.*?)\s*[\)\]>]\s*$", re.IGNORECASE)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_NAME_OK = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _type_name(name: str) -> str:
    """A JSON-Schema type name for a dialect's name; one we do not know becomes ``string``."""
    return _TYPE_NAMES.get(name.strip().lower(), "string")


def _typed(name: str, any_type: bool) -> dict[str, Any]:
    """The schema fragment for one type name: ``list(str)`` is an array of strings, BFCL's ``any``
    is ``string`` on the wire (``any_type`` False) or no constraint at all (``any_type`` True)."""
    generic = _GENERIC.match(name)
    if generic:
        inner = generic.group(2)
        return {"type": "array", "items": _typed(inner, any_type) if inner else {}}
    if any_type and name.strip().lower() == "any":
        return {}
    return {"type": _type_name(name)}


def _property(node: Any, any_type: bool) -> Any:
    """A property's schema; a bare type name (``"city": "str"``) becomes ``{"type": "string"}``."""
    if isinstance(node, str):
        return _typed(node, any_type)
    if isinstance(node, dict | bool):
        return json_schema(node, any_type=any_type)
    return {}


def json_schema(node: Any, *, any_type: bool = False) -> Any:
    """A copy of a (BFCL / API-Bank dialect) schema that is valid JSON Schema (draft 7 and 2020-12).

    Every ``type`` is mapped to JSON-Schema names (``dict`` -> ``object``, ``str`` -> ``string``,
    ``list(str)`` -> an array of strings), ``required`` keeps each string once, and an array gets
    ``items: {}`` when it names none (strict servers such as OpenAI's reject arrays without items).
    Only schema positions are rewritten, never a property that happens to be *named* ``type``.
    ``any_type`` turns BFCL's ``any`` into no constraint (for validating values) instead of ``string``.
    """
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            for k, v in _typed(value, any_type).items():
                out.setdefault(k, v)  # an explicit ``items`` below wins over list(str)'s
        elif key == "type" and isinstance(value, list):
            names = [_type_name(v) for v in value if isinstance(v, str)]
            out[key] = list(dict.fromkeys(names)) or "string"
        elif key == "type":
            continue  # not a type name: no constraint
        elif key == "properties" and isinstance(value, dict):
            out[key] = {str(name): _property(sub, any_type) for name, sub in value.items()}
        elif key == "required":
            if isinstance(value, list):
                out[key] = list(dict.fromkeys(v for v in value if isinstance(v, str)))
            elif isinstance(value, str):
                out[key] = [value]
        elif key in ("items", "additionalProperties", "not"):
            if isinstance(value, list):
                out[key] = [json_schema(v, any_type=any_type) for v in value]
            else:
                out[key] = json_schema(value, any_type=any_type)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [json_schema(v, any_type=any_type) for v in value]
        else:
            out[key] = value
    for schema_key in ("items", "additionalProperties", "not"):
        if schema_key in out and not isinstance(out[schema_key], dict | bool | list):
            del out[schema_key]  # a stray non-schema value (a description string) is no schema
    if "items" in out and isinstance(out["items"], list):
        out["prefixItems"] = out.pop("items")  # draft-4 tuple validation, spelt the 2020-12 way
    if out.get("type") == "array" and "items" not in out and "prefixItems" not in out:
        out["items"] = {}
    return out


def tool_parameters(parameters: Any, *, any_type: bool = False) -> dict[str, Any]:
    """A tool's ``parameters`` as an object schema: valid JSON Schema with ``type: object`` and
    ``properties`` always present (some servers refuse a function without them)."""
    schema = json_schema(parameters, any_type=any_type) if isinstance(parameters, dict) else {}
    schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema


@dataclass
class NameMap:
    """Original tool name <-> the name sent to the server (identical unless it had to be sanitised)."""

    to_wire: dict[str, str] = field(default_factory=dict)
    from_wire: dict[str, str] = field(default_factory=dict)

    @classmethod
    def for_tools(cls, tools: list[ToolSpec]) -> NameMap:
        names = cls()
        for tool in tools:
            names.wire(tool.name)
        return names

    def wire(self, name: str) -> str:
        if name in self.to_wire:
            return self.to_wire[name]
        alias = name
        if not _NAME_OK.match(name):
            base = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:60] or "tool"
            alias, k = base, 1
            while alias in self.from_wire:
                k += 1
                alias = f"{base}_{k}"
        self.to_wire[name] = alias
        self.from_wire[alias] = name
        return alias

    def original(self, wire_name: str) -> str:
        return self.from_wire.get(wire_name, wire_name)


def unwire_calls(calls: list[ToolCall], tools: list[ToolSpec]) -> list[ToolCall]:
    """Calls read from text that answered an fc-mode request over ``tools`` with their wire aliases
    (``maps_get_distance_duration``) turned back into the tool names (``maps.get_distance_duration``),
    as structured calls are. A name that is itself a listed tool, or no alias, is kept as given.

    The text path needs it when a server refuses the model's fc output and quotes it (llama.cpp's
    HTTP 500): the quoted calls name the tools as the server saw them."""
    names = NameMap.for_tools(tools)
    listed = set(names.to_wire)
    out: list[ToolCall] = []
    for c in calls:
        name = c.name if c.name in listed else names.original(c.name)
        out.append(c if name == c.name else c.model_copy(update={"name": name}))
    return out


def openai_tools(tools: list[ToolSpec], names: NameMap) -> list[dict[str, Any]]:
    """``tools=`` entries for the chat completions API."""
    return [
        {
            "type": "function",
            "function": {
                "name": names.wire(t.name),
                "description": t.description,
                "parameters": tool_parameters(t.parameters),
            },
        }
        for t in tools
    ]


def openai_messages(messages: list[Message], names: NameMap) -> list[dict[str, Any]]:
    """Chat messages in OpenAI shape; ``tool`` turns answer the preceding assistant calls in order."""
    out: list[dict[str, Any]] = []
    pending: list[tuple[str, str]] = []  # (call id, original tool name) not yet answered
    for i, msg in enumerate(messages):
        if msg.role == "assistant" and msg.tool_calls:
            calls = []
            pending = []
            for k, call in enumerate(msg.tool_calls):
                call_id = f"call_{i}_{k}"
                pending.append((call_id, call.name))
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": names.wire(call.name),
                            "arguments": json.dumps(call.arguments, ensure_ascii=False),
                        },
                    }
                )
            out.append({"role": "assistant", "content": msg.content or None, "tool_calls": calls})
        elif msg.role == "tool":
            match = next((p for p in pending if msg.name is None or p[1] == msg.name), None)
            if match is not None:
                pending.remove(match)
                call_id = match[0]
            else:
                call_id = f"call_{i}_orphan"
            entry: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": msg.content}
            if msg.name is not None:
                entry["name"] = names.wire(msg.name)
            out.append(entry)
        else:
            out.append({"role": msg.role, "content": msg.content})
    return out


@dataclass(frozen=True)
class ParsedChoice:
    """The assistant message of a completion, read back."""

    text: str
    tool_calls: list[ToolCall] | None
    problems: list[str]
    """Calls whose arguments could not be read (kept, with the raw text, and reported)."""


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def read_usage(body: Any) -> Usage | None:
    """The token counts of a chat completion body: OpenAI's ``usage`` (``prompt_tokens``,
    ``completion_tokens``, ``prompt_tokens_details.cached_tokens``), with llama.cpp's
    ``timings.cache_n`` as the cached count where the server gives no details. ``None`` when the
    body has no usable ``usage`` (the record then has no token counts; nothing is estimated)."""
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return None
    prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    if prompt is None or completion is None:
        return None
    details = usage.get("prompt_tokens_details")
    cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else None
    timings = body.get("timings")
    if cached is None and isinstance(timings, dict):
        cached = _count(timings.get("cache_n"))
    return Usage(prompt_tokens=prompt, completion_tokens=completion, cached_tokens=cached)


def parse_choice(body: Any, names: NameMap, *, fc: bool) -> ParsedChoice:
    """Text and structured calls from a chat completion body; raises ``ValueError`` when malformed."""
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"no choices[0].message in response: {str(body)[:200]}") from exc
    if not isinstance(message, dict):
        raise ValueError(f"choices[0].message is not an object: {str(message)[:200]}")
    text = message.get("content") or ""
    if not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False)
    raw_calls = message.get("tool_calls")
    if not fc and not raw_calls:
        return ParsedChoice(text=text, tool_calls=None, problems=[])
    calls: list[ToolCall] = []
    problems: list[str] = []
    raw_bits: list[str] = []
    for k, raw in enumerate(raw_calls or []):
        fn = raw.get("function") if isinstance(raw, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            problems.append(f"tool_calls[{k}] has no function name: {str(raw)[:200]}")
            raw_bits.append(json.dumps(raw, ensure_ascii=False))
            continue
        name = names.original(fn["name"])
        args = fn.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except (ValueError, RecursionError) as exc:  # bad JSON, a 5,000-digit number, deep nesting
                problems.append(f"tool_calls[{k}] {name}: arguments are not valid JSON ({exc}): {args[:200]!r}")
                raw_bits.append(f'{{"name": {json.dumps(name)}, "arguments": {args}}}')
                calls.append(ToolCall(name=name, arguments={}))
                continue
        if args is None:
            args = {}
        if not isinstance(args, dict):
            problems.append(f"tool_calls[{k}] {name}: arguments are not an object: {str(args)[:200]!r}")
            raw_bits.append(json.dumps({"name": name, "arguments": args}, ensure_ascii=False))
            calls.append(ToolCall(name=name, arguments={}))
            continue
        calls.append(ToolCall(name=name, arguments=args))
    if raw_bits:
        text = "\n".join([text, *raw_bits]) if text else "\n".join(raw_bits)
    return ParsedChoice(text=text, tool_calls=calls, problems=problems)
