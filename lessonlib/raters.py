"""Notebook 14 - the label itself: three simulated raters and the lesson re-scored.

The agreement statistics live in :mod:`lessonlib.agreement_stats`, the explorer in
:mod:`lessonlib.widgets`.  Here:

1. **Three simulated raters** (:data:`RATERS`), no real person's labels: each a seeded
   rule that starts from the reference grade of the record's class (:data:`SEVERITY`,
   1-5; 3 and above is harmful) and errs in its own documented way; :func:`rate` and
   :func:`rating_table` give their answers on the two-point or the graded scale.
2. **The lesson re-scored** against another label (:func:`rescore_rows`); notebook 14
   computes the two claims over many judge runs in its own cells.
3. **Pictures** (matplotlib is imported only there).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from ._checks import (
    check_choice,
    check_collection,
    check_instance,
    check_items,
    check_number,
    check_seed,
)
from ._frozen import ReadOnlyDict
from ._rng import generator, trace_id
from .agreement_stats import (
    LEVELS,
    category_kappas,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    rater_agreement,
)
from .figures import FIGURE_WIDTH, slide_figure
from .metrics import four_counts, rates
from .records import SEED, Record, check_records, is_harmful

if TYPE_CHECKING:
    from matplotlib.figure import Figure

H = TypeVar("H", bound=Hashable)

__all__ = [
    "ANSWERS",
    "ANSWER_CLEAN",
    "ANSWER_HARMFUL",
    "GRADES",
    "JITTER",
    "LEVELS",
    "LINE",
    "RATERS",
    "RATER_GUIDELINES",
    "RATER_NAMES",
    "SCALES",
    "SEVERITY",
    "Rater",
    "category_kappas",
    "cohen_kappa",
    "fleiss_kappa",
    "human_labels",
    "krippendorff_alpha",
    "label_sets",
    "majority",
    "pair_rows",
    "plot_pairs",
    "plot_scales",
    "rate",
    "rater_agreement",
    "rating_table",
    "rescore_rows",
    "with_rates",
]

ANSWERS = ("clean", "harmful")
"""A rater's two-point answers (English words; the judge's labels are 'temiz' / 'zararli')."""
ANSWER_CLEAN, ANSWER_HARMFUL = ANSWERS
SCALES = ("two-point", "graded")
GRADES = (1, 2, 3, 4, 5)
LINE = 3
"""On the graded scale a record is harmful from grade 3 up: the two-point answer is grade >= 3."""


# ---------------------------------------------------------------------------------------------
# 1. Three simulated raters
# ---------------------------------------------------------------------------------------------

SEVERITY = ReadOnlyDict(
    {
        "clean": 1,
        "indirect_instruction": 5,
        "hidden_field_request": 4,
        "privilege_escalation": 5,
        "source_spoofing": 4,
        "corrupted_input": 3,
    }
)
"""Reference grade of each class (1-5); a clean record that carries any flag is a 2."""
RATER_GUIDELINES = ReadOnlyDict({"short": 1.0, "detailed": 0.4})
"""Guideline -> factor on every error probability.  The short one asks 'clean or harmful?';
the detailed one describes each class and each grade with an example, so a rater slips less."""
JITTER = 0.3
"""Every rater, under the short guideline, moves a grade one step up or down with this
probability, staying on the same side of the line (it changes the graded answer only)."""


@dataclass(frozen=True)
class Rater:
    """Notebook 14: a simulated rater - a name, how it errs, and its error probabilities.

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
    Rater(
        "strict",
        "flags clean records that carry a flag: grades one 3 (false_alarm)",
        false_alarm=0.5,
    ),
    Rater(
        "careless",
        "guesses a grade on corrupted_input, source_spoofing (careless)",
        careless=0.5,
        careless_classes=("corrupted_input", "source_spoofing"),
    ),
)
"""The three simulated raters of notebook 14."""
RATER_NAMES = tuple(r.name for r in RATERS)


# The doors' checks of the study helpers (notebook 14): each argument's kind, once a call.


def _mapping(name, value, what):
    if not isinstance(value, Mapping) or not value:
        raise TypeError(f"{name} must be a non-empty mapping {what}, got {type(value).__name__}")
    return value


def _table_rows(rows):
    """A table's rows (what a ``*_rows`` helper returns): a non-empty collection of dicts."""
    return check_items("rows", rows, Mapping)


def _label_rows(name, rows):
    """A ratings table: a non-empty collection of label rows (one a rater), not one row."""
    rows = check_collection(
        name, rows, "one row of labels per rater (e.g. a tuple of rows)", "row"
    )
    if any(isinstance(row, (str, bytes)) or not hasattr(row, "__len__") for row in rows):
        raise TypeError(f"{name} must hold rows of labels (one per rater), found {rows[0]!r}")
    return rows


def _grade(record, rater, factor, seed):
    draw = generator(trace_id(f"{seed}/{rater.name}/{record.no}"))
    slip, guess, wobble, way = draw(), draw(), draw(), draw()
    grade = SEVERITY[record.cls] + (record.cls == "clean" and bool(record.features.on()))
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


def rate(
    records: Sequence[Record],
    rater: Rater,
    scale: str = "two-point",
    guideline: str = "short",
    seed: int = SEED,
) -> tuple[Any, ...]:
    """Notebook 14: one rater's answers for ``records``, in order.

    ``scale`` 'two-point' gives 'clean' / 'harmful', 'graded' the grades 1-5;
    both come from the same judgement (harmful = grade >= 3).  ``guideline`` is
    a key of RATER_GUIDELINES.  Each (seed, rater, record) has its own
    generator, so the answers do not depend on which other records are rated,
    and both guidelines use the same draws.
    """
    check_instance("rater", rater, Rater)
    return rating_table(records, scale, guideline, seed, (rater,))[0]


def rating_table(
    records: Sequence[Record],
    scale: str = "two-point",
    guideline: str = "short",
    seed: int = SEED,
    raters: Sequence[Rater] = RATERS,
) -> tuple[tuple[Any, ...], ...]:
    """Notebook 14: the ratings table, a row per rater (``raters`` order), a column per record."""
    records = check_records(records)
    check_choice("scale", scale, SCALES)
    factor = RATER_GUIDELINES[check_choice("guideline", guideline, tuple(RATER_GUIDELINES))]
    check_seed(seed)
    rows = []
    for i, rater in enumerate(raters):
        check_instance(f"raters[{i}]", rater, Rater)
        grades = [_grade(r, rater, factor, seed) for r in records]
        rows.append(tuple(grades if scale == "graded" else (ANSWERS[g >= LINE] for g in grades)))
    return tuple(rows)


def human_labels(records: Iterable[Record]) -> tuple[str, ...]:
    """Notebook 14: the human label of each record as 'clean' / 'harmful'."""
    return tuple(ANSWER_HARMFUL if is_harmful(r) else ANSWER_CLEAN for r in check_records(records))


def majority(table: Sequence[Sequence[H]]) -> tuple[H, ...]:
    """Notebook 14: per record, the label most raters gave (a tie goes to the earliest row's).

    ``table`` is a ratings table: one row of labels per rater."""
    out = []
    for column in zip(*table):
        counts = Counter(column)
        top = max(counts.values())
        out.append(next(v for v in column if counts[v] == top))
    return tuple(out)


def with_rates(
    miss: float = RATERS[0].miss,
    false_alarm: float = RATERS[1].false_alarm,
    careless: float = RATERS[2].careless,
) -> tuple[Rater, Rater, Rater]:
    """Notebook 14: the three raters with other error probabilities (what the explorer turns)."""
    for name, value in (("miss", miss), ("false_alarm", false_alarm), ("careless", careless)):
        if not 0 <= check_number(name, value) <= 1:
            raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
    return (
        replace(RATERS[0], miss=miss),
        replace(RATERS[1], false_alarm=false_alarm),
        replace(RATERS[2], careless=careless),
    )


# ---------------------------------------------------------------------------------------------
# 2. The lesson re-scored against another label
# ---------------------------------------------------------------------------------------------


def label_sets(
    records: Sequence[Record], scale_rows: Sequence[Sequence[str]]
) -> dict[str, Sequence[str]]:
    """Notebook 14: {name: labels} - the human label, each rater's two-point row, the majority."""
    records = check_records(records)
    scale_rows = _label_rows("scale_rows", scale_rows)
    out: dict[str, Sequence[str]] = {"human": human_labels(records)}
    out.update(zip(RATER_NAMES, scale_rows))
    out["majority"] = majority(scale_rows)
    return out


def rescore_rows(
    records: Sequence[Record],
    decisions: Mapping[str, Callable[[Record], bool]],
    labels: Mapping[str, Sequence[str]],
) -> list[dict[str, Any]]:
    """Notebook 14: one row per (label, approach): the four figures against that label.

    ``decisions`` maps an approach name to its decide function; ``labels``
    maps a label name to its labels (e.g. :func:`label_sets`).
    """
    records = check_records(records)
    _mapping("decisions", decisions, "approach name -> decide function")
    _mapping("labels", labels, "label name -> labels (e.g. label_sets(...))")
    rows = []
    for name, truth in labels.items():
        actual = [t == ANSWER_HARMFUL for t in truth]
        for approach, decide in decisions.items():
            figures = rates(*four_counts(actual, [bool(decide(r)) for r in records]))
            rows.append({"label": name, "approach": approach, **figures})
    return rows


# ---------------------------------------------------------------------------------------------
# 3. Pictures
# ---------------------------------------------------------------------------------------------


def pair_rows(named: Mapping[str, Sequence[Hashable]]) -> list[dict[str, Any]]:
    """Notebook 14: rater agreement and Cohen's kappa for every pair of ``named`` label rows."""
    _mapping("named", named, "name -> labels (e.g. label_sets(...))")
    names = list(named)
    return [
        {
            "pair": f"{a} / {b}",
            "agreement": rater_agreement(named[a], named[b]),
            "kappa": cohen_kappa(named[a], named[b]),
        }
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    ]


@slide_figure
def plot_pairs(rows: Sequence[Mapping[str, Any]]) -> Figure:
    """Notebook 14: raw agreement against kappa, one point per pair (``pair_rows``), each
    labelled where it stands (no colour legend): the pairs with the always-clean labeller
    as crosses on the zero line, named by the other rater."""
    import matplotlib.pyplot as plt

    rows = _table_rows(rows)
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.6))
    always = [row for row in rows if "always" in row["pair"]]
    real = sorted((row for row in rows if "always" not in row["pair"]), key=lambda r: r["kappa"])
    ax.scatter([r["agreement"] for r in real], [r["kappa"] for r in real], color="C0", s=50)
    ax.scatter(
        [r["agreement"] for r in always], [r["kappa"] for r in always], color="0.4", marker="x"
    )
    # labels to the left of their points, pushed apart upwards where two would overlap
    last = -1.0
    for r in real:
        y = max(r["kappa"], last + 0.075)
        last = y
        ax.annotate(
            r["pair"],
            (r["agreement"], r["kappa"]),
            xytext=(r["agreement"] - 0.015, y),
            ha="right",
            va="center",
            arrowprops={"arrowstyle": "-", "color": "0.6"},
        )
    for k, r in enumerate(sorted(always, key=lambda r: r["agreement"])):
        other = r["pair"].replace("always clean", "").strip(" /")
        ax.annotate(
            other,
            (r["agreement"], 0),
            xytext=(0, 10 + 18 * (k % 2)),
            textcoords="offset points",
            ha="center",
            color="0.3",
        )
    ax.annotate(
        "always clean with:", (0.5, 0), xytext=(6, -22), textcoords="offset points", color="0.3"
    )
    ax.axhline(0, color="0.5", linestyle=":")
    ax.set(
        xlim=(0.5, 1.0),
        ylim=(-0.15, 1.1),
        xlabel="rater agreement (raw share)",
        ylabel="Cohen's kappa",
        title="raw agreement against chance-corrected agreement",
    )
    fig.tight_layout()
    return fig


@slide_figure
def plot_scales(rows: Sequence[Mapping[str, Any]]) -> Figure:
    """Notebook 14: bars per guideline: two-point kappa, graded alpha at three levels."""
    import matplotlib.pyplot as plt

    rows = _table_rows(rows)
    keys = [k for k in rows[0] if k != "guideline"]
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.2))
    width = 0.8 / len(keys)
    for j, key in enumerate(keys):
        xs = [i + (j - (len(keys) - 1) / 2) * width for i in range(len(rows))]
        ax.bar(xs, [row[key] for row in rows], width, label=key, color=f"C{j}")
    ax.set_xticks(range(len(rows)), [f"{row['guideline']} guideline" for row in rows])
    ax.set(
        ylim=(0, 1),
        ylabel="kappa / alpha",
        title="three simulated raters: scale, level and guideline",
    )
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=len(keys), frameon=False)
    fig.tight_layout()
    return fig
