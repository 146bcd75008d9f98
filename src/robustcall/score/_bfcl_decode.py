"""BFCL's ``decode_execute`` for its two default handlers, rule for rule, without ``eval``.

A multi-turn result entry holds, per turn, per step, what the handler wrote: a list of
``{name: arguments}`` (function-calling handlers; ``model_handler.utils.convert_to_function_call``)
or the model's text (prompting handlers; ``default_decode_execute_prompting``, which reads the text
as a Python list of calls with keyword arguments only, positional ones dropped). Both give call
strings (``cd(folder='x')``) that BFCL's checker then executes. A step that does not decode raises
:class:`NotCalls` (BFCL skips such a step: the model was chatting).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from robustcall.core import json_value
from robustcall.envs import literal_value
from robustcall.sources import bfcl_module


class NotCalls(ValueError):
    """A step BFCL's decoder cannot read as calls."""


def decode_fc(item: Any) -> list[str]:
    """``convert_to_function_call``: ``name(k=repr(v),...)`` per ``{name: arguments}``."""
    items = [item] if type(item) is dict else item
    out: list[str] = []
    try:
        for call in items:
            for key, value in call.items():
                if type(value) is str:
                    value = json_value(value)  # json.loads' value, faster
                out.append(f"{key}({','.join(f'{k}={v!r}' for k, v in value.items())})")
    except (AttributeError, TypeError, ValueError, RecursionError) as exc:
        raise NotCalls(str(exc)) from None
    return out


def decode_ast_prompting(item: Any) -> list[tuple[str, dict[str, Any]]]:
    """``default_decode_ast_prompting`` (Python): the text as ``[f(a=1), g(b=2)]``, as (name, keyword
    arguments) pairs: positional arguments dropped, a bare name or a subscript read as its text
    (``x=data['sales']`` is the string ``"data['sales']"``), ``f(a=1)()`` a call named ``""``."""
    return _python_calls(_bracketed(item))


def _bracketed(item: Any) -> str:
    if type(item) is not str:
        raise NotCalls("a prompting handler's answer is text")
    text = item.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text


def decode_ast_format(item: Any, return_format: str, tool_call_tag: bool) -> list[tuple[str, Any]]:
    """``default_decode_ast_prompting`` for format sensitivity's return formats (``python``, ``json``,
    ``verbose_xml``, ``concise_xml``), the answer inside ``<TOOLCALL>...</TOOLCALL>`` when the
    configuration asks for the tag. JSON and XML are read by BFCL's own parsers (from the wheel;
    ``json`` and ``ast.literal_eval`` / ``ElementTree``). A pair's arguments may be no dict (BFCL:
    ``decoder_wrong_output_format``)."""
    text = _bracketed(item)
    if tool_call_tag:
        match = re.search(r"<TOOLCALL>(.*?)</TOOLCALL>", text, re.DOTALL)
        if match is None:
            raise NotCalls(f"No tool call tag found in input string: {text}")
        text = match.group(1).strip()
    if return_format == "python":
        return _python_calls(text)
    try:
        if return_format == "json":
            found = re.search(r"\[.*\]", text, re.DOTALL)
            decoded = _parser("json_parser").parse_json_function_call(found.group(0) if found else text)
        else:
            match = re.search(r"<functions>(.*?)</functions>", text, re.DOTALL)
            if match is None:
                raise NotCalls(f"No XML function call found in input string: {text}. Missing <functions> tag.")
            xml = _parser("xml_parser")
            parse = (
                xml.parse_verbose_xml_function_call
                if return_format == "verbose_xml"
                else xml.parse_concise_xml_function_call
            )
            decoded = parse(match.group(0))
    except NotCalls:
        raise
    except Exception as exc:  # BFCL's decoder raised: decoder_failed
        raise NotCalls(str(exc)) from None
    if type(decoded) is not list or not all(type(c) is dict and len(c) == 1 for c in decoded):
        raise WrongOutputFormat("not a list of {name: arguments}")
    return [next(iter(c.items())) for c in decoded]


class WrongOutputFormat(NotCalls):
    """Decoded, but not as ``[{name: {arguments}}]`` (BFCL: ``ast_decoder:decoder_wrong_output_format``)."""


def _parser(module: str) -> Any:
    return bfcl_module(f"bfcl_eval.model_handler.parser.{module}")


def _python_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    try:
        body = ast.parse(text.strip().strip("'"), mode="eval").body
        if isinstance(body, ast.Call):
            return [_resolve_call(body)]
        if isinstance(body, (ast.List, ast.Tuple, ast.Set)):
            decoded = []
            for elem in body.elts:
                if not isinstance(elem, ast.Call):
                    raise NotCalls("an element is not a call")
                decoded.append(_resolve_call(elem))
            return decoded
        raise NotCalls("not a list of calls")
    except NotCalls:
        raise
    except Exception as exc:  # BFCL's decoder raised: decoder_failed
        raise NotCalls(str(exc)) from None


def decode_prompting(item: Any) -> list[str]:
    """``default_decode_execute_prompting``: the text as ``[f(a=1), g(b=2)]``, rendered back as call strings."""
    decoded = decode_ast_prompting(item)
    try:
        return [f"{name}({', '.join(f'{k}={_render(v)}' for k, v in args.items())})" for name, args in decoded]
    except Exception as exc:  # BFCL skips any step its decoder raises on
        raise NotCalls(str(exc)) from None


def _resolve_call(elem: ast.Call) -> tuple[str, dict[str, Any]]:
    """``resolve_ast_call``: the dotted name and the keyword arguments (positional ones dropped)."""
    parts = []
    func = elem.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts)), {str(k.arg): _resolve_value(k.value) for k in elem.keywords}


def _resolve_value(value: ast.expr) -> Any:
    """``resolve_ast_by_type``."""
    if isinstance(value, ast.Constant):
        return "..." if value.value is Ellipsis else value.value
    if isinstance(value, ast.UnaryOp):
        operand = value.operand
        if not isinstance(operand, ast.Constant):
            raise NotCalls("unary operator on a non-constant")
        constant: Any = operand.value
        return -constant  # upstream negates whatever the operator (TypeError: not decoded)
    if isinstance(value, ast.List):
        return [_resolve_value(v) for v in value.elts]
    if isinstance(value, ast.Dict):
        if any(k is None for k in value.keys):
            return _unsupported(value)
        return {
            _resolve_value(k): _resolve_value(v) for k, v in zip(value.keys, value.values, strict=True) if k is not None
        }
    if isinstance(value, ast.BinOp):
        return literal_value(value)
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Call):
        if not value.keywords:
            return ast.unparse(value)
        name, args = _resolve_call(value)
        return {name: args}
    if isinstance(value, ast.Tuple):
        return tuple(_resolve_value(v) for v in value.elts)
    if isinstance(value, ast.Subscript):
        return ast.unparse(value.value) + "[" + ast.unparse(value.slice) + "]"
    return _unsupported(value)


def _unsupported(value: ast.expr | None) -> Any:
    raise NotCalls(f"Unsupported AST type: {type(value)}")


def _render(value: Any) -> str:
    """``parse_nested_value``: a dict whose values are all dicts renders as a call, another dict as
    ``{'k': v}`` (the key unquoted inside quotes, as upstream), anything else as ``repr``."""
    if isinstance(value, dict):
        if all(isinstance(v, dict) for v in value.values()):
            name = next(iter(value))  # an empty dict: StopIteration, the step is not decoded (as upstream)
            return f"{name}({', '.join(f'{k}={_render(v)}' for k, v in value[name].items())})"
        return "{" + ", ".join(f"'{k}': {_render(v)}" for k, v in value.items()) + "}"
    return repr(value)
