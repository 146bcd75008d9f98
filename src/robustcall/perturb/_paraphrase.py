"""Offline rule-based paraphrase: phrase and synonym tables, request re-framing and clause
reordering, picked with the caller's random stream and never applied inside a protected span."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from robustcall.perturb._protect import Protection, protect

# phrase (lower case, matched on word boundaries, case-insensitively) -> alternatives
PHRASES: dict[str, tuple[str, ...]] = {
    "can you help me": ("could you help me", "would you help me"),
    "could you help me": ("can you help me", "would you help me"),
    "can you": ("could you", "would you"),
    "could you": ("can you", "would you"),
    "would you": ("could you",),
    "i want to": ("I'd like to", "I wish to"),
    "i would like to": ("I'd like to", "I want to"),
    "i'd like to": ("I would like to", "I want to"),
    "i need to": ("I have to", "I must"),
    "i need": ("I require",),
    "i'm": ("I am",),
    "i am": ("I'm",),
    "don't": ("do not",),
    "do not": ("don't",),
    "it's": ("it is",),
    "what's": ("what is",),
    "what is": ("what's",),
    "tell me": ("let me know", "inform me of"),
    "let me know": ("tell me",),
    "show me": ("display", "give me"),
    "give me": ("provide me with", "show me"),
    "help me": ("assist me",),
    "look up": ("find", "search for"),
    "search for": ("look for", "look up"),
    "looking for": ("searching for", "trying to find"),
    "find out": ("determine", "figure out"),
    "figure out": ("work out", "determine"),
    "find": ("identify", "locate", "look up"),
    "finds": ("identifies", "locates"),
    "get": ("obtain", "retrieve", "fetch"),
    "gets": ("retrieves", "obtains", "fetches"),
    "retrieve": ("fetch", "obtain", "get"),
    "retrieves": ("fetches", "obtains", "gets"),
    "fetch": ("retrieve", "get"),
    "fetches": ("retrieves", "gets"),
    "obtain": ("get", "acquire"),
    "return": ("give back", "provide"),
    "returns": ("gives back", "provides"),
    "provide": ("supply", "give"),
    "provides": ("supplies", "gives"),
    "calculate": ("compute", "work out", "determine"),
    "calculates": ("computes", "works out", "determines"),
    "compute": ("calculate", "work out"),
    "computes": ("calculates", "works out"),
    "check": ("verify",),
    "checks": ("verifies",),
    "generate": ("produce", "create"),
    "generates": ("produces", "creates"),
    "create": ("make", "generate"),
    "creates": ("makes", "generates"),
    "modify": ("change", "update"),
    "modifies": ("changes", "updates"),
    "delete": ("remove",),
    "deletes": ("removes",),
    "remove": ("delete",),
    "removes": ("deletes",),
    "book a": ("reserve a",),
    "buy": ("purchase",),
    "purchase": ("buy",),
    "convert": ("transform", "change"),
    "converts": ("transforms", "changes"),
    "start": ("begin",),
    "begin": ("start",),
    "display": ("show",),
    "displays": ("shows",),
    "shows": ("displays",),
    "list all": ("show all", "enumerate all"),
    "make sure": ("ensure",),
    "based on": ("using", "according to"),
    "associated with": ("linked to", "related to"),
    "related to": ("associated with", "connected to"),
    "type of": ("kind of", "sort of"),
    "kind of": ("type of",),
    "types of": ("kinds of",),
    "a list of": ("a set of", "a collection of"),
    "number of": ("count of", "quantity of"),
    "information about": ("details about", "info about"),
    "information on": ("details on",),
    "information": ("details", "info"),
    "details": ("information", "particulars"),
    "specific": ("particular", "certain"),
    "specified": ("given", "designated"),
    "given": ("provided", "specified"),
    "particular": ("specific",),
    "current": ("present", "latest"),
    "latest": ("most recent", "newest"),
    "recent": ("latest",),
    "currently": ("at present", "right now"),
    "right now": ("at the moment", "currently"),
    "maximum": ("largest", "highest"),
    "minimum": ("smallest", "lowest"),
    "desired": ("preferred", "wanted"),
    "default is": ("defaults to",),
    "allows you to": ("lets you", "enables you to"),
    "allows": ("lets", "enables"),
    "in order to": ("to", "so as to"),
    "such as": ("like", "for example"),
    "whether": ("if",),
    "each": ("every",),
    "multiple": ("several",),
    "several": ("multiple", "a number of"),
    "picture": ("image", "photo"),
    "image": ("picture",),
    "images": ("pictures",),
    "photo": ("picture",),
    "movie": ("film",),
    "movies": ("films",),
    "film": ("movie",),
    "near": ("close to",),
    "nearby": ("in the area",),
    "cheap": ("inexpensive", "affordable"),
    "expensive": ("costly",),
    "option": ("choice",),
    "interested in": ("curious about",),
    "corresponding": ("matching",),
    "located": ("situated",),
    "this api": ("this endpoint", "this service"),
    "the api": ("the endpoint",),
    "this tool": ("this function", "this utility"),
    "this function": ("this tool", "this utility"),
    "used to": ("employed to",),
    "used for": ("meant for", "employed for"),
    "hey": ("hi", "hello"),
    "hi": ("hello", "hey"),
    "hello": ("hi",),
    "thanks": ("thank you",),
    "please": ("kindly",),
    "quickly": ("fast", "rapidly"),
    "large": ("big",),
    "big": ("large",),
    "small": ("little",),
    "results": ("outcomes",),
    "result": ("outcome",),
    "method": ("approach",),
    "includes": ("contains",),
    "include": ("contain",),
    "contains": ("includes",),
    "identify": ("determine", "find"),
    "determine": ("figure out", "establish"),
    "predict": ("forecast", "estimate"),
    "predicts": ("forecasts", "estimates"),
    "estimate": ("approximate",),
    "recommend": ("suggest",),
    "suggest": ("recommend",),
    "send": ("dispatch",),
    "sends": ("dispatches",),
    "search": ("look",),
}
_PHRASE_RE = re.compile(
    r"(?<![\w'])(" + "|".join(re.escape(p) for p in sorted(PHRASES, key=len, reverse=True)) + r")(?![\w'])",
    re.I,
)
IMPERATIVES = frozenset(
    [
        "find",
        "get",
        "show",
        "tell",
        "give",
        "calculate",
        "search",
        "list",
        "book",
        "create",
        "generate",
        "check",
        "retrieve",
        "fetch",
        "look",
        "convert",
        "translate",
        "provide",
        "add",
        "remove",
        "delete",
        "send",
        "set",
        "schedule",
        "make",
        "compute",
        "predict",
        "estimate",
        "recommend",
        "suggest",
        "play",
        "open",
        "update",
        "cancel",
        "display",
        "identify",
        "determine",
        "analyze",
        "describe",
        "explain",
        "summarize",
        "compare",
        "register",
        "record",
        "query",
        "modify",
        "plan",
        "order",
        "reserve",
        "locate",
        "help",
    ]
)
_FRAMES: tuple[tuple[str, str], ...] = (
    ("Please {v}", "."),
    ("I need you to {v}", "."),
    ("Could you {v}", "?"),
    ("I'd like you to {v}", "."),
)
_SUBORDINATE = re.compile(
    r"^(?P<main>[^,;:\n]{8,}?) (?P<conj>if|when|because|before|after|since) (?P<sub>[^,;:\n]{4,}?)(?P<end>[.?!]?)$"
)
_SENTENCE = re.compile(r"[^.!?\n<>]+[.!?]?")


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str


def _match_case(src: str, repl: str) -> str:
    if src[:1].isupper() and repl[:1].islower():
        return repl[:1].upper() + repl[1:]
    if src[:1].islower() and repl[:1].isupper() and not repl.startswith(("I ", "I'")):
        return repl[:1].lower() + repl[1:]
    return repl


def _phrase_edits(text: str, protection: Protection, rng: random.Random) -> list[_Edit]:
    edits = []
    for m in _PHRASE_RE.finditer(text):
        if protection.covers(m.start(), m.end()):
            continue
        options = [o for o in PHRASES[m.group().lower()] if o.lower() != m.group().lower()]
        if options:
            edits.append(_Edit(m.start(), m.end(), _match_case(m.group(), rng.choice(options))))
    return edits


_LOWERABLE = IMPERATIVES | {"the", "a", "an", "it", "we", "you", "they", "my", "our", "please", "this", "there"}


def _sentence_edit(text: str, protection: Protection, rng: random.Random) -> _Edit | None:
    """Re-frame one imperative sentence as a request, or move a subordinate clause to the front."""
    sentences = [m for m in _SENTENCE.finditer(text) if m.group().strip()]
    rng.shuffle(sentences)
    for m in sentences:
        lead = len(m.group()) - len(m.group().lstrip())
        start, body = m.start() + lead, m.group().strip()
        end = start + len(body)
        first = body.split(" ", 1)[0]
        if protection.covers(start, start + len(first)):
            continue
        sub = _SUBORDINATE.match(body)
        if sub and (first == "I" or first.lower() in _LOWERABLE):
            main = sub.group("main")
            main = main if first == "I" else main[:1].lower() + main[1:]
            return _Edit(start, end, f"{sub.group('conj').capitalize()} {sub.group('sub')}, {main}{sub.group('end')}")
        if first.lower() in IMPERATIVES and body[-1:] in ".!":
            frame, stop = rng.choice(_FRAMES)
            return _Edit(start, end, frame.format(v=first.lower()) + body[len(first) : -1] + stop)
    return None


_OF_THE = re.compile(r"^(?:The )?(?P<x>[A-Za-z]+) of the (?P<y>[A-Za-z]+(?: [A-Za-z]+){0,2})\.?$", re.I)
_POSSESSIVE = re.compile(r"^(?:The )?(?P<y>[A-Za-z]+)'s (?P<x>[A-Za-z]+(?: [A-Za-z]+)?)\.?$", re.I)


def _third_person(verb: str) -> str:
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + ("es" if verb.endswith(("s", "sh", "ch", "x")) else "s")


_THIRD = {v: _third_person(v) for v in sorted(IMPERATIVES)}
_BASE = {t: v for v, t in _THIRD.items()}


def _description_edit(text: str, protection: Protection) -> str:
    """Structural edits for descriptions: ``X of the Y`` <-> ``the Y's X``; imperative <-> 3rd person."""
    if not protection.spans:
        if m := _OF_THE.match(text):
            return f"The {m.group('y')}'s {m.group('x').lower()}."
        if m := _POSSESSIVE.match(text):
            return f"The {m.group('x').lower()} of the {m.group('y').lower()}."
    first = text.split(" ", 1)[0]
    if protection.covers(0, len(first)) or not first.isalpha():
        return text
    lower = first.lower()
    new = _THIRD.get(lower) or _BASE.get(lower)
    if new is None:
        return text
    return (new.capitalize() if first[0].isupper() else new) + text[len(first) :]


_ARTICLE_LED = re.compile(r"^(?P<art>The|A|An) (?=[a-zA-Z])")
_SPECIFIES = re.compile(r"^Specifies (?P<art>the|a|an) (?=[a-zA-Z])")
_BARE_NOUN = re.compile(r"^(?P<w>[A-Z][a-z]+)(?= [a-z])")
_VERB_LED = re.compile(r"^(?P<w>[A-Z][a-z]+)(?= (?:a|an|the) )")  # "Build a tree" <-> "Builds a tree"
_NOT_NOUNS = frozenset(
    [
        "whether",
        "if",
        "only",
        "optional",
        "required",
        "must",
        "use",
        "should",
        "when",
        "where",
        "while",
        "for",
        "to",
        "in",
        "on",
        "at",
        "by",
        "is",
        "are",
        "can",
        "may",
        "will",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "all",
        "any",
        "each",
        "every",
        "some",
        "no",
        "not",
        "default",
        "example",
        "set",
        "defaults",
        "specifies",
        "specify",
        "indicates",
        "indicate",
        "determines",
        "returns",
        "return",
        "one",
        "two",
        "list",
    ]
)


def _description_frame(text: str, protection: Protection) -> str:
    """The last resort for a description no other edit reaches, the same noun phrase framed another
    way: ``The ID of appointment.`` <-> ``Specifies the ID of appointment.``, a verb before an article
    changes person (``Build a model.`` <-> ``Builds a model.``), and a bare noun phrase gets its
    article (``Constant term.`` -> ``The constant term.``)."""
    if (m := _ARTICLE_LED.match(text)) and not protection.covers(0, m.end()):
        return f"Specifies {m.group('art').lower()} {text[m.end() :]}"
    if (m := _SPECIFIES.match(text)) and not protection.covers(0, m.end()):
        return f"{m.group('art').capitalize()} {text[m.end() :]}"
    if (m := _VERB_LED.match(text)) and not protection.covers(0, m.end()):
        verb = m.group("w")
        other = (
            verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else _third_person(verb.lower()).capitalize()
        )
        return other + text[m.end() :]
    m = _BARE_NOUN.match(text)
    if m and not protection.covers(0, m.end()) and m.group("w").lower() not in _NOT_NOUNS | IMPERATIVES:
        return f"The {m.group('w').lower()}{text[m.end() :]}"
    return text


def paraphrase_description(text: str, protection: Protection, rng: random.Random) -> str:
    """A description paraphrase: a structural edit (half the time, or when no phrase applies) plus
    phrase and synonym swaps; when none applies, :func:`_description_frame`."""
    out = text
    if rng.random() < 0.5:
        out = _description_edit(text, protection)
    if out != text:
        protection = protect(out, protection.keep)
    swapped = paraphrase(out, protection, rng, reframe=False)
    if swapped == text:
        edited = _description_edit(text, protection)
        return edited if edited != text else _description_frame(text, protection)
    return swapped


_QUESTION_FRAMES = ("Quick question: {q}", "I was wondering: {q}", "Here is my question: {q}")
_REQUEST_FRAMES = ("Here is my request: {q}", "Quick request: {q}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_CJK_FRAMES = ("你好，{q}", "我想问一下：{q}")
_MARKUP = re.compile(r"</[A-Za-z_]+>")  # a transcript's closing tags (API-Bank's </user>)


def frame_query(text: str, rng: random.Random) -> str:
    """The last resort for a query no phrase or clause edit reaches (``where is it?``, a Chinese
    question): the same words, introduced the way people do (``Quick question: where is it?``,
    ``你好，请问…``). Left as it is when it holds markup (API-Bank's transcripts), where a frame
    would not sit on the user's words."""
    core = text.strip()
    if not core or _MARKUP.search(core):
        return text
    if _CJK.search(core) and not re.search(r"[A-Za-z]{3,}", core):
        frames: tuple[str, ...] = _CJK_FRAMES
    else:
        frames = _QUESTION_FRAMES if core.endswith("?") else _REQUEST_FRAMES
    return rng.choice(frames).format(q=core)


def paraphrase(text: str, protection: Protection, rng: random.Random, *, reframe: bool = True) -> str:
    """A rule-based paraphrase of ``text``: at least one edit when any applies; else, for a query
    (``reframe``), :func:`frame_query`; else ``text``."""
    reframed = False
    if reframe and rng.random() < 0.5:
        text, protection, reframed = _reframe(text, protection, rng)
    edits = _phrase_edits(text, protection, rng)
    if not edits:
        if not reframe or reframed:
            return text
        out = _reframe(text, protection, rng)[0]
        return out if out != text else frame_query(text, rng)
    rng.shuffle(edits)
    want = max(1, min(5, round(len(edits) * rng.uniform(0.4, 0.8))))
    chosen: list[_Edit] = []
    for e in edits:
        if len(chosen) == want:
            break
        if all(e.end <= c.start or e.start >= c.end for c in chosen):
            chosen.append(e)
    for e in sorted(chosen, key=lambda e: e.start, reverse=True):
        text = text[: e.start] + e.text + text[e.end :]
    return text


def _reframe(text: str, protection: Protection, rng: random.Random) -> tuple[str, Protection, bool]:
    edit = _sentence_edit(text, protection, rng)
    if edit is None:
        return text, protection, False
    text = text[: edit.start] + edit.text + text[edit.end :]
    return text, protect(text, protection.keep), True
