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

If the object also has a ``reset()`` method, the panel calls it at the start
of each run, so a stateful judge (such as a rate-limit clock) starts fresh.  :class:`~lessonlib.simulator.SimulatedModel` follows the
protocol (``SimulatedModel()(prompt, seed)`` is ``.call(prompt, seed)``), and
so does any wrapper around a real model client - nothing in lessonlib has to
change to plug one in (notebook 07 shows a wrapper around a fake client).

The rules of a panel run
------------------------
``Panel(asks, quorum, aggregate, min_agreement, on_unreadable).run(records,
seed, guideline)`` asks every judge about every record ``quorum`` times:

* **passes** - judge *j*'s sample *q* is one pass over all records with its
  own sampling seed (below); a judge makes its passes one after the other.
  Each judge keeps its own call counter (its own rate limit): the panel
  calls the judge's ``reset()``, when it has one, once at the start of every
  run, and the counter then runs on across the judge's passes - the rate
  limit of a real model counts every call made to it.  Judges never share a
  counter.  With quorum 1 a judge's pass is exactly what
  :func:`~lessonlib.judge.run_judge` does with that judge and that seed;
  :func:`run_many` hands each pass of the many-seed engine the counts the
  judge's earlier passes left (``calls_before``).
* **one retry** - a reply whose label cannot be read is asked again once
  with the sample seed + 1 (:func:`~lessonlib.judge.ask_for_label`).
* **votes** - a readable label is a vote: harmful = 1, clean = 0.  A sample
  still unreadable after its retry becomes a vote by ``on_unreadable``:
  ``'harmful'`` (1, fail-closed; the default), ``'clean'`` (0, the lesson's
  fail-open rule) or ``'abstain'`` (no vote).
* **a judge's score** is the median of its votes on the record: 0 or 1,
  or 0.5 when an even number of votes splits evenly.  With ``'abstain'``
  the unreadable samples drop out of the median (the rest still decide);
  a judge with no vote left abstains on that record.  A judge *flags* the
  record when its score >= 0.5 (so an even split flags).
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

from ._checks import (check_choice, check_count, check_int, check_number, check_record,
                      check_records, check_seed, check_str)
from .judge import CLEAN, GUIDELINE, HARMFUL, ask_for_label, build_prompt
from .records import SEED
from .simulator import CUE_TABLE, PRIOR, SPURIOUS, TEMPERATURE, SimulatedModel

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

    def __post_init__(self):
        check_str("text", self.text)
        if self.input_tokens is not None:
            check_int("input_tokens", self.input_tokens, minimum=0)
        check_str("status", self.status)


def slot_seed(seed, judge, sample, judges):
    """The sampling seed of ``judge``'s ``sample`` in a run with ``seed`` and ``judges`` judges."""
    check_seed(seed)
    check_int("judges", judges, minimum=1)
    check_int("judge", judge, minimum=0)
    check_int("sample", sample, minimum=0)
    if judge >= judges:
        raise ValueError(f"judge must be < judges ({judges}), got {judge}")
    return seed + (sample * judges + judge) * SLOT_STRIDE


def _numbers(name, values):
    """A collection of finite real numbers, as a list (may be empty)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a collection of numbers, got {type(values).__name__} "
                        f"{values!r}")
    return [check_number(name, v) for v in values]


def median(values):
    """Median of a non-empty sequence of numbers (mean of the two middle ones when even)."""
    ordered = sorted(_numbers("values", values))
    n = len(ordered)
    if n == 0:
        raise ValueError("values must not be empty")
    mid = n // 2
    return float(ordered[mid]) if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def combine(scores, aggregate):
    """The judges' scores combined by ``aggregate`` ('median', 'mean' or 'min')."""
    check_choice("aggregate", aggregate, AGGREGATES)
    scores = _numbers("scores", scores)
    if not scores:
        raise ValueError("scores must not be empty")
    if aggregate == "median":
        return median(scores)
    if aggregate == "mean":
        return sum(scores) / len(scores)
    return float(min(scores))


def verdict(judge_scores, min_agreement):
    """Panel verdict from per-judge scores (None = abstained): True = flag as harmful."""
    if isinstance(judge_scores, (str, bytes)) or not hasattr(judge_scores, "__iter__"):
        raise TypeError(f"judge_scores must be a collection of scores (None = abstained), got "
                        f"{type(judge_scores).__name__} {judge_scores!r}")
    active = [check_number("judge_scores", s) for s in judge_scores if s is not None]
    check_number("min_agreement", min_agreement)
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
        check_record(record)
        if record.no not in self.labels:
            raise ValueError(f"record {record.no} was not judged in this run (record must be "
                             f"one of the run's records)")
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
        slots = self.seeds(seed)
        for j, ask in enumerate(self._asks):
            reset = getattr(ask, "reset", None)
            if callable(reset):
                reset()                 # once a run: the clock runs on across the passes
            for s in slots[j]:
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

    def run_many(self, records, seeds, guideline=GUIDELINE, *, method="auto"):
        """This panel over many seeds at once; see :func:`run_many`."""
        return run_many(self, records, seeds, guideline, method=method)


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
    temperature: float = TEMPERATURE
    spurious: tuple = tuple(SPURIOUS.items())   # (token, label) pairs
    prior: tuple = tuple(PRIOR.items())         # (label, base weight) pairs

    def __post_init__(self):
        check_str("name", self.name)
        check_str("differs", self.differs)
        for field_name in ("spurious", "prior"):
            pairs = getattr(self, field_name)
            if not isinstance(pairs, tuple) or not all(
                    isinstance(p, tuple) and len(p) == 2 for p in pairs):
                raise TypeError(f"{field_name} must be a tuple of (key, value) pairs, got "
                                f"{pairs!r}")
        self.model()            # the model's own checks: temperature, spurious, prior

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


# ---------------------------------------------------------------------------
# Many panel seeds at once
# ---------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class PanelMany:
    """Panel runs for many seeds: row i of every (seeds, ...) array belongs to ``seeds[i]``.

    ``harmful`` (S, N) bool is each run's verdict on record ``record_nos[n]``;
    ``scores`` (S, N) the aggregated score; ``judge_scores`` (J, S, N) each
    judge's score (NaN where it abstained).  ``calls``, ``retries``,
    ``unreadable``, ``input_tokens`` are int64 (S,) totals and the ``judge_*``
    arrays split them per judge, (J, S).  ``run(i)`` is the :class:`PanelRun`
    that ``Panel.run`` returns for ``seeds[i]``.
    """

    seeds: tuple
    record_nos: tuple
    harmful: object = field(repr=False)
    scores: object = field(repr=False)
    judge_scores: object = field(repr=False)
    calls: object = field(repr=False)
    retries: object = field(repr=False)
    unreadable: object = field(repr=False)
    input_tokens: object = field(repr=False)
    judge_calls: object = field(repr=False)
    judge_retries: object = field(repr=False)
    judge_unreadable: object = field(repr=False)
    judge_input_tokens: object = field(repr=False)
    method: str = "engine"          # 'engine' (vectorised) or 'loop' (Panel.run per seed)

    def __len__(self):
        return len(self.seeds)

    def run(self, i):
        """The :class:`PanelRun` of seed number ``i``."""
        i = check_count("i", i)
        if not -len(self.seeds) <= i < len(self.seeds):
            raise ValueError(f"i must be a run index in [-{len(self.seeds)}, "
                             f"{len(self.seeds)}), got {i}")
        labels = {no: HARMFUL if h else CLEAN
                  for no, h in zip(self.record_nos, self.harmful[i].tolist())}
        scores = dict(zip(self.record_nos, self.scores[i].tolist()))
        per_judge = {no: tuple(None if math.isnan(x) else x for x in col)
                     for no, col in zip(self.record_nos, self.judge_scores[:, i, :].T.tolist())}
        ints = [tuple(int(x) for x in a[:, i]) for a in (
            self.judge_calls, self.judge_retries, self.judge_unreadable,
            self.judge_input_tokens)]
        return PanelRun(labels, scores, per_judge, sum(ints[0]), sum(ints[1]), sum(ints[2]),
                        sum(ints[3]), *ints, self.seeds[i])


def _is_simulated(ask):
    return type(ask) is SimulatedModel


def _many_loop(panel, records, seeds, guideline):
    """Panel.run seed by seed, gathered into arrays (any asks)."""
    import numpy as np

    runs = [panel.run(records, s, guideline) for s in seeds]
    nos = tuple(r.no for r in records)
    harmful = np.array([[run.labels[no] == HARMFUL for no in nos] for run in runs], dtype=bool)
    scores = np.array([[run.scores[no] for no in nos] for run in runs], dtype=float)
    judge_scores = np.array([[[math.nan if run.judge_scores[no][j] is None
                               else run.judge_scores[no][j] for no in nos] for run in runs]
                             for j in range(len(panel.asks))], dtype=float)
    per = [np.array([getattr(run, name) for run in runs], dtype=np.int64).T
           for name in ("judge_calls", "judge_retries", "judge_unreadable",
                        "judge_input_tokens")]
    return PanelMany(tuple(seeds), nos, harmful, scores, judge_scores,
                     *(p.sum(axis=0) for p in per), *per, method="loop")


def judge_medians(votes, valid):
    """Each judge's score from its samples' votes, vectorised.

    ``votes`` and ``valid`` are bool arrays (..., Q, S, N): a harmful vote,
    and whether the sample voted at all.  Returns the median of the valid
    votes, (..., S, N) float, NaN where no vote is left.  With ``n`` valid
    votes of which ``h`` harmful, the sorted votes are ``n - h`` zeros then
    ``h`` ones, so the median averages positions (n - 1) // 2 and n // 2.
    """
    import numpy as np

    n = valid.sum(axis=-3)
    h = (votes & valid).sum(axis=-3)
    zeros = n - h
    lo = ((n - 1) // 2 >= zeros).astype(float)
    hi = (n // 2 >= zeros).astype(float)
    return np.where(n > 0, (lo + hi) / 2, np.nan)


def panel_verdicts(judge_scores, aggregate, min_agreement):
    """(harmful, scores) from per-judge scores (J, S, N) with NaN for abstained judges."""
    import numpy as np

    check_choice("aggregate", aggregate, AGGREGATES)
    active = ~np.isnan(judge_scores)
    k = active.sum(axis=0)
    flags = (active & (np.nan_to_num(judge_scores, nan=0.0) >= 0.5)).sum(axis=0)
    share = np.divide(flags, k, out=np.zeros(k.shape), where=k > 0)
    harmful = (k == 0) | (share >= min_agreement)
    if aggregate == "median":
        ordered = np.sort(judge_scores, axis=0)          # NaN sort last
        lo = np.take_along_axis(ordered, np.maximum(k - 1, 0)[None] // 2, axis=0)[0]
        hi = np.take_along_axis(ordered, (k // 2)[None], axis=0)[0]
        score = (lo + hi) / 2
    elif aggregate == "mean":
        score = np.divide(np.nansum(judge_scores, axis=0), k, out=np.zeros(k.shape),
                          where=k > 0)
    else:
        score = np.where(active, judge_scores, np.inf).min(axis=0)
    return harmful, np.where(k > 0, score, 1.0)


@dataclass(frozen=True, eq=False)
class _PassRuns:
    """What the panel needs from one judge's passes over many seeds (engine's field names)."""

    harmful: object
    unreadable_mask: object
    calls: object
    retries: object
    unreadable: object
    input_tokens: object


def model_many_loop(records, seeds, model, guideline=GUIDELINE, calls_before=0):
    """A plain loop with the fields of the many-seed engine's result (for checks and fallback).

    For every seed: one pass of ``model`` over the records, its counter set to
    ``calls_before`` first (a number, or one per seed), labels read as
    harmful/clean, unreadable records marked (and not harmful).
    """
    import numpy as np

    starts = [calls_before] * len(seeds) if isinstance(calls_before, int) else calls_before
    prompts = [build_prompt(r, guideline) for r in records]
    harmful, unread, counts = [], [], []
    for s, start in zip(seeds, starts):
        model.reset(int(start))
        answers = [ask_for_label(model, p, s) for p in prompts]
        harmful.append([a.label == HARMFUL for a in answers])
        unread.append([a.label is None for a in answers])
        counts.append((model.calls - int(start), sum(a.retried for a in answers),
                       sum(a.label is None for a in answers),
                       sum(a.input_tokens for a in answers)))
    model.reset()
    columns = np.array(counts, dtype=np.int64).T
    return _PassRuns(np.array(harmful, dtype=bool), np.array(unread, dtype=bool), *columns)


def _many_engine(panel, records, seeds, guideline, model_many=None):
    """One many-seed run per (judge, sample) with ``model_many``, combined with numpy."""
    import numpy as np

    from .many import model_passes

    n_judges, quorum = len(panel.asks), panel.quorum
    votes, valid, counters = [], [], []
    for j, model in enumerate(panel.asks):
        if model_many is None:          # the seed-independent part once a judge, not a pass
            passes = model_passes(records, model, guideline)
        else:
            passes = (lambda pass_seeds, calls_before, model=model:
                      model_many(records, pass_seeds, model, guideline,
                                 calls_before=calls_before))
        jv, jok, jc = [], [], np.zeros((4, len(seeds)), dtype=np.int64)
        for q in range(quorum):
            offset = (q * n_judges + j) * SLOT_STRIDE
            runs = passes(tuple(s + offset for s in seeds),
                          jc[0].copy())     # the clock runs on across passes
            unread = np.asarray(runs.unreadable_mask, dtype=bool)
            read_harm = np.asarray(runs.harmful, dtype=bool) & ~unread
            if panel.on_unreadable == "harmful":
                jv.append(read_harm | unread)
            else:
                jv.append(read_harm)
            jok.append(~unread if panel.on_unreadable == "abstain" else np.ones_like(unread))
            jc += np.stack([runs.calls, runs.retries, runs.unreadable, runs.input_tokens])
        votes.append(np.stack(jv))
        valid.append(np.stack(jok))
        counters.append(jc)
    judge_scores = judge_medians(np.stack(votes), np.stack(valid))
    harmful, scores = panel_verdicts(judge_scores, panel.aggregate, panel.min_agreement)
    per = np.stack(counters, axis=1)            # (4, J, S)
    return PanelMany(tuple(seeds), tuple(r.no for r in records), harmful, scores,
                     judge_scores, *per.sum(axis=1), *per, method="engine")


METHODS = ("auto", "engine", "loop")


def run_many(panel, records, seeds, guideline=GUIDELINE, *, method="auto"):
    """``panel.run(records, seed, guideline)`` for every seed, as one :class:`PanelMany`.

    ``method='engine'`` runs the vectorised many-seed engine once per judge
    and sample (every ask must be a :class:`SimulatedModel`) and combines the
    votes with numpy; ``'loop'`` calls ``panel.run`` seed by seed (any ask);
    ``'auto'`` takes the engine when it can.  Both give the same result.
    """
    if not isinstance(panel, Panel):
        raise TypeError(f"panel must be a Panel, got {type(panel).__name__}")
    from .many import check_seeds

    records = check_records(records)
    seeds = check_seeds(seeds)
    check_str("guideline", guideline)
    check_choice("method", method, METHODS)
    simulated = all(_is_simulated(a) for a in panel.asks)
    if method == "engine" and not simulated:
        raise TypeError("method='engine' needs every ask to be a SimulatedModel; "
                        "use method='loop' (or 'auto') for other asks")
    if method == "loop" or not simulated:
        return _many_loop(panel, records, seeds, guideline)
    return _many_engine(panel, records, seeds, guideline)
