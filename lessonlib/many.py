"""The judge over many seeds at once - exactly ``run_judge``, seed by seed, with numpy.

Why it can be fast: almost everything a judge call does depends only on the
prompt (its tokens, the window check, the label weights, the prompt's hash).
That part is computed once per record with :meth:`SimulatedModel.plan`.  What
is left per (seed, record) is small integer arithmetic: the 32-bit starting
state ``mix32(seed ^ trace)``, one or two steps of the generator, and a
comparison with a threshold.  numpy does that for a whole block of seeds at a
time.

Three facts make the vectorised form exact:

* ``mix32`` starts from ``t ^ (t >> 16)`` and keeps only the low 32 bits of
  every product, so for ``t = seed ^ trace`` (``trace < 2**32``) the low 32 bits
  of ``t ^ (t >> 16)`` are ``low32(seed ^ (seed >> 16)) ^ (trace ^ (trace >> 16))``:
  a per-seed word XOR a per-record word, for seeds of any size.
* ``pick(u, weights)`` with ``u = state / 2**32`` chooses index 0 exactly when
  ``state < ceil(weights[0] * 2**32)`` (both sides are exact in floating point),
  so a draw is an integer comparison.
* Whether a reply can be read depends only on (label, free-form choice, output
  cap): a table of at most 2 x 4 entries, filled by calling the simulator's own
  :func:`~lessonlib.simulator.reply_text` and the judge's :func:`read_label`.

Only the call counter (the rate limit falls on every 37th call, retries
included) ties one record to the next.  When no reply's readability depends on
the seed, the whole call schedule is the same for every seed and is computed
once; otherwise the records are scanned once, in order, over a vector of seeds.

Memory is bounded: seeds are processed in chunks; the result keeps two
(seeds x records) boolean arrays.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ._checks import check_choice, check_count, check_int, check_records, check_str
from .judge import (CLEAN, GUIDELINE, HARMFUL, RETRY_CAUSE, UNREADABLE_RULES, JudgeRun,
                    build_prompt, read_label)
from .metrics import COUNTS
from .records import M32, is_harmful
from .simulator import (CUE_TABLE, FREE_FORM, FREE_FORM_SHARE, LABELS, MAX_OUTPUT,
                        SINGLE_LABEL_WORD, SPURIOUS, PromptPlan, SimulatedModel, label_scores,
                        TEMPERATURE, label_weights, reply_text, tokenize)

CAUSES = ("context overflow", "rate limit", "unreadable reply")
"""Why a first call had to be retried (the names ``JudgeRun.retry_causes`` uses)."""
BARE = len(FREE_FORM)
"""Column of the readability table for a bare-label reply (the free forms come first)."""
CHUNK_ELEMENTS = 1 << 18
"""Default block size in (seed, record) cells: 2**18 cells keep each temporary near 1 MiB."""
SCAN_CHUNK_ELEMENTS = 1 << 19
"""Default block for the record scan: larger, since each record costs a few numpy calls a block."""

_TWO32 = 1 << 32
_U32 = np.uint32
_MIX1, _MIX2 = _U32(2246822507), _U32(3266489909)
_LCG_A, _LCG_C = _U32(1664525), _U32(1013904223)


# ---------------------------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------------------------

def check_seeds(seeds, name="seeds"):
    """A non-empty 1-D collection of whole numbers >= 0; returned as a tuple of Python ints.

    Python ints of any size, numpy integer scalars and numpy integer arrays are
    accepted; bools, floats and strings are not.
    """
    if isinstance(seeds, np.ndarray):
        if seeds.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integers, got a numpy array of dtype {seeds.dtype}")
        if seeds.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {seeds.shape}")
        if seeds.size == 0:
            raise ValueError(f"{name} must hold at least one seed, got an empty array")
        if seeds.dtype.kind == "i" and seeds.min() < 0:
            raise ValueError(f"{name} must be integers >= 0, got {int(seeds.min())}")
        return tuple(seeds.tolist())
    if isinstance(seeds, range):
        if len(seeds) == 0:
            raise ValueError(f"{name} must hold at least one seed, got an empty range")
        if min(seeds[0], seeds[-1]) < 0:
            raise ValueError(f"{name} must be integers >= 0, got {seeds!r}")
        return tuple(seeds)
    if isinstance(seeds, (list, tuple)) and seeds and all(type(s) is int for s in seeds):
        if min(seeds) < 0:
            raise ValueError(f"{name} must be integers >= 0, found {min(seeds)!r}")
        return tuple(seeds)
    if isinstance(seeds, (str, bytes, Mapping)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"{name} must be a sequence of integer seeds (e.g. [seed] or "
                        f"range(1000)), got {type(seeds).__name__} {seeds!r}")
    out = []
    for s in seeds:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"{name} must hold integers, found {type(s).__name__} {s!r}")
        s = operator.index(s)
        if s < 0:
            raise ValueError(f"{name} must be integers >= 0, found {s!r}")
        out.append(s)
    if not out:
        raise ValueError(f"{name} must hold at least one seed, got an empty collection")
    return tuple(out)


def seed_words(seeds):
    """``low32(s ^ (s >> 16))`` for every seed ``s`` and for ``s + 1``: two uint32 arrays.

    Seeds of any size: below 2**64 - 1 numpy does it, above that Python ints.
    """
    if max(seeds) < (1 << 64) - 1:
        s = np.array(seeds, dtype=np.uint64)
        words = []
        for x in (s, s + np.uint64(1)):
            words.append(((x ^ (x >> np.uint64(16))) & np.uint64(M32)).astype(_U32))
        return tuple(words)
    return tuple(np.array([(s ^ (s >> 16)) & M32 for s in ss], dtype=_U32)
                 for ss in (seeds, [s + 1 for s in seeds]))


def _states(a, g, draws, seeds_first=False):
    """Generator states after 1, 2, ... ``draws`` steps for every (seed word, record word) pair.

    ``a`` (S,) and ``g`` (M,) uint32 -> a list of ``draws`` uint32 arrays of shape
    (M, S) (or (S, M) with ``seeds_first``): the state of ``generator(seed ^ trace)``
    after each draw.
    """
    x = (a[:, None] ^ g[None, :]) if seeds_first else (g[:, None] ^ a[None, :])
    t = np.empty_like(x)
    x *= _MIX1
    np.right_shift(x, _U32(13), out=t)
    x ^= t
    x *= _MIX2
    np.right_shift(x, _U32(16), out=t)
    x ^= t
    out = []
    for k in range(draws):
        if k:
            x = x * _LCG_A          # a new array: the earlier state stays in ``out``
        else:
            x *= _LCG_A
        x += _LCG_C
        out.append(x)
    return out


# ---------------------------------------------------------------------------------------------
# The seed-independent part
# ---------------------------------------------------------------------------------------------

def _threshold(total):
    """Smallest integer state with ``state / 2**32 >= total`` (the draw passes ``total``)."""
    return min(max(math.ceil(total * _TWO32), 0), _TWO32)


@dataclass(frozen=True)
class Hoisted:
    """Everything about a judge run over ``records`` that does not depend on the seed."""

    record_nos: tuple
    actual: np.ndarray        # (N,) bool: the human label
    tokens: np.ndarray        # (N,) int64: input tokens of one call
    overflow: np.ndarray      # (N,) bool: the prompt exceeds the window
    single: np.ndarray        # (N,) bool: the prompt asks for a bare label
    word: np.ndarray          # (N,) uint32: trace ^ (trace >> 16)
    cut: np.ndarray           # (N,) uint32: label 1 ('zararli') when state >= cut ...
    never: np.ndarray         # (N,) bool: ... unless the label weight of 'temiz' is 1
    fixed: np.ndarray         # (N,) int8: most likely label (used at temperature 0)
    zero_temperature: bool
    form_cuts: tuple          # uint32 thresholds between the free forms
    read: np.ndarray          # (2, BARE + 1) int8: label read from (label, form), -1 = none
    readable_bits: int        # bit (label * 4 + form) set when that reply can be read
    every: int                # rate limit: every this-many-th call is refused
    fallback: bool            # decision for a record unreadable twice (True = harmful)
    constant: tuple           # per record: None, or the readability of every reply it can get

    @property
    def n(self):
        return len(self.record_nos)


def trace_ids(prompts, prefix=""):
    """``[trace_id(p) for p in prompts]``, computed column by column with numpy.

    Every prompt must start with ``prefix``; the hash of that shared part is
    computed once (the hash is a left-to-right scan, so it can be resumed).
    """
    h0 = 2166136261
    for ch in prefix:
        h0 = ((h0 ^ ord(ch)) * 16777619) & M32
    rests = [p[len(prefix):] for p in prompts]
    if any(not p.startswith(prefix) for p in prompts):
        raise ValueError("every prompt must start with prefix")
    order = sorted(range(len(rests)), key=lambda i: -len(rests[i]))
    lengths = [len(rests[i]) for i in order]
    width = lengths[0] if lengths else 0
    codes = np.zeros((len(rests), width), dtype=_U32)
    for row, i in enumerate(order):
        codes[row, :lengths[row]] = np.frombuffer(rests[i].encode("utf-32-le"), dtype=_U32)
    codes = np.ascontiguousarray(codes.T)
    h = np.full(len(rests), h0, dtype=_U32)
    live = len(rests)
    prime = _U32(16777619)
    for k in range(width):
        while live and lengths[live - 1] <= k:
            live -= 1
        part = h[:live]
        part ^= codes[k, :live]
        part *= prime
    out = np.empty(len(rests), dtype=np.int64)
    out[order] = h
    return out.tolist()


def plan_many(model, prompts, prefix=""):
    """``[model.plan(p) for p in prompts]``, with the repeated work shared.

    The tokens that match no cue are dropped before the label scores are summed
    (they add nothing, and the order of the rest is kept, so every sum is the
    same), each distinct sequence of matching tokens is scored once, and the
    prompts' hashes are computed together (:func:`trace_ids`).
    """
    cues, spurious, prior = model.cues, model.spurious, model.prior
    relevant = set(cues) | set(spurious)
    temperature = model.temperature
    scored = {}
    plans = []
    for prompt, trace in zip(prompts, trace_ids(prompts, prefix)):
        tokens = tokenize(prompt)
        key = tuple(t for t in tokens if t in relevant)
        if key not in scored:
            scores = label_scores(key, prior, cues, spurious)
            names = tuple(sorted(scores))
            fixed = max(names, key=lambda a: scores[a])
            weights = None if temperature <= 0.0 else tuple(label_weights(scores, temperature))
            scored[key] = (names, weights, fixed)
        names, weights, fixed = scored[key]
        plans.append(PromptPlan(len(tokens), len(tokens) > model.window,
                                SINGLE_LABEL_WORD in tokens, trace, names, weights, fixed))
    return plans


def hoist(records, model, guideline, max_output, unreadable_as):
    """Build the :class:`Hoisted` part (the equivalent of one ``model.plan`` per record)."""
    plans = plan_many(model, [build_prompt(r, guideline) for r in records], guideline)
    if any(p.labels != LABELS for p in plans):      # the prior fixes the labels
        raise AssertionError("the simulator's labels are not LABELS")
    zero = model.temperature <= 0.0
    if zero:
        cuts = [0] * len(plans)
    else:
        cuts = [_threshold(p.weights[0]) for p in plans]
    if len(LABELS) * 4 > 8 or BARE + 1 > 4:     # readable_bits: label * 4 + form in a byte
        raise AssertionError("readability table does not fit the 8-bit lookup")
    read = np.full((len(LABELS), BARE + 1), -1, dtype=np.int8)
    for li, label in enumerate(LABELS):
        for form in range(BARE + 1):
            text, _ = reply_text(label, None if form == BARE else form, max_output)
            got = read_label(text)
            if got is not None:
                if got != label:        # a reply names only its own label
                    raise AssertionError(f"reply {text!r} reads as {got!r}, not {label!r}")
                read[li, form] = li
    totals, total = [], 0.0
    for share in FREE_FORM_SHARE[:-1]:     # pick() walks the running sum in this order
        total += share
        totals.append(_threshold(total))
    if max(totals) >= _TWO32:
        raise AssertionError("free-form shares leave no room for the last form")
    fixed = np.array([LABELS.index(p.fixed_label) for p in plans], dtype=np.int8)
    cut = np.array(cuts, dtype=np.int64)
    constant = []
    for j, p in enumerate(plans):
        if zero:
            labels = [int(fixed[j])]
        else:
            labels = [li for li, ok in ((0, cut[j] > 0), (1, cut[j] < _TWO32)) if ok]
        forms = [BARE] if p.single_label else list(range(BARE))
        seen = {bool(read[li, f] >= 0) for li in labels for f in forms}
        constant.append(seen.pop() if len(seen) == 1 else None)
    return Hoisted(
        record_nos=tuple(r.no for r in records),
        actual=np.array([is_harmful(r) for r in records], dtype=bool),
        tokens=np.array([p.input_tokens for p in plans], dtype=np.int64),
        overflow=np.array([p.overflow for p in plans], dtype=bool),
        single=np.array([p.single_label for p in plans], dtype=bool),
        word=np.array([p.trace ^ (p.trace >> 16) for p in plans], dtype=_U32),
        cut=np.minimum(cut, _TWO32 - 1).astype(_U32),
        never=cut >= _TWO32,
        fixed=fixed,
        zero_temperature=zero,
        form_cuts=tuple(_U32(t) for t in totals),
        read=read,
        readable_bits=sum(1 << (li * 4 + f) for li in range(len(LABELS))
                          for f in range(BARE + 1) if read[li, f] >= 0),
        every=model.rate_limit_every,
        fallback=unreadable_as == "harmful",
        constant=tuple(constant),
    )


def _labels_and_forms(h, cols, a):
    """Label index (M, S) int8 and form index (M, S) int8 for records ``cols`` and seed words."""
    sub_single = h.single[cols]
    need_form = not sub_single.all()
    draws = (0 if h.zero_temperature else 1) + (1 if need_form else 0)
    states = _states(a, h.word[cols], draws) if draws else []
    if h.zero_temperature:
        label = np.broadcast_to(h.fixed[cols][:, None], (len(cols), len(a)))
    else:
        label = (states[0] >= h.cut[cols][:, None])
        never = h.never[cols]
        if never.any():
            label[never] = False
        label = label.view(np.int8)
    if not need_form:
        return label, None
    s = states[-1]
    form = (s >= h.form_cuts[0]).view(np.int8).copy()
    for c in h.form_cuts[1:]:
        form += (s >= c).view(np.int8)
    form[sub_single] = BARE
    return label, form


def _labels_and_readable(h, cols, a):
    """Label index (M, S) int8 and whether the reply can be read (M, S) bool.

    Readability is looked up in ``h.readable_bits`` at bit ``label * 4 + form``.
    """
    label, form = _labels_and_forms(h, cols, a)
    code = np.left_shift(label.view(np.uint8), np.uint8(2))
    if form is None:
        code += np.uint8(BARE)
    else:
        code += form.view(np.uint8)
    bits = np.right_shift(np.uint8(h.readable_bits), code)
    return label, (bits & np.uint8(1)).view(bool)


# ---------------------------------------------------------------------------------------------
# The two paths
# ---------------------------------------------------------------------------------------------

@dataclass
class _Schedule:
    """The call schedule when it is the same for every seed."""

    source: np.ndarray      # (N,) int8: 0 unreadable twice, 1 answered with seed, 2 with seed + 1
    retried: np.ndarray     # (N,) bool
    first_status: list      # (N,) status of the first call
    calls: int
    tokens: int


def _fixed_schedule(h, start=0):
    """Scan the records once: valid when no reply's readability depends on the seed.

    ``start`` is the counter before the first call (the same for every seed);
    the schedule's ``calls`` counts only the calls made here.
    """
    source = np.zeros(h.n, dtype=np.int8)
    retried = np.zeros(h.n, dtype=bool)
    status, calls, tokens = [], start, 0
    for j in range(h.n):
        got = None
        for attempt in (1, 2):
            calls += 1
            tokens += int(h.tokens[j])
            if h.overflow[j]:
                st = "context_overflow"
            elif calls % h.every == 0:
                st = "rate_limit"
            else:
                st = "ok"
            if attempt == 1:
                status.append(st)
            if st == "ok" and h.constant[j]:
                got = attempt
                break
            retried[j] = True
        source[j] = got or 0
    return _Schedule(source, retried, status, calls - start, tokens)


def _fixed_chunk(h, sched, a1, a2, harmful, unreadable):
    """Fill ``harmful`` / ``unreadable`` (S, N) for one chunk on the fixed schedule.

    Every record is first decided with the seed itself, straight into ``harmful``;
    the few records answered by the retry (seed + 1) or unreadable twice are
    then overwritten.
    """
    unreadable[:] = sched.source == 0
    if h.zero_temperature:
        harmful[:] = h.fixed.astype(bool)
    else:
        (state,) = _states(a1, h.word, 1, seeds_first=True)
        np.greater_equal(state, h.cut, out=harmful)
        if h.never.any():
            harmful[:, h.never] = False
        cols = np.flatnonzero(sched.source == 2)
        if cols.size:
            (state,) = _states(a2, h.word[cols], 1, seeds_first=True)
            harmful[:, cols] = (state >= h.cut[cols]) & ~h.never[cols]
    cols = np.flatnonzero(sched.source == 0)
    if cols.size:
        harmful[:, cols] = h.fallback


def _scan_chunk(h, a1, a2, harmful, unreadable, start):
    """Scan the records in order over a block of seeds.

    ``start`` (S,) is each seed's call counter before its first call.  Fills
    ``harmful`` and ``unreadable`` (S, N) and returns the calls made per seed
    and two (N, S) masks: first call failed (retried) and failed on the rate limit.
    """
    n, s = h.n, len(a1)
    ok = np.flatnonzero(~h.overflow)
    label1 = np.zeros((n, s), dtype=np.int8)
    label2 = np.zeros((n, s), dtype=np.int8)
    good1 = np.zeros((n, s), dtype=bool)
    good2 = np.zeros((n, s), dtype=bool)
    for a, label, good in ((a1, label1, good1), (a2, label2, good2)):
        label[ok], good[ok] = _labels_and_readable(h, ok, a)
    again = np.empty((n, s), dtype=bool)       # the first call failed: retried
    limited = np.zeros((n, s), dtype=bool)     # ... because of the rate limit
    late = np.zeros((n, s), dtype=bool)        # the retry hit the rate limit (the count only
    #                                            moves past the first call when it failed)
    count = np.array(start, dtype=np.int64)
    rest = np.empty(s, dtype=np.int64)
    bad = np.empty(s, dtype=bool)
    every = h.every
    for j in range(n):                         # only the call counter ties the records
        if h.overflow[j]:
            count += 2
            again[j] = True
            continue
        count += 1
        np.remainder(count, every, out=rest)
        np.equal(rest, 0, out=limited[j])
        np.logical_not(good1[j], out=bad)
        np.logical_or(limited[j], bad, out=again[j])
        count += again[j]
        np.remainder(count, every, out=rest)
        np.equal(rest, 0, out=late[j])
    # lost: retried and the retry was refused or unreadable (overflow rows: good2 is False)
    lost = again & (late | ~good2)
    final = np.where(again, label2, label1).view(bool)
    final[lost] = h.fallback
    harmful[:] = final.T
    unreadable[:] = lost.T
    return count - start, again, limited


# ---------------------------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class ManyRuns:
    """Judge runs for many seeds: row i of every array belongs to ``seeds[i]``.

    ``harmful[i, j]`` is run i's final decision on record ``record_nos[j]`` (after
    the unreadable rule); ``unreadable_mask[i, j]`` says the record was still
    unreadable after its retry.  ``calls``, ``retries``, ``unreadable`` and
    ``input_tokens`` are int64 arrays with one entry a seed; ``run(i)`` gives the
    :class:`~lessonlib.judge.JudgeRun` that ``run_judge`` returns for ``seeds[i]``.
    """

    seeds: tuple
    record_nos: tuple
    harmful: np.ndarray = field(repr=False)
    unreadable_mask: np.ndarray = field(repr=False)
    calls: np.ndarray = field(repr=False)
    retries: np.ndarray = field(repr=False)
    unreadable: np.ndarray = field(repr=False)
    input_tokens: np.ndarray = field(repr=False)
    retry_causes: dict = field(repr=False)   # cause -> (S,) int64 count of first calls
    cause_first: dict = field(repr=False)    # cause -> (S,) index of its first record (N: none)
    actual: np.ndarray = field(repr=False)   # (N,) bool: the human label of each record
    unreadable_as: str = "clean"

    def __len__(self):
        return len(self.seeds)

    def run(self, i):
        """The :class:`JudgeRun` of seed number ``i`` (same labels and counters as run_judge)."""
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"i must be an integer run index, got {type(i).__name__} {i!r}")
        i = operator.index(i)
        if not -len(self.seeds) <= i < len(self.seeds):
            raise ValueError(f"i must be a run index in [-{len(self.seeds)}, {len(self.seeds)}),"
                             f" got {i}")
        row = self.harmful[i]
        labels = {no: HARMFUL if h else CLEAN for no, h in zip(self.record_nos, row.tolist())}
        order = sorted((int(self.cause_first[c][i]), c) for c in CAUSES
                       if self.retry_causes[c][i])
        causes = {c: int(self.retry_causes[c][i]) for _, c in order}
        return JudgeRun(labels, int(self.calls[i]), int(self.retries[i]),
                        int(self.unreadable[i]), int(self.input_tokens[i]), self.seeds[i],
                        causes)

    # -- per-seed metrics, rounded exactly as lessonlib.metrics.measure rounds ---------------

    def confusion(self):
        """(tp, fp, fn, tn), each an int64 array with one entry a seed."""
        return confusion_many(self.harmful, self.actual)

    def measure(self):
        """Per seed: tp, fp, fn, tn, precision, recall, false_block_rate (as ``measure``)."""
        return measure_many(self.harmful, self.actual)

    def agreement(self):
        """Per seed: share of records whose decision matches the human label (as ``agreement``)."""
        return agreement_many(self.harmful, self.actual)


def check_decisions(harmful, name="harmful", *, ndim=2, min_rows=0):
    """A matrix of yes/no decisions (bool, or integers 0 and 1) as a bool array.

    ``ndim`` 2: (runs, records) with at least one record and ``min_rows`` runs;
    ``ndim`` 1: (records,) with at least one record.
    """
    if harmful is None or isinstance(harmful, (str, bytes, Mapping)):
        raise TypeError(f"{name} must be an array of bool decisions, got "
                        f"{type(harmful).__name__}")
    raw = np.asarray(harmful)
    if raw.dtype.kind in "iu" and raw.size and not np.isin(raw, (0, 1)).all():
        raise ValueError(f"{name} must hold bool decisions (or 0 and 1), found other integers")
    if raw.dtype.kind not in "biu" and raw.size:
        raise TypeError(f"{name} must hold bool decisions (or 0 and 1), got dtype {raw.dtype}")
    shape = "(runs, records)" if ndim == 2 else "(records,)"
    if raw.ndim != ndim or raw.shape[-1] == 0 or (ndim == 2 and raw.shape[0] < min_rows):
        runs = {1: "one run", 2: "two runs"}.get(min_rows, f"{min_rows} runs")
        least = f"at least {runs} and " if ndim == 2 and min_rows else ""
        raise ValueError(f"{name} must be {shape} with {least}at least one record, got shape "
                         f"{raw.shape}")
    return raw.astype(bool, copy=False)


def confusion_many(harmful, actual):
    """(tp, fp, fn, tn) per row of a (runs, records) decision matrix against ``actual``."""
    harmful = check_decisions(harmful)
    actual = check_decisions(actual, "actual", ndim=1)
    if actual.shape != harmful.shape[1:]:
        raise ValueError(f"harmful must be (runs, records) and actual (records,), got "
                         f"{harmful.shape} and {actual.shape}")
    pos, neg = int(actual.sum()), int((~actual).sum())
    tp = np.count_nonzero(harmful[:, actual], axis=1).astype(np.int64)
    fp = np.count_nonzero(harmful[:, ~actual], axis=1).astype(np.int64)
    return tp, fp, pos - tp, neg - fp


def rounded_ratio(num, den, places=4):
    """``round(num / den, places)`` elementwise with Python's rounding; 0.0 where den == 0.

    Python rounds the exact binary value of the quotient; ``np.round`` does not
    always agree, so each distinct (num, den) pair is rounded by Python once.
    """
    check_int("places", places)
    num, den = np.asarray(num), np.asarray(den)
    for name, value in (("num", num), ("den", den)):
        if value.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold whole numbers (counts), got dtype {value.dtype}")
    if num.shape != den.shape:
        raise ValueError(f"num and den must have the same shape, got {num.shape} and "
                         f"{den.shape}")
    num, den = num.astype(np.int64), den.astype(np.int64)
    pairs, inverse = np.unique(np.stack([num, den]), axis=1, return_inverse=True)
    values = np.array([round(int(a) / int(b), places) if b else 0.0 for a, b in pairs.T],
                      dtype=float)
    return values[inverse.reshape(num.shape)]


def measure_many(harmful, actual):
    """``measure`` for every row of a decision matrix: a dict of arrays, one entry a run."""
    counts = dict(zip(COUNTS, confusion_many(harmful, actual)))
    tp, fp, fn, tn = (counts[name] for name in COUNTS)
    counts.update(precision=rounded_ratio(tp, tp + fp), recall=rounded_ratio(tp, tp + fn),
                  false_block_rate=rounded_ratio(fp, fp + tn))
    return counts


def agreement_many(harmful, actual):
    """``agreement`` for every row of a decision matrix (not rounded)."""
    tp, fp, fn, tn = confusion_many(harmful, actual)
    return (tp + tn) / len(np.asarray(actual))


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------

def _check_chunk(chunk):
    if chunk is None:
        return None
    return check_int("chunk", chunk, minimum=1)


def _check_calls_before(calls_before, total):
    """0, one whole number >= 0 for every seed, or one per seed -> (S,) int64 array."""
    if (isinstance(calls_before, (str, bytes, Mapping)) or not hasattr(calls_before, "__len__")
            or getattr(calls_before, "ndim", 1) == 0):
        if isinstance(calls_before, bool) or not isinstance(calls_before, (int, np.integer)):
            raise TypeError("calls_before must be a whole number >= 0 or one per seed, got "
                            f"{type(calls_before).__name__} {calls_before!r}")
        value = check_count("calls_before", calls_before, minimum=0)
        return np.full(total, value, dtype=np.int64)
    if len(calls_before) != total:
        raise ValueError(f"calls_before must hold one count per seed ({total}), "
                         f"got {len(calls_before)}")
    return np.array(check_seeds(calls_before, "calls_before"), dtype=np.int64)


def run_model_many(records, seeds, model, guideline=GUIDELINE, max_output=None, *,
                   unreadable_as="clean", chunk=None, calls_before=0):
    """``model`` judging ``records`` once per seed, as ``run_judge`` would with that model.

    Each seed's call counter starts at ``calls_before`` (0, as in ``run_judge``,
    unless given: a number for every seed or one per seed - the panel uses it
    to let a judge's rate-limit clock run on across its samples).  ``model`` is a
    :class:`~lessonlib.simulator.SimulatedModel`; its temperature, cues, spurious
    cue, prior, window, output cap (unless ``max_output`` is given) and rate limit
    are used, its own call counter is left alone.  ``chunk`` is the number of
    seeds per block (default: about 2**18 cells a block).
    """
    records = check_records(records)
    seeds = check_seeds(seeds)
    if not isinstance(model, SimulatedModel):
        raise TypeError(f"model must be a SimulatedModel, got {type(model).__name__}")
    check_str("guideline", guideline)
    cap = model.max_output if max_output is None else check_int("max_output", max_output,
                                                                 minimum=1)
    check_choice("unreadable_as", unreadable_as, UNREADABLE_RULES)
    chunk = _check_chunk(chunk)
    start = _check_calls_before(calls_before, len(seeds))
    h = hoist(records, model, guideline, cap, unreadable_as)
    return _run(h, seeds, chunk, unreadable_as, start=start)



def model_passes(records, model, guideline=GUIDELINE):
    """``run_model_many`` for one model, its seed-independent part (:func:`hoist`) done once.

    Returns a function ``(seeds, calls_before) -> ManyRuns`` equal to
    ``run_model_many(records, seeds, model, guideline, calls_before=calls_before)``;
    the panel calls it once per sample of a judge.  Engine internal: the
    arguments are those :func:`~lessonlib.panel.run_many` has checked, ``seeds``
    a tuple of ints >= 0 and ``calls_before`` an (S,) int64 array.
    """
    h = hoist(records, model, guideline, model.max_output, "clean")
    return lambda seeds, calls_before: _run(h, seeds, None, "clean", start=calls_before)

def run_judge_many(records, seeds, temperature=TEMPERATURE, guideline=GUIDELINE, cues=CUE_TABLE,
                   spurious=SPURIOUS, max_output=MAX_OUTPUT, *, unreadable_as="clean",
                   chunk=None):
    """``run_judge(records, seed, ...)`` for every seed in ``seeds``, as one :class:`ManyRuns`.

    Same arguments as :func:`~lessonlib.judge.run_judge` except ``seeds`` (a
    non-empty sequence of integers >= 0, or a numpy integer array) and ``chunk``
    (seeds per block; bounds the memory).
    """
    records = check_records(records)
    seeds = check_seeds(seeds)
    check_str("guideline", guideline)
    check_int("max_output", max_output, minimum=1)
    check_choice("unreadable_as", unreadable_as, UNREADABLE_RULES)
    chunk = _check_chunk(chunk)
    model = SimulatedModel(temperature, cues, spurious, max_output=max_output)
    h = hoist(records, model, guideline, max_output, unreadable_as)
    return _run(h, seeds, chunk, unreadable_as)


def _run(h, seeds, chunk, unreadable_as, scan=None, start=None):
    """Both paths; ``scan`` forces the record scan (True) or lets the schedule decide (None).

    ``start`` (S,) holds each seed's counter before its first call (None: all 0).
    """
    n, total = h.n, len(seeds)
    start = np.zeros(total, dtype=np.int64) if start is None else start
    harmful = np.empty((total, n), dtype=bool)
    unreadable = np.empty((total, n), dtype=bool)
    fixed = (not scan and all(c is not None for c, o in zip(h.constant, h.overflow) if not o)
             and bool((start == start[0]).all()))
    step = chunk or max(1, (CHUNK_ELEMENTS if fixed else SCAN_CHUNK_ELEMENTS) // n)
    w1, w2 = seed_words(seeds)
    if fixed:
        sched = _fixed_schedule(h, int(start[0]))
        for lo in range(0, total, step):
            hi = min(lo + step, total)
            _fixed_chunk(h, sched, w1[lo:hi], w2[lo:hi], harmful[lo:hi], unreadable[lo:hi])
        lost = int((sched.source == 0).sum())
        calls = np.full(total, sched.calls, dtype=np.int64)
        retries = np.full(total, int(sched.retried.sum()), dtype=np.int64)
        unread = np.full(total, lost, dtype=np.int64)
        tokens = np.full(total, sched.tokens, dtype=np.int64)
        causes, first = {}, {}
        for cause in CAUSES:
            hits = [j for j in range(n) if sched.retried[j]
                    and RETRY_CAUSE.get(sched.first_status[j], "unreadable reply") == cause]
            causes[cause] = np.full(total, len(hits), dtype=np.int64)
            first[cause] = np.full(total, hits[0] if hits else n, dtype=np.int64)
    else:
        calls = np.empty(total, dtype=np.int64)
        retries = np.empty(total, dtype=np.int64)
        tokens = np.empty(total, dtype=np.int64)
        causes = {c: np.empty(total, dtype=np.int64) for c in CAUSES}
        first = {c: np.empty(total, dtype=np.int64) for c in CAUSES}
        over = h.overflow[:, None]
        for lo in range(0, total, step):
            hi = min(lo + step, total)
            calls[lo:hi], again, limited = _scan_chunk(h, w1[lo:hi], w2[lo:hi], harmful[lo:hi],
                                                       unreadable[lo:hi], start[lo:hi])
            retries[lo:hi] = np.count_nonzero(again, axis=0)
            tokens[lo:hi] = h.tokens.sum() + h.tokens @ again.astype(np.int64)
            for cause, mask in (("context overflow", again & over), ("rate limit", limited),
                                ("unreadable reply", again & ~limited & ~over)):
                causes[cause][lo:hi] = np.count_nonzero(mask, axis=0)
                first[cause][lo:hi] = np.where(mask.any(axis=0), mask.argmax(axis=0), n)
        unread = unreadable.sum(axis=1).astype(np.int64)
    for array in (harmful, unreadable, calls, retries, unread, tokens, *causes.values(),
                  *first.values()):
        array.flags.writeable = False
    return ManyRuns(seeds, h.record_nos, harmful, unreadable, calls, retries, unread, tokens,
                    causes, first, h.actual, unreadable_as)
