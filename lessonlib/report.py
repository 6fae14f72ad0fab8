"""Notebooks 02-06 - the lesson's printed blocks, computed from the records and the runs."""

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


def sample_call_block(record, seed=SEED):
    """The sample call: one record, its prompt, one call to a fresh simulator (notebook 03)."""
    prompt = build_prompt(record)
    reply = SimulatedModel().call(prompt, seed)
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


_WIDTHS = ("<24", ">9", ">11", ">17", ">10", ">7", ">13")


def table_text(rows):
    """The comparison table as text (notebook 02)."""
    lines = [("approach", *(title for _, title in RATE_TITLES), "agreement", "calls",
              "input tokens")]
    for row in rows:
        lines.append((row.name, *(f"{row.scores[key]:.4f}" for key, _ in RATE_TITLES),
                      f"{row.agreement:.4f}", row.calls, row.input_tokens))
    return "\n".join(" ".join(map(format, line, _WIDTHS)) for line in lines)


def retry_text(run):
    """'retries N (cause) , unreadable replies M' for one run."""
    causes = run.retry_causes
    why = ", ".join(c if len(causes) == 1 else f"{c} {n}" for c, n in causes.items())
    why = f" ({why})" if why else ""
    return f"retries {run.retries}{why} , unreadable replies {run.unreadable}"


def comparison_block(records, run1, run2, criteria=rule_filter):
    """The comparison table, then how much the judge moved between two runs (notebook 06)."""
    first, second = measure(records, run1.decide), measure(records, run2.decide)
    changed = len(disagreements(run1.labels, run2.labels))
    lines = [table_text(comparison_rows(records, (run1, run2), criteria)), "",
             f"the judge's own two-run difference: the decision changed on {changed} records "
             f"({changed / len(records):.4f})"]
    for key, title in RATE_TITLES:
        a, b = first[key], second[key]
        lines.append(f"  {title:<18} {a:.4f} -> {b:.4f} , diff {b - a:+.4f}")
    lines.append("same difference in the criteria-based approach: "
                 f"{0.0:+.4f} (no model is called)")
    lines.append(retry_text(run1))
    return "\n".join(lines)


def class_table(recalls, width=17):
    """Per-class recall, a column ``width`` wide per ``title -> class_recall(...)`` (notebook 05).

    Rows: the harmful classes in CLASSES order, then clean (its false positives).
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
    """Per-class recall of the criteria filter and a judge run (notebook 05)."""
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
