"""Step 7 - a panel of judges: quorum, aggregate, agreement.

The ask protocol
----------------
A judge is anything that can be *asked*: a callable ``ask(prompt, seed)``.
It receives the prompt text and a sampling seed (a whole number >= 0; a
client that cannot be seeded may ignore it) and returns either

* the reply text (``str``) - its input tokens are then counted with the
  course tokenizer, its status is ``'ok'``; or
* an object with a ``str`` attribute ``.text`` and, optionally,
  ``.input_tokens`` (int) and ``.status`` (str), e.g. :class:`AskReply` or
  the simulator's :class:`~lessonlib.simulator.Reply`.

If the object also has a ``reset()`` method, the panel calls it before each
pass over the records, so a stateful judge (such as a rate-limit clock)
starts fresh.  :class:`~lessonlib.simulator.SimulatedModel` follows the
protocol (``SimulatedModel()(prompt, seed)`` is ``.call(prompt, seed)``), and
so does any wrapper around a real model client - nothing in lessonlib has to
change to plug one in (notebook 07 shows a wrapper around a fake client).

The rules of a panel run
------------------------
``Panel(asks, quorum, aggregate, min_agreement, on_unreadable).run(records,
seed, guideline)`` asks every judge about every record ``quorum`` times:

* **passes** - judge *j*'s sample *q* is one pass over all records with its
  own sampling seed (below).  Before each pass the judge's ``reset()`` is
  called when it has one, so each judge keeps its own call counter (its own
  rate limit) and a pass of judge *j* is exactly what :func:`run_judge` does
  with that judge and that seed.  Judges never share a counter.
* **one retry** - a reply whose label cannot be read is asked again once
  with the sample seed + 1 (:func:`~lessonlib.judge.ask_for_label`).
* **votes** - a readable label is a vote: harmful = 1, clean = 0.  A sample
  still unreadable after its retry becomes a vote by ``on_unreadable``:
  ``'harmful'`` (1, fail-closed; the default), ``'clean'`` (0, the lesson's
  fail-open rule) or ``'abstain'`` (no vote).
* **a judge's score** is the median of its votes on the record (0, 0.5 or
  1 with two votes...).  With ``'abstain'`` the unreadable samples drop out
  of the median; a judge with no vote left abstains on that record.
  A judge *flags* the record when its score >= 0.5.
* **the verdict** - the panel flags the record when the fraction of the
  judges (that did not abstain) which flag it is >= ``min_agreement``:
  0.5 is a majority, 1.0 needs every judge.  If every judge abstains the
  record is flagged: no readable answer is never a silent pass.
* **the score** - ``aggregate`` combines the judges' scores into the
  reported score: ``'median'``, ``'mean'`` or ``'min'``.  Scores measure
  harm here, so ``'min'`` reports the *mildest* judge (in a quality-scoring
  panel, where a high score is good, the same ``min`` is the strict one).
  A record on which every judge abstained scores 1.0.

Validation (before any call): no asks -> ValueError; an ask that is not
callable -> TypeError; unknown ``aggregate`` or ``on_unreadable`` ->
ValueError naming the allowed ones; ``quorum`` below 1 is read as 1;
``min_agreement`` is clamped to [0, 1] (NaN is refused).

Sampling seeds
--------------
Number the sample slots of a run round by round, judge by judge:
slot ``k = q * len(asks) + j`` for judge *j*'s sample *q*.  Slot *k* uses
the seed ``seed + k * SLOT_STRIDE`` with ``SLOT_STRIDE = 2**32``; its retry
uses that seed + 1.  So

* judge 0's first sample uses the run seed itself (a one-judge, quorum-1
  panel is the lesson's judge, retry seed included);
* every slot seed is ``seed`` plus a multiple of an even stride, every retry
  seed is a slot seed + 1: no sample ever reuses another sample's retry
  seed or another sample's seed;
* the slot number enters the simulator's generator through bits 32 and up,
  which its seed mixing folds into the state, so two judges (even two copies
  of the same model) or two samples of one judge draw independently (for
  up to 2**16 slots);
* panel seeds that lie within a window narrower than 2**32 - 1 share no
  sample seed, so a band measured over many panel seeds is not narrowed by
  runs that reuse each other's draws;
* adding rounds (a larger quorum) keeps the seeds of the earlier rounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ._checks import check_choice, check_int, check_records, check_seed, check_str
from .judge import CLEAN, GUIDELINE, HARMFUL, ask_for_label, build_prompt
from .records import SEED
from .simulator import CUE_TABLE, PRIOR, SPURIOUS, SimulatedModel

AGGREGATES = ("median", "mean", "min")
ON_UNREADABLE = ("harmful", "clean", "abstain")
SLOT_STRIDE = 2 ** 32
"""Seed distance between two sample slots of a run (even, and wider than any seed window)."""


@dataclass(frozen=True)
class AskReply:
    """A reply in the ask protocol: text plus, optionally, input tokens and a status."""

    text: str
    input_tokens: int | None = None
    status: str = "ok"


def slot_seed(seed, judge, sample, judges):
    """The sampling seed of ``judge``'s ``sample`` in a run with ``seed`` and ``judges`` judges."""
    check_seed(seed)
    check_int("judges", judges, minimum=1)
    check_int("judge", judge, minimum=0)
    check_int("sample", sample, minimum=0)
    if judge >= judges:
        raise ValueError(f"judge must be < judges ({judges}), got {judge}")
    return seed + (sample * judges + judge) * SLOT_STRIDE


def median(values):
    """Median of a non-empty sequence of numbers (mean of the two middle ones when even)."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("values must not be empty")
    mid = n // 2
    return float(ordered[mid]) if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def combine(scores, aggregate):
    """The judges' scores combined by ``aggregate`` ('median', 'mean' or 'min')."""
    check_choice("aggregate", aggregate, AGGREGATES)
    if not scores:
        raise ValueError("scores must not be empty")
    if aggregate == "median":
        return median(scores)
    if aggregate == "mean":
        return sum(scores) / len(scores)
    return float(min(scores))


def verdict(judge_scores, min_agreement):
    """Panel verdict from per-judge scores (None = abstained): True = flag as harmful."""
    active = [s for s in judge_scores if s is not None]
    if not active:
        return True
    flags = sum(1 for s in active if s >= 0.5)
    return flags / len(active) >= min_agreement


@dataclass(frozen=True)
class PanelRun:
    """The verdicts of one panel run, the scores behind them and what they cost.

    Totals (``calls``, ``retries``, ``unreadable``, ``input_tokens``) are over
    every judge and sample; the ``judge_*`` tuples split them per judge.
    ``unreadable`` counts samples still unreadable after their retry.
    """

    labels: dict = field(repr=False)        # record no -> 'temiz' | 'zararli'
    scores: dict = field(repr=False)        # record no -> aggregated score
    judge_scores: dict = field(repr=False)  # record no -> per-judge score (None = abstained)
    calls: int
    retries: int
    unreadable: int
    input_tokens: int
    judge_calls: tuple
    judge_retries: tuple
    judge_unreadable: tuple
    judge_input_tokens: tuple
    seed: int = SEED

    def decide(self, record):
        """True when the panel flagged ``record`` harmful (a decision for ``measure``)."""
        return self.labels[record.no] == HARMFUL


def _check_asks(asks):
    if callable(asks) or isinstance(asks, (str, bytes)) or not hasattr(asks, "__iter__"):
        raise TypeError("asks must be a list of ask callables (prompt, seed) -> reply, got "
                        f"{type(asks).__name__}")
    asks = tuple(asks)
    if not asks:
        raise ValueError("asks must hold at least one ask callable (a panel needs a judge)")
    for i, ask in enumerate(asks):
        if not callable(ask):
            raise TypeError(f"asks[{i}] must be callable as ask(prompt, seed), got "
                            f"{type(ask).__name__} {ask!r}")
    return asks


def _read_quorum(quorum):
    check_int("quorum", quorum)
    return max(quorum, 1)


def _read_min_agreement(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"min_agreement must be a real number (a fraction of the judges), got "
                        f"{type(value).__name__} {value!r}")
    value = float(value)
    if math.isnan(value):
        raise ValueError("min_agreement must be a number in [0, 1] (others are clamped), got nan")
    return min(max(value, 0.0), 1.0)


class Panel:
    """A panel of judges; see the module docstring for every rule."""

    def __init__(self, asks, quorum=1, aggregate="median", min_agreement=0.5,
                 on_unreadable="harmful"):
        self._asks = _check_asks(asks)
        self._quorum = _read_quorum(quorum)
        check_str("aggregate", aggregate)
        self._aggregate = check_choice("aggregate", aggregate, AGGREGATES)
        self._min_agreement = _read_min_agreement(min_agreement)
        check_str("on_unreadable", on_unreadable)
        self._on_unreadable = check_choice("on_unreadable", on_unreadable, ON_UNREADABLE)

    asks = property(lambda self: self._asks)
    quorum = property(lambda self: self._quorum)
    aggregate = property(lambda self: self._aggregate)
    min_agreement = property(lambda self: self._min_agreement)
    on_unreadable = property(lambda self: self._on_unreadable)

    def __repr__(self):
        return (f"Panel({len(self._asks)} judge(s), quorum={self._quorum}, "
                f"aggregate={self._aggregate!r}, min_agreement={self._min_agreement}, "
                f"on_unreadable={self._on_unreadable!r})")

    def seeds(self, seed):
        """The sampling seeds of a run with ``seed``: ``[judge][sample]``."""
        check_seed(seed)
        n = len(self._asks)
        return [[slot_seed(seed, j, q, n) for q in range(self._quorum)] for j in range(n)]

    def _vote(self, label):
        """A sample's vote: 1 harmful, 0 clean, None abstained (label None = unreadable)."""
        if label is None:
            return {"harmful": 1, "clean": 0, "abstain": None}[self._on_unreadable]
        return 1 if label == HARMFUL else 0

    def run(self, records, seed=SEED, guideline=GUIDELINE):
        """Ask every judge ``quorum`` times about every record; see the module docstring."""
        records = check_records(records)
        check_seed(seed)
        check_str("guideline", guideline)
        prompts = [build_prompt(r, guideline) for r in records]
        n = len(self._asks)
        votes = [[[] for _ in records] for _ in range(n)]    # [judge][record] -> votes
        calls, retries, unreadable, tokens = [0] * n, [0] * n, [0] * n, [0] * n
        for j, ask in enumerate(self._asks):
            for s in self.seeds(seed)[j]:
                reset = getattr(ask, "reset", None)
                if callable(reset):
                    reset()
                for i, prompt in enumerate(prompts):
                    answer = ask_for_label(ask, prompt, s)
                    calls[j] += answer.calls
                    tokens[j] += answer.input_tokens
                    retries[j] += answer.retried
                    unreadable[j] += answer.label is None
                    vote = self._vote(answer.label)
                    if vote is not None:
                        votes[j][i].append(vote)
        labels, scores, per_judge = {}, {}, {}
        for i, record in enumerate(records):
            js = tuple(median(votes[j][i]) if votes[j][i] else None for j in range(n))
            active = [x for x in js if x is not None]
            labels[record.no] = HARMFUL if verdict(js, self._min_agreement) else CLEAN
            scores[record.no] = combine(active, self._aggregate) if active else 1.0
            per_judge[record.no] = js
        return PanelRun(labels, scores, per_judge, sum(calls), sum(retries), sum(unreadable),
                        sum(tokens), tuple(calls), tuple(retries), tuple(unreadable),
                        tuple(tokens), seed)


# ---------------------------------------------------------------------------
# Fictional judge models for a diverse panel
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class JudgeSpec:
    """A fictional judge model: a documented :class:`SimulatedModel` configuration.

    Each one differs from the lesson's judge in one knob only, so a panel of
    them shows what that knob does.  The cue table (the real evidence) is the
    lesson's for all of them.
    """

    name: str
    differs: str                                # how it differs from the lesson's judge
    temperature: float = 0.30
    spurious: tuple = tuple(SPURIOUS.items())   # (token, label) pairs
    prior: tuple = tuple(PRIOR.items())         # (label, base weight) pairs

    def model(self):
        """A fresh model (its own call counter at zero) with this configuration."""
        return SimulatedModel(self.temperature, CUE_TABLE, dict(self.spurious), dict(self.prior),
                              name=self.name)


JUDGES = (
    JudgeSpec("lesson", "none: the lesson's judge (temperature 0.30, prior 0.75/0.15, "
                        "the spurious length cue)"),
    JudgeSpec("plain", "no spurious cue: excessive length is not read as evidence",
              spurious=()),
    JudgeSpec("wary", "a different prior: leans less to clean (base weights 0.55 against 0.35)",
              prior=(("temiz", 0.55), ("zararli", 0.35))),
    JudgeSpec("greedy", "temperature 0: always answers the most likely label", temperature=0.0),
)
"""The lesson's judge and three fictional models, one knob changed in each."""
JUDGE_NAMES = tuple(spec.name for spec in JUDGES)
DIVERSE = ("plain", "wary", "greedy")
"""The three fictional models that make up the course's diverse panel."""


def judge_spec(name):
    """The :class:`JudgeSpec` called ``name`` (one of JUDGE_NAMES)."""
    check_choice("name", name, JUDGE_NAMES)
    return JUDGES[JUDGE_NAMES.index(name)]


def judge_models(*names):
    """Fresh models for the named judges, in order (e.g. ``judge_models(*DIVERSE)``)."""
    if not names:
        raise ValueError(f"name at least one judge; allowed: {', '.join(JUDGE_NAMES)}")
    return [judge_spec(n).model() for n in names]
