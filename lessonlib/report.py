"""Notebooks 02-06 - the lesson's printed blocks, computed.

Each ``*_block`` function computes its figures from the records and the runs
it is given and returns the text; nothing here is typed in.  ``lesson()`` runs
the whole lesson (records, the sample call, the criteria filter and two judge
runs) and :func:`lesson_blocks` returns the three blocks the lesson prints.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._checks import check_int
from .criteria import rule_filter
from .judge import JudgeRun, build_prompt, run_judge
from .metrics import agreement, class_recall, disagreements, measure
from .records import CLASSES, SEED, make_records
from .simulator import SimulatedModel

SAMPLE_INDEX = 1          # the lesson's sample call shows the second record
RATE_TITLES = (("precision", "precision"), ("recall", "recall"),
               ("false_block_rate", "false block rate"))
"""The three rates of the comparison table: (key in measure's result, title printed)."""


def sample_call_block(record, seed=SEED, model=None):
    """The sample call: one record, its prompt, one call to a fresh simulator (notebook 03)."""
    model = SimulatedModel() if model is None else model
    prompt = build_prompt(record)
    reply = model.call(prompt, seed)
    return (f"record {record.no} , actual class {record.cls}\n"
            f"  prompt: {prompt}\n"
            f"  status {reply.status} , input {reply.input_tokens} tokens , reply {reply.text}")


@dataclass(frozen=True)
class Row:
    """One approach's line in the comparison table."""

    name: str
    scores: dict
    agreement: float
    calls: int
    input_tokens: int


def comparison_rows(records, runs, criteria=rule_filter):
    """Rows for the criteria filter and each judge run, numbered from 1 (notebook 02)."""
    rows = [Row("criteria-based", measure(records, criteria), agreement(records, criteria), 0, 0)]
    for i, run in enumerate(runs, 1):
        rows.append(Row(f"model-as-judge , run {i}", measure(records, run.decide),
                        agreement(records, run.decide), run.calls, run.input_tokens))
    return rows


_HEAD = (("approach", "<24"), ("precision", ">9"), ("recall", ">11"),
         ("false block rate", ">17"), ("agreement", ">10"), ("calls", ">7"),
         ("input tokens", ">13"))


def table_text(rows):
    """The comparison table as text (notebook 02)."""
    lines = [" ".join(format(title, spec) for title, spec in _HEAD)]
    for row in rows:
        cells = [format(row.name, "<24")]
        cells += [format(row.scores[key], w + ".4f") for (key, _), w in
                  zip(RATE_TITLES, (">9", ">11", ">17"))]
        cells += [format(row.agreement, ">10.4f"), format(row.calls, ">7"),
                  format(row.input_tokens, ">13")]
        lines.append(" ".join(cells))
    return "\n".join(lines)


def retry_text(run):
    """'retries N (cause) , unreadable replies M' for one run."""
    causes = run.retry_causes
    if len(causes) == 1:
        why = f" ({next(iter(causes))})"
    elif causes:
        why = " (" + ", ".join(f"{c} {n}" for c, n in causes.items()) + ")"
    else:
        why = ""
    return f"retries {run.retries}{why} , unreadable replies {run.unreadable}"


def band_text(records, run1, run2):
    """How much the judge moved between two runs, next to the criteria filter's zero."""
    first, second = measure(records, run1.decide), measure(records, run2.decide)
    changed = len(disagreements(run1.labels, run2.labels))
    lines = [f"the judge's own two-run difference: the decision changed on {changed} records "
             f"({changed / len(records):.4f})"]
    for key, title in RATE_TITLES:
        a, b = first[key], second[key]
        lines.append(f"  {title:<18} {a:.4f} -> {b:.4f} , diff {b - a:+.4f}")
    lines.append(f"same difference in the criteria-based approach: {0.0:+.4f} (no model is called)")
    lines.append(retry_text(run1))
    return "\n".join(lines)


def comparison_block(records, run1, run2, criteria=rule_filter):
    """The comparison table followed by the two-run difference (notebook 06)."""
    return (table_text(comparison_rows(records, (run1, run2), criteria)) + "\n\n"
            + band_text(records, run1, run2))


def class_table(recalls, width=17):
    """Per-class recall side by side: one column per ``title -> class_recall(...)`` in ``recalls``.

    Rows are the harmful classes in CLASSES order, then clean, whose share
    blocked is the false block rate ('clean (false positives)'); a class the
    first column lacks is left out.  Each recall column is ``width`` wide.
    """
    first = next(iter(recalls.values()))
    lines = [f"{'class':<24} {'records':>8}" + "".join(f" {title:>{width}}" for title in recalls)]
    for cls in CLASSES[1:] + CLASSES[:1]:
        if cls not in first:
            continue
        name = "clean (false positives)" if cls == "clean" else cls
        shares = "".join(f" {per_class[cls][1]:>{width}.4f}" for per_class in recalls.values())
        lines.append(f"{name:<24} {first[cls][0]:>8}{shares}")
    return "\n".join(lines)


def class_block(records, run, criteria=rule_filter):
    """Per-class recall of the criteria filter and a judge run; clean gives false positives."""
    return class_table({"criteria recall": class_recall(records, criteria),
                        "judge recall": class_recall(records, run.decide)})


@dataclass(frozen=True)
class Lesson:
    """Everything the lesson computes: the records and the judge's two runs (notebook 04)."""

    records: list
    run1: JudgeRun
    run2: JudgeRun

    @property
    def sample(self):
        return self.records[SAMPLE_INDEX]

    def blocks(self):
        """The three printed blocks: sample call, comparison with band, class table."""
        return (sample_call_block(self.sample),
                comparison_block(self.records, self.run1, self.run2),
                class_block(self.records, self.run1))


def lesson(n=240, seed=SEED):
    """Build ``n`` records and run the judge with ``seed`` and ``seed + 1`` (notebook 04)."""
    check_int("n", n, minimum=SAMPLE_INDEX + 1)    # the sample call shows record 2
    records = make_records(n, seed)
    return Lesson(records, run_judge(records, seed), run_judge(records, seed + 1))


def lesson_blocks():
    """The lesson's three printed blocks, computed."""
    return lesson().blocks()
