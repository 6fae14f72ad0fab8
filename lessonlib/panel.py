"""Notebook 10 - a panel of judges: several judges, each asked ``quorum`` times, one verdict.

A judge is an ask ``(prompt, seed) -> reply``: text, or an object with a str ``.text`` and
optionally ``.input_tokens`` and ``.status`` (an :class:`AskReply`).  A SimulatedModel is one,
and so is a small wrapper around a real model client.  :class:`Panel` states the rules.
"""

from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ._checks import (
    check_choice,
    check_collection,
    check_int,
    check_names,
    check_number,
    check_seed,
    check_str,
)
from .judge import CLEAN, GUIDELINE, HARMFUL, Ask, Run, _build_prompt, ask_each, tally
from .records import SEED, Record, check_records
from .simulator import CUE_TABLE, PRIOR, SPURIOUS, TEMPERATURE, SimulatedModel

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "AGGREGATES",
    "DIVERSE",
    "JUDGES",
    "JUDGE_NAMES",
    "MAX_SAMPLES",
    "ON_ERROR",
    "ON_UNREADABLE",
    "SLOT_STRIDE",
    "AskReply",
    "JudgeError",
    "JudgeSpec",
    "Panel",
    "PanelMany",
    "PanelRun",
    "judge_models",
]

AGGREGATES = ("median", "mean", "min")
ON_UNREADABLE = ("harmful", "clean", "abstain")
ON_ERROR = ("raise", "unreadable")
SLOT_STRIDE = 2**32
"""Seed distance between two sample slots of a run (even, and wider than any seed window)."""
MAX_SAMPLES = 1000
"""Samples a run (judges x quorum) at most; the generator tells 2**16 sample seeds apart."""


@dataclass(frozen=True)
class AskReply:
    """A reply in the ask protocol: text plus, optionally, input tokens and a status."""

    text: str
    input_tokens: int | None = None
    status: str = "ok"


class JudgeError(RuntimeError):
    """A judge's ask raised or did not answer in time (``judge`` and ``record`` name where)."""

    def __init__(self, message: str, judge: int, record: int) -> None:
        super().__init__(message)
        self.judge, self.record = judge, record


@dataclass(frozen=True)
class PanelRun(Run):
    """The verdicts of one panel run, the scores behind them and what they cost: totals over
    every judge and sample, split per judge by the ``judge_*`` tuples.  ``decide`` is the
    judge run's (:class:`~lessonlib.judge.Run`): a record the panel did not judge is refused."""

    scores: dict = field(repr=False)  # record no -> aggregated score
    judge_scores: dict = field(repr=False)  # record no -> per-judge score (None = abstained)
    judge_calls: tuple
    judge_retries: tuple
    judge_unreadable: tuple
    judge_input_tokens: tuple
    seed: int
    records: dict = field(repr=False)  # record no -> the record judged

    _WHAT = "panel run"

    def _judged(self) -> dict[int, Record]:
        return self.records


def _combine(votes, harmful, aggregate, min_agreement):
    """The panel's rules on vote counts (J, S, N): each judge's ``votes`` and harmful ones.

    Returns the judges' scores (J, S, N; NaN: no vote left), the verdicts and the reported
    scores (S, N).  A judge's sorted votes are ``votes - harmful`` zeros, then ones: the median
    averages positions ``(votes - 1) // 2`` and ``votes // 2``.
    """
    import numpy as np  # here, not at the top: the lesson's core path loads no numpy

    zeros = votes - harmful
    middle = ((votes - 1) // 2 >= zeros).astype(float) + (votes // 2 >= zeros)
    judge = np.where(votes > 0, middle / 2, np.nan)
    active = ~np.isnan(judge)
    k = active.sum(axis=0)
    flags = (judge >= 0.5).sum(axis=0)
    share = np.divide(flags, k, out=np.zeros(k.shape), where=k > 0)
    verdict = (k == 0) | (share >= min_agreement)
    if aggregate == "median":
        ordered = np.sort(judge, axis=0)  # NaN sort last
        lo = np.take_along_axis(ordered, (np.maximum(k - 1, 0) // 2)[None], axis=0)[0]
        hi = np.take_along_axis(ordered, (k // 2)[None], axis=0)[0]
        score = (lo + hi) / 2
    elif aggregate == "mean":
        score = np.divide(np.nansum(judge, axis=0), k, out=np.zeros(k.shape), where=k > 0)
    else:
        score = np.where(active, judge, np.inf).min(axis=0)
    return judge, verdict, np.where(k > 0, score, 1.0)


def _clamped_share(value):
    """``min_agreement`` read as the production panel reads it: clamped into [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"min_agreement must be a real number (a share of the judges, clamped "
            f"into [0, 1]), got {type(value).__name__} {value!r}"
        )
    value = float(value)
    if math.isnan(value):
        raise ValueError(
            "min_agreement must be a number (a share of the judges, clamped into [0, 1]), got nan"
        )
    return min(max(value, 0.0), 1.0)


def _own_clock(ask):
    """The ask a run uses, its clock at zero: a fresh copy of a SimulatedModel (the caller's
    model is not changed), or the ask itself after its ``reset()`` when it has one (a real
    client's way to start a server's clock), else the ask as it is."""
    if isinstance(ask, SimulatedModel):
        return ask.fresh()
    reset = getattr(ask, "reset", None)
    if callable(reset):
        reset()
    return ask


def _outcome(ask, prompt, seed):
    try:
        return ask(prompt, seed)
    except BaseException as exc:  # handed over to the caller's thread
        return exc


def _where(j, ask, record_no):
    name = getattr(ask, "name", None)
    name = name if isinstance(name, str) else getattr(ask, "__name__", type(ask).__name__)
    return f"judge {j} ({name}) on record {record_no}"


class Panel:
    """A panel of judges (notebook 10): ``Panel(asks).run(records, seed)``; the rules of seed 003.

    Each judge is asked about every record ``quorum`` times (sample *q* of judge *j* with the
    seed ``seed + (q * len(asks) + j) * SLOT_STRIDE``; an unreadable reply is asked once more
    with that seed + 1), its clock at zero once a run (a SimulatedModel through a fresh copy,
    another ask through its ``reset()`` if it has one).  A readable label is a vote (harmful 1,
    clean 0); a sample still unreadable votes by ``on_unreadable`` ('harmful', fail-closed;
    'clean', fail-open; 'abstain', no vote).  A judge's score is the median of its votes (it
    abstains with none); it flags at 0.5 or more.  The record is flagged when the share of the
    judges not abstaining that flag reaches ``min_agreement`` (or when all abstain);
    ``aggregate`` ('median', 'mean', 'min') folds the judges' scores into the reported score
    (1.0 when all abstain).  Refuses no judge, a non-callable ask, a quorum above
    ``MAX_SAMPLES // len(asks)``; a quorum below 1 reads as 1, ``min_agreement`` is clamped
    into [0, 1].  An ask that raises or takes more than ``timeout`` seconds raises a
    :class:`JudgeError` (``on_error='raise'``) or is an unreadable reply ('unreadable').
    """

    def __init__(
        self,
        asks: Sequence[Ask],
        quorum: int = 1,
        aggregate: str = "median",
        min_agreement: float = 0.5,
        on_unreadable: str = "harmful",
        *,
        on_error: str = "raise",
        timeout: float | None = None,
    ) -> None:
        what = "a list of ask callables (prompt, seed) -> reply"
        if callable(asks):
            raise TypeError(f"asks must be {what}, got one callable; put it in a list")
        self._asks = check_collection("asks", asks, what, "ask callable (a panel needs a judge)")
        for i, ask in enumerate(self._asks):
            if not callable(ask):
                raise TypeError(
                    f"asks[{i}] must be callable as ask(prompt, seed), got "
                    f"{type(ask).__name__} {ask!r}"
                )
        most = MAX_SAMPLES // len(self._asks)
        self._quorum = max(check_int("quorum", quorum), 1)  # below 1 reads as 1 (seed 003)
        if self._quorum > most:
            raise ValueError(
                f"quorum must be at most {most} for {len(self._asks)} judge(s) "
                f"(at most MAX_SAMPLES = {MAX_SAMPLES} samples a run), got "
                f"{quorum}"
            )
        self._aggregate = check_choice("aggregate", aggregate, AGGREGATES)
        self._min_agreement = _clamped_share(min_agreement)
        self._on_unreadable = check_choice("on_unreadable", on_unreadable, ON_UNREADABLE)
        self._on_error = check_choice("on_error", on_error, ON_ERROR)
        self._timeout = (
            None if timeout is None else check_number("timeout", timeout, minimum=0.001)
        )

    @property
    def asks(self) -> tuple[Ask, ...]:
        return self._asks

    @property
    def quorum(self) -> int:
        return self._quorum

    @property
    def min_agreement(self) -> float:
        return self._min_agreement

    @property
    def on_unreadable(self) -> str:
        return self._on_unreadable

    def __repr__(self) -> str:
        return (
            f"Panel({len(self._asks)} judge(s), quorum={self._quorum}, "
            f"aggregate={self._aggregate!r}, min_agreement={self._min_agreement}, "
            f"on_unreadable={self._on_unreadable!r}, on_error={self._on_error!r})"
        )

    def seeds(self, seed: int) -> list[list[int]]:
        """The sampling seeds of a run with ``seed``: ``[judge][sample]``."""
        n, seed = len(self._asks), check_seed(seed)
        return [[seed + (q * n + j) * SLOT_STRIDE for q in range(self._quorum)] for j in range(n)]

    def _guarded(self, j, ask, record_no):
        """``ask`` for record ``record_no``, errors and time-outs handled as ``on_error`` says."""
        # the run's own SimulatedModel copy is asked without its per-call door checks
        direct = (
            ask._reply
            if isinstance(ask, SimulatedModel) and type(ask).__call__ is SimulatedModel.__call__
            else ask
        )

        def call(prompt, seed):
            try:
                return (
                    direct(prompt, seed)
                    if self._timeout is None
                    else self._wait(direct, prompt, seed)
                )
            except Exception as exc:
                if self._on_error == "unreadable":
                    return AskReply("", 0, "error")
                raise JudgeError(
                    f"{_where(j, ask, record_no)}: {type(exc).__name__}: {exc}", j, record_no
                ) from exc

        return call

    def _wait(self, ask, prompt, seed):
        """``ask(prompt, seed)`` in a daemon thread, given up after ``timeout`` seconds."""
        out: dict[str, object] = {}
        thread = threading.Thread(
            target=lambda: out.update(reply=_outcome(ask, prompt, seed)), daemon=True
        )
        thread.start()
        thread.join(self._timeout)
        if thread.is_alive():
            raise TimeoutError(f"no answer within {self._timeout} s")
        if isinstance(out["reply"], BaseException):
            raise out["reply"]
        return out["reply"]

    def run(
        self,
        records: Sequence[Record],
        seed: int = SEED,
        guideline: str = GUIDELINE,
        *,
        max_connections: int = 1,
    ) -> PanelRun:
        """Ask every judge ``quorum`` times about every record (see the class docstring).

        ``max_connections``: calls of one pass run at once (notebook 13), for asks
        over HTTP; an in-process SimulatedModel needs 1 (its clock keeps call order).
        """
        from .connections import check_connections

        records = check_records(records)
        seed = check_seed(seed)
        check_str("guideline", guideline)
        max_connections = check_connections(max_connections, self._asks)
        prompts = [_build_prompt(r, guideline) for r in records]
        n_judges, rule = len(self._asks), self._on_unreadable
        votes = [[0] * len(records) for _ in range(n_judges)]
        harmful = [[0] * len(records) for _ in range(n_judges)]
        counts = [[0] * n_judges for _ in range(4)]  # calls, retries, lost, input tokens
        for j, (ask, slots) in enumerate(zip(self._asks, self.seeds(seed))):
            ask = _own_clock(ask)  # once a run: the clock runs on across the samples
            guarded = [self._guarded(j, ask, r.no) for r in records]
            for s in slots:
                answers = ask_each(
                    guarded,
                    prompts,
                    s,
                    where=lambda i, j=j, ask=ask: _where(j, ask, records[i].no),  # type: ignore[misc]
                    max_connections=max_connections,
                )
                cost = tally(answers)
                for row, value in zip(
                    counts, (cost.calls, cost.retries, cost.unreadable, cost.input_tokens)
                ):
                    row[j] += value
                for i, answer in enumerate(answers):
                    if answer.label is not None or rule != "abstain":
                        votes[j][i] += 1
                        harmful[j][i] += (
                            answer.label == HARMFUL if answer.label else rule == "harmful"
                        )
        import numpy as np

        judge, verdict, score = _combine(
            np.array(votes)[:, None],
            np.array(harmful)[:, None],
            self._aggregate,
            self._min_agreement,
        )
        return _panel_run(records, seed, judge[:, 0], verdict[0], score[0], counts)

    def run_many(
        self, records: Sequence[Record], seeds: Iterable[int], guideline: str = GUIDELINE
    ) -> PanelMany:
        """``run(records, seed, guideline)`` for every seed, as one :class:`PanelMany`, on the
        many-seed engine of notebook 06: every ask must be a SimulatedModel."""
        import numpy as np

        from .many import check_seeds, plan_blocks, run_plans

        records = check_records(records)
        seeds = check_seeds(seeds)
        check_str("guideline", guideline)
        for i, ask in enumerate(self._asks):
            if not isinstance(ask, SimulatedModel):
                raise TypeError(
                    f"run_many needs every ask to be a SimulatedModel, asks[{i}] is "
                    f"{type(ask).__name__}: call run() seed by seed for such asks"
                )
        n_judges, rule = len(self._asks), self._on_unreadable
        shape = (n_judges, len(seeds), len(records))
        votes, harmful = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)
        counts = np.zeros((4, n_judges, len(seeds)), dtype=np.int64)
        for j, model in enumerate(self._asks):
            plans = list(plan_blocks(records, model, guideline))  # once a judge, not a sample
            for q in range(self._quorum):
                offset = (q * n_judges + j) * SLOT_STRIDE
                runs = run_plans(
                    plans, records, tuple(s + offset for s in seeds), counts[0, j].copy(), "clean"
                )  # the clock runs on (samples)
                lost = runs.unreadable_mask
                votes[j] += ~lost if rule == "abstain" else 1
                harmful[j] += runs.harmful | lost if rule == "harmful" else runs.harmful
                counts[:, j] += (runs.calls, runs.retries, runs.unreadable, runs.input_tokens)
        judge, verdict, score = _combine(votes, harmful, self._aggregate, self._min_agreement)
        for array in (judge, verdict, score, counts):
            array.flags.writeable = False
        return PanelMany(seeds, records, verdict, score, judge, *counts.sum(axis=1), *counts)


def _panel_run(records, seed, judge, verdict, score, counts):
    """The :class:`PanelRun` of one seed: judge (J, N), verdict, score (N,), counts (4, J)."""
    nos = [r.no for r in records]
    per_judge = [tuple(None if math.isnan(x) else x for x in col) for col in judge.T.tolist()]
    calls, retries, lost, tokens = (tuple(int(x) for x in row) for row in counts)
    return PanelRun(
        dict(zip(nos, (HARMFUL if v else CLEAN for v in verdict.tolist()))),
        sum(calls),
        sum(retries),
        sum(lost),
        sum(tokens),
        dict(zip(nos, score.tolist())),
        dict(zip(nos, per_judge)),
        calls,
        retries,
        lost,
        tokens,
        seed,
        {r.no: r for r in records},
    )


@dataclass(frozen=True, eq=False)
class PanelMany:
    """Panel runs for many seeds, as arrays: ``harmful`` and ``scores`` (S, N), ``judge_scores``
    (J, S, N; NaN: abstained), counts (S,) and their ``judge_*`` split (J, S)."""

    seeds: tuple
    records: tuple = field(repr=False)
    harmful: np.ndarray = field(repr=False)  # numpy arrays
    scores: np.ndarray = field(repr=False)
    judge_scores: np.ndarray = field(repr=False)
    calls: np.ndarray = field(repr=False)
    retries: np.ndarray = field(repr=False)
    unreadable: np.ndarray = field(repr=False)
    input_tokens: np.ndarray = field(repr=False)
    judge_calls: np.ndarray = field(repr=False)
    judge_retries: np.ndarray = field(repr=False)
    judge_unreadable: np.ndarray = field(repr=False)
    judge_input_tokens: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.seeds)

    def run(self, i: int) -> PanelRun:
        """The :class:`PanelRun` that ``Panel.run`` returns for ``seeds[i]``."""
        counts = [
            a[:, i]
            for a in (
                self.judge_calls,
                self.judge_retries,
                self.judge_unreadable,
                self.judge_input_tokens,
            )
        ]
        return _panel_run(
            self.records,
            self.seeds[i],
            self.judge_scores[:, i],
            self.harmful[i],
            self.scores[i],
            counts,
        )


@dataclass(frozen=True)
class JudgeSpec:
    """A fictional judge model: the lesson's judge with one knob changed (notebook 10)."""

    name: str
    differs: str  # how it differs from the lesson's judge
    temperature: float = TEMPERATURE
    spurious: tuple = tuple(SPURIOUS.items())  # (token, label) pairs
    prior: tuple = tuple(PRIOR.items())  # (label, base weight) pairs

    def model(self) -> SimulatedModel:
        """A fresh model (its own call counter at zero) with this configuration."""
        return SimulatedModel(
            self.temperature, CUE_TABLE, dict(self.spurious), dict(self.prior), name=self.name
        )


JUDGES = (
    JudgeSpec(
        "lesson",
        "none: the lesson's judge (temperature 0.30, prior 0.75/0.15, the spurious length cue)",
    ),
    JudgeSpec("plain", "no spurious cue: excessive length is not read as evidence", spurious=()),
    JudgeSpec(
        "wary",
        "a different prior: leans less to clean (base weights 0.55 against 0.35)",
        prior=(("temiz", 0.55), ("zararli", 0.35)),
    ),
    JudgeSpec("greedy", "temperature 0: always answers the most likely label", temperature=0.0),
)
"""The lesson's judge and three fictional models, one knob changed in each."""
JUDGE_NAMES = tuple(spec.name for spec in JUDGES)
DIVERSE = ("plain", "wary", "greedy")
"""The three fictional models that make up the course's diverse panel."""


def judge_models(*names: str) -> list[SimulatedModel]:
    """Fresh models for the named judges, in order (notebook 10): ``judge_models(*DIVERSE)``."""
    check_names("names", names, JUDGE_NAMES)
    return [JUDGES[JUDGE_NAMES.index(n)].model() for n in names]
