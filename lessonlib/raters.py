"""Notebook 13 - the label itself: three simulated raters and chance-corrected agreement.

Every figure of the course is scored against the human label.  This module
asks how sure that label is.  It has four parts:

1. **Agreement, from the definitions.**  ``ratings`` is one row per rater and
   one column per record.  Raw *rater agreement* is the share of records on
   which two raters say the same thing; *kappa* and *alpha* subtract what
   chance alone would give:

   * :func:`cohen_kappa` (Cohen 1960), two raters:
     ``(p_o - p_e) / (1 - p_e)`` with ``p_e = sum_k p_a(k) * p_b(k)``;
   * :func:`fleiss_kappa` (Fleiss 1971), two or more raters, chance from the
     pooled label shares; :func:`category_kappas` is its per-label form;
   * :func:`krippendorff_alpha` (Krippendorff 2011), ``1 - D_o / D_e`` over the
     coincidence matrix, with missing ratings (``None``) and a distance for the
     ``level`` of the scale: nominal, ordinal or interval.

2. **Three simulated raters** (:data:`RATERS`).  No real person's labels: each
   rater is a seeded rule that starts from a reference severity of the
   record's class (:data:`SEVERITY`, 1-5; 3 and above is harmful) and errs in
   its own documented way.  :func:`rate` gives one rater's answers on the
   two-point scale (clean / harmful) or the graded one (1-5), under the short
   or the detailed guideline (:data:`GUIDELINES`: the detailed one scales every
   error probability down).

3. **The lesson re-scored** against another label: :func:`measure_against`,
   :func:`rescore_rows` and, over many judge runs, :func:`claim_rows`.

4. **Pictures and the explorer** (matplotlib and ipywidgets are imported only
   there, so ``import lessonlib`` stays free of numpy).
"""

from __future__ import annotations

import numbers
from collections import Counter
from dataclasses import dataclass, replace

from ._checks import check_collection
from ._frozen import ReadOnlyDict
from .figures import FIGURE_WIDTH, slide_figure
from .records import CLASSES, SEED, check_records, generator, is_harmful, trace_id
from .metrics import share

LEVELS = ("nominal", "ordinal", "interval")
CLEAN, HARMFUL = "clean", "harmful"
SCALES = ("two-point", "graded")
GRADES = (1, 2, 3, 4, 5)
LINE = 3
"""On the graded scale a record is harmful from grade 3 up: the two-point answer is grade >= 3."""


# ---------------------------------------------------------------------------------------------
# 1. Agreement from its definitions
# ---------------------------------------------------------------------------------------------

def _labels(name, values, missing=False):
    values = check_collection(name, values, "a sequence of labels (one per record)", "label")
    for v in values:
        if getattr(type(v), "__hash__", None) is None:
            raise TypeError(f"{name} must hold labels (str, int, ...), found "
                            f"{type(v).__name__} {v!r}")
        if isinstance(v, float) and v != v:
            raise ValueError(f"{name} holds NaN; write None for a missing rating")
    if not missing and any(v is None for v in values):
        raise ValueError(f"{name} holds a missing rating (None); only krippendorff_alpha "
                         f"takes missing ratings")
    return values


def _pair(a, b):
    a, b = _labels("a", a), _labels("b", b)
    if len(a) != len(b):
        raise ValueError(f"a and b must label the same records: got {len(a)} and {len(b)} labels")
    return a, b


def _table(ratings, missing=False):
    """``ratings`` checked: a tuple of rows of equal length, at least two raters."""
    rows = check_collection("ratings", ratings, "one row of labels per rater (a list of "
                            "lists)", "row of labels")
    rows = tuple(_labels(f"ratings[{i}]", row, missing) for i, row in enumerate(rows))
    if len(rows) < 2:
        raise ValueError(f"ratings must hold at least two raters (rows), got {len(rows)}")
    lengths = sorted({len(row) for row in rows})
    if len(lengths) > 1:
        raise ValueError(f"ratings rows must all have the same length (one column per "
                         f"record), got lengths {lengths}")
    return rows


def _chance_is_one(name):
    return ValueError(f"{name}: chance agreement is 1 (every rating is one and the same label), "
                      f"so kappa = (p_o - p_e) / (1 - p_e) is 0/0 and undefined")


def rater_agreement(a, b):
    """Notebook 13: raw rater agreement, the share of records on which ``a`` and ``b`` match."""
    a, b = _pair(a, b)
    return sum(x == y for x, y in zip(a, b)) / len(a)


def cohen_kappa(a, b):
    """Notebook 13: Cohen's kappa of two label sequences (Cohen 1960).

    ``p_o`` is the rater agreement; ``p_e`` the agreement expected if each
    rater kept its own label shares but chose records at random.
    """
    a, b = _pair(a, b)
    n = len(a)
    p_o = rater_agreement(a, b)
    count_a, count_b = Counter(a), Counter(b)
    p_e = sum(count_a[k] * count_b[k] for k in count_a) / (n * n)
    if p_e == 1:
        raise _chance_is_one("a and b")
    return (p_o - p_e) / (1 - p_e)


def _counts(rows):
    """Per record (column): how many raters gave each label."""
    return [Counter(column) for column in zip(*rows)]


def fleiss_kappa(ratings):
    """Notebook 13: Fleiss' kappa of two or more raters (Fleiss 1971).

    ``P_bar`` is the mean, over records, of the share of rater pairs that
    agree on the record; ``P_e`` the same share if every rating were drawn
    from the pooled label shares.
    """
    rows = _table(ratings)
    m, n = len(rows), len(rows[0])
    per_record = _counts(rows)
    p_bar = sum(sum(c * (c - 1) for c in k.values()) for k in per_record) / (n * m * (m - 1))
    pooled = Counter(label for row in rows for label in row)
    p_e = sum((c / (n * m)) ** 2 for c in pooled.values())
    if p_e == 1:
        raise _chance_is_one("ratings")
    return (p_bar - p_e) / (1 - p_e)


def category_kappas(ratings):
    """Notebook 13: Fleiss' kappa for each label separately (Fleiss 1971, eq. for kappa_j).

    ``kappa_j = 1 - sum_i x_ij (m - x_ij) / (n m (m - 1) p_j (1 - p_j))``: how
    much better than chance the raters agree on whether a record gets label j.
    A label given to every rating has no kappa of its own and is left out.
    """
    rows = _table(ratings)
    m, n = len(rows), len(rows[0])
    per_record = _counts(rows)
    pooled = Counter(label for row in rows for label in row)
    out = {}
    for label in sorted(pooled, key=repr):
        p = pooled[label] / (n * m)
        if p < 1:
            split = sum(k[label] * (m - k[label]) for k in per_record)
            out[label] = 1 - split / (n * m * (m - 1) * p * (1 - p))
    if not out:
        raise _chance_is_one("ratings")
    return out


def _distance(level, values):
    """delta(c, k) for the scale ``level``; ``values`` counts how often each label occurs."""
    if level == "nominal":
        return lambda c, k: float(c != k)
    if level == "interval":
        return lambda c, k: float(c - k) ** 2
    ordered = sorted(values)

    def ordinal(c, k):     # (labels from c to k, counting the ends half) squared
        lo, hi = min(c, k), max(c, k)
        between = sum(values[g] for g in ordered if lo <= g <= hi)
        return (between - (values[c] + values[k]) / 2) ** 2
    return ordinal


def krippendorff_alpha(ratings, level="nominal"):
    """Notebook 13: Krippendorff's alpha, ``1 - D_o / D_e`` (Krippendorff 2011).

    ``None`` is a missing rating; records with fewer than two ratings do not
    count.  Each record's ratings are paired every way (a record with m
    ratings contributes weight 1 / (m - 1) per ordered pair); ``D_o`` is the
    mean distance of those pairs, ``D_e`` the mean distance of all pairs of
    pooled ratings.  ``level`` picks the distance: 'nominal' (0 or 1),
    'ordinal' (through the ranks of the labels in between) or 'interval'
    (squared difference); the last two need numeric labels.
    """
    rows = _table(ratings, missing=True)
    if not isinstance(level, str) or level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(map(repr, LEVELS))}; got {level!r}")
    if level != "nominal":
        for value in (v for row in rows for v in row if v is not None):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"level={level!r} needs numeric labels in ratings, found "
                                f"{type(value).__name__} {value!r} (use level='nominal')")
    units = [[v for v in column if v is not None] for column in zip(*rows)]
    units = [u for u in units if len(u) >= 2]
    pairs = Counter()        # the coincidence matrix o_ck
    for u in units:
        for i, c in enumerate(u):
            for j, k in enumerate(u):
                if i != j:
                    pairs[c, k] += 1 / (len(u) - 1)
    values = Counter()       # n_c
    for (c, _), weight in pairs.items():
        values[c] += weight
    total = sum(values.values())
    delta = _distance(level, values)
    d_o = sum(w * delta(c, k) for (c, k), w in pairs.items()) / total if total else 0.0
    d_e = (sum(values[c] * values[k] * delta(c, k) for c in values for k in values)
           / (total * (total - 1))) if total > 1 else 0.0
    if d_e == 0:
        raise ValueError("ratings: every pairable rating is the same label (or no record has "
                         "two ratings), so the expected disagreement D_e is 0 and alpha = "
                         "1 - D_o / D_e is 0/0 and undefined")
    return 1 - d_o / d_e


# ---------------------------------------------------------------------------------------------
# 2. Three simulated raters
# ---------------------------------------------------------------------------------------------

SEVERITY = ReadOnlyDict({"clean": 1, "indirect_instruction": 5, "hidden_field_request": 4,
                         "privilege_escalation": 5, "source_spoofing": 4, "corrupted_input": 3})
"""Reference grade of each class (1-5); a clean record that carries any flag is a 2."""
GUIDELINES = ReadOnlyDict({"short": 1.0, "detailed": 0.4})
"""Guideline -> factor on every error probability.  The short one asks 'clean or harmful?';
the detailed one describes each class and each grade with an example, so a rater slips less."""
JITTER = 0.3
"""Every rater, under the short guideline, moves a grade one step up or down with this
probability, staying on the same side of the line (it changes the graded answer only)."""


@dataclass(frozen=True)
class Rater:
    """Notebook 13: a simulated rater - a name, how it errs, and its error probabilities.

    ``miss``: a harmful record is graded 2 (just below the line).
    ``false_alarm``: a clean record that carries a flag is graded 3.
    ``careless``: a record of one of ``careless_classes`` gets a random grade 1-5.
    """

    name: str
    errs: str
    miss: float = 0.0
    false_alarm: float = 0.0
    careless: float = 0.0
    careless_classes: tuple = ()


RATERS = (
    Rater("lenient", "misses harmful records: grades one 2 (probability miss)", miss=0.3),
    Rater("strict", "flags clean records that carry a flag: grades one 3 (false_alarm)",
          false_alarm=0.5),
    Rater("careless", "guesses a grade on corrupted_input, source_spoofing (careless)",
          careless=0.5, careless_classes=("corrupted_input", "source_spoofing")),
)
"""The three simulated raters of notebook 13."""
RATER_NAMES = tuple(r.name for r in RATERS)


def severity(record):
    """Notebook 13: the reference grade of ``record`` (SEVERITY; 2 for a clean one with a flag)."""
    grade = SEVERITY[record.cls]
    return grade + 1 if record.cls == "clean" and record.features.on() else grade


def _grade(record, rater, factor, seed):
    draw = generator(trace_id(f"{seed}/{rater.name}/{record.no}"))
    slip, guess, wobble, way = draw(), draw(), draw(), draw()
    grade = severity(record)
    if record.cls in rater.careless_classes and slip < rater.careless * factor:
        return GRADES[int(guess * len(GRADES))]
    if grade >= LINE and slip < rater.miss * factor:
        return LINE - 1
    if grade == LINE - 1 and slip < rater.false_alarm * factor:
        return LINE
    if wobble < JITTER * factor:
        low, high = (1, LINE - 1) if grade < LINE else (LINE, GRADES[-1])
        return min(max(grade + (1 if way < 0.5 else -1), low), high)
    return grade


def rate(records, rater, scale="two-point", guideline="short", seed=SEED):
    """Notebook 13: one rater's answers for ``records``, in order.

    'two-point' gives 'clean' / 'harmful', 'graded' the grades 1-5; both come
    from the same judgement (harmful = grade >= 3).  Each (seed, rater, record)
    has its own generator, so the answers do not depend on which other records
    are rated, and both guidelines use the same draws.
    """
    grades = tuple(_grade(r, rater, GUIDELINES[guideline], seed) for r in records)
    if scale == "graded":
        return grades
    return tuple(HARMFUL if g >= LINE else CLEAN for g in grades)


def ratings(records, scale="two-point", guideline="short", seed=SEED, raters=RATERS):
    """Notebook 13: the ratings table, a row per rater (``raters`` order), a column per record."""
    return tuple(rate(records, r, scale, guideline, seed) for r in raters)


def human_labels(records):
    """Notebook 13: the human label of each record as 'clean' / 'harmful'."""
    return tuple(HARMFUL if is_harmful(r) else CLEAN for r in records)


def majority(ratings):
    """Notebook 13: per record, the label most raters gave (a tie goes to the earliest row's)."""
    out = []
    for column in zip(*ratings):
        counts = Counter(column)
        top = max(counts.values())
        out.append(next(v for v in column if counts[v] == top))
    return tuple(out)


def with_rates(miss=RATERS[0].miss, false_alarm=RATERS[1].false_alarm,
               careless=RATERS[2].careless):
    """Notebook 13: the three raters with other error probabilities (what the explorer turns)."""
    return (replace(RATERS[0], miss=miss), replace(RATERS[1], false_alarm=false_alarm),
            replace(RATERS[2], careless=careless))


# ---------------------------------------------------------------------------------------------
# 3. The lesson re-scored against another label
# ---------------------------------------------------------------------------------------------

FIGURES = ("precision", "recall", "false_block_rate", "agreement")


def _truth(truth):
    return tuple(t == HARMFUL for t in truth)


def measure_against(records, decide, truth):
    """Notebook 13: ``measure`` plus agreement, scored against ``truth`` (one label a record).

    ``truth`` holds 'clean' / 'harmful' in record order: a rater's two-point
    answers, the majority, or :func:`human_labels` (which gives ``measure``).
    """
    return _score([bool(decide(r)) for r in records], _truth(truth))


def _score(flagged, actual):
    """The counts and the four figures of decisions ``flagged`` against labels ``actual``."""
    tp = sum(f and a for f, a in zip(flagged, actual))
    fp = sum(f and not a for f, a in zip(flagged, actual))
    fn = sum(a and not f for f, a in zip(flagged, actual))
    tn = len(flagged) - tp - fp - fn
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "precision": share(tp, tp + fp),
            "recall": share(tp, tp + fn), "false_block_rate": share(fp, fp + tn),
            "agreement": (tp + tn) / len(flagged)}


def label_sets(records, scale_rows):
    """Notebook 13: {name: labels} - the human label, each rater's two-point row, the majority."""
    out = {"human": human_labels(records)}
    out.update(zip(RATER_NAMES, scale_rows))
    out["majority"] = majority(scale_rows)
    return out


def rescore_rows(records, decisions, labels):
    """Notebook 13: one row per (label, approach): the four figures against that label.

    ``decisions`` maps an approach name to its decide function; ``labels``
    maps a label name to its labels (e.g. :func:`label_sets`).
    """
    actual = {name: _truth(truth) for name, truth in labels.items()}
    flagged = {approach: [bool(decide(r)) for r in records]
               for approach, decide in decisions.items()}
    rows = []
    for name in labels:
        for approach in decisions:
            scores = _score(flagged[approach], actual[name])
            rows.append({"label": name, "approach": approach,
                         **{k: scores[k] for k in FIGURES}})
    return rows


def rescore_text(rows):
    """Notebook 13: the rows of :func:`rescore_rows` as a fixed-width table (under 80 columns)."""
    lines = [f"{'label':<10}{'approach':<12}{'precision':>10}{'recall':>9}"
             f"{'false block':>13}{'agreement':>11}"]
    last = None
    for row in rows:
        name = row["label"] if row["label"] != last else ""
        last = row["label"]
        lines.append(f"{name:<10}{row['approach']:<12}{row['precision']:>10.4f}"
                     f"{row['recall']:>9.4f}{row['false_block_rate']:>13.4f}"
                     f"{row['agreement']:>11.4f}")
    return "\n".join(lines)


def claim_rows(records, runs, labels, criteria):
    """Notebook 13: the lesson's two claims under each label, over many judge runs.

    For each label: the judge's recall minus the criteria's, in the first run
    and as the 95% run band (``variance.run_band``) over ``runs`` (a
    ``ManyRuns``); and the same for the false block rate.  ``criteria`` is the
    filter's decide function.
    """
    import numpy as np

    from .variance import run_band

    rows = []
    for name, truth in labels.items():
        actual = np.array(_truth(truth))
        crit = measure_against(records, criteria, truth)
        tp = np.count_nonzero(runs.harmful & actual, axis=1)
        fp = np.count_nonzero(runs.harmful & ~actual, axis=1)
        recall = np.round(tp / actual.sum(), 4) - crit["recall"]
        fbr = np.round(fp / (~actual).sum(), 4) - crit["false_block_rate"]
        rows.append({"label": name, "recall gain": float(recall[0]),
                     "gain band": run_band(recall), "fbr diff": float(fbr[0]),
                     "fbr band": run_band(fbr)})
    return rows


def claim_text(rows):
    """Notebook 13: the rows of :func:`claim_rows` as a table: does each claim hold per label?"""
    lines = [f"{'label':<10}{'recall gain':>12}{'95% run band':>19}{'FBR diff':>10}"
             f"{'95% run band':>19}"]
    for row in rows:
        (g0, g1), (f0, f1) = row["gain band"], row["fbr band"]
        lines.append(f"{row['label']:<10}{row['recall gain']:>+12.4f}"
                     f"{f'{g0:+.4f} .. {g1:+.4f}':>19}{row['fbr diff']:>+10.4f}"
                     f"{f'{f0:+.4f} .. {f1:+.4f}':>19}")
    return "\n".join(lines)


def class_text(records, rows):
    """Notebook 13: per true class, how the raters' two-point ``rows`` agree.

    Columns: records in the class; the share on which every rater agrees;
    each rater's rater agreement with the human label; Fleiss' kappa of the
    raters within the class ('n/a' where every rating in it is the same, 0/0).
    """
    names = [f"row {i}" for i in range(len(rows))] if len(rows) != len(RATERS) else RATER_NAMES
    lines = [f"{'class':<22}{'records':>8}{'all agree':>10}"
             + "".join(f"{n[:9]:>10}" for n in names) + f"{'kappa':>9}"]
    for cls in CLASSES:
        at = [i for i, r in enumerate(records) if r.cls == cls]
        if not at:
            continue
        sub = [[row[i] for i in at] for row in rows]
        truth = CLEAN if cls == "clean" else HARMFUL
        same = sum(len(set(col)) == 1 for col in zip(*sub)) / len(at)
        try:
            kappa = f"{fleiss_kappa(sub):>9.4f}"
        except ValueError:
            kappa = f"{'n/a':>9}"
        lines.append(f"{cls:<22}{len(at):>8}{same:>10.4f}"
                     + "".join(f"{sum(x == truth for x in row) / len(at):>10.4f}" for row in sub)
                     + kappa)
    return "\n".join(lines)


def spread_rows(records, runs, labels, criteria):
    """Notebook 13: per figure, how far it moves when only the label changes, next to the judge.

    The range (highest - lowest) of each figure over ``labels`` (a dict name
    -> labels), for the ``criteria`` decide function and for the judge's first
    run (run 0 of ``runs``); beside it the judge's own two-run difference (runs 0
    and 1 of ``runs``, human label, as in notebook 04) and the width of its 95% run band over
    ``runs`` (notebook 06).
    """
    from .variance import figures, run_band

    per_run = figures(runs)
    rows = rescore_rows(records, {"criteria": criteria, "judge run 1": runs.run(0).decide},
                        labels)
    out = []
    for figure in FIGURES:
        moved = {}
        for approach in ("criteria", "judge run 1"):
            values = [row[figure] for row in rows if row["approach"] == approach]
            moved[approach] = max(values) - min(values)
        low, high = run_band(per_run[figure])
        out.append({"figure": figure, "criteria across labels": moved["criteria"],
                    "judge across labels": moved["judge run 1"],
                    "judge two-run difference": abs(float(per_run[figure][1]
                                                          - per_run[figure][0])),
                    "judge run band width": high - low})
    return out


def spread_text(rows):
    """Notebook 13: the rows of :func:`spread_rows` as a table (under 80 columns)."""
    lines = [f"{'':<18}{'moved by the label only':^26}{'the judge on the human label':^32}",
             f"{'figure':<18}{'criteria':>12}{'judge':>12}{'two-run diff':>16}"
             f"{'95% band width':>16}"]
    for row in rows:
        lines.append(f"{row['figure'].replace('_', ' '):<18}"
                     f"{row['criteria across labels']:>12.4f}{row['judge across labels']:>12.4f}"
                     f"{row['judge two-run difference']:>16.4f}"
                     f"{row['judge run band width']:>16.4f}")
    return "\n".join(lines)


def judge_rows(panel_run, records):
    """Notebook 13: a panel run's judges as raters: one row of 'clean' / 'harmful' per judge.

    A judge flags a record when its score is >= 0.5 (the panel's own rule);
    an abstaining judge's rating is None (only krippendorff_alpha takes it).
    """
    scores = panel_run.judge_scores
    judges = len(next(iter(scores.values())))
    return tuple(tuple(None if scores[r.no][j] is None else
                       HARMFUL if scores[r.no][j] >= 0.5 else CLEAN for r in records)
                 for j in range(judges))


# ---------------------------------------------------------------------------------------------
# 4. Pictures and the explorer
# ---------------------------------------------------------------------------------------------

def pair_rows(named):
    """Notebook 13: rater agreement and Cohen's kappa for every pair of ``named`` label rows."""
    names = list(named)
    return [{"pair": f"{a} / {b}", "agreement": rater_agreement(named[a], named[b]),
             "kappa": cohen_kappa(named[a], named[b])}
            for i, a in enumerate(names) for b in names[i + 1:]]


def scale_rows(records, seed=SEED, raters=RATERS):
    """Notebook 13: per guideline, the three raters' agreement on each scale and level."""
    rows = []
    for guideline in GUIDELINES:
        two = ratings(records, "two-point", guideline, seed, raters)
        graded = ratings(records, "graded", guideline, seed, raters)
        rows.append({"guideline": guideline, "two-point kappa": fleiss_kappa(two),
                     "graded nominal": krippendorff_alpha(graded, "nominal"),
                     "graded ordinal": krippendorff_alpha(graded, "ordinal"),
                     "graded interval": krippendorff_alpha(graded, "interval")})
    return rows


@slide_figure
def plot_pairs(rows):
    """Notebook 13: raw agreement against kappa, one point per pair (``pair_rows``)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.4))
    for i, row in enumerate(rows):
        marker = "x" if "always" in row["pair"] else "o"
        ax.scatter(row["agreement"], row["kappa"], color=f"C{i % 10}", marker=marker, s=50,
                   zorder=3, label=row["pair"])
    ax.axhline(0, color="0.5", linestyle=":")
    ax.set(xlim=(0.5, 1.0), ylim=(-0.1, 1.02), xlabel="rater agreement (raw share)",
           ylabel="Cohen's kappa", title="raw agreement against chance-corrected agreement")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    fig.tight_layout()
    return fig


@slide_figure
def plot_scales(rows):
    """Notebook 13: bars per guideline: two-point kappa, graded alpha at three levels."""
    import matplotlib.pyplot as plt

    keys = [k for k in rows[0] if k != "guideline"]
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.2))
    width = 0.8 / len(keys)
    for j, key in enumerate(keys):
        xs = [i + (j - (len(keys) - 1) / 2) * width for i in range(len(rows))]
        ax.bar(xs, [row[key] for row in rows], width, label=key, color=f"C{j}")
    ax.set_xticks(range(len(rows)), [f"{row['guideline']} guideline" for row in rows])
    ax.set(ylim=(0, 1), ylabel="kappa / alpha",
           title="three simulated raters: scale, level and guideline")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=len(keys),
              frameon=False)
    fig.tight_layout()
    return fig


def raters_text(records, judge_decide, miss=RATERS[0].miss,
                false_alarm=RATERS[1].false_alarm, careless=RATERS[2].careless,
                guideline="short", criteria=None):
    """Notebook 13 explorer: error rates in, kappa, alpha and the re-scored table out.

    The first lines name every setting: the three error probabilities (as the explorer's
    sliders name them) and the guideline."""
    from .criteria import DEFAULT_RULES, make_rule_filter

    raters = with_rates(miss, false_alarm, careless)
    graded = ratings(records, "graded", guideline, SEED, raters)
    two = tuple(tuple(HARMFUL if g >= LINE else CLEAN for g in row) for row in graded)
    labels = label_sets(records, two)
    human = labels["human"]
    # every setting is named (the slides show a snapshot, with no controls): the sliders'
    # words and values, then the guideline
    lines = [f"lenient: miss {miss:.2f} , strict: false alarm {false_alarm:.2f} , "
             f"careless: guess {careless:.2f}",
             f"simulated raters, {guideline} guideline: each against the human label"]
    for name in RATER_NAMES:
        lines.append(f"  {name:<9} rater agreement {rater_agreement(labels[name], human):.4f}"
                     f" , kappa {cohen_kappa(labels[name], human):.4f}")
    lines.append(f"three raters: Fleiss kappa {fleiss_kappa(two):.4f} ; graded alpha nominal "
                 f"{krippendorff_alpha(graded):.4f} , ordinal "
                 f"{krippendorff_alpha(graded, 'ordinal'):.4f}")
    lines.append("")
    decisions = {"criteria": criteria or make_rule_filter(DEFAULT_RULES),
                 "judge run 1": judge_decide}
    lines.append(rescore_text(rescore_rows(records, decisions, labels)))
    return "\n".join(lines)


def raters_explorer(records=None):
    """Notebook 13: sliders for each rater's error probability and the guideline.

    Each change re-rates the records and redraws kappa, alpha and the criteria
    filter and the judge (run 1, the lesson's seed) re-scored against each label.
    """
    import ipywidgets as widgets

    from .judge import run_judge
    from .records import make_records
    from .widgets import Explorer

    records = make_records() if records is None else check_records(records)
    decide = run_judge(records, SEED).decide
    # one label width for every control, so the sliders start at the same x; the guideline
    # buttons sit on their label's line (a flex row; alone they would go below it)
    style = {"description_width": "10em"}

    def slider(value, label):
        return widgets.FloatSlider(value=value, min=0.0, max=1.0, step=0.05, readout_format=".2f",
                                   continuous_update=False, description=label, style=style,
                                   layout=widgets.Layout(width="420px"))

    controls = {"miss": slider(RATERS[0].miss, "lenient: miss"),
                "false_alarm": slider(RATERS[1].false_alarm, "strict: false alarm"),
                "careless": slider(RATERS[2].careless, "careless: guess"),
                "guideline": widgets.ToggleButtons(options=list(GUIDELINES), value="short",
                                                   description="guideline", style=style,
                                                   layout=widgets.Layout(display="flex",
                                                                         align_items="center"))}
    return Explorer("raters explorer", controls,
                    lambda **s: raters_text(records, decide, **s))
