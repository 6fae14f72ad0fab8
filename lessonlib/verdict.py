"""Notebook 13 - a real judge's verdict read by protocol, never by keywords.

A real model writes free text, and no list of keywords reads free text right: "The record
isn't temiz", "Temiz sayılmaz" ("hardly clean") and "Zararlı görünmüyor" ("does not look
harmful") each name a label they deny.  So the real-client path asks for the verdict in a
form a program can read, as the field does (Inspect's model-graded scorers read a last
``GRADE:`` line; OpenAI-compatible servers constrain a reply to a JSON schema):

* a final line ``ETİKET: temiz`` or ``ETİKET: zararli`` (:data:`VERDICT_GUIDELINE` asks for
  it), or
* a JSON object ``{"label": "temiz"}`` through ``response_format``
  (:func:`label_response_format`: a JSON schema whose label is an enum of the two labels).

:func:`read_reply` reads those, and a reply that is exactly a label; anything else is
unreadable (None), and the judge's unreadable rule decides in the open.  The lesson's own
reader, ``judge.read_label`` (the first label word), stays the seed's rule for the
in-process lesson.
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
    "VERDICT_KEYS",
    "VERDICT_WORD",
    "first_label",
    "first_verdict",
    "fold",
    "label_response_format",
    "read_reply",
]

VERDICT_WORD = "ETİKET"
"""The word that opens a verdict line, ``ETİKET: temiz`` ("label: clean")."""
VERDICT_KEYS = ("etiket", "label")
"""What a verdict line may open with, or a JSON reply name its label by (folded)."""
VERDICT_GUIDELINE = GUIDELINE.replace(
    "Oznitelikler :",
    f"Son satira {VERDICT_WORD}: temiz ya da {VERDICT_WORD}: zararli yaz . Oznitelikler :",
)
"""The lesson's guideline plus the protocol, "write ETİKET: temiz or ETİKET: zararli as the
last line", before the attributes (what a real model is asked in notebook 13)."""

_EDGES = " \t\r\n*_`'\"«»“”‘’.!>#-"  # markdown, quotes and a full stop around a label
_VERDICT_LINE = re.compile(r"\s*(?:[>#-]\s*)*(" + "|".join(VERDICT_KEYS) + r")\s*:(.*)")
_FENCE = re.compile(r"\s*```[\w-]*[ \t]*\n(.*?)\n?[ \t]*```\s*", re.S)


def fold(text: str) -> str:
    """Notebook 13 - lower case the way the course's labels are spelled (ASCII, Turkish-aware).

    NFKC forms first (a full-width ``ｔｅｍｉｚ`` is ``temiz``), then accents come off
    (``ş`` -> ``s``) and both Turkish i's fold to ``i``: ``İ`` and ``I`` as well as the
    dotless ``ı``.  Plain ``str.lower`` turns ``İ`` into ``i`` plus a combining dot, and
    leaves ``ı`` as it is.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be reply text (str), got {type(text).__name__}")
    text = unicodedata.normalize("NFKC", text)
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return bare.replace("ı", "i").lower()


def _exact(text):
    """The label ``text`` is, once folded and stripped of markdown, quotes and a full stop;
    None unless it is exactly one label."""
    word = fold(text).strip(_EDGES)
    return word if word in LABELS else None


def _verdict_lines(text):
    """The labels of the verdict lines of ``text`` in order (None for a line whose value is
    not exactly a label)."""
    found = []
    for line in fold(text).splitlines():
        match = _VERDICT_LINE.fullmatch(line.replace("*", "").replace("_", "").replace("`", ""))
        if match:
            found.append(_exact(match.group(2)))
    return found


def _unfence(text):
    """The inside of a code fence around the whole reply, or the reply as it is."""
    match = _FENCE.fullmatch(text)
    return match.group(1) if match else text


def _json_label(text):
    """(True, label or None) when ``text`` is a JSON object, else (False, None)."""
    body = text.strip()
    if not body.startswith("{"):
        return False, None
    try:
        data = json.loads(body)
    except ValueError:
        return True, None  # it meant to be JSON and is not: unreadable
    if not isinstance(data, dict):
        return True, None
    named = [v for k, v in data.items() if isinstance(k, str) and fold(k) in VERDICT_KEYS]
    if len(named) != 1 or not isinstance(named[0], str):
        return True, None
    return True, _exact(named[0])


def read_reply(text: str) -> str | None:
    """Notebook 13 - the verdict a real model's reply states by protocol, or None.

    In this order: a JSON object's label (``{"label": "zararli"}``, the key ``label`` or
    ``etiket``); else the label of the **last** verdict line (``ETİKET: temiz``, or
    ``Label: temiz``); else the label the whole reply is (``Zararlı.``, ``**temiz**``).
    Case, Turkish İ and ı, NFKC forms, markdown emphasis, quotes and a code fence around
    the reply are folded away.  Anything else is None: a negated, hedged or two-sided
    sentence ("Temiz değil.", "Belki zararlı", "temiz/zararlı") never gives a label, and
    neither does a verdict line whose value is not exactly a label ("ETİKET: temiz değil").
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be reply text (str), got {type(text).__name__}")
    text = _unfence(unicodedata.normalize("NFKC", text))
    is_json, label = _json_label(text)
    if is_json:
        return label
    lines = _verdict_lines(text)
    if lines:
        return lines[-1]
    return _exact(text)


def first_verdict(text: str) -> str | None:
    """Notebook 13 - the label of the **first** verdict line (or the whole reply, as
    :func:`read_reply`): the reading a planted line fools, shown to be beaten."""
    if not isinstance(text, str):
        raise TypeError(f"text must be reply text (str), got {type(text).__name__}")
    lines = _verdict_lines(text)
    return lines[0] if lines else _exact(text)


def first_label(text: str) -> str | None:
    """Notebook 13 - the naive reader: the first label word anywhere in the folded reply.

    Shown only to be beaten: it reads ``"Temiz değil."`` (not clean) as temiz.
    Use :func:`read_reply`.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be reply text (str), got {type(text).__name__}")
    return next((w for w in re.findall(r"[^\W\d_]+", fold(text)) if w in LABELS), None)


def label_response_format(name: str = "verdict") -> dict[str, Any]:
    """Notebook 13 - the ``response_format`` that asks for ``{"label": <temiz|zararli>}``: a
    strict JSON schema whose one property is an enum of the two labels (a fresh dict)."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        raise ValueError(
            f"name must be 1 to 64 letters, digits, '_' or '-' (a schema name), got {name!r}"
        )
    return {
        "type": "json_schema",
        "json_schema": {
            "name": name,
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {"label": {"type": "string", "enum": list(LABELS)}},
                "required": ["label"],
                "additionalProperties": False,
            },
        },
    }
