"""Notebook 13 - a real client's replies, kept on disk.

:class:`ClientReply` is what :class:`~lessonlib.sdk_ask.OpenAIAsk` returns (an ``AskReply``
plus the wait a 429 asked for, the requests it took, and the reply as written);
:class:`ReplyCache` keeps one JSON file per question asked, so a run can be read again, or
resumed, without asking the model twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from .panel import AskReply

__all__ = ["CACHE_FOLDER", "ClientReply", "ReplyCache"]

CACHE_FOLDER = Path(__file__).resolve().parents[1] / ".cache" / "replies"
"""Where :class:`ReplyCache` keeps replies by default (git ignores ``.cache/``)."""


@dataclass(frozen=True)
class ClientReply(AskReply):
    """Notebook 13 - an :class:`AskReply` from :class:`OpenAIAsk`, plus the wait the server
    asked for (``retry_after``, seconds, from a 429's ``Retry-After``), the HTTP
    ``requests`` it took (0 when read from a :class:`ReplyCache`) and the ``raw`` reply."""

    retry_after: float | None = field(default=None, repr=False)
    requests: int = field(default=1, repr=False, compare=False)
    raw: str = field(default="", repr=False)  # the reply as the model wrote it


class ReplyCache:
    """Notebook 13 - replies on disk, one JSON file per question asked.

    A question is (model, prompt, temperature, seed, max_tokens): everything
    that changes the reply, and nothing that does not (the server's address
    is left out, so a new port does not empty the cache).  Every reply is
    kept, refusals and timeouts too: the cache is a record of the run as it
    happened, so reading it again gives the same figures.  Delete the folder
    to ask again.
    """

    def __init__(self, folder: str | os.PathLike[str] = CACHE_FOLDER) -> None:
        if not isinstance(folder, (str, os.PathLike)):
            raise TypeError(
                f"folder must be a path (a str or a pathlib.Path), got {type(folder).__name__} "
                f"{folder!r}"
            )
        self.folder = Path(folder)

    def __repr__(self) -> str:
        return f"ReplyCache({len(self)} replies)"

    def __len__(self) -> int:
        return sum(1 for _ in self.folder.glob("*.json")) if self.folder.is_dir() else 0

    def _path(self, question):
        key = json.dumps(question, sort_keys=True, ensure_ascii=True)
        return self.folder / (hashlib.sha256(key.encode("ascii")).hexdigest() + ".json")

    def get(self, question: Mapping[str, Any]) -> ClientReply | None:
        """The :class:`ClientReply` stored for ``question`` (a dict), or None; read from the
        cache, so its ``requests`` is 0."""
        path = self._path(question)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError as exc:
            raise _damaged(path, f"bytes that are not UTF-8 at {exc.start}") from None
        except IsADirectoryError:
            raise _damaged(path, "a folder stands where the file should be") from None
        try:
            stored = json.loads(raw)
            if stored["question"] != question:
                raise ValueError("it holds another question")
            return replace(ClientReply(**stored["reply"]), requests=0)
        except (ValueError, KeyError, TypeError) as exc:
            raise _damaged(path, exc) from None

    def __contains__(self, question: object) -> bool:
        """Whether a reply is stored for ``question`` (a dict), damaged or not."""
        return isinstance(question, Mapping) and self._path(question).exists()

    def put(self, question: Mapping[str, Any], reply: AskReply) -> None:
        """Store ``reply`` (an AskReply) for ``question``; written whole or not at all.

        Each write goes to a temporary file of its own, then is renamed over the
        reply's name (``os.replace``, atomic): threads and processes sharing the
        folder never see a half-written reply or trip over each other's files.
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(question)
        if path.is_dir():
            raise _damaged(path, "a folder stands where the file should be")
        handle, part = tempfile.mkstemp(
            dir=self.folder, prefix=path.stem[:16] + ".", suffix=".part"
        )
        try:
            with os.fdopen(handle, "w", encoding="ascii") as out:
                out.write(json.dumps({"question": question, "reply": asdict(reply)}))
            os.replace(part, path)
        except BaseException:
            try:
                os.unlink(part)
            except OSError:
                pass
            raise


def _damaged(path, why):
    """The error a damaged cache file gets: it names the file and says what to do."""
    return ValueError(f"the cached reply {path} is damaged ({why}); delete the file to ask again")
