"""Explorers: knobs a student can turn in JupyterLab, with the tables redrawn live.

Each explorer is two layers:

* a pure **text function** - settings in, the text of the tables out
  (:func:`criteria_text`, :func:`judge_text`).  It calls the rest of
  ``lessonlib`` and is tested without a browser;
* an :class:`Explorer` - an ``ipywidgets.VBox`` holding the controls and a
  text pane.  Whenever a control's ``value`` changes it calls the text
  function with the current settings and shows the result.

The explorers in the notebooks are one call each::

    from lessonlib.widgets import criteria_explorer
    criteria_explorer()          # notebook 02: one checkbox per flag

    from lessonlib.widgets import judge_explorer
    judge_explorer()             # notebook 04: temperature, seed, guideline, ...

    from lessonlib.widgets import panel_explorer
    panel_explorer()             # notebook 10: judges, quorum, aggregate, ...

    from lessonlib.widgets import raters_explorer
    raters_explorer()            # notebook 14: each rater's error rates, the guideline

Stored outputs stay deterministic for nbval: the text pane is an ``HTML``
widget whose value is set directly (no ``Output`` widget, so nothing is
printed to the cell), and the plain-text form of an explorer is its name,
its settings and the current text - no model id, no memory address.

Adding an explorer takes a text function ``render(**settings) -> str`` and a
dict of controls whose keys are that function's keyword arguments::

    def my_explorer(records=None):
        records = _records(records)
        controls = {"quorum": widgets.IntSlider(...), ...}
        return Explorer("my explorer", controls,
                        lambda **s: my_text(records, **s))
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import ipywidgets as widgets

from . import variance
from ._checks import check_choice, check_int, check_names, check_number, check_seed, check_str
from .criteria import DEFAULT_RULES, make_rule_filter
from .judge import GUIDELINE, UNREADABLE_RULES, JudgeSettings, run_judge
from .many import run_judge_many
from .metrics import FIGURES, _class_recall, _measured
from .panel import AGGREGATES, DIVERSE, JUDGE_NAMES, JUDGES, ON_UNREADABLE, Panel, judge_models
from .panel_study import FREE_FORM_GUIDELINE, METRICS, rates_many
from .raters import (
    ANSWER_CLEAN,
    ANSWER_HARMFUL,
    LINE,
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
from .records import FEATURES, SEED, Record, check_records, is_harmful, make_records
from .report import class_table, comparison_block, retry_text
from .simulator import SPURIOUS, TEMPERATURE
from .variance import expected_changed, run_band

__all__ = [
    "GUIDELINES",
    "JUDGE_BAND_RUNS",
    "PANEL_BAND_SEEDS",
    "PANEL_MAX_BAND_SEEDS",
    "PANEL_MAX_QUORUM",
    "TEMPERATURE_RANGE",
    "Explorer",
    "criteria_explorer",
    "criteria_text",
    "judge_explorer",
    "judge_settings",
    "judge_text",
    "panel_explorer",
    "panel_settings",
    "panel_text",
    "raters_explorer",
    "raters_text",
]

GUIDELINES = MappingProxyType(
    {
        "single label (lesson)": GUIDELINE,
        "free-form (no 'tek')": FREE_FORM_GUIDELINE,
    }
)
"""Guideline choices of the judge explorer.  The second drops the single-label
word 'tek', so the simulated model answers in free-form sentences and some
replies carry no readable label (then the retry and the unreadable fallback
come into play)."""

TEMPERATURE_RANGE = (0.0, 2.0, 0.05)  # slider min, max, step
PANE_PRE = (
    '<pre style="white-space: pre; overflow-x: auto; word-wrap: normal; '
    "font-size: 12px; line-height: 1.25; margin: 0.5em 0; width: auto; "
    'box-shadow: none;">'
)
"""The text pane's <pre>: fixed size and no wrapping, also inside a reveal.js slide."""
PANE_BUSY = '<div style="font-style: italic; color: #8a4b00;">computing ...</div>'
"""Shown above the old text while a change is being computed."""
JUDGE_BAND_RUNS = 1000
"""Judge runs (seeds ``seed`` .. ``seed + 999``) behind the judge explorer's 95% run band:
the same 1,000 runs as notebook 06, so with the lesson's settings the band is 06's."""
PANEL_BAND_SEEDS = 100
"""Panel seeds (the lesson's seed and the ones after it) behind the panel explorer's 95%
run band.  Notebook 11 uses 1,000; 100 keep a redraw of the largest panel (four judges,
quorum 5, free-form guideline) under 100 ms (benchmarks/bench_widgets.py).  The
explorer's text names the count and where the lesson's seed falls among the runs."""
PANEL_MAX_QUORUM = 10
"""The largest quorum :func:`panel_text` accepts (the explorer's slider stops at 5)."""
PANEL_MAX_BAND_SEEDS = 1000
"""The most panel seeds :func:`panel_text` accepts (notebook 11's count)."""


def _records(records):
    """``records`` checked, or the lesson's 240 records when None."""
    return tuple(make_records()) if records is None else check_records(records)


# --------------------------------------------------------------------------
# Pure text functions
# --------------------------------------------------------------------------

# the criteria explorer's measure table, at most 80 columns wide (FBR = false block rate)
_MEASURE_HEAD = (
    ("rule set", "<20"),
    ("tp", ">4"),
    ("fp", ">4"),
    ("fn", ">4"),
    ("tn", ">4"),
    ("precision", ">10"),
    ("recall", ">8"),
    ("FBR", ">7"),
    ("agreement", ">10"),
)


def _measure_line(name, records, decide):
    m, agree = _measured(records, decide)
    cells = [format(name, "<20")]
    cells += [format(m[k], ">4") for k in ("tp", "fp", "fn", "tn")]
    cells += [
        format(m["precision"], ">10.4f"),
        format(m["recall"], ">8.4f"),
        format(m["false_block_rate"], ">7.4f"),
        format(agree, ">10.4f"),
    ]
    return " ".join(cells)


def _lesson_rules(records):
    """What the lesson's four rules give on ``records``: their measure line and per-class
    recall - the half of the criteria explorer's text that no checkbox changes."""
    decide = make_rule_filter(DEFAULT_RULES)
    return (
        _measure_line(f"lesson's rules ({len(DEFAULT_RULES)})", records, decide),
        _class_recall(records, decide),
    )


def _criteria_text(records, rules, lesson):
    """:func:`criteria_text` for checked ``records``, ``rules`` in FEATURES order and
    ``lesson`` = ``_lesson_rules(records)``."""
    lesson_line, by_lesson = lesson
    your_rule = make_rule_filter(rules)
    return "\n".join(
        [
            textwrap.fill(
                "rules on: " + (", ".join(rules) if rules else "(none - nothing is blocked)"),
                width=80,
                subsequent_indent="          ",
                break_on_hyphens=False,
            ),
            "",
            " ".join(format(title, spec) for title, spec in _MEASURE_HEAD),
            lesson_line,
            _measure_line(f"chosen rules ({len(rules)})", records, your_rule),
            "",
            class_table(
                {
                    "lesson rules recall": by_lesson,
                    "chosen rules recall": _class_recall(records, your_rule),
                },
                width=20,
            ),
        ]
    )


def criteria_text(records: Sequence[Record], rules: Collection[str] = DEFAULT_RULES) -> str:
    """The rule filter with ``rules`` next to the lesson's four rules.

    Notebook 02 (the criteria explorer's text).  Two blocks, each at most 80
    columns wide: the measure table (tp, fp, fn, tn, precision, recall, FBR =
    false block rate, agreement) and the per-class recall (for 'clean' the
    share blocked, i.e. the false block rate).  Rules are listed in FEATURES
    order.
    """
    records = check_records(records)
    chosen = set(check_names("rules", rules, FEATURES))
    rules = tuple(f for f in FEATURES if f in chosen)
    return _criteria_text(records, rules, _lesson_rules(records))


def judge_settings(
    temperature: float = TEMPERATURE,
    seed: int = SEED,
    guideline: str = "single label (lesson)",
    spurious: bool = True,
    unreadable_as: str = "clean",
) -> dict[str, Any]:
    """Check the judge explorer's settings; return them as a dict (nothing is run)."""
    check_number("temperature", temperature, minimum=0.0)
    check_seed(seed)
    check_choice("guideline", guideline, tuple(GUIDELINES))
    if not isinstance(spurious, bool):
        raise TypeError(f"spurious must be True (cue on) or False (cue off), got {spurious!r}")
    check_choice("unreadable_as", unreadable_as, UNREADABLE_RULES)
    return {
        "temperature": float(temperature),
        "seed": seed,
        "guideline": guideline,
        "spurious": spurious,
        "unreadable_as": unreadable_as,
    }


def judge_text(
    records: Sequence[Record],
    temperature: float = TEMPERATURE,
    seed: int = SEED,
    guideline: str = "single label (lesson)",
    spurious: bool = True,
    unreadable_as: str = "clean",
) -> str:
    """Notebook 04's judge explorer: two judge runs (``seed``, ``seed + 1``) as the lesson
    prints them, then the 95% run band over JUDGE_BAND_RUNS runs.

    Two lines naming the settings, then the comparison table (criteria
    filter and both runs) and the two-run difference from
    :func:`lessonlib.report.comparison_block` - with the defaults exactly the
    lesson's block - and a line with run 2's retries and unreadable replies.
    Last, over the runs with seeds ``seed`` .. ``seed + JUDGE_BAND_RUNS - 1``
    (the first two are the table's runs): the 95% run band of recall and false
    block rate (:func:`lessonlib.variance.run_band`) and the expected changed
    records (:func:`lessonlib.variance.expected_changed`).
    """
    records = check_records(records)
    return _judge_text(
        records, judge_settings(temperature, seed, guideline, spurious, unreadable_as)
    )


def _judge_text(records, s):
    """:func:`judge_text` for checked ``records`` and settings ``s`` (from judge_settings)."""
    settings = JudgeSettings(
        temperature=s["temperature"],
        guideline=GUIDELINES[s["guideline"]],
        spurious=SPURIOUS if s["spurious"] else {},
        unreadable_as=s["unreadable_as"],
    )
    many = run_judge_many(records, range(s["seed"], s["seed"] + JUDGE_BAND_RUNS), settings)
    runs = (many.run(0), many.run(1))  # exactly run_judge with seed and seed + 1
    rates = many.measure()
    bands = {k: variance.run_band(rates[k]) for k in ("recall", "false_block_rate")}
    head = (
        f"temperature {s['temperature']:.2f} , seeds {s['seed']} and {s['seed'] + 1} , "
        f"spurious cue {'on' if s['spurious'] else 'off'}\n"
        f"guideline {s['guideline']} , unreadable counted as {s['unreadable_as']}"
    )
    return "\n".join(
        [
            head,
            "",
            comparison_block(records, *runs),
            "run 2: " + retry_text(runs[1]),
            "",
            f"over {JUDGE_BAND_RUNS:,} runs "
            f"(seeds {s['seed']} .. {s['seed'] + JUDGE_BAND_RUNS - 1}), "
            f"same settings:",
            f"  95% run band: recall {bands['recall'][0]:.4f} .. {bands['recall'][1]:.4f} , "
            f"false block rate {bands['false_block_rate'][0]:.4f} .. "
            f"{bands['false_block_rate'][1]:.4f}",
            f"  expected changed records between two runs: "
            f"{variance.expected_changed(many.harmful):.2f}",
        ]
    )


def panel_settings(
    judges: Iterable[str] = DIVERSE,
    quorum: int = 1,
    aggregate: str = "median",
    min_agreement: float = 0.5,
    on_unreadable: str = "harmful",
    guideline: str = "single label (lesson)",
    band_seeds: int = PANEL_BAND_SEEDS,
) -> dict[str, Any]:
    """Check the panel explorer's settings; return them as a dict (nothing is run).

    Bounds, checked here before any work: ``quorum`` from 1 to ``PANEL_MAX_QUORUM``,
    ``band_seeds`` from 2 to ``PANEL_MAX_BAND_SEEDS``.  Notebook 10 defined it.
    """
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
    return {
        "judges": judges,
        "quorum": quorum,
        "aggregate": aggregate,
        "min_agreement": min_agreement,
        "on_unreadable": on_unreadable,
        "guideline": guideline,
        "band_seeds": band_seeds,
    }


def _panel_rows(name, records, panel, seeds, guideline, actual):
    """What one panel gives: its two table lines (one run at the lesson's seed; the 95% run
    band), the run at the lesson's seed, the runs over ``seeds`` and each run's agreement."""
    many = panel.run_many(records, seeds, guideline)
    run = many.run(0)  # the lesson's seed: what Panel.run returns
    scores, agree = _measured(records, run.decider(records))
    scores["agreement"] = agree
    per_seed = rates_many(many.harmful, actual)
    at_seed = f"{name:<20}" + "".join(f"{scores[k]:>15.4f}" for k in METRICS)
    bands = [run_band(per_seed[k]) for k in METRICS]
    # a band cell is 'low-high' (13 characters) in a 15-wide column: two spaces apart
    in_band = f"{'  95% run band':<20}" + "".join(f"{lo:>8.4f}-{hi:.4f}" for lo, hi in bands)
    return [at_seed, in_band], run, many, per_seed["agreement"]


def panel_text(
    records: Sequence[Record],
    judges: Iterable[str] = DIVERSE,
    quorum: int = 1,
    aggregate: str = "median",
    min_agreement: float = 0.5,
    on_unreadable: str = "harmful",
    guideline: str = "single label (lesson)",
    band_seeds: int = PANEL_BAND_SEEDS,
) -> str:
    """A panel of the fictional judges (lessonlib.panel.JUDGES) next to the lesson's judge alone.

    For the panel and for the lesson's judge asked once (same guideline and
    unreadable rule): agreement, precision, recall and false block rate (FBR)
    of one run at the lesson's seed - exactly what ``Panel.run(records, SEED,
    guideline)`` gives - then the 95% run band of each rate
    (:func:`lessonlib.variance.run_band`) over ``band_seeds`` panel seeds from
    the lesson's seed.  Below: where the run at the lesson's seed falls among
    those runs, calls and input tokens, the panel's reported scores (what
    ``aggregate`` changes) and the expected changed records
    (:func:`lessonlib.variance.expected_changed`).  Lines of at most 80
    columns.  Notebook 10 defined it.
    """
    records = check_records(records)
    s = panel_settings(
        judges, quorum, aggregate, min_agreement, on_unreadable, guideline, band_seeds
    )
    return _panel_text(records, s, _alone_rows(records, s))


def _band_inputs(records, s):
    """The band's seeds and the human labels of ``records``."""
    return range(SEED, SEED + s["band_seeds"]), [is_harmful(r) for r in records]


def _alone_rows(records, s):
    """The lesson's judge alone under settings ``s``: what :func:`_panel_rows` gives for it.
    Of the settings only ``on_unreadable``, ``guideline`` and ``band_seeds`` matter."""
    seeds, actual = _band_inputs(records, s)
    alone = Panel(judge_models("lesson"), 1, on_unreadable=s["on_unreadable"])
    return _panel_rows(
        "lesson's judge alone", records, alone, seeds, GUIDELINES[s["guideline"]], actual
    )


def _below(values):
    """Share of the runs whose value is below the first run's (the lesson's seed's)."""
    return float((values < values[0]).mean())


def _panel_text(records, s, alone):
    """:func:`panel_text` for checked ``records`` and settings ``s`` (from panel_settings),
    with ``alone = _alone_rows(records, s)``."""
    seeds, actual = _band_inputs(records, s)
    panel = Panel(
        judge_models(*s["judges"]),
        s["quorum"],
        s["aggregate"],
        s["min_agreement"],
        s["on_unreadable"],
    )
    yours, run, many, agree = _panel_rows(
        f"your panel ({len(s['judges'])}x{s['quorum']})",
        records,
        panel,
        seeds,
        GUIDELINES[s["guideline"]],
        actual,
    )
    lesson, lesson_run, lesson_many, lesson_agree = alone
    scores = list(run.scores.values())
    split = sum(1 for x in scores if 0.0 < x < 1.0)
    head = "".join(f"{FIGURES[k].short:>15}" for k in METRICS)
    n = s["band_seeds"]
    return "\n".join(
        [
            f"judges {', '.join(s['judges'])} , quorum {s['quorum']}",
            f"aggregate {s['aggregate']} , min_agreement {s['min_agreement']:.2f} , unreadable "
            f"counted as {s['on_unreadable']}",
            f"guideline {s['guideline']}",
            f"Each first row is one run at the lesson's seed {SEED}. Each band row is the",
            f"95% run band over {n:,} runs (panel seeds {SEED} to {SEED + n - 1}): it holds",
            "the middle 95% of the runs, so one run in twenty falls outside it.",
            "",
            f"{'setup':<20}{head}",
            *yours,
            *lesson,
            "",
            f"agreement at the lesson's seed is above this share of the {n:,} runs:",
            f"  your panel {_below(agree):.3f} , lesson's judge alone {_below(lesson_agree):.3f}",
            f"calls / input tokens at the lesson's seed: your panel {run.calls} / "
            f"{run.input_tokens} ,",
            f"  lesson's judge alone {lesson_run.calls} / {lesson_run.input_tokens} ; your panel "
            f"on average {many.calls.mean():.1f} / {many.input_tokens.mean():.1f}",
            f"your panel at the lesson's seed: {run.unreadable} unreadable replies ; mean "
            f"reported",
            f"  score ({s['aggregate']}) {sum(scores) / len(scores):.4f} ; {split} records scored "
            f"strictly between 0 and 1",
            f"expected changed records: your panel {expected_changed(many.harmful):.2f} , "
            f"lesson's judge alone {expected_changed(lesson_many.harmful):.2f}",
        ]
    )


# --------------------------------------------------------------------------
# Widget wiring
# --------------------------------------------------------------------------


class Explorer(widgets.VBox):
    """Controls plus a text pane that ``render(**settings)`` redraws on every change.

    ``controls`` maps a setting name to a widget with a ``value``; the
    settings passed to ``render`` are ``{name: widget.value}``.  The current
    text is :attr:`text`; the plain-text form of the explorer (what nbval
    compares and what a viewer without widgets shows) is its name, its
    settings and that text.
    """

    def __init__(
        self,
        name: str,
        controls: Mapping[str, widgets.Widget],
        render: Callable[..., str],
        *,
        layout_controls: Callable[..., widgets.Widget] | None = None,
    ) -> None:
        check_str("name", name)
        if not callable(render):
            raise TypeError(f"render must be a function (**settings) -> str, got {render!r}")
        if not isinstance(controls, Mapping):
            raise TypeError(
                f"controls must be a mapping setting name -> widget, got {type(controls).__name__}"
            )
        if layout_controls is not None and not callable(layout_controls):
            raise TypeError(
                f"layout_controls must be a function (controls) -> widget or None, "
                f"got {type(layout_controls).__name__}"
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
        self.text = ""
        self.pane = widgets.HTML()
        box = (
            layout_controls(controls) if layout_controls else widgets.VBox(list(controls.values()))
        )
        super().__init__([box, self.pane], layout=widgets.Layout(width="100%"))
        self.redraw()
        for control in controls.values():
            control.observe(self._changed, names="value")

    @property
    def settings(self) -> dict[str, Any]:
        return {key: control.value for key, control in self.controls.items()}

    def redraw(self) -> str:
        """Recompute the text for the current settings and show it."""
        text = self._render(**self.settings)
        if not isinstance(text, str):
            raise TypeError(
                f"render must return the text (str) to show, got {type(text).__name__}"
            )
        self.text = text
        self.pane.value = PANE_PRE + html.escape(self.text) + "</pre>"
        return self.text

    def _changed(self, _change):
        # a line above the old text while the new one is computed (the browser shows it
        # at once; a redraw can take longer than a student waits without a sign)
        self.pane.value = PANE_BUSY + self.pane.value
        self.redraw()

    def __repr__(self) -> str:
        """Name and settings, wrapped between settings so that no line passes 80 columns."""
        lines, line = [], f"{self.name} ("
        parts = [f"{k}={v!r}" for k, v in self.settings.items()]
        for i, part in enumerate(parts):
            piece = part + (" , " if i < len(parts) - 1 else "")
            if line.strip() and len(line) + len(piece.rstrip()) > 79:
                lines.append(line.rstrip())
                line = "  "
            line += piece
        return "\n".join(lines + [line.rstrip() + ")"])

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        if data is not None:  # a closed widget has no view
            data["text/plain"] = repr(self) + "\n\n" + self.text
        return data


def criteria_explorer(records: Sequence[Record] | None = None) -> Explorer:
    """Notebook 02: one checkbox per flag (the lesson's four rules checked).

    Ticking a flag adds it to the rule filter; the measure table and the
    per-class recall are redrawn next to the lesson's rules.
    """
    records = _records(records)
    controls = {
        f: widgets.Checkbox(
            value=f in DEFAULT_RULES,
            description=f,
            indent=False,
            layout=widgets.Layout(width="auto"),
        )
        for f in FEATURES
    }

    lesson = _lesson_rules(records)  # the lesson's rules do not change with the ticks

    def render(**ticked):
        return _criteria_text(records, tuple(f for f in FEATURES if ticked[f]), lesson)

    def layout(c):
        return widgets.GridBox(
            list(c.values()),
            layout=widgets.Layout(
                grid_template_columns="repeat(auto-fill, minmax(300px, 1fr))",
                grid_gap="0 1em",
                width="100%",
            ),
        )

    return Explorer("criteria explorer", controls, render, layout_controls=layout)


def judge_explorer(records: Sequence[Record] | None = None) -> Explorer:
    """Notebook 04: temperature, seed, guideline, spurious cue and unreadable fallback.

    Each change reruns the judge (``seed``, ``seed + 1`` and the runs after
    them, JUDGE_BAND_RUNS in all) and redraws the comparison table, the
    two-run difference and the 95% run band (see :func:`judge_text`).
    """
    records = _records(records)
    low, high, step = TEMPERATURE_RANGE
    style = {"description_width": "initial"}
    controls = {
        "temperature": widgets.FloatSlider(
            value=TEMPERATURE,
            min=low,
            max=high,
            step=step,
            readout_format=".2f",
            continuous_update=False,
            description="temperature",
            style=style,
        ),
        "seed": widgets.BoundedIntText(
            value=SEED, min=0, max=2**32 - 1, description="seed (run 2: seed + 1)", style=style
        ),
        "guideline": widgets.Dropdown(
            options=list(GUIDELINES),
            value="single label (lesson)",
            description="guideline",
            style=style,
        ),
        "spurious": widgets.Checkbox(
            value=True, description="spurious cue (excessive length)", indent=False
        ),
        "unreadable_as": widgets.ToggleButtons(
            options=list(UNREADABLE_RULES),
            value="clean",
            description="unreadable counted as",
            style=style,
        ),
    }

    def render(**s):
        return _judge_text(records, judge_settings(**s))

    def layout(c):
        return widgets.VBox(
            [
                widgets.HBox([c["temperature"], c["seed"]]),
                widgets.HBox([c["guideline"], c["spurious"]]),
                c["unreadable_as"],
            ]
        )

    return Explorer("judge explorer", controls, render, layout_controls=layout)


def panel_explorer(records: Sequence[Record] | None = None) -> Explorer:
    """Notebook 10: which judges sit on the panel, quorum, aggregate, min_agreement,
    the unreadable rule and the guideline.

    Each change reruns the panel at the lesson's seed and over
    ``PANEL_BAND_SEEDS`` panel seeds, next to the lesson's judge alone, and
    redraws the table (see :func:`panel_text`).  With no judge ticked the pane
    says so instead.
    """
    records = _records(records)
    style = {"description_width": "initial"}
    controls = {
        spec.name: widgets.Checkbox(
            value=spec.name in DIVERSE,
            indent=False,
            description=f"{spec.name}: {spec.differs}",
            layout=widgets.Layout(width="auto"),
        )
        for spec in JUDGES
    }
    controls.update(
        {
            "quorum": widgets.IntSlider(
                value=1,
                min=1,
                max=5,
                continuous_update=False,
                description="quorum (asks per judge)",
                style=style,
                layout=widgets.Layout(width="380px"),
            ),
            "min_agreement": widgets.FloatSlider(
                value=0.5,
                min=0.0,
                max=1.0,
                step=0.05,
                readout_format=".2f",
                continuous_update=False,
                description="min_agreement",
                style=style,
                layout=widgets.Layout(width="340px"),
            ),
            "aggregate": widgets.ToggleButtons(
                options=list(AGGREGATES), value="median", description="aggregate", style=style
            ),
            "on_unreadable": widgets.ToggleButtons(
                options=list(ON_UNREADABLE),
                value="harmful",
                description="unreadable counted as",
                style=style,
            ),
            "guideline": widgets.Dropdown(
                options=list(GUIDELINES),
                value="single label (lesson)",
                description="guideline",
                style=style,
            ),
        }
    )

    alone = {}  # the lesson's judge alone depends on three settings only: compute each once

    def render(**s):
        judges = tuple(name for name in JUDGE_NAMES if s.pop(name))
        if not judges:
            return "no judge ticked: tick at least one judge to form a panel."
        s = panel_settings(judges, **s)
        key = (s["on_unreadable"], s["guideline"], s["band_seeds"])
        if key not in alone:
            alone[key] = _alone_rows(records, s)
        return _panel_text(records, s, alone[key])

    def layout(c):
        return widgets.VBox(
            [
                widgets.VBox([c[name] for name in JUDGE_NAMES]),
                widgets.HBox([c["quorum"], c["min_agreement"]]),
                c["aggregate"],
                c["on_unreadable"],
                c["guideline"],
            ]
        )

    return Explorer("panel explorer", controls, render, layout_controls=layout)


# --------------------------------------------------------------------------
# Notebook 14: the raters explorer
# --------------------------------------------------------------------------


def raters_text(
    records: Sequence[Record],
    judge_decide: Callable[[Record], bool],
    miss: float = RATERS[0].miss,
    false_alarm: float = RATERS[1].false_alarm,
    careless: float = RATERS[2].careless,
    guideline: str = "short",
    criteria: Callable[[Record], bool] | None = None,
) -> str:
    """Notebook 14 explorer's text: error rates in, kappa, alpha and the re-scored table out."""
    records = check_records(records)
    raters = with_rates(miss, false_alarm, careless)
    graded = rating_table(records, "graded", guideline, SEED, raters)
    two = tuple(
        tuple(ANSWER_HARMFUL if g >= LINE else ANSWER_CLEAN for g in row) for row in graded
    )
    labels = label_sets(records, two)
    human = labels["human"]
    # every setting is named (the slides show a snapshot, with no controls): the sliders'
    # words and values, then the guideline
    lines = [
        f"lenient: miss {miss:.2f} , strict: false alarm {false_alarm:.2f} , "
        f"careless: guess {careless:.2f}",
        f"simulated raters, {guideline} guideline: each against the human label",
    ]
    for name in RATER_NAMES:
        lines.append(
            f"  {name:<9} rater agreement {rater_agreement(labels[name], human):.4f}"
            f" , kappa {cohen_kappa(labels[name], human):.4f}"
        )
    lines.append(
        f"three raters: Fleiss kappa {fleiss_kappa(two):.4f} ; graded alpha nominal "
        f"{krippendorff_alpha(graded):.4f} , ordinal "
        f"{krippendorff_alpha(graded, 'ordinal'):.4f}"
    )
    lines.append("")
    decisions = {
        "criteria": criteria or make_rule_filter(DEFAULT_RULES),
        "judge run 1": judge_decide,
    }
    import pandas as pd

    table = pd.DataFrame(rescore_rows(records, decisions, labels))
    lines.append(table.set_index(["label", "approach"]).round(4).to_string())
    return "\n".join(lines)


def raters_explorer(records: Sequence[Record] | None = None) -> Explorer:
    """Notebook 14: sliders for each rater's error probability and the guideline.

    Each change re-rates the records and redraws kappa, alpha and the criteria
    filter and the judge (run 1, the lesson's seed) re-scored against each label.
    """
    records = _records(records)
    decide = run_judge(records, SEED).decide
    # one label width for every control, so the sliders start at the same x; the guideline
    # buttons sit on their label's line (a flex row; alone they would go below it)
    style = {"description_width": "10em"}

    def slider(value, label):
        return widgets.FloatSlider(
            value=value,
            min=0.0,
            max=1.0,
            step=0.05,
            readout_format=".2f",
            continuous_update=False,
            description=label,
            style=style,
            layout=widgets.Layout(width="420px"),
        )

    controls = {
        "miss": slider(RATERS[0].miss, "lenient: miss"),
        "false_alarm": slider(RATERS[1].false_alarm, "strict: false alarm"),
        "careless": slider(RATERS[2].careless, "careless: guess"),
        "guideline": widgets.ToggleButtons(
            options=list(RATER_GUIDELINES),
            value="short",
            description="guideline",
            style=style,
            layout=widgets.Layout(display="flex", align_items="center"),
        ),
    }
    return Explorer("raters explorer", controls, lambda **s: raters_text(records, decide, **s))
