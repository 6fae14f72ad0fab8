"""Notebook 06 - the judge over many seeds at once: ``run_judge`` for every seed, with numpy.

What depends on the prompt only is done once per record; what depends on the seed is a few
32-bit integer operations, done by numpy for a block of seeds at a time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import TYPE_CHECKING

import numpy as np

from ._checks import check_collection, check_int
from ._rng import FNV_PRIME, LCG_INCREMENT, LCG_MULTIPLIER, M32, MIX_FIRST, MIX_SECOND, trace_id
from .judge import (
    CLEAN,
    HARMFUL,
    JudgeRun,
    JudgeSettings,
    SettingsChanges,
    _build_prompt,
    _read_label,
    judge_model,
    resolve_settings,
)
from .metrics import COUNTS, RATES, four_counts, rates
from .records import Record, check_records, is_harmful
from .simulator import (
    FREE_FORM,
    FREE_FORM_SHARE,
    LABELS,
    SINGLE_LABEL_WORD,
    SimulatedModel,
    _tokenize,
    reply_text,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "BARE",
    "CAUSES",
    "CHUNK_CELLS",
    "LONG_PROMPT",
    "RECORD_BLOCK",
    "ManyRuns",
    "Plan",
    "check_seeds",
    "plan_blocks",
    "run_judge_many",
    "run_plans",
]

CAUSES = ("context overflow", "rate limit", "unreadable reply")
"""Why a first call had to be retried (the names ``JudgeRun.retry_causes`` uses)."""
BARE = len(FREE_FORM)  # form number of a bare-label reply (the free forms come first)
CHUNK_CELLS = 1 << 19  # (seed, record) cells decided at once: temporaries near 2 MiB
RECORD_BLOCK = 1024  # records planned at once (prompts, tokens, hashes): bounded memory
LONG_PROMPT = 4096  # a longer record part of a prompt is hashed by trace_id itself

_U32 = np.uint32
_MIX = (_U32(MIX_FIRST), _U32(MIX_SECOND))  # mix32's multipliers
_LCG = (_U32(LCG_MULTIPLIER), _U32(LCG_INCREMENT))  # generator's step
_FNV_PRIME = _U32(FNV_PRIME)  # trace_id's multiplier


def check_seeds(seeds: Iterable[int]) -> tuple[int, ...]:
    """A non-empty collection of whole numbers >= 0 (range, list, numpy array) as a tuple."""
    what = "a sequence of integer seeds (e.g. [seed] or range(1000))"
    seeds = check_collection("seeds", seeds, what, "seed")
    return tuple(
        s if type(s) is int and s >= 0 else check_int("seeds", s, minimum=0) for s in seeds
    )


def _seed_words(seeds):
    """``low32(s ^ (s >> 16))`` for every seed ``s`` and for ``s + 1`` (only the low 48 bits
    of ``s`` count)."""
    s = np.array(seeds if max(seeds) < 1 << 48 else [x % (1 << 48) for x in seeds], np.uint64)
    return tuple(
        ((x ^ (x >> np.uint64(16))) & np.uint64(M32)).astype(_U32) for x in (s, s + np.uint64(1))
    )


def _states(a, g, draws):
    """States of ``generator(seed ^ trace)`` after 1 .. ``draws`` steps, (S, C) uint32 each:
    the low 32 bits of ``t ^ (t >> 16)`` are a seed word ``a`` XOR a record word ``g``."""
    if not draws:
        return []
    x = a[:, None] ^ g[None, :]
    t = np.empty_like(x)
    x *= _MIX[0]
    x ^= np.right_shift(x, _U32(13), out=t)
    x *= _MIX[1]
    x ^= np.right_shift(x, _U32(16), out=t)
    out = []
    for k in range(draws):
        x = np.multiply(x, _LCG[0], out=None if k else x)  # a new array keeps the earlier one
        x += _LCG[1]
        out.append(x)
    return out


def _threshold(total):
    """Smallest integer state with ``state / 2**32 >= total``."""
    return min(max(math.ceil(total * 2.0**32), 0), 1 << 32)


def _traces(prompts, prefix):
    """``[trace_id(p) for p in prompts]`` for prompts that all start with ``prefix``: the rests
    hashed one character position a step (a rest over ``LONG_PROMPT`` by trace_id itself)."""
    rests = [p[len(prefix) :] for p in prompts]
    out = np.empty(len(prompts), dtype=np.int64)
    order = sorted(range(len(rests)), key=lambda i: -len(rests[i]))
    while order and len(rests[order[0]]) > LONG_PROMPT:
        i = order.pop(0)
        out[i] = trace_id(prompts[i])
    if not order:
        return out
    lengths = [len(rests[i]) for i in order]
    codes = np.zeros((len(order), lengths[0]), dtype=_U32)
    for row, i in enumerate(order):  # surrogatepass: a lone surrogate is one code, as in ord()
        codes[row, : lengths[row]] = np.frombuffer(
            rests[i].encode("utf-32-le", "surrogatepass"), dtype=_U32
        )
    codes = np.ascontiguousarray(codes.T)
    h = np.full(len(order), trace_id(prefix), dtype=_U32)
    live = len(order)
    for k in range(lengths[0]):
        while lengths[live - 1] <= k:
            live -= 1
        part = h[:live]
        part ^= codes[k, :live]
        part *= _FNV_PRIME
    out[order] = h
    return out


@dataclass(frozen=True)
class Plan:
    """A block of records as the model sees them, whatever the seed (one entry a record)."""

    actual: np.ndarray  # bool: the human label says harmful
    tokens: np.ndarray  # int64: input tokens of one call
    overflow: np.ndarray  # bool: over the window, so both calls are refused
    word: np.ndarray  # uint32: trace ^ (trace >> 16)
    cut: np.ndarray  # uint32: the label drawn is 'zararli' when state >= cut ...
    never: np.ndarray  # bool: ... except where 'temiz' is certain (cut 2**32)
    fixed: np.ndarray  # bool: the most likely label is 'zararli' (temperature 0)
    single: np.ndarray  # bool: the prompt asks for a bare label (no form is drawn)
    varying: np.ndarray  # bool: whether the reply can be read depends on the seed
    readable: np.ndarray  # bool: the reply can be read (where it does not depend on it)
    table: np.ndarray  # (2, BARE + 1) bool: a reply of label (0 'temiz') in form is read
    form_cuts: tuple  # uint32 thresholds between the free forms
    zero: bool  # temperature 0: no label is drawn
    every: int  # rate limit: every this-many-th call is refused

    @property
    def n(self) -> int:
        return len(self.actual)


def plan_blocks(
    records: Sequence[Record], model: SimulatedModel, guideline: str, block: int = RECORD_BLOCK
) -> Iterator[Plan]:
    """The :class:`Plan` of each block of ``block`` records, in order: whether a reply can be
    read depends on its label and form only, the label's weights on the cue tokens only."""
    table = np.array(
        [
            [
                _read_label(reply_text(label, None if f == BARE else f, model.max_output)[0])
                is not None
                for f in range(BARE + 1)
            ]
            for label in LABELS
        ]
    )
    free_any: np.ndarray = table[:, :BARE].any(axis=1)  # type: ignore[assignment]  # an array
    free_all: np.ndarray = table[:, :BARE].all(axis=1)  # type: ignore[assignment]
    form_cuts = tuple(_U32(_threshold(t)) for t in accumulate(FREE_FORM_SHARE[:-1]))
    relevant = set(model.cues) | set(model.spurious)
    shared = guideline if guideline[-1:].isspace() else ""
    head = _tokenize(shared)
    weights = {}
    for lo in range(0, len(records), block):
        part = records[lo : lo + block]
        prompts = [_build_prompt(r, guideline) for r in part]
        size, singles, labels = [], [], []
        for prompt in prompts:
            pieces = head + _tokenize(prompt[len(shared) :])
            key = " ".join(t for t in pieces if t in relevant)
            if key not in weights:
                plan = model.plan(key)
                weights[key] = (
                    _threshold(plan.weights[0]) if plan.weights else 0,
                    plan.fixed_label == HARMFUL,
                )
            size.append(len(pieces))
            singles.append(SINGLE_LABEL_WORD in pieces)
            labels.append(weights[key])
        cut = np.array([c for c, _ in labels], dtype=np.int64)
        fixed = np.array([f for _, f in labels], dtype=bool)
        tokens = np.array(size, dtype=np.int64)
        overflow, single = tokens > model.window, np.array(singles, dtype=bool)
        zero = model.temperature <= 0.0
        can = (~fixed, fixed) if zero else (cut > 0, cut < 1 << 32)  # labels it can answer
        read_any = [np.where(single, table[i, BARE], free_any[i]) for i in (0, 1)]
        read_all = [np.where(single, table[i, BARE], free_all[i]) for i in (0, 1)]
        some = (can[0] & read_any[0]) | (can[1] & read_any[1])
        every = (~can[0] | read_all[0]) & (~can[1] | read_all[1])
        traces = _traces(prompts, guideline)
        yield Plan(
            actual=np.array([is_harmful(r) for r in part], dtype=bool),
            tokens=tokens,
            overflow=overflow,
            word=(traces ^ (traces >> 16)).astype(_U32),
            cut=np.minimum(cut, M32).astype(_U32),
            never=cut > M32,
            fixed=fixed,
            single=single,
            varying=some & ~every & ~overflow,
            readable=every & ~overflow,
            table=table,
            form_cuts=form_cuts,
            zero=zero,
            every=model.rate_limit_every,
        )


def _replies(plan, a, cols, out=None):
    """The replies drawn with seed words ``a`` for records ``cols``, (S, C) bools (label is
    'zararli', reply can be read): ``pick`` chooses index 0 exactly when ``state < cut``."""
    varying = plan.varying[cols]
    free = varying & ~plan.single[cols]
    states = _states(a, plan.word[cols], (0 if plan.zero else 1) + bool(free.any()))
    shape = (len(a), len(cols))
    harmful = np.empty(shape, dtype=bool) if out is None else out
    if plan.zero:
        harmful[:] = plan.fixed[cols]
    else:
        np.greater_equal(states[0], plan.cut[cols], out=harmful)
        if plan.never[cols].any():
            harmful &= ~plan.never[cols]
    readable = np.broadcast_to(plan.readable[cols], shape)
    if not varying.any():
        return harmful, readable
    by_label = []
    for row in plan.table:  # label 0 ('temiz'), then label 1 ('zararli')
        read = np.full((len(a), int(varying.sum())), row[BARE])
        if free.any():
            s, edges = states[-1][:, free], (0, *plan.form_cuts, None)
            part = np.zeros(s.shape, dtype=bool)
            for form in np.flatnonzero(row[:BARE]):  # form f: edges[f] <= state < edges[f+1]
                lo, hi = edges[form], edges[form + 1]
                part |= (s >= lo) & (True if hi is None else s < hi)
            read[:, free[varying]] = part
        by_label.append(read)
    readable = readable.copy()
    readable[:, varying] = np.where(harmful[:, varying], *by_label[::-1])
    return harmful, readable


def _refusals(phase, open_, every):
    """Open records whose first call the rate limit refuses, (U, C) bool: after ``k`` refusals
    the next is the first open record with ``(phase + k) % every == 0``."""
    u, n = phase.shape
    hit = np.zeros((u, n), dtype=bool)
    shift = np.zeros(u, dtype=np.int64)
    pos = np.zeros(u, dtype=np.int64)
    steps = np.arange(min(n, max(every, 4096 // u)))
    rows = np.arange(u)
    while rows.size:
        at = np.minimum(pos[rows, None] + steps, n - 1)
        r = rows[:, None]
        found_at = open_[r, at] & (phase[r, at] == (-shift[rows, None]) % every)
        found = found_at.any(axis=1)
        j = at[np.arange(rows.size), found_at.argmax(axis=1)]
        hit[rows[found], j[found]] = True
        shift[rows[found]] += 1
        pos[rows] = np.where(found, j + 1, pos[rows] + steps.size)
        rows = rows[pos[rows] < n]
    return hit


def _schedule(plan, readable, start):
    """The call counter's part, once per distinct schedule (seeds with the same ``start`` and
    the same failed first calls share one): (again, limited, late, which)."""
    key = start
    if plan.varying.any():
        key = np.concatenate(
            [
                start.astype("<i8").view(np.uint8).reshape(len(start), 8),
                np.packbits(readable[:, plan.varying], axis=1),
            ],
            axis=1,
        )
    _, first_row, which = np.unique(key, axis=0, return_index=True, return_inverse=True)
    failed, every = plan.overflow | ~readable[first_row], plan.every
    calls = 1 + failed.astype(np.int64)
    first = start[first_row, None] + np.cumsum(calls, axis=1) - calls + 1
    hit = _refusals(first % every, ~failed, every)
    first += np.cumsum(hit, axis=1) - hit
    limited = ~plan.overflow & (first % every == 0)
    again = failed | limited
    return again, limited, again & ((first + 1) % every == 0), which.reshape(-1)


def _block(plan, a1, a2, start, fallback, harmful_out, lost_out):
    """Decide seeds x records into ``harmful_out`` and ``lost_out`` (all False on entry): first
    calls with seed words ``a1``, retries with ``a2`` (seed + 1).  Returns, one column a seed,
    calls, retries, lost, input tokens, per cause the count and the first record (C: none)."""
    harmful, readable = _replies(plan, a1, np.arange(plan.n), out=harmful_out)
    again, limited, late, which = _schedule(plan, readable, start)
    twice = np.flatnonzero(again.any(axis=0))
    lost = (again & (late | plan.overflow))[:, twice][which]
    asked = np.flatnonzero(~plan.overflow[twice])
    if asked.size:
        harmful2, readable2 = _replies(plan, a2, twice[asked])
        retried = again[:, twice[asked]][which]
        harmful_out[:, twice[asked]] = np.where(retried, harmful2, harmful[:, twice[asked]])
        lost[:, asked] |= retried & ~readable2
    lost_out[:, twice] = lost
    harmful_out[:, twice] = np.where(lost, fallback, harmful_out[:, twice])
    over = np.broadcast_to(plan.overflow, again.shape)
    masks = (over, limited, again & ~limited & ~over)
    counts = np.stack(
        [
            plan.n + again.sum(axis=1),
            again.sum(axis=1),
            np.zeros(len(again), dtype=np.int64),
            plan.tokens.sum() + again.astype(np.int64) @ plan.tokens,
            *(m.sum(axis=1) for m in masks),
            *(np.where(m.any(axis=1), m.argmax(axis=1), plan.n) for m in masks),
        ]
    )
    counts = counts[:, which]
    counts[2] = lost.sum(axis=1)
    return counts


def run_plans(
    plans: Iterable[Plan],
    records: Sequence[Record],
    seeds: tuple[int, ...],
    start: np.ndarray,
    unreadable_as: str,
    chunk: int | None = None,
) -> ManyRuns:
    """Every seed (counters ``start``, (S,) int64) over every block of ``plans`` (from
    :func:`plan_blocks` of ``records``): a :class:`ManyRuns`.  Trusts its caller."""
    record_nos = tuple(r.no for r in records)
    total, n = len(seeds), len(record_nos)
    a1, a2 = _seed_words(seeds)
    harmful = np.empty((total, n), dtype=bool)
    unreadable = np.zeros((total, n), dtype=bool)
    actual = np.empty(n, dtype=bool)
    counter = np.array(start, dtype=np.int64)
    sums = np.zeros((4 + len(CAUSES), total), dtype=np.int64)  # calls, retries, lost, tokens,
    first = np.full((len(CAUSES), total), n, dtype=np.int64)  # causes; first record a cause
    lo = 0
    for plan in plans:
        hi = lo + plan.n
        actual[lo:hi] = plan.actual
        step = chunk or max(1, CHUNK_CELLS // plan.n)
        for s in range(0, total, step):
            rows = slice(s, s + step)
            counts = _block(
                plan,
                a1[rows],
                a2[rows],
                counter[rows],
                unreadable_as == "harmful",
                harmful[rows, lo:hi],
                unreadable[rows, lo:hi],
            )
            counter[rows] += counts[0]
            sums[:, rows] += counts[: len(sums)]
            seen = counts[len(sums) :] < plan.n
            first[:, rows] = np.where(
                seen & (first[:, rows] == n), lo + counts[len(sums) :], first[:, rows]
            )
        lo = hi
    for array in (harmful, unreadable, sums, first, actual):
        array.flags.writeable = False
    return ManyRuns(
        seeds,
        record_nos,
        harmful,
        unreadable,
        *sums[:4],  # type: ignore[call-arg]
        dict(zip(CAUSES, sums[4:])),
        dict(zip(CAUSES, first)),
        actual,
        tuple(records),
    )


@dataclass(frozen=True, eq=False)
class ManyRuns:
    """Judge runs for many seeds: row i of every array belongs to ``seeds[i]``; ``harmful[i,
    j]`` is its decision on record j, ``unreadable_mask[i, j]`` says it stayed unreadable."""

    seeds: tuple
    record_nos: tuple
    harmful: np.ndarray = field(repr=False)
    unreadable_mask: np.ndarray = field(repr=False)
    calls: np.ndarray = field(repr=False)
    retries: np.ndarray = field(repr=False)
    unreadable: np.ndarray = field(repr=False)
    input_tokens: np.ndarray = field(repr=False)
    retry_causes: dict = field(repr=False)  # cause -> (S,) count of first calls retried
    cause_first: dict = field(repr=False)  # cause -> (S,) its first record (N: none)
    actual: np.ndarray = field(repr=False)  # (N,) the human label: harmful
    records: tuple = field(default=(), repr=False)  # the records judged (decide checks them)

    def __len__(self) -> int:
        return len(self.seeds)

    def run(self, i: int) -> JudgeRun:
        """The :class:`JudgeRun` of seed number ``i`` (same labels and counters as run_judge)."""
        labels = dict(
            zip(self.record_nos, (HARMFUL if h else CLEAN for h in self.harmful[i].tolist()))
        )
        order = sorted((int(self.cause_first[c][i]), c) for c in CAUSES if self.retry_causes[c][i])
        return JudgeRun(
            labels,
            int(self.calls[i]),
            int(self.retries[i]),
            int(self.unreadable[i]),
            int(self.input_tokens[i]),
            self.seeds[i],
            {c: int(self.retry_causes[c][i]) for _, c in order},
            {r.no: r for r in self.records},
        )

    def confusion(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(tp, fp, fn, tn), one int64 array each, one entry a seed."""
        return four_counts(self.actual, self.harmful)

    def measure(self) -> dict[str, np.ndarray]:
        """Per seed what ``measure`` gives (counts, then the rates of :func:`metrics.rates`)."""
        counts = self.confusion()
        figures = rates(*counts)
        return {**dict(zip(COUNTS, counts)), **{name: figures[name] for name in RATES}}

    def figures(self) -> dict[str, np.ndarray]:
        """Per seed the four figures of :data:`metrics.FIGURES` (rates rounded by ``share``)."""
        return rates(*self.confusion())

    def agreement(self) -> np.ndarray:
        """Per seed: share of records whose decision matches the human label (as ``agreement``)."""
        return rates(*self.confusion(), rounded=False)["agreement"]


def run_judge_many(
    records: Sequence[Record],
    seeds: Iterable[int],
    settings: JudgeSettings | None = None,
    *,
    chunk: int | None = None,
    model: SimulatedModel | None = None,
    **changes: Unpack[SettingsChanges],
) -> ManyRuns:
    """``run_judge(records, seed, settings, ...)`` for every seed in ``seeds`` (integers >= 0),
    as one :class:`ManyRuns`; ``chunk``: seeds decided at once (default: about CHUNK_CELLS)."""
    records = check_records(records)
    seeds = check_seeds(seeds)
    settings = resolve_settings(settings, changes)
    if chunk is not None:
        check_int("chunk", chunk, minimum=1)
    model = judge_model(model, settings)
    return run_plans(
        plan_blocks(records, model, settings.guideline),
        records,
        seeds,
        np.zeros(len(seeds), dtype=np.int64),
        settings.unreadable_as,
        chunk,
    )
