"""Notebook 13 - a real judge's verdict read by protocol, never by keywords.

Free text defeats keyword reading ("Temiz değil." names the label it denies), so the real
client asks for a last line ``ETİKET: <label>`` (:data:`VERDICT_GUIDELINE`) or a JSON label
(:func:`label_response_format`), and :func:`read_reply` reads only those.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from .judge import GUIDELINE
from .simulator import LABELS

__all__ = [
    "VERDICT_GUIDELINE",
    "VERDICT_WORD",
    "first_label",
    "first_verdict",
    "fold",
    "label_response_format",
    "read_reply",
]

VERDICT_WORD = "ETİKET"
"""The word that opens a verdict line, ``ETİKET: temiz`` ("label: clean")."""
VERDICT_GUIDELINE = GUIDELINE.replace(
    "Oznitelikler :",
    f"Son satira {VERDICT_WORD}: temiz ya da {VERDICT_WORD}: zararli yaz . Oznitelikler :",
)
"""The lesson's guideline plus "write ETİKET: temiz or ETİKET: zararli as the last line"."""

_KEYS = ("etiket", "label")  # what a verdict line opens with, or a JSON reply's key (folded)
_EDGES = " \t\r\n*_`'\"«»“”‘’.!>#-"  # markdown, quotes and a full stop around a label
_VERDICT_LINE = re.compile(r"\s*(?:[>#-]\s*)*(" + "|".join(_KEYS) + r")\s*:(.*)")
_FENCE = re.compile(r"\s*```[\w-]*[ \t]*\n(.*?)\n?[ \t]*```\s*", re.S)


def _text(text):
    if not isinstance(text, str):
        raise TypeError(f"text must be reply text (str), got {type(text).__name__}")
    return text


def fold(text: str) -> str:
    """Lower case as the course's labels are spelled: NFKC forms, no accents, both Turkish
    i's (``İ``, ``ı``) to ``i``; refuses what is not a str."""
    text = unicodedata.normalize("NFKC", _text(text))
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return bare.replace("ı", "i").lower()


def _exact(text):
    """The label ``text`` is once folded and stripped of markdown and quotes, else None."""
    word = fold(text).strip(_EDGES)
    return word if word in LABELS else None


def _verdict_lines(text):
    """The label of each verdict line of ``text``, in order (None: not exactly a label)."""
    found = []
    for line in fold(text).splitlines():
        match = _VERDICT_LINE.fullmatch(line.replace("*", "").replace("_", "").replace("`", ""))
        if match:
            found.append(_exact(match.group(2)))
    return found


def _json_label(body):
    """The label of a JSON object's one label key; None for any other JSON."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    named = [v for k, v in data.items() if fold(k) in _KEYS] if isinstance(data, dict) else []
    return _exact(named[0]) if len(named) == 1 and isinstance(named[0], str) else None


def read_reply(text: str) -> str | None:
    """The verdict a reply states by protocol, or None: a JSON object's label (key ``label``
    or ``etiket``), else the **last** verdict line's, else the label the whole reply is.

    Case, Turkish İ/ı, NFKC forms, markdown, quotes and a code fence around the reply are
    folded away; a negated, hedged or two-sided reply is None.  Refuses what is not a str.
    """
    text = unicodedata.normalize("NFKC", _text(text))
    fenced = _FENCE.fullmatch(text)
    text = fenced.group(1) if fenced else text
    if text.strip().startswith("{"):
        return _json_label(text.strip())
    lines = _verdict_lines(text)
    return lines[-1] if lines else _exact(text)


def first_verdict(text: str) -> str | None:
    """The **first** verdict line's label (else the whole reply's): the reading a planted
    line fools, shown to be beaten."""
    lines = _verdict_lines(_text(text))
    return lines[0] if lines else _exact(text)


def first_label(text: str) -> str | None:
    """The naive reader: the first label word anywhere in the folded reply (it reads
    "Temiz değil." as temiz; shown only to be beaten)."""
    return next((w for w in re.findall(r"[^\W\d_]+", fold(text)) if w in LABELS), None)


def label_response_format(name: str = "verdict") -> dict[str, Any]:
    """The ``response_format`` asking for ``{"label": <temiz|zararli>}``: a strict JSON schema
    with an enum of the two labels (a fresh dict); ``name`` is 1-64 of ``[A-Za-z0-9_-]``."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        raise ValueError(
            f"name must be 1 to 64 letters, digits, '_' or '-' (a schema name), got {name!r}"
        )
    schema = {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": list(LABELS)}},
        "required": ["label"],
        "additionalProperties": False,
    }
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
