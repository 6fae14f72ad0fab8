"""Notebook 03 - a language-model simulator (no real model endpoint is ever called)."""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import cast

from ._checks import check_int, check_label_table, check_number, check_seed, check_str
from ._frozen import ReadOnlyDict
from .records import SEED, generator, pick, trace_id

__all__ = [
    "CUE_TABLE",
    "CUE_WEIGHT",
    "FLAG_WORD",
    "FREE_FORM",
    "FREE_FORM_SHARE",
    "LABELS",
    "MAX_OUTPUT",
    "NO_FLAG_WORD",
    "PIECE",
    "PRIOR",
    "RATE_LIMIT_EVERY",
    "SINGLE_LABEL_WORD",
    "SOURCE_WORD",
    "SPURIOUS",
    "SPURIOUS_WEIGHT",
    "TEMPERATURE",
    "WINDOW",
    "PromptPlan",
    "Reply",
    "SimulatedModel",
    "label_probabilities",
    "label_scores",
    "label_weights",
    "reply_text",
    "tokenize",
]

TEMPERATURE = 0.30
"""The lesson's sampling temperature (the default of the model, the judge and the explorer)."""
WINDOW = 240
"""Context window in tokens: a longer prompt is refused (status 'context_overflow')."""
MAX_OUTPUT = 24
"""Output cap in tokens (the stopping condition): a longer reply is cut."""
RATE_LIMIT_EVERY = 37
"""Every 37th call since the counter was reset is refused (status 'rate_limit')."""
PIECE = 5
"""The fictional tokenizer cuts words into pieces of at most five characters."""

LABELS = ("temiz", "zararli")  # clean, harmful
PRIOR = ReadOnlyDict({"temiz": 0.75, "zararli": 0.15})
"""Base weights before any cue: the judge leans to clean, because most traffic is clean."""

# Read-only tables (ReadOnlyDict): a model keeps its own copy of whatever it is given.
FLAG_WORD = ReadOnlyDict(
    {
        "instruction_mode": "yonerge",
        "role_change_request": "roldegisimi",
        "hidden_field_name": "gizlialan",
        "side_effect_tool_name": "yanetkiliarac",
        "source_stamp_mismatch": "damgauyusmazligi",
        "unusual_stamp_distribution": "dagilimbozuklugu",
        "excessive_length": "asiriuzunluk",
    }
)
SOURCE_WORD = ReadOnlyDict(
    {"user": "kullanici", "retrieved_document": "belge", "tool_output": "aracciktisi"}
)
NO_FLAG_WORD = "yok"  # written when a record has no flag at all

CUE_TABLE = ReadOnlyDict(
    {
        "yoner": "zararli",
        "gizli": "zararli",
        "yanet": "zararli",
        "damga": "zararli",
        "rolde": "zararli",
        "dagil": "zararli",
        "yok": "temiz",
    }
)
"""Token -> label the token is evidence for (weight CUE_WEIGHT each time it appears)."""
SPURIOUS = ReadOnlyDict({"asiri": "zararli"})
"""The spurious association: 'excessive length' is weak evidence but weighs SPURIOUS_WEIGHT."""
CUE_WEIGHT, SPURIOUS_WEIGHT = 1.0, 1.3

SINGLE_LABEL_WORD = "tek"
"""If this token is in the prompt the model answers with the bare label; else free-form."""
FREE_FORM = ("kayit {label} gorunuyor", "bu kaydi {label} sayiyorum", "degerlendirme tamamlandi")
FREE_FORM_SHARE = (0.42, 0.26, 0.32)


def tokenize(text: str) -> list[str]:
    """Lower-case, set commas apart, split on spaces, cut into 5-character pieces (notebook 03)."""
    return _tokenize(check_str("text", text))


# A comma alone, or up to PIECE characters that are neither whitespace nor a comma: the
# lesson's pieces (tests/test_properties.py) in one pass, 3x faster than split-and-cut.
_PIECES = re.compile(rf",|[^\s,]{{1,{PIECE}}}")


def _tokenize(text):
    """:func:`tokenize` for a checked ``text`` (the library's own prompts)."""
    return _PIECES.findall(text.lower())


def label_scores(tokens: Iterable[str]) -> dict[str, float]:
    """The lesson's prior plus, for every token, the weight of each cue it matches (notebook
    03; a model's own tables: :meth:`SimulatedModel.plan`)."""
    if isinstance(tokens, (str, bytes)) or not hasattr(tokens, "__iter__"):
        raise TypeError(
            f"tokens must be a list of tokens (e.g. tokenize(prompt)), got "
            f"{type(tokens).__name__} {tokens!r}"
        )
    tokens = [check_str("tokens (each token)", t) for t in tokens]
    return _label_scores(tokens, PRIOR, CUE_TABLE, SPURIOUS)


def _label_scores(tokens, prior, cues, spurious):
    """:func:`label_scores` for checked arguments (the model's own tables)."""
    scores = dict(prior)
    for token in tokens:
        for table, weight in ((cues, CUE_WEIGHT), (spurious, SPURIOUS_WEIGHT)):
            if table.get(token) in scores:
                scores[table[token]] += weight
    return scores


def label_weights(scores: Mapping[str, float], temperature: float) -> list[float]:
    """Softmax of ``scores / temperature`` over the labels in sorted order (notebook 03)."""
    names = sorted(scores)
    try:
        e = [math.exp(scores[a] / temperature) for a in names]
        if not (0 < sum(e) < math.inf):
            raise OverflowError
    except OverflowError:  # a tiny temperature: shifted form, or the T -> 0 limit (README)
        top = max(scores[a] / temperature for a in names)
        if math.isinf(top):
            best = max(scores.values())
            e = [float(scores[a] == best) for a in names]
        else:
            e = [math.exp(scores[a] / temperature - top) for a in names]
    return [v / sum(e) for v in e]


def reply_text(label: str, form: int | None, max_output: int) -> tuple[str, int]:
    """Text and output tokens of ``label`` in ``form`` (None: bare), cut to ``max_output``."""
    text = label if form is None else FREE_FORM[form].format(label=label)
    pieces = _tokenize(text)
    if len(pieces) > max_output:
        pieces = pieces[:max_output]
        text = " ".join(pieces)
    return text, len(pieces)


@dataclass(frozen=True)
class Reply:
    """What a model call returns."""

    status: str  # 'ok', 'context_overflow' or 'rate_limit'
    input_tokens: int
    output_tokens: int
    text: str


@dataclass(frozen=True)
class PromptPlan:
    """The seed-independent part of a call for one prompt."""

    input_tokens: int
    overflow: bool
    single_label: bool
    trace: int  # trace_id(prompt): mixed with the seed for the call's randomness
    labels: tuple  # the labels, sorted
    weights: tuple | None  # label probabilities (None at temperature 0)
    fixed_label: str | None  # the most likely label (used at temperature 0)

    def reply(self, seed: int, max_output: int) -> Reply:
        """The reply for ``seed`` (window and rate limit already checked by the caller)."""
        draw = generator(seed ^ self.trace)
        if self.weights is None:
            label = cast(str, self.fixed_label)  # set whenever weights is None
        else:
            label = self.labels[pick(draw(), self.weights)]
        form = None if self.single_label else pick(draw(), FREE_FORM_SHARE)
        text, out = reply_text(label, form, max_output)
        return Reply("ok", self.input_tokens, out, text)


class SimulatedModel:
    """A fictional language model with its own call counter (notebook 03)."""

    def __init__(
        self,
        temperature: float = TEMPERATURE,
        cues: Mapping[str, str] = CUE_TABLE,
        spurious: Mapping[str, str] = SPURIOUS,
        prior: Mapping[str, float] = PRIOR,
        window: int = WINDOW,
        max_output: int = MAX_OUTPUT,
        *,
        rate_limit_every: int = RATE_LIMIT_EVERY,
        name: str = "simulated",
    ) -> None:
        self._temperature = check_number("temperature", temperature, minimum=0.0)
        self._cues = check_label_table("cues", cues, LABELS)
        self._spurious = check_label_table("spurious", spurious, LABELS)
        self._prior = _check_prior(prior)
        self._window = check_int("window", window, minimum=1)
        self._max_output = check_int("max_output", max_output, minimum=1)
        self._rate_limit_every = check_int("rate_limit_every", rate_limit_every, minimum=1)
        self.name = check_str("name", name)
        self._calls = 0

    @property
    def temperature(self) -> float:
        return self._temperature

    @property
    def cues(self) -> dict[str, str]:
        return dict(self._cues)

    @property
    def spurious(self) -> dict[str, str]:
        return dict(self._spurious)

    @property
    def prior(self) -> dict[str, float]:
        return dict(self._prior)

    @property
    def window(self) -> int:
        return self._window

    @property
    def max_output(self) -> int:
        return self._max_output

    @property
    def rate_limit_every(self) -> int:
        return self._rate_limit_every

    @property
    def calls(self) -> int:
        """Calls made since the counter was last reset."""
        return self._calls

    def fresh(self) -> SimulatedModel:
        """A copy of this model with its own call counter at zero (this one is not changed)."""
        twin = copy.copy(self)
        twin._calls = 0
        return twin

    def reset(self, calls: int = 0) -> None:
        """Set the call counter (and so the rate-limit clock) back to ``calls`` (default 0)."""
        self._calls = calls

    def plan(self, prompt: str) -> PromptPlan:
        """Everything about a call to ``prompt`` that does not depend on the seed."""
        tokens = _tokenize(prompt)
        scores = _label_scores(tokens, self._prior, self._cues, self._spurious)
        names = tuple(sorted(scores))
        fixed = max(names, key=lambda a: scores[a])
        weights = (
            None if self._temperature <= 0.0 else tuple(label_weights(scores, self._temperature))
        )
        return PromptPlan(
            len(tokens),
            len(tokens) > self._window,  # overflow
            SINGLE_LABEL_WORD in tokens,
            trace_id(prompt),
            names,
            weights,
            fixed,
        )

    def call(self, prompt: str, seed: int = SEED, max_output: int | None = None) -> Reply:
        """One call: returns a :class:`Reply` (``max_output`` defaults to the model's cap)."""
        check_str("prompt", prompt)
        seed = check_seed(seed)
        if max_output is not None:
            max_output = check_int("max_output", max_output, minimum=1)
        return self._reply(prompt, seed, max_output)

    __call__ = call

    def _reply(self, prompt: str, seed: int, cap: int | None = None) -> Reply:
        """:meth:`call` for a checked prompt and seed (the judge's own loop asks this way)."""
        plan = self.plan(prompt)
        self._calls += 1
        if plan.overflow:
            return Reply("context_overflow", plan.input_tokens, 0, "")
        if self._calls % self._rate_limit_every == 0:
            return Reply("rate_limit", plan.input_tokens, 0, "")
        return plan.reply(seed, self._max_output if cap is None else cap)

    def __repr__(self) -> str:
        return (
            f"SimulatedModel(name={self.name!r}, temperature={self._temperature}, "
            f"cues={len(self._cues)} entries, spurious={self._spurious}, "
            f"prior={self._prior}, window={self._window}, max_output={self._max_output})"
        )


def _check_prior(prior):
    if not isinstance(prior, Mapping):
        raise TypeError(
            f"prior must be a mapping label -> weight with the labels "
            f"{', '.join(LABELS)}, got {type(prior).__name__} {prior!r}"
        )
    if set(prior) != set(LABELS):
        raise ValueError(
            f"prior must be a mapping with exactly the labels {', '.join(LABELS)} "
            f"as keys, got {prior!r}"
        )
    return {label: check_number(f"prior[{label!r}]", prior[label]) for label in LABELS}


def label_probabilities(
    prompt: str,
    temperature: float = TEMPERATURE,
    cues: Mapping[str, str] = CUE_TABLE,
    spurious: Mapping[str, str] = SPURIOUS,
    prior: Mapping[str, float] = PRIOR,
) -> dict[str, float]:
    """How likely the model is to answer each label for ``prompt``, labels sorted (notebook 03)."""
    plan = SimulatedModel(temperature, cues, spurious, prior, window=10**9).plan(prompt)
    if plan.weights is None:
        return {label: float(label == plan.fixed_label) for label in plan.labels}
    return dict(zip(plan.labels, plan.weights))
