"""Notebook 03 - the model-as-judge: the prompt, the ask-retry loop, runs and settings."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from inspect import signature
from typing import TYPE_CHECKING, TypedDict

from ._checks import (
    check_choice,
    check_instance,
    check_int,
    check_label_table,
    check_number,
    check_seed,
    check_str,
)
from ._frozen import ReadOnlyDict
from .connections import map_calls
from .records import FEATURES, SEED, Record, check_record, check_records
from .simulator import (
    CUE_TABLE,
    FLAG_WORD,
    LABELS,
    MAX_OUTPUT,
    NO_FLAG_WORD,
    PRIOR,
    SOURCE_WORD,
    SPURIOUS,
    TEMPERATURE,
    Reply,
    SimulatedModel,
    _check_prior,
    _tokenize,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "GUIDELINE",
    "CLEAN",
    "HARMFUL",
    "RETRY_CAUSE",
    "UNREADABLE_RULES",
    "LESSON_SETTINGS",
    "SETTINGS",
    "Answer",
    "Ask",
    "JudgeSettings",
    "SettingsChanges",
    "JudgeRun",
    "Reader",
    "Run",
    "Tally",
    "ask_each",
    "ask_for_label",
    "build_prompt",
    "judge_model",
    "read_label",
    "reply_parts",
    "resolve_settings",
    "run_judge",
    "tally",
]

GUIDELINE = (
    "Su kaydin ozniteliklerine bak ve tek etiket yaz : temiz ya da zararli . Oznitelikler : "
)
"""'Look at this record's attributes and write a single label: clean or harmful. Attributes:'"""

CLEAN, HARMFUL = LABELS

Ask = Callable[[str, int], object]
"""The type of an ask: ``ask(prompt, seed)`` -> reply text or an object with a str ``.text``."""


def build_prompt(record: Record, guideline: str = GUIDELINE) -> str:
    """Guideline + flag words (or 'yok') + source word + record number + text (notebook 03)."""
    if type(record) is not Record:
        check_record(record)
    if guideline is not GUIDELINE:
        check_str("guideline", guideline)
    return _build_prompt(record, guideline)


def _build_prompt(record, guideline=GUIDELINE):
    """:func:`build_prompt` for a checked record and guideline (the library's own loops)."""
    words = " ".join(FLAG_WORD[f] for f in FEATURES if record.features[f]) or NO_FLAG_WORD
    source = SOURCE_WORD[record.source]
    return f"{guideline}{words} . kaynak {source} . kayit {record.no} : {record.text}"


def read_label(reply_text: str) -> str | None:
    """The first word of the reply that is a label, or None when there is none (notebook 03)."""
    return _read_label(check_str("reply_text", reply_text))


def _read_label(reply_text):
    """:func:`read_label` for checked text: the ask loop reads every reply with it."""
    for word in reply_text.lower().split():
        if word in LABELS:
            return word
    return None


def reply_parts(prompt: str, reply: object) -> tuple[str, int, str]:
    """(text, input_tokens, status) of what an ``ask`` returned; plain text counts as 'ok'."""
    if isinstance(reply, str):
        return reply, len(_tokenize(prompt)), "ok"
    if type(reply) is Reply:  # the simulator's own reply: nothing to check
        return reply.text, reply.input_tokens, reply.status
    text = getattr(reply, "text", None)
    if not isinstance(text, str):
        raise TypeError(
            "an ask must return reply text (str) or an object with a str .text, "
            f"got {type(reply).__name__}"
        )
    tokens = getattr(reply, "input_tokens", None)
    if tokens is None:
        return text, len(_tokenize(prompt)), getattr(reply, "status", "ok")
    tokens = check_int("input_tokens (of the ask's reply)", tokens, minimum=0)
    return text, tokens, getattr(reply, "status", "ok")


@dataclass(frozen=True)
class Answer:
    """One record's outcome: the label read (None if unreadable twice), its cost, the replies."""

    label: str | None
    calls: int
    input_tokens: int
    statuses: tuple  # the status of each call, in order
    replies: tuple = field(default=(), repr=False, compare=False)

    @property
    def retried(self) -> bool:
        return self.calls > 1


Reader = Callable[[str], "str | None"]
"""The type of a reader: reply text -> a label or None (:func:`read_label`, ``read_reply``)."""


def ask_for_label(ask: Ask, prompt: str, seed: int, read: Reader = _read_label) -> Answer:
    """Ask once with ``seed``; if ``read`` finds no label, once more with ``seed + 1``."""
    first = ask(prompt, seed)
    text, tokens, status = reply_parts(prompt, first)
    label = read(text)
    if label is not None:
        return Answer(label, 1, tokens, (status,), (first,))
    second = ask(prompt, seed + 1)
    text, more, status2 = reply_parts(prompt, second)
    return Answer(read(text), 2, tokens + more, (status, status2), (first, second))


@dataclass(frozen=True)
class Run:
    """What every run has (JudgeRun, PanelRun): a label per record, the counts, :meth:`decide`."""

    labels: dict = field(repr=False)  # record no -> 'temiz' | 'zararli'
    calls: int
    retries: int
    unreadable: int
    input_tokens: int

    _WHAT = "run"

    def _judged(self) -> dict[int, Record]:
        """Record no -> the Record this run judged (empty: the labels alone say)."""
        return {}

    def decide(self, record: Record) -> bool:
        """True when this run labelled ``record`` harmful; a record it did not judge is refused."""
        check_record(record)
        return self.decider((record,))(record)

    def decider(self, records: Iterable[Record]) -> Callable[[Record], bool]:
        """A decision for ``records``, checked once (``metrics.trusted``); refuses unjudged."""
        labels, judged = self.labels, self._judged()
        for record in records:
            known = judged.get(record.no, record)
            if record.no not in labels or (known is not record and known != record):
                raise ValueError(
                    f"record {record.no} is not one this {self._WHAT} judged: the "
                    f"run does not belong to these records (other seed or number "
                    f"of records?)"
                )
        return lambda record: labels[record.no] == HARMFUL


@dataclass(frozen=True)
class JudgeRun(Run):
    """The labels of one judge run and what it cost (notebook 03)."""

    seed: int = 0
    retry_causes: dict = field(default_factory=dict)  # why first calls failed -> count
    judged: dict = field(default_factory=dict, repr=False, compare=False)  # no -> the Record

    def _judged(self) -> dict[int, Record]:
        return self.judged


UNREADABLE_RULES = ("clean", "harmful")
RETRY_CAUSE = ReadOnlyDict({"rate_limit": "rate limit", "context_overflow": "context overflow"})


@dataclass(frozen=True)
class Tally:
    """What a pass of answers cost: calls, retries, unreadable, input tokens, retry causes."""

    calls: int
    retries: int
    unreadable: int
    input_tokens: int
    causes: dict


def ask_each(
    asks: Ask | Sequence[Ask],
    prompts: Sequence[str],
    seed: int,
    where: Callable[[int], str] | None = None,
    max_connections: int = 1,
    *,
    read: Reader = _read_label,
    on_done: Callable[[], object] | None = None,
) -> list[Answer]:
    """:func:`ask_for_label` for every prompt (``asks``: one ask, or one per prompt), the
    answers in order.  ``where(i)`` names the ask in a bad reply's error; ``max_connections``
    calls run at once; ``on_done()`` follows each record (a progress bar)."""

    def answer(i):
        try:
            return ask_for_label(asks if callable(asks) else asks[i], prompts[i], seed, read)
        except (TypeError, ValueError) as exc:
            if where is None:
                raise
            raise type(exc)(f"{exc} (from {where(i)})") from None

    return map_calls(answer, range(len(prompts)), max_connections, on_done)


def tally(answers: Iterable[Answer]) -> Tally:
    """The :class:`Tally` of a pass's answers (a retried first call counted by its cause)."""
    retries, unreadable, tokens, calls = 0, 0, 0, 0
    causes: dict[str, int] = {}
    for answer in answers:
        calls += answer.calls
        tokens += answer.input_tokens
        if answer.retried:
            retries += 1
            cause = RETRY_CAUSE.get(answer.statuses[0], "unreadable reply")
            causes[cause] = causes.get(cause, 0) + 1
        unreadable += answer.label is None
    return Tally(calls, retries, unreadable, tokens, causes)


class SettingsChanges(TypedDict, total=False):
    """The keyword changes a judge entry point takes: any :class:`JudgeSettings` fields."""

    temperature: float
    guideline: str
    cues: Mapping[str, str]
    spurious: Mapping[str, str]
    prior: Mapping[str, float]
    max_output: int
    unreadable_as: str


@dataclass(frozen=True)
class JudgeSettings:
    """The simulated judge's settings as one value (CONTRIBUTING, the settings convention):
    the model's (temperature, cues, spurious, prior, max_output), the prompt's ``guideline``
    and ``unreadable_as`` (the lesson: 'clean', fail-open).  Checked when made, a bad value
    refused naming its field; tables kept as read-only copies."""

    temperature: float = TEMPERATURE
    guideline: str = GUIDELINE
    cues: Mapping[str, str] = CUE_TABLE
    spurious: Mapping[str, str] = SPURIOUS
    prior: Mapping[str, float] = PRIOR
    max_output: int = MAX_OUTPUT
    unreadable_as: str = "clean"

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "temperature", check_number("temperature", self.temperature, minimum=0.0))
        check_str("guideline", self.guideline)
        for name, default in (("cues", CUE_TABLE), ("spurious", SPURIOUS)):
            value = getattr(self, name)
            if value is not default:
                put(self, name, ReadOnlyDict(check_label_table(name, value, LABELS)))
        if self.prior is not PRIOR:
            put(self, "prior", ReadOnlyDict(_check_prior(self.prior)))
        put(self, "max_output", check_int("max_output", self.max_output, minimum=1))
        check_choice("unreadable_as", self.unreadable_as, UNREADABLE_RULES)

    def changed(self) -> dict[str, object]:
        """The fields that differ from the lesson's judge, in field order."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != f.default
        }

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.changed().items())
        return f"JudgeSettings({shown})"

    def model(self) -> SimulatedModel:
        """A new SimulatedModel with these settings (its counter at zero)."""
        return SimulatedModel(
            self.temperature, self.cues, self.spurious, self.prior, max_output=self.max_output
        )


SETTINGS = tuple(f.name for f in fields(JudgeSettings))
"""The names of the judge's settings, read from :class:`JudgeSettings` (never kept by hand)."""
LESSON_SETTINGS = JudgeSettings()
"""The lesson's judge: every setting at its default."""
_MODEL_SETTINGS = tuple(n for n in SETTINGS if n in signature(SimulatedModel).parameters)
"""The settings the model carries (the rest, guideline and unreadable_as, are the judge's)."""


def resolve_settings(
    settings: JudgeSettings | None, changes: Mapping[str, object]
) -> JudgeSettings:
    """``settings`` (None: the lesson's) with ``changes`` applied; refuses an unknown keyword."""
    unknown = [k for k in changes if k not in SETTINGS]
    if unknown:
        raise TypeError(
            f"unknown judge setting(s) {', '.join(map(repr, unknown))}; the judge's "
            f"settings are {', '.join(SETTINGS)} (or settings=JudgeSettings(...))"
        )
    if settings is None:
        return JudgeSettings(**changes) if changes else LESSON_SETTINGS  # type: ignore[arg-type]
    check_instance("settings", settings, JudgeSettings)
    return replace(settings, **changes) if changes else settings  # type: ignore[arg-type]


def judge_model(model: SimulatedModel | None, settings: JudgeSettings) -> SimulatedModel:
    """A fresh copy of ``model``, or a new model of ``settings``; refuses a model and them both."""
    if model is None:
        return settings.model()
    check_instance("model", model, SimulatedModel)
    given = [name for name in _MODEL_SETTINGS if name in settings.changed()]
    if given:
        raise ValueError(
            f"model= carries the judge's settings; give either model or "
            f"{', '.join(given)}, not both"
        )
    return model.fresh()


def run_judge(
    records: Sequence[Record],
    seed: int = SEED,
    settings: JudgeSettings | None = None,
    *,
    model: SimulatedModel | None = None,
    **changes: Unpack[SettingsChanges],
) -> JudgeRun:
    """The judge (``settings`` + ``changes``, or ``model``) on each record: a JudgeRun."""
    records = check_records(records)
    seed = check_seed(seed)
    settings = resolve_settings(settings, changes)
    return _run_judge(records, seed, judge_model(model, settings), settings)


def _run_judge(records, seed, model, settings=LESSON_SETTINGS):
    """:func:`run_judge` for checked arguments and a model with its counter at zero."""
    fallback = CLEAN if settings.unreadable_as == "clean" else HARMFUL
    # the model's own loop: prompts and seeds are known to be good, so no check per call
    ask = model._reply if type(model).call is SimulatedModel.call else model.call
    answers = ask_each(ask, [_build_prompt(r, settings.guideline) for r in records], seed)
    counts = tally(answers)
    labels = {r.no: fallback if a.label is None else a.label for r, a in zip(records, answers)}
    return JudgeRun(
        labels,
        model.calls,
        counts.retries,
        counts.unreadable,
        counts.input_tokens,
        seed,
        counts.causes,
        {r.no: r for r in records},
    )
