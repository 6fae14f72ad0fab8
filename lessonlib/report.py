"""Notebooks 02-06 - the lesson's printed blocks, computed from the records and the runs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ._checks import check_callable, check_instance, check_int
from .criteria import rule_filter
from .judge import JudgeRun, Run, _run_judge, build_prompt
from .metrics import FIGURES, RATES, _class_recall, _measured, disagreements, trusted
from .records import CLASSES, SEED, Record, check_record, check_records, make_records
from .simulator import SimulatedModel

__all__ = [
    "SAMPLE_INDEX",
    "Lesson",
    "Row",
    "class_table",
    "comparison_block",
    "lesson",
    "retry_text",
    "sample_call_block",
    "table_text",
]

SAMPLE_INDEX = 1  # the lesson's sample call shows the second record


def sample_call_block(record: Record, seed: int = SEED) -> str:
    """The sample call: one record, its prompt, one call to a fresh simulator (notebook 03)."""
    check_record(record)
    prompt = build_prompt(record)
    reply = SimulatedModel().call(prompt, seed)
    return (
        f"record {record.no} , actual class {record.cls}\n"
        f"  prompt: {prompt}\n"
        f"  status {reply.status} , input {reply.input_tokens} tokens , reply {reply.text}"
    )


@dataclass(frozen=True)
class Row:
    """One approach's line in the comparison table."""

    name: str
    scores: dict
    agreement: float
    calls: int
    input_tokens: int


def _checked(records, runs, criteria):
    """The door's check of the blocks: records, runs (judge or panel runs), criteria."""
    records = check_records(records)
    for i, run in enumerate(runs):
        check_instance(f"runs[{i}]", run, Run)
    return records, check_callable("criteria", criteria, "a function record -> bool")


def _comparison_rows(records, runs, criteria):
    """Rows for the criteria filter and each judge run, numbered from 1, for checked
    arguments (notebook 02)."""
    scores, agree = _measured(records, trusted(records, criteria))
    rows = [Row("criteria-based", scores, agree, 0, 0)]
    for i, run in enumerate(runs, 1):
        scores, agree = _measured(records, run.decider(records))
        rows.append(Row(f"model-as-judge , run {i}", scores, agree, run.calls, run.input_tokens))
    return rows


_WIDTHS = ("<24", ">9", ">11", ">17", ">10", ">7", ">13")


def table_text(rows: Sequence[Row]) -> str:
    """The comparison table as text (notebook 02)."""
    lines = [
        (
            "approach",
            *(FIGURES[key].title for key in RATES),
            FIGURES["agreement"].title,
            "calls",
            "input tokens",
        )
    ]
    for row in rows:
        lines.append(
            (
                row.name,
                *(f"{row.scores[key]:.4f}" for key in RATES),
                f"{row.agreement:.4f}",
                row.calls,
                row.input_tokens,
            )
        )
    return "\n".join(" ".join(map(format, line, _WIDTHS)) for line in lines)


def retry_text(run: Run) -> str:
    """'retries N (cause) , unreadable replies M' for one run."""
    causes = getattr(run, "retry_causes", {})  # a PanelRun keeps no causes
    why = ", ".join(c if len(causes) == 1 else f"{c} {n}" for c, n in causes.items())
    why = f" ({why})" if why else ""
    return f"retries {run.retries}{why} , unreadable replies {run.unreadable}"


def comparison_block(
    records: Sequence[Record],
    run1: Run,
    run2: Run,
    criteria: Callable[[Record], bool] = rule_filter,
) -> str:
    """The comparison table, then how much the judge moved between two runs (notebook 06)."""
    records, criteria = _checked(records, (run1, run2), criteria)
    return _comparison_block(records, run1, run2, criteria)


def _comparison_block(records, run1, run2, criteria):
    """:func:`comparison_block` for checked arguments."""
    rows = _comparison_rows(records, (run1, run2), criteria)
    first, second = rows[1].scores, rows[2].scores
    changed = len(disagreements(run1.labels, run2.labels))
    lines = [
        table_text(rows),
        "",
        f"the judge's own two-run difference: the decision changed on {changed} records "
        f"({changed / len(records):.4f})",
    ]
    for key in RATES:
        a, b = first[key], second[key]
        lines.append(f"  {FIGURES[key].title:<18} {a:.4f} -> {b:.4f} , diff {b - a:+.4f}")
    lines.append(
        f"same difference in the criteria-based approach: {0.0:+.4f} (no model is called)"
    )
    lines.append(retry_text(run1))
    return "\n".join(lines)


def class_table(recalls: Mapping[str, Mapping[str, tuple[int, float]]], width: int = 17) -> str:
    """Per-class recall, a column ``width`` wide per ``title -> class_recall(...)``: the harmful
    classes in CLASSES order, then clean (its false positives) (notebook 05)."""
    first = next(iter(recalls.values()))
    lines = [f"{'class':<24} {'records':>8}" + "".join(f" {title:>{width}}" for title in recalls)]
    for cls in CLASSES[1:] + CLASSES[:1]:
        if cls not in first:
            continue
        name = "clean (false positives)" if cls == "clean" else cls
        shares = "".join(f" {per_class[cls][1]:>{width}.4f}" for per_class in recalls.values())
        lines.append(f"{name:<24} {first[cls][0]:>8}{shares}")
    return "\n".join(lines)


def _class_block(records, run, criteria):
    """Per-class recall of the criteria filter and a judge run, for checked arguments."""
    return class_table(
        {
            "criteria recall": _class_recall(records, trusted(records, criteria)),
            "judge recall": _class_recall(records, run.decider(records)),
        }
    )


@dataclass(frozen=True)
class Lesson:
    """Everything the lesson computes: the records and the judge's two runs (notebook 04)."""

    records: list
    run1: JudgeRun
    run2: JudgeRun

    @property
    def sample(self) -> Record:
        return self.records[SAMPLE_INDEX]

    def blocks(self) -> tuple[str, str, str]:
        """The three printed blocks: sample call, comparison with band, class table (the
        records and runs checked once)."""
        records, criteria = _checked(self.records, (self.run1, self.run2), rule_filter)
        return (
            sample_call_block(self.sample),
            _comparison_block(records, self.run1, self.run2, criteria),
            _class_block(records, self.run1, criteria),
        )


def lesson(n: int = 240, seed: int = SEED) -> Lesson:
    """Build ``n`` records and run the judge with ``seed`` and ``seed + 1`` (notebook 04)."""
    check_int("n", n, minimum=SAMPLE_INDEX + 1)  # the sample call shows record 2
    records = make_records(n, seed)
    seed = int(seed)  # make_records checked it
    return Lesson(
        records,
        _run_judge(records, seed, SimulatedModel()),
        _run_judge(records, seed + 1, SimulatedModel()),
    )
