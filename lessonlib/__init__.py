"""lessonlib - the library behind every notebook of the course "Automated Evaluation".

One module per lesson step, in the lesson's words (the notebook that uses it first):

* :mod:`lessonlib.records`   - 01: the fictional record set and the human label
* :mod:`lessonlib.criteria`  - 02: the criteria-based approach (rule filter)
* :mod:`lessonlib.metrics`   - 02: measure, agreement, per-class recall
* :mod:`lessonlib.simulator` - 03: the language-model simulator
* :mod:`lessonlib.judge`     - 03: the model-as-judge built on the simulator
* :mod:`lessonlib.report`    - 02-06: the lesson's printed blocks
* :mod:`lessonlib.many`      - 06: many judge runs at once (numpy)
* :mod:`lessonlib.panel`     - 09: a panel of judges: quorum, aggregate, min_agreement

The core path (records to report) is pure Python; nothing calls a network.
"""
from .criteria import DEFAULT_RULES, make_rule_filter, rule_filter
from .judge import (GUIDELINE, Answer, JudgeRun, ask_for_label, build_prompt, read_label,
                    run_judge)
from .metrics import agreement, class_recall, confusion, disagreements, measure, resolution
from .records import (CLASS_SHARE, CLASSES, FEATURES, PROFILE, SEED, SOURCE_SHARE, SOURCES,
                      TEXTS, Flags, Record, generator, is_harmful, make_records, pick, trace_id,
                      write_records_csv)
from .report import (Lesson, class_block, comparison_block, comparison_rows, lesson,
                     sample_call_block)
from .panel import DIVERSE, JUDGES, AskReply, JudgeSpec, Panel, PanelRun, judge_models
from .agreement_stats import cohen_kappa, fleiss_kappa, krippendorff_alpha
from .simulator import (CUE_TABLE, FLAG_WORD, FREE_FORM, LABELS, MAX_OUTPUT, PRIOR,
                        RATE_LIMIT_EVERY, SOURCE_WORD, SPURIOUS, WINDOW, PromptPlan, Reply,
                        SimulatedModel, tokenize)

__version__ = "1.0.0"

# numpy-backed parts load on first use, so the lesson's core path imports without numpy.
_LAZY = (("ManyRuns", "many"), ("run_judge_many", "many"))


def __getattr__(name):
    for attr, module in _LAZY:
        if attr == name:
            import importlib

            return getattr(importlib.import_module(f".{module}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
