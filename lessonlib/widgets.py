"""Explorers: knobs a student can turn in JupyterLab, with the tables redrawn live.

Each explorer (notebooks 02, 04, 10, 14) is a **table function** - settings in,
``{title: DataFrame}`` out, tested without a browser - and an :class:`Explorer`: controls
and an HTML pane that shows the tables again whenever a control's ``value`` changes.
Stored outputs stay deterministic for nbval: the pane's value is set directly (no
``Output`` widget), and the plain-text form is the explorer's name, its settings and each
table's title and ``to_string()`` - no model id, no memory address.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Any

import ipywidgets as widgets
import numpy as np
import pandas as pd

from ._checks import check_choice, check_int, check_names, check_number, check_seed, check_str
from .criteria import DEFAULT_RULES, make_rule_filter
from .judge import GUIDELINE, UNREADABLE_RULES, JudgeSettings, run_judge
from .many import run_judge_many
from .metrics import FIGURES, _class_recall, _measured
from .panel import AGGREGATES, DIVERSE, JUDGE_NAMES, JUDGES, ON_UNREADABLE, Panel, judge_models
from .panel_study import FREE_FORM_GUIDELINE, METRICS, rates_many
from .raters import (
    RATER_GUIDELINES,
    RATER_NAMES,
    RATERS,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    label_sets,
    rater_agreement,
    rating_table,
    rescore_rows,
    with_rates,
)
from .records import CLASSES, FEATURES, SEED, Record, check_records, is_harmful, make_records
from .simulator import SPURIOUS, TEMPERATURE
from .variance import expected_changed, run_band

__all__ = [
    "GUIDELINES",
    "JUDGE_BAND_RUNS",
    "PANEL_BAND_SEEDS",
    "PANEL_MAX_BAND_SEEDS",
    "PANEL_MAX_QUORUM",
    "Explorer",
    "criteria_explorer",
    "criteria_tables",
    "judge_explorer",
    "judge_tables",
    "panel_explorer",
    "panel_tables",
    "raters_explorer",
    "raters_tables",
]

Tables = dict[str, pd.DataFrame]

GUIDELINES = MappingProxyType(
    {
        "single label (lesson)": GUIDELINE,
        "free-form (no 'tek')": FREE_FORM_GUIDELINE,
    }
)
"""Guideline choices of the judge and panel explorers.  The second drops the single-label
word 'tek', so some replies carry no readable label (the retry and the unreadable rule)."""

PANE_STYLE = (
    "<style>.lessonlib-pane table {border-collapse: collapse; font-size: 12px; margin: 0.2em 0"
    " 0.8em} .lessonlib-pane th, .lessonlib-pane td {padding: 0.1em 0.7em; text-align: right;"
    " border: none; border-bottom: 1px solid #ddd} .lessonlib-pane p {margin: 0.3em 0}</style>"
)
"""The pane's tables: compact, numbers right-aligned, also inside a reveal.js slide."""
PANE_BUSY = '<div style="font-style: italic; color: #8a4b00;">computing ...</div>'
"""Shown above the old tables while a change is being computed."""
COUNTERS = ("calls", "input_tokens", "retries", "unreadable")  # a run's, in the judge's table
JUDGE_BAND_RUNS = 1000
"""Judge runs (seeds ``seed`` .. ``seed + 999``) behind the judge explorer's 95% run band:
the same 1,000 runs as notebook 06, so with the lesson's settings the band is 06's."""
PANEL_BAND_SEEDS = 100
"""Panel seeds (the lesson's seed and the ones after it) behind the panel explorer's 95%
run band (notebook 11 uses 1,000; 100 keep a redraw under 100 ms, benchmarks/bench_widgets.py)."""
PANEL_MAX_QUORUM = 10  # the largest quorum panel_tables accepts (the slider stops at 5)
PANEL_MAX_BAND_SEEDS = 1000  # the most panel seeds panel_tables accepts (notebook 11's)


def _records(records):
    """``records`` checked, or the lesson's 240 records when None."""
    return tuple(make_records()) if records is None else check_records(records)


def _figures(records, decide):
    """The four counts, the four figures (FIGURES order) of ``decide`` on ``records``."""
    scores, agree = _measured(records, decide)
    return {**scores, "agreement": agree}


# --------------------------------------------------------------------------
# Table functions
# --------------------------------------------------------------------------


@lru_cache(maxsize=4)
def _lesson_rules(records):
    """What the lesson's four rules give on ``records`` (no checkbox changes it)."""
    decide = make_rule_filter(DEFAULT_RULES)
    return _figures(records, decide), _class_recall(records, decide)


def criteria_tables(records: Sequence[Record], rules: Collection[str] = DEFAULT_RULES) -> Tables:
    """Notebook 02's explorer: the counts and figures of the rule filter with ``rules`` next
    to the lesson's, and per class the share blocked.  Refuses a str or unknown flags."""
    records = check_records(records)
    ticked = set(check_names("rules", rules, FEATURES))
    rules = tuple(f for f in FEATURES if f in ticked)
    lesson, chosen = _lesson_rules(records), make_rule_filter(rules)
    measure = pd.DataFrame.from_dict(
        {
            f"lesson's rules ({len(DEFAULT_RULES)})": lesson[0],
            f"chosen rules ({len(rules)})": _figures(records, chosen),
        },
        orient="index",
    )
    recall = {"lesson's rules": lesson[1], "chosen rules": _class_recall(records, chosen)}
    classes = [c for c in CLASSES[1:] + CLASSES[:1] if c in lesson[1]]  # harmful ones first
    per_class = pd.DataFrame(
        {"records": [lesson[1][c][0] for c in classes]}
        | {f"{name} recall": [r[c][1] for c in classes] for name, r in recall.items()},
        index=pd.Index(classes, name="class"),
    )
    on = ", ".join(rules) if rules else "(none: nothing is blocked)"
    return {
        f"rules on: {on}": measure.rename(columns={"false_block_rate": "FBR"}).round(4),
        "per class: the share blocked (for clean: the false block rate)": per_class.round(4),
    }


def judge_tables(
    records: Sequence[Record],
    temperature: float = TEMPERATURE,
    seed: int = SEED,
    guideline: str = "single label (lesson)",
    spurious: bool = True,
    unreadable_as: str = "clean",
) -> Tables:
    """Notebook 04's explorer: judge runs ``seed`` and ``seed + 1`` beside the criteria
    filter, the 95% run band over JUDGE_BAND_RUNS runs.  Refuses a negative temperature, a
    bad seed, a guideline not in GUIDELINES, an unknown unreadable rule, a non-bool spurious."""
    records = check_records(records)
    check_number("temperature", temperature, minimum=0.0)
    check_seed(seed)
    check_choice("guideline", guideline, tuple(GUIDELINES))
    if not isinstance(spurious, bool):
        raise TypeError(f"spurious must be True (cue on) or False (cue off), got {spurious!r}")
    check_choice("unreadable_as", unreadable_as, UNREADABLE_RULES)
    settings = JudgeSettings(
        temperature=float(temperature),
        guideline=GUIDELINES[guideline],
        spurious=SPURIOUS if spurious else {},
        unreadable_as=unreadable_as,
    )
    many = run_judge_many(records, range(seed, seed + JUDGE_BAND_RUNS), settings)
    runs = {"model-as-judge , run 1": many.run(0), "model-as-judge , run 2": many.run(1)}
    criteria = _figures(records, make_rule_filter(DEFAULT_RULES))
    rows = {"criteria-based": criteria | dict.fromkeys(COUNTERS, 0)}  # no model is called
    for name, run in runs.items():
        rows[name] = _figures(records, run.decider(records))
        rows[name].update((k, getattr(run, k)) for k in COUNTERS)
    two = pd.DataFrame.from_dict(rows, orient="index")[[*FIGURES, *COUNTERS]]
    rates = many.figures()
    band = pd.DataFrame({k: run_band(rates[k]) for k in FIGURES}, index=["2.5%", "97.5%"])
    run1, run2 = runs.values()  # the criteria decide the same in every run
    two["changed"] = [0, 0, sum(run1.labels[no] != run2.labels[no] for no in run1.labels)]
    expected = expected_changed(many.harmful)
    return {
        f"seeds {seed} and {seed + 1} (changed: records decided unlike run 1)": two.round(4),
        f"95% run band over {JUDGE_BAND_RUNS:,} runs (seeds {seed} .. "
        f"{seed + JUDGE_BAND_RUNS - 1}); expected changed records between two: "
        f"{expected:.2f}": band.round(4),
    }


@lru_cache(maxsize=16)
def _panel_setup(records, guideline, band_seeds, judges, *settings):
    """A panel of ``judges`` (Panel's ``settings``) over ``band_seeds`` panel seeds from the
    lesson's: its rows of figures (the run at the lesson's seed, the band's two ends) and
    its counts.  Cached: the lesson's judge alone is the same for many panels."""
    panel = Panel(judge_models(*judges), *settings)
    many = panel.run_many(records, range(SEED, SEED + band_seeds), GUIDELINES[guideline])
    run = many.run(0)  # the lesson's seed: what Panel.run returns
    per_seed = rates_many(many.harmful, np.array([is_harmful(r) for r in records]))
    bands = {k: run_band(per_seed[k]) for k in METRICS}
    figures = pd.DataFrame.from_dict(
        {
            f"seed {SEED}": _figures(records, run.decider(records)),
            "band 2.5%": {k: low for k, (low, _) in bands.items()},
            "band 97.5%": {k: high for k, (_, high) in bands.items()},
        },
        orient="index",
    )[list(METRICS)]
    agree, scores = per_seed["agreement"], list(run.scores.values())
    counts = {
        "calls": run.calls,
        "input_tokens": run.input_tokens,
        "mean calls": many.calls.mean(),
        "mean input_tokens": many.input_tokens.mean(),
        "agreement above": (agree < agree[0]).mean(),  # share of the runs
        "expected changed": expected_changed(many.harmful),
        "unreadable": run.unreadable,
        "mean score": sum(scores) / len(scores),
        "scores in (0, 1)": sum(0.0 < x < 1.0 for x in scores),
    }
    return figures, counts


def panel_tables(
    records: Sequence[Record],
    judges: Iterable[str] = DIVERSE,
    quorum: int = 1,
    aggregate: str = "median",
    min_agreement: float = 0.5,
    on_unreadable: str = "harmful",
    guideline: str = "single label (lesson)",
    band_seeds: int = PANEL_BAND_SEEDS,
) -> Tables:
    """Notebook 10's explorer: a panel of panel.JUDGES beside the lesson's judge alone, at the
    lesson's seed and over ``band_seeds`` seeds.  Refuses, before any run, unknown or no
    judges, quorum or band_seeds past PANEL_MAX_*, min_agreement outside [0, 1]."""
    records = check_records(records)
    judges = check_names("judges", judges, JUDGE_NAMES)
    if not judges:
        raise ValueError(f"judges must name at least one judge; allowed: {', '.join(JUDGE_NAMES)}")
    check_int("quorum", quorum, minimum=1)
    if quorum > PANEL_MAX_QUORUM:
        raise ValueError(
            f"quorum must be an integer from 1 to {PANEL_MAX_QUORUM} (asks per "
            f"judge and record), got {quorum!r}"
        )
    check_choice("aggregate", aggregate, AGGREGATES)
    min_agreement = check_number("min_agreement", min_agreement, minimum=0.0)
    if min_agreement > 1.0:
        raise ValueError(f"min_agreement must be a panel share in [0, 1], got {min_agreement!r}")
    check_choice("on_unreadable", on_unreadable, ON_UNREADABLE)
    check_choice("guideline", guideline, tuple(GUIDELINES))
    check_int("band_seeds", band_seeds, minimum=2)
    if band_seeds > PANEL_MAX_BAND_SEEDS:
        raise ValueError(
            f"band_seeds must be an integer from 2 to {PANEL_MAX_BAND_SEEDS}, got {band_seeds!r}"
        )
    setups = {
        f"your panel ({len(judges)}x{quorum})": (judges, quorum, aggregate, min_agreement),
        "lesson's judge alone": (("lesson",), 1, "median", 0.5),  # asked once
    }
    runs = {
        name: _panel_setup(records, guideline, band_seeds, *settings, on_unreadable)
        for name, settings in setups.items()
    }
    figures = pd.concat({name: f for name, (f, _) in runs.items()})  # no index names: no row
    counts = pd.DataFrame.from_dict({name: c for name, (_, c) in runs.items()}, orient="index")
    n = band_seeds
    return {
        f"one run at seed {SEED}; the 95% run band over {n:,} runs (seeds {SEED} to "
        f"{SEED + n - 1})": figures.rename(columns={"false_block_rate": "FBR"}).round(4),
        f"at seed {SEED} (agreement above: that share of the runs; reported scores: "
        f"{aggregate}); means over the runs": counts.round(4),
    }


def raters_tables(
    records: Sequence[Record],
    judge_decide: Callable[[Record], bool],
    miss: float = RATERS[0].miss,
    false_alarm: float = RATERS[1].false_alarm,
    careless: float = RATERS[2].careless,
    guideline: str = "short",
) -> Tables:
    """Notebook 14's raters explorer: each rater's error probabilities in, its agreement
    with the human label, the three raters' kappa and alpha, and the criteria filter and
    ``judge_decide`` re-scored against every label out.  Refuses a probability outside
    [0, 1] and a guideline not in RATER_GUIDELINES."""
    records = check_records(records)
    raters = with_rates(miss, false_alarm, careless)
    two = rating_table(records, "two-point", guideline, SEED, raters)
    graded = rating_table(records, "graded", guideline, SEED, raters)
    labels = label_sets(records, two)
    each = pd.DataFrame(
        {
            "rater agreement": [rater_agreement(labels[n], labels["human"]) for n in RATER_NAMES],
            "kappa": [cohen_kappa(labels[n], labels["human"]) for n in RATER_NAMES],
        },
        index=RATER_NAMES,
    )
    three = pd.DataFrame(
        {
            "Fleiss kappa": fleiss_kappa(two),
            "alpha nominal": krippendorff_alpha(graded),
            "alpha ordinal": krippendorff_alpha(graded, "ordinal"),
        },
        index=[f"{guideline} guideline"],
    )
    decisions = {"criteria": make_rule_filter(DEFAULT_RULES), "judge run 1": judge_decide}
    rescored = pd.DataFrame(rescore_rows(records, decisions, labels)).set_index("label")
    return {
        "each rater against the human label": each.round(4),
        "the three raters together (alpha: on the graded scale)": three.round(4),
        "the lesson re-scored against each label": rescored.pivot(columns="approach")
        .loc[list(labels)]  # the labels' order, not the alphabet's
        .rename_axis(None)  # no row for the index name
        .rename(columns={"false_block_rate": "FBR"})
        .round(4),
    }


# --------------------------------------------------------------------------
# Widget wiring
# --------------------------------------------------------------------------


def _fixed(df: pd.DataFrame) -> list[Any]:
    """Fixed decimals a column: a float column of whole numbers without, any other with four
    (0.8710, not 0.871 beside 0.8792); other columns as pandas shows them."""

    def formatter(column: pd.Series) -> Any:
        if not pd.api.types.is_float_dtype(column):
            return None
        whole = bool(((column.dropna() % 1) == 0).all())
        return ("{:.0f}" if whole else "{:.4f}").format

    return [formatter(df.iloc[:, k]) for k in range(df.shape[1])]


class Explorer(widgets.VBox):
    """Controls plus a pane of tables that ``render(**settings)`` redraws on every change.

    ``controls`` maps a setting name to a widget with a ``value``; ``render`` takes
    ``{name: widget.value}`` and returns ``{title: DataFrame}`` (:attr:`tables`).  The
    plain-text form (what nbval compares, what a viewer without widgets shows) is the
    name, the settings and :attr:`text`.  Refuses a non-str name, a non-callable render,
    controls that are not a mapping of widgets with a value.
    """

    def __init__(
        self,
        name: str,
        controls: Mapping[str, widgets.Widget],
        render: Callable[..., Mapping[str, pd.DataFrame]],
    ) -> None:
        check_str("name", name)
        if not callable(render):
            raise TypeError(f"render must be a function (**settings) -> tables, got {render!r}")
        if not isinstance(controls, Mapping):
            raise TypeError(
                f"controls must be a mapping setting name -> widget, got {type(controls).__name__}"
            )
        controls = dict(controls)
        for key, control in controls.items():
            if not hasattr(control, "value"):
                raise TypeError(
                    f"controls[{key!r}] must be a widget with a value, "
                    f"got {type(control).__name__}"
                )
        self.name = name
        self.controls = MappingProxyType(controls)
        self._render = render
        self.tables: Tables = {}
        self.pane = widgets.HTML()
        self.pane.add_class("lessonlib-pane")
        for control in controls.values():
            control.layout.margin = "2px 2em 2px 2px"  # space between controls on one row
        # the controls in rows, as many to a row as fit (also on a slide)
        rows = widgets.Layout(flex_flow="row wrap", align_items="center")
        box = widgets.Box(list(controls.values()), layout=rows)
        super().__init__([box, self.pane], layout=widgets.Layout(width="100%"))
        self.redraw()
        for control in controls.values():
            control.observe(self._changed, names="value")

    @property
    def settings(self) -> dict[str, Any]:
        return {key: control.value for key, control in self.controls.items()}

    @property
    def text(self) -> str:
        """Each table's title and ``to_string()``, at most 80 columns (the tables wrap)."""
        return "\n\n".join(
            textwrap.fill(title, 80)
            + ("" if df.empty else "\n" + df.to_string(line_width=80, formatters=_fixed(df)))
            for title, df in self.tables.items()
        )

    def redraw(self) -> Tables:
        """Recompute the tables for the current settings and show them."""
        tables = self._render(**self.settings)
        if not isinstance(tables, Mapping) or not all(
            isinstance(df, pd.DataFrame) for df in tables.values()
        ):
            raise TypeError(
                f"render must return a mapping title -> DataFrame, got {type(tables).__name__}"
            )
        self.tables = dict(tables)
        # the settings first (a deck hides them: it says they are the lesson's)
        pane = [f'<p class="lessonlib-settings"><i>{html.escape(repr(self))}</i></p>']
        for title, df in self.tables.items():
            table = "" if df.empty else df.to_html(formatters=_fixed(df))
            pane.append(f"<p><b>{html.escape(title)}</b></p>" + table)
        self.pane.value = f'{PANE_STYLE}<div class="lessonlib-tables">{"".join(pane)}</div>'
        return self.tables

    def _changed(self, _change):
        # a line above the old tables while the new ones are computed (a redraw can take
        # longer than a student waits without a sign)
        self.pane.value = PANE_BUSY + self.pane.value
        self.redraw()

    def __repr__(self) -> str:
        """Name and settings (a float rounded: 0.35, not 0.35000000000000003), 80 columns."""
        shown = {k: round(v, 6) if isinstance(v, float) else v for k, v in self.settings.items()}
        settings = " , ".join(f"{k}={v!r}" for k, v in shown.items())
        return textwrap.fill(f"{self.name} ({settings})", 80, subsequent_indent="  ")

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        if data is not None:  # a closed widget has no view
            data["text/plain"] = repr(self) + "\n\n" + self.text
        return data


def _slider(label, value, high=1.0, step=0.05, width="380px", label_width="initial"):
    """A float slider from 0 that redraws when let go (not at every pixel)."""
    return widgets.FloatSlider(
        value=value,
        max=high,
        step=step,
        readout_format=".2f",
        continuous_update=False,
        description=label,
        style={"description_width": label_width},  # initial: as wide as the words
        layout=widgets.Layout(width=width),
    )


def _choice(label, options, value, kind=widgets.ToggleButtons, label_width="initial"):
    # a flex row keeps toggle buttons on their label's line
    row = widgets.Layout(display="flex", align_items="center")
    return kind(
        options=list(options),
        value=value,
        description=label,
        style={"description_width": label_width},
        layout=row,
    )


def _tick(label, value):
    return widgets.Checkbox(value=value, description=label, indent=False)


def criteria_explorer(records: Sequence[Record] | None = None) -> Explorer:
    """Notebook 02: one checkbox per flag (the lesson's four rules ticked); each tick
    redraws :func:`criteria_tables`."""
    records = _records(records)
    controls = {f: _tick(f, f in DEFAULT_RULES) for f in FEATURES}

    def render(**ticked):
        return criteria_tables(records, tuple(f for f in FEATURES if ticked[f]))

    return Explorer("criteria explorer", controls, render)


def judge_explorer(records: Sequence[Record] | None = None) -> Explorer:
    """Notebook 04: temperature, seed, guideline, spurious cue and unreadable fallback; each
    change reruns the judge (JUDGE_BAND_RUNS runs from ``seed``): :func:`judge_tables`."""
    records = _records(records)
    controls = {
        "temperature": _slider("temperature", TEMPERATURE, high=2.0),
        "seed": widgets.BoundedIntText(
            value=SEED,
            min=0,
            max=2**32 - 1,
            description="seed (run 2: seed + 1)",
            style={"description_width": "initial"},
        ),
        "guideline": _choice("guideline", GUIDELINES, "single label (lesson)", widgets.Dropdown),
        "spurious": _tick("spurious cue (excessive length)", True),
        "unreadable_as": _choice("unreadable counted as", UNREADABLE_RULES, "clean"),
    }
    return Explorer("judge explorer", controls, lambda **s: judge_tables(records, **s))


def panel_explorer(records: Sequence[Record] | None = None) -> Explorer:
    """Notebook 10: which judges sit on the panel, quorum, min_agreement, aggregate, the
    unreadable rule and the guideline; each change redraws :func:`panel_tables` over
    PANEL_BAND_SEEDS panel seeds (with no judge ticked the pane says so instead)."""
    records = _records(records)
    controls = {
        spec.name: _tick(f"{spec.name}: {spec.differs}", spec.name in DIVERSE) for spec in JUDGES
    }
    controls["quorum"] = widgets.IntSlider(
        value=1,
        min=1,
        max=5,
        continuous_update=False,
        description="quorum (asks per judge)",
        style={"description_width": "initial"},
    )
    controls["min_agreement"] = _slider("min_agreement", 0.5)
    controls["aggregate"] = _choice("aggregate", AGGREGATES, "median")
    controls["on_unreadable"] = _choice("unreadable counted as", ON_UNREADABLE, "harmful")
    controls["guideline"] = _choice(
        "guideline", GUIDELINES, "single label (lesson)", widgets.Dropdown
    )

    def render(**s):
        judges = tuple(name for name in JUDGE_NAMES if s.pop(name))
        if not judges:
            return {"no judge ticked: tick at least one judge to form a panel.": pd.DataFrame()}
        return panel_tables(records, judges, **s)

    return Explorer("panel explorer", controls, render)


def raters_explorer(records: Sequence[Record] | None = None) -> Explorer:
    """Notebook 14: each rater's error probability and the guideline; each change re-rates
    the records and redraws :func:`raters_tables` for the judge's run 1 (the lesson's seed)."""
    records = _records(records)
    decide = run_judge(records, SEED).decide
    row = {"width": "60%", "label_width": "10em"}
    controls = {
        # one label width and a row each: the sliders start at the same x
        "miss": _slider("lenient: miss", RATERS[0].miss, **row),
        "false_alarm": _slider("strict: false alarm", RATERS[1].false_alarm, **row),
        "careless": _slider("careless: guess", RATERS[2].careless, **row),
        "guideline": _choice("guideline", RATER_GUIDELINES, "short", label_width="10em"),
    }
    return Explorer("raters explorer", controls, lambda **s: raters_tables(records, decide, **s))
