"""Notebook 07 - a panel of judges: several judges, each asked ``quorum`` times, one verdict.

A judge is anything that can be asked: a callable ``ask(prompt, seed)`` that
returns the reply text, or an object with a ``str`` ``.text`` and optionally
``.input_tokens`` and ``.status`` (like :class:`AskReply` or the simulator's
reply).  A :class:`~lessonlib.simulator.SimulatedModel` is one, and so is a
small wrapper around a real model client.  :class:`Panel` states the rules.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

from ._checks import check_choice, check_int, check_number, check_seed, check_str
from .records import SEED, check_record, check_records
from .judge import CLEAN, GUIDELINE, HARMFUL, ask_for_label, build_prompt
from .simulator import CUE_TABLE, PRIOR, SPURIOUS, TEMPERATURE, SimulatedModel

AGGREGATES = ("median", "mean", "min")
ON_UNREADABLE = ("harmful", "clean", "abstain")
ON_ERROR = ("raise", "unreadable")
SLOT_STRIDE = 2 ** 32
"""Seed distance between two sample slots of a run (even, and wider than any seed window)."""
MAX_SAMPLES = 1000
"""At most this many samples a run (judges x quorum): each sample is a pass over the records,
and its seed stays distinct from every other sample's (the generator tells 2**16 slots apart)."""


@dataclass(frozen=True)
class AskReply:
    """A reply in the ask protocol: text plus, optionally, input tokens and a status."""

    text: str
    input_tokens: int | None = None
    status: str = "ok"


class JudgeError(RuntimeError):
    """A judge's ask raised or did not answer in time (``judge`` and ``record`` name where)."""

    def __init__(self, message, judge, record):
        super().__init__(message)
        self.judge, self.record = judge, record


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
    seed: int
    records: dict = field(repr=False)       # record no -> the record judged

    def decide(self, record):
        """True when the panel flagged ``record`` harmful (a decision for ``measure``)."""
        check_record(record)
        if self.records.get(record.no) != record:
            raise ValueError(f"record {record.no} is not one this panel run judged: the run "
                             f"does not belong to these records (run the panel on them)")
        return self.labels[record.no] == HARMFUL


def _combine(votes, harmful, aggregate, min_agreement):
    """The panel's rules on vote counts (J, S, N): each judge's ``votes`` and harmful ones.

    Returns the judges' scores (J, S, N; NaN where a judge has no vote left),
    the verdicts (S, N) bool and the reported scores (S, N).  A judge's score
    is the median of its votes: sorted, they are ``votes - harmful`` zeros and
    then ones, and the median averages positions ``(votes - 1) // 2`` and
    ``votes // 2``.
    """
    import numpy as np        # here, not at the top: the lesson's core path loads no numpy

    zeros = votes - harmful
    middle = ((votes - 1) // 2 >= zeros).astype(float) + (votes // 2 >= zeros)
    judge = np.where(votes > 0, middle / 2, np.nan)
    active = ~np.isnan(judge)
    k = active.sum(axis=0)
    flags = (judge >= 0.5).sum(axis=0)
    share = np.divide(flags, k, out=np.zeros(k.shape), where=k > 0)
    verdict = (k == 0) | (share >= min_agreement)
    if aggregate == "median":
        ordered = np.sort(judge, axis=0)                    # NaN sort last
        lo = np.take_along_axis(ordered, (np.maximum(k - 1, 0) // 2)[None], axis=0)[0]
        hi = np.take_along_axis(ordered, (k // 2)[None], axis=0)[0]
        score = (lo + hi) / 2
    elif aggregate == "mean":
        score = np.divide(np.nansum(judge, axis=0), k, out=np.zeros(k.shape), where=k > 0)
    else:
        score = np.where(active, judge, np.inf).min(axis=0)
    return judge, verdict, np.where(k > 0, score, 1.0)


def _read_min_agreement(value):
    """``min_agreement``: a share of the judges, a real number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"min_agreement must be a real number in [0, 1] (a share of the "
                        f"judges), got {type(value).__name__} {value!r}")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"min_agreement must be a share of the judges in [0, 1] (0.5 is a "
                         f"majority, 1.0 every judge), got {value!r}")
    return float(value)


def _outcome(ask, prompt, seed):
    try:
        return ask(prompt, seed)
    except BaseException as exc:        # handed over to the caller's thread
        return exc


def _judge_name(j, ask):
    name = getattr(ask, "name", None)
    name = name if isinstance(name, str) else getattr(ask, "__name__", type(ask).__name__)
    return f"judge {j} ({name})"


class Panel:
    """A panel of judges (notebook 07): ``Panel(asks).run(records, seed)``.

    * **samples** - each judge is asked about every record ``quorum`` times.
      Judge *j*'s sample *q* is one pass over the records with the seed
      ``seed + (q * len(asks) + j) * SLOT_STRIDE`` (judge 0's first sample uses
      the run seed itself); an unreadable reply is asked once more with that
      seed + 1 (:func:`~lessonlib.judge.ask_for_label`).  ``len(asks) * quorum``
      is at most ``MAX_SAMPLES``.
    * **clocks** - a judge with a ``reset()`` method is reset once at the start
      of a run, and its call counter (a rate limit) runs on across its samples.
      With one judge and quorum 1 the panel is ``run_judge`` with that judge.
    * **votes** - a readable label is a vote (harmful 1, clean 0); a sample
      still unreadable after its retry votes by ``on_unreadable``: 'harmful'
      (fail-closed, the default), 'clean' (fail-open) or 'abstain' (no vote).
    * **a judge's score** is the median of its votes (0.5 on an even split);
      a judge with no vote left abstains.  A judge flags a record when its
      score is at least 0.5.
    * **the verdict** - the record is flagged when the share of the judges
      not abstaining that flag it is at least ``min_agreement`` (0.5 a
      majority, 1.0 every judge); when every judge abstains it is flagged.
    * **the score** - ``aggregate`` ('median', 'mean' or 'min') combines the
      judges' scores; a record on which every judge abstained scores 1.0.
    * **errors** - an ask that raises, or that takes more than ``timeout``
      seconds (None: wait for ever), stops the run with a :class:`JudgeError`
      naming the judge and the record (``on_error='raise'``), or counts as an
      unreadable reply with no input tokens (``on_error='unreadable'``): it is
      retried, and the ``on_unreadable`` rule applies.  A timed-out call keeps
      running in its thread (Python cannot stop a thread); its answer is
      ignored.
    """

    def __init__(self, asks, quorum=1, aggregate="median", min_agreement=0.5,
                 on_unreadable="harmful", *, on_error="raise", timeout=None):
        if callable(asks) or isinstance(asks, (str, bytes)) or not hasattr(asks, "__iter__"):
            raise TypeError("asks must be a list of ask callables (prompt, seed) -> reply, got "
                            f"{type(asks).__name__}")
        self._asks = tuple(asks)
        if not self._asks:
            raise ValueError("asks must hold at least one ask callable (a panel needs a judge)")
        for i, ask in enumerate(self._asks):
            if not callable(ask):
                raise TypeError(f"asks[{i}] must be callable as ask(prompt, seed), got "
                                f"{type(ask).__name__} {ask!r}")
        most = MAX_SAMPLES // len(self._asks)
        self._quorum = check_int("quorum", quorum, minimum=1)
        if quorum > most:
            raise ValueError(f"quorum must be at most {most} for {len(self._asks)} judge(s) "
                             f"(at most MAX_SAMPLES = {MAX_SAMPLES} samples a run), got "
                             f"{quorum}")
        self._aggregate = check_choice("aggregate", aggregate, AGGREGATES)
        self._min_agreement = _read_min_agreement(min_agreement)
        self._on_unreadable = check_choice("on_unreadable", on_unreadable, ON_UNREADABLE)
        self._on_error = check_choice("on_error", on_error, ON_ERROR)
        self._timeout = None if timeout is None else check_number("timeout", timeout,
                                                                 minimum=0.001)

    asks = property(lambda self: self._asks)
    quorum = property(lambda self: self._quorum)
    aggregate = property(lambda self: self._aggregate)
    min_agreement = property(lambda self: self._min_agreement)
    on_unreadable = property(lambda self: self._on_unreadable)
    on_error = property(lambda self: self._on_error)
    timeout = property(lambda self: self._timeout)

    def __repr__(self):
        return (f"Panel({len(self._asks)} judge(s), quorum={self._quorum}, "
                f"aggregate={self._aggregate!r}, min_agreement={self._min_agreement}, "
                f"on_unreadable={self._on_unreadable!r}, on_error={self._on_error!r})")

    def seeds(self, seed):
        """The sampling seeds of a run with ``seed``: ``[judge][sample]``."""
        check_seed(seed)
        n = len(self._asks)
        return [[seed + (q * n + j) * SLOT_STRIDE for q in range(self._quorum)]
                for j in range(n)]

    def _guarded(self, j, ask, record_no):
        """``ask`` for record ``record_no``, errors and time-outs handled as ``on_error`` says."""
        where = f"{_judge_name(j, ask)} on record {record_no}"

        def call(prompt, seed):
            try:
                reply = ask(prompt, seed) if self._timeout is None else self._wait(ask, prompt,
                                                                                  seed)
            except Exception as exc:
                if self._on_error == "unreadable":
                    return AskReply("", 0, "error")
                raise JudgeError(f"{where}: {type(exc).__name__}: {exc}", j, record_no) from exc
            tokens = getattr(reply, "input_tokens", None)
            try:
                tokens is None or check_int("input_tokens", tokens, minimum=0)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"{exc} (from {where})") from None
            return reply
        return call

    def _wait(self, ask, prompt, seed):
        """``ask(prompt, seed)`` in a daemon thread, given up after ``timeout`` seconds."""
        out = {}
        thread = threading.Thread(target=lambda: out.update(reply=_outcome(ask, prompt, seed)),
                                  daemon=True)
        thread.start()
        thread.join(self._timeout)
        if thread.is_alive():
            raise TimeoutError(f"no answer within {self._timeout} s")
        if isinstance(out["reply"], BaseException):
            raise out["reply"]
        return out["reply"]

    def run(self, records, seed=SEED, guideline=GUIDELINE):
        """Ask every judge ``quorum`` times about every record (see the class docstring)."""
        records = check_records(records)
        check_seed(seed)
        check_str("guideline", guideline)
        prompts = [build_prompt(r, guideline) for r in records]
        n_judges, rule = len(self._asks), self._on_unreadable
        votes = [[0] * len(records) for _ in range(n_judges)]
        harmful = [[0] * len(records) for _ in range(n_judges)]
        counts = [[0] * n_judges for _ in range(4)]      # calls, retries, lost, input tokens
        for j, (ask, slots) in enumerate(zip(self._asks, self.seeds(seed))):
            reset = getattr(ask, "reset", None)
            if callable(reset):
                reset()                 # once a run: the clock runs on across the samples
            guarded = [self._guarded(j, ask, r.no) for r in records]
            for s in slots:
                for i, prompt in enumerate(prompts):
                    answer = ask_for_label(guarded[i], prompt, s)
                    for row, value in zip(counts, (answer.calls, answer.retried,
                                                   answer.label is None, answer.input_tokens)):
                        row[j] += value
                    if answer.label is not None or rule != "abstain":
                        votes[j][i] += 1
                        harmful[j][i] += (answer.label == HARMFUL if answer.label else
                                          rule == "harmful")
        import numpy as np

        judge, verdict, score = _combine(np.array(votes)[:, None], np.array(harmful)[:, None],
                                         self._aggregate, self._min_agreement)
        return _panel_run(records, seed, judge[:, 0], verdict[0], score[0], counts)

    def run_many(self, records, seeds, guideline=GUIDELINE):
        """``run(records, seed, guideline)`` for every seed, as one :class:`PanelMany`.

        Every ask must be a :class:`~lessonlib.simulator.SimulatedModel`: each
        judge's samples run on the many-seed engine of notebook 06 (for other
        asks, call :meth:`run` seed by seed).
        """
        import numpy as np

        from .many import check_seeds, model_passes

        records = check_records(records)
        seeds = check_seeds(seeds)
        check_str("guideline", guideline)
        for i, ask in enumerate(self._asks):
            if not isinstance(ask, SimulatedModel):
                raise TypeError(f"run_many needs every ask to be a SimulatedModel, asks[{i}] is "
                                f"{type(ask).__name__}: call run() seed by seed for such asks")
        n_judges, rule = len(self._asks), self._on_unreadable
        shape = (n_judges, len(seeds), len(records))
        votes, harmful = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)
        counts = np.zeros((4, n_judges, len(seeds)), dtype=np.int64)
        for j, model in enumerate(self._asks):
            passes = model_passes(records, model, guideline)
            for q in range(self._quorum):
                offset = (q * n_judges + j) * SLOT_STRIDE
                runs = passes(tuple(s + offset for s in seeds), counts[0, j].copy())
                lost = runs.unreadable_mask
                votes[j] += ~lost if rule == "abstain" else 1
                harmful[j] += runs.harmful | lost if rule == "harmful" else runs.harmful
                counts[:, j] += (runs.calls, runs.retries, runs.unreadable, runs.input_tokens)
        judge, verdict, score = _combine(votes, harmful, self._aggregate, self._min_agreement)
        for array in (judge, verdict, score, counts):
            array.flags.writeable = False
        return PanelMany(seeds, records, verdict, score, judge, *counts.sum(axis=1), *counts)


def _panel_run(records, seed, judge, verdict, score, counts):
    """The :class:`PanelRun` of one seed from its arrays: judge (J, N), verdict and score (N,),
    counts (4, J): calls, retries, unreadable, input tokens per judge."""
    nos = [r.no for r in records]
    per_judge = [tuple(None if math.isnan(x) else x for x in col) for col in judge.T.tolist()]
    calls, retries, lost, tokens = (tuple(int(x) for x in row) for row in counts)
    return PanelRun(dict(zip(nos, (HARMFUL if v else CLEAN for v in verdict.tolist()))),
                    dict(zip(nos, score.tolist())), dict(zip(nos, per_judge)),
                    sum(calls), sum(retries), sum(lost), sum(tokens), calls, retries, lost,
                    tokens, seed, {r.no: r for r in records})


@dataclass(frozen=True, eq=False)
class PanelMany:
    """Panel runs for many seeds: row i of every (seeds, ...) array belongs to ``seeds[i]``.

    ``harmful`` (S, N) is each run's verdict on record ``records[n]``; ``scores``
    (S, N) the reported score; ``judge_scores`` (J, S, N) each judge's score
    (NaN where it abstained).  ``calls``, ``retries``, ``unreadable`` and
    ``input_tokens`` are (S,) totals, the ``judge_*`` arrays (J, S) split them.
    """

    seeds: tuple
    records: tuple = field(repr=False)
    harmful: object = field(repr=False)     # numpy arrays
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

    def __len__(self):
        return len(self.seeds)

    @property
    def record_nos(self):
        return tuple(r.no for r in self.records)

    def run(self, i):
        """The :class:`PanelRun` that ``Panel.run`` returns for ``seeds[i]``."""
        i = check_int("i", i)
        if not -len(self.seeds) <= i < len(self.seeds):
            raise ValueError(f"i must be a run index in [-{len(self.seeds)}, "
                             f"{len(self.seeds)}), got {i}")
        counts = [a[:, i] for a in (self.judge_calls, self.judge_retries,
                                    self.judge_unreadable, self.judge_input_tokens)]
        return _panel_run(self.records, self.seeds[i], self.judge_scores[:, i],
                          self.harmful[i], self.scores[i], counts)


# ---------------------------------------------------------------------------
# Fictional judge models for a diverse panel
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class JudgeSpec:
    """A fictional judge model: a :class:`SimulatedModel` that differs from the lesson's
    judge in one knob, so a panel of them shows what that knob does."""

    name: str
    differs: str                                # how it differs from the lesson's judge
    temperature: float = TEMPERATURE
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
    """Fresh models for the named judges, in order (e.g. ``judge_models(*DIVERSE)``).

    Defined in notebook 07.
    """
    if not names:
        raise ValueError(f"names: name at least one judge; allowed: {', '.join(JUDGE_NAMES)}")
    return [judge_spec(n).model() for n in names]
