"""Notebook 03 - the model-as-judge built on the simulator.

The judge asks its model through an **ask**: ``ask(prompt, seed)`` returns reply text or an
object with ``.text`` (and optionally ``.input_tokens``, ``.status``), as SimulatedModel does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._checks import check_choice, check_int, check_seed, check_str
from ._frozen import ReadOnlyDict
from .records import FEATURES, SEED, check_record, check_records
from .simulator import (CUE_TABLE, FLAG_WORD, LABELS, MAX_OUTPUT, NO_FLAG_WORD, SOURCE_WORD,
                        SPURIOUS, TEMPERATURE, SimulatedModel, tokenize)

GUIDELINE = ("Su kaydin ozniteliklerine bak ve tek etiket yaz : temiz ya da zararli . "
             "Oznitelikler : ")
"""'Look at this record's attributes and write a single label: clean or harmful. Attributes:'"""

CLEAN, HARMFUL = LABELS


def build_prompt(record, guideline=GUIDELINE):
    """Guideline + flag words (or 'yok') + source word + record number + text (notebook 03)."""
    words = " ".join(FLAG_WORD[f] for f in FEATURES if record.features[f]) or NO_FLAG_WORD
    return (guideline + words + " . kaynak " + SOURCE_WORD[record.source]
            + " . kayit " + str(record.no) + " : " + record.text)


def read_label(reply_text):
    """The first word of the reply that is a label, or None when there is none (notebook 03)."""
    for word in reply_text.lower().split():
        if word in LABELS:
            return word
    return None


def reply_parts(prompt, reply):
    """(text, input_tokens, status) of what an ``ask`` returned; plain text counts as 'ok'."""
    if isinstance(reply, str):
        return reply, len(tokenize(prompt)), "ok"
    text = getattr(reply, "text", None)
    if not isinstance(text, str):
        raise TypeError("an ask must return reply text (str) or an object with a str .text, "
                        f"got {type(reply).__name__}")
    tokens = getattr(reply, "input_tokens", None)
    tokens = len(tokenize(prompt)) if tokens is None else check_int(
        "input_tokens (of the ask's reply)", tokens, minimum=0)
    return text, tokens, getattr(reply, "status", "ok")


@dataclass(frozen=True)
class Answer:
    """One record's outcome: the label read (None if unreadable twice) and what it cost."""

    label: str | None
    calls: int
    input_tokens: int
    statuses: tuple             # the status of each call, in order

    @property
    def retried(self):
        return self.calls > 1


def ask_for_label(ask, prompt, seed):
    """Ask once with ``seed``; if the label cannot be read, once more with ``seed + 1``."""
    text, tokens, status = reply_parts(prompt, ask(prompt, seed))
    label = read_label(text)
    if label is not None:
        return Answer(label, 1, tokens, (status,))
    text, more, status2 = reply_parts(prompt, ask(prompt, seed + 1))
    return Answer(read_label(text), 2, tokens + more, (status, status2))


@dataclass(frozen=True)
class JudgeRun:
    """The labels of one judge run and what it cost (notebook 03)."""

    labels: dict = field(repr=False)   # record no -> 'temiz' | 'zararli'
    calls: int
    retries: int
    unreadable: int
    input_tokens: int
    seed: int = 0
    retry_causes: dict = field(default_factory=dict)  # why first calls failed -> count
    judged: dict = field(default_factory=dict, repr=False, compare=False)  # no -> the Record

    def decide(self, record):
        """True when this run labelled ``record`` harmful; a record it did not judge is refused."""
        check_record(record)
        label = self.labels.get(record.no)
        known = self.judged.get(record.no, record)
        if label is None or (known is not record and known != record):
            raise ValueError(f"record {record.no} is not one this run judged: the run does not "
                             f"belong to these records (other seed or number of records?)")
        return label == HARMFUL


UNREADABLE_RULES = ("clean", "harmful")
RETRY_CAUSE = ReadOnlyDict({"rate_limit": "rate limit", "context_overflow": "context overflow"})


def run_judge(records, seed=SEED, temperature=TEMPERATURE,
              guideline=GUIDELINE, cues=CUE_TABLE, spurious=SPURIOUS, max_output=MAX_OUTPUT,
              *, unreadable_as="clean"):
    """Ask a fresh SimulatedModel about every record, retrying once if unreadable (notebook 03).

    A record still unreadable is counted as ``unreadable_as`` (the lesson: 'clean', fail-open).
    """
    records = check_records(records)
    check_seed(seed)
    check_str("guideline", guideline)
    check_choice("unreadable_as", unreadable_as, UNREADABLE_RULES)
    model = SimulatedModel(temperature, cues, spurious, max_output=max_output)
    fallback = CLEAN if unreadable_as == "clean" else HARMFUL
    labels, retries, unreadable, tokens, causes = {}, 0, 0, 0, {}
    for record in records:
        answer = ask_for_label(model.call, build_prompt(record, guideline), seed)
        tokens += answer.input_tokens
        if answer.retried:
            retries += 1
            cause = RETRY_CAUSE.get(answer.statuses[0], "unreadable reply")
            causes[cause] = causes.get(cause, 0) + 1
        if answer.label is None:
            unreadable += 1
        labels[record.no] = fallback if answer.label is None else answer.label
    return JudgeRun(labels, model.calls, retries, unreadable, tokens, seed, causes,
                    {r.no: r for r in records})


def harmful_probability_curves(records, temperatures=None, flags=(0, 1, 2, 3)):
    """Notebook 03: P('zararli') against temperature, per number of flags on a record.

    For each count in ``flags``: the first record with exactly that many flags on and
    ``excessive_length`` off (so the spurious cue plays no part), and
    :func:`lessonlib.simulator.label_probabilities` of its prompt at each temperature
    (default 0 to 3 in steps of 0.05).  Returns ``{count: (record number, [P, ...])}`` and
    the temperatures, as ``(curves, temperatures)``.
    """
    from .simulator import label_probabilities

    records = check_records(records)
    temps = [round(0.05 * k, 2) for k in range(61)] if temperatures is None else list(temperatures)
    curves = {}
    for count in flags:
        count = check_int("flags", count, minimum=0)
        record = next((r for r in records if len(r.features.on()) == count
                       and not r.features["excessive_length"]), None)
        if record is None:
            raise ValueError(f"flags: no record has exactly {count} flags with "
                             "excessive_length off")
        prompt = build_prompt(record)
        curves[count] = (record.no, [label_probabilities(prompt, t)[HARMFUL] for t in temps])
    return curves, temps


def plot_harmful_probability(records, temperatures=None, flags=(0, 1, 2, 3), ax=None):
    """Notebook 03: the lines of :func:`harmful_probability_curves`, one per number of
    flags, with the lesson's temperature marked.  Returns the Axes."""
    import matplotlib.pyplot as plt

    curves, temps = harmful_probability_curves(records, temperatures, flags)
    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, 4), layout="constrained")
    for k, (count, (no, probs)) in enumerate(curves.items()):
        ax.plot(temps, probs, color=f"C{k}",
                label=f"{count} flag{'' if count == 1 else 's'} (record {no})")
    ax.axvline(TEMPERATURE, color="0.4", linestyle=":", linewidth=1)
    ax.annotate(f"lesson's {TEMPERATURE:.2f}", (TEMPERATURE, 0.5), xytext=(4, 0),
                textcoords="offset points", fontsize=11, color="0.3")
    ax.set_xlabel("temperature")
    ax.set_ylabel("P(zararli)")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title("How likely the judge says harmful, by number of flags")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), title="flags on")
    ax.grid(alpha=0.3)
    return ax
