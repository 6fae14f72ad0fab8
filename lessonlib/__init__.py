"""lessonlib - the library behind every notebook of the course "Automated Evaluation".

The map: one module per lesson step, in the lesson's words, listed lowest layer first (a
module imports only modules above it in this list).  The number is the notebook it serves.

=====================  =====  ==========================================================
module                 nb     what it holds
=====================  =====  ==========================================================
``_checks``            all    argument checks at the doors (TypeError/ValueError naming
                              the parameter and what is allowed)
``_frozen``            all    ReadOnlyDict, the read-only constant tables
``_rng``               01 03  the generator and the hash, their constants named
``records``            01     the fictional record set and the human label
``metrics``            02     the counts and figures: four_counts (one run, many runs,
                              expected counts), rates() the formulas, FIGURES (names,
                              titles), measure, agreement, per-class recall; it reads a
                              decision's fast path by protocol (``trusted``)
``criteria``           02     the criteria-based approach (rule filter)
``simulator``          03     the language-model simulator (no network)
``connections``        13     calls side by side: up to max_connections at once
``judge``              03     the model-as-judge: prompt, the ask-retry loop, runs, and
                              its settings as one value (``JudgeSettings``)
``report``             02-06  the lesson's three printed blocks
``figures``            02 05  the step plots of 02 and 05
``many``               06     the judge over many seeds at once (numpy)
``variance``           04 06  run bands, changed records, the temperature sweep, the
                              one percentile of a run among runs (06 07 08 14)
``sample``             07     the records as a sample: paired test, records' band, the
                              power of a paired difference and the records it needs
``score``              08     the judge's score: ROC/AUC, threshold, calibration
``designs``            09     the cascade and judge-or-escalate, compared paired
``truth``              07 15  the population's true figures, summed exactly, and how
                              often a records' band holds them (band_coverage, with its
                              Monte Carlo error; cluster_coverage for near-duplicates)
``population``         08     the judge's score over the whole population: each level's
                              true share harmful, the Brier score and the AUC
``panel``              10     a panel of judges: quorum, aggregate, min_agreement
``panel_study``        11     the free-form guideline, a panel's figures run by run
``probing``            12     probing the judge from outside (door: ``probe``)
``verdict``            13     the verdict protocol and its reader (``read_reply``)
``planted``            13     reading verdicts under planted text, measured
``reply_cache``        13     a real client's replies on disk
``backoff``            13     waiting out a real API's refusals (Retry-After capped)
``sdk_ask``            13     the official openai SDK as an ask (``OpenAIAsk``)
``server``             13     the simulator behind a loopback OpenAI-compatible server
``client``             13     a real judge over the records, its cost; re-exports 13's rooms
``agreement_stats``    14     Cohen's and Fleiss' kappa, Krippendorff's alpha
``raters``             14     simulated raters and the lesson re-scored
``strata``             16     which records a person labels: strata by the judge's score
                              (score_strata), random/proportional/Neyman (choose_records);
                              the stratified difference estimator behind estimate_rate
``production``         15     a week in production: the judge on every record, a person on
                              a few; five estimates of a rate (estimate_rate) and the
                              false block rate as a ratio
``weeks``              15     weeks of traffic, simulated, with their truth known: true
                              rates (a shift within a class too), coverage with its
                              Monte Carlo error and against the labels, widths, the
                              tuned and best lam, labels_needed, a week of traffic
``labelling``          16     a person's labels spent well (designs over simulated weeks,
                              labels per design), a person who slips (slip_rate,
                              estimate_with_slips), a dashboard read every day
                              (confidence_sequence)
``widgets``            02-14  every explorer (ipywidgets), the top layer
``exercises.stepNN``   NN     the exercise checks of notebook NN
=====================  =====  ==========================================================

The four contracts every step builds on:

* **an ask** - ``ask(prompt, seed)`` returns reply text or an object with a str ``.text``
  (optionally ``.input_tokens``, ``.status``): a SimulatedModel, a plain function, a real
  client.  ``judge.ask_for_label`` asks once and retries an unreadable reply with
  ``seed + 1``; ``judge.ask_each`` and ``judge.tally`` are the one loop of run_judge,
  Panel.run and ``client.judge_records`` (which passes its protocol reader, ``read=``).
* **a run's decide** - every run (``judge.Run``: JudgeRun, PanelRun) has ``labels``, the
  counts ``calls``, ``retries``, ``unreadable``, ``input_tokens``, and ``decide(record)``,
  a decision for ``measure``: True blocks the record; a record the run did not judge (other
  number, other seed's record) is refused with ValueError.  ``decider(records)`` checks a
  whole record set once and returns the decision without per-record checks: the decision
  protocol ``metrics.trusted`` reads by duck typing (the rule filter offers it too).
* **the judge's settings** - one value, ``JudgeSettings`` (temperature, guideline, cues,
  spurious, prior, max_output, unreadable_as).  Every judge entry point takes it whole
  (``settings=``) or keyword changes (``temperature=0``), makes it once with
  ``judge.resolve_settings`` and passes the value on whole; helpers take the value, never
  a list of setting names (tests/test_settings.py runs every entry point with every setting).
* **the (seeds x records) matrix** - many runs are a boolean array ``harmful`` of shape
  (seeds, records) beside ``actual`` (the human label); ``metrics.four_counts`` gives the
  four counts per run and ``metrics.rates`` the figures, as ``measure`` would one by one.

Where a new step's parts go:

* **code** - a module named in the step's words, placed in the list above; its doors (what
  a notebook calls) check their arguments once with ``_checks`` and call unchecked helpers;
  it takes figure names and titles from ``metrics.FIGURES``, never its own copy; pure Python
  unless it needs numpy, and then it is lazy here (``_LAZY``) so that the core path
  (records to report) imports without numpy.
* **a table** - a pandas DataFrame the notebook builds from the step's data, rounded, as the
  cell's last expression (CONTRIBUTING, *Rules for cells*); no ``*_text`` formatter, except
  the lesson's printed blocks (``report``).
* **a plot** - a ``plot_*(...) -> Figure`` function in the step's module (matplotlib imported
  inside it); the notebook ends the cell with ``plt.show()``.
* **an explorer** - a table function (settings in, DataFrames out) and an ``Explorer`` in
  ``widgets`` (see its docstring).
* **exercise checks** - ``exercises/stepNN.py``; solutions in
  ``notebooks/solutions/NN_name_solutions.ipynb``.
* **names** - every module lists its public names in ``__all__``; the ones a notebook reaches
  as ``L.name`` are imported here.

The core path (records to report) is pure Python; nothing calls a network.
"""

from .agreement_stats import cohen_kappa, fleiss_kappa, krippendorff_alpha
from .criteria import DEFAULT_RULES, make_rule_filter, rule_filter
from .designs import CascadeRun, cascade
from .judge import (
    GUIDELINE,
    Answer,
    JudgeRun,
    JudgeSettings,
    Run,
    ask_for_label,
    build_prompt,
    read_label,
    run_judge,
)
from .metrics import (
    FIGURES,
    RATES,
    agreement,
    class_recall,
    confusion,
    disagreements,
    measure,
    rates,
    resolution,
)
from .panel import DIVERSE, JUDGES, AskReply, JudgeSpec, Panel, PanelRun, judge_models
from .probing import probe
from .records import (
    CLASS_SHARE,
    CLASSES,
    FEATURES,
    PROFILE,
    SEED,
    SOURCE_SHARE,
    SOURCES,
    TEXTS,
    Flags,
    Record,
    generator,
    is_harmful,
    make_records,
    pick,
    trace_id,
    write_records_csv,
)
from .report import (
    Lesson,
    class_block,
    comparison_block,
    comparison_rows,
    lesson,
    sample_call_block,
)
from .score import (
    CalibrationRow,
    brier,
    calibration_levels,
    calibration_table,
    judge_probabilities,
    roc_auc,
)
from .simulator import (
    CUE_TABLE,
    FLAG_WORD,
    FREE_FORM,
    LABELS,
    MAX_OUTPUT,
    PRIOR,
    RATE_LIMIT_EVERY,
    SOURCE_WORD,
    SPURIOUS,
    WINDOW,
    PromptPlan,
    Reply,
    SimulatedModel,
    tokenize,
)

__version__ = "1.0.0"

# numpy-backed parts load on first use, so the lesson's core path imports without numpy.
_LAZY = (
    ("ManyRuns", "many"),
    ("run_judge_many", "many"),
    ("paired_table", "sample"),
    ("mcnemar_p", "sample"),
    ("paired_bootstrap", "sample"),
    ("records_needed", "sample"),
    ("paired_power", "sample"),
    ("paired_records_needed", "sample"),
    ("percentile", "variance"),
    ("holm", "sample"),
    ("Estimate", "production"),
    ("estimate_false_block_rate", "production"),
    ("estimate_rate", "production"),
    ("labels_needed", "weeks"),
    ("simulate_estimates", "weeks"),
    ("true_rates", "weeks"),
    ("week_of_traffic", "weeks"),
    ("bootstrap_p", "sample"),
    ("paired_difference", "sample"),
    ("population_figures", "truth"),
    ("band_coverage", "truth"),
    ("choose_records", "strata"),
    ("score_strata", "strata"),
    ("confidence_sequence", "labelling"),
    ("estimate_with_slips", "labelling"),
    ("slip_rate", "labelling"),
)

__all__ = [
    "CLASSES",
    "CLASS_SHARE",
    "CUE_TABLE",
    "DEFAULT_RULES",
    "DIVERSE",
    "Estimate",
    "FEATURES",
    "FIGURES",
    "FLAG_WORD",
    "FREE_FORM",
    "GUIDELINE",
    "JUDGES",
    "LABELS",
    "MAX_OUTPUT",
    "PRIOR",
    "PROFILE",
    "RATES",
    "RATE_LIMIT_EVERY",
    "SEED",
    "SOURCES",
    "SOURCE_SHARE",
    "SOURCE_WORD",
    "SPURIOUS",
    "TEXTS",
    "WINDOW",
    "Answer",
    "AskReply",
    "CalibrationRow",
    "CascadeRun",
    "Flags",
    "JudgeRun",
    "JudgeSettings",
    "JudgeSpec",
    "Lesson",
    "ManyRuns",
    "Panel",
    "PanelRun",
    "PromptPlan",
    "Record",
    "Reply",
    "Run",
    "SimulatedModel",
    "agreement",
    "ask_for_label",
    "band_coverage",
    "bootstrap_p",
    "paired_difference",
    "brier",
    "build_prompt",
    "calibration_levels",
    "calibration_table",
    "cascade",
    "choose_records",
    "class_block",
    "class_recall",
    "cohen_kappa",
    "comparison_block",
    "comparison_rows",
    "confidence_sequence",
    "confusion",
    "disagreements",
    "estimate_false_block_rate",
    "estimate_rate",
    "estimate_with_slips",
    "fleiss_kappa",
    "generator",
    "holm",
    "is_harmful",
    "judge_models",
    "judge_probabilities",
    "krippendorff_alpha",
    "labels_needed",
    "lesson",
    "make_records",
    "make_rule_filter",
    "mcnemar_p",
    "measure",
    "paired_bootstrap",
    "paired_power",
    "paired_records_needed",
    "paired_table",
    "percentile",
    "pick",
    "population_figures",
    "probe",
    "rates",
    "read_label",
    "records_needed",
    "resolution",
    "roc_auc",
    "rule_filter",
    "run_judge",
    "run_judge_many",
    "sample_call_block",
    "score_strata",
    "simulate_estimates",
    "slip_rate",
    "tokenize",
    "trace_id",
    "true_rates",
    "week_of_traffic",
    "write_records_csv",
]


def __getattr__(name):
    for attr, module in _LAZY:
        if attr == name:
            import importlib

            return getattr(importlib.import_module(f".{module}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
