"""Plain loops the fast paths are checked against (test-only code, kept out of lessonlib)."""

import lessonlib as L
from lessonlib.judge import RETRY_CAUSE, ask_for_label, build_prompt


def model_run(records, seed, model, guideline=L.GUIDELINE, unreadable_as="clean", calls_before=0):
    """run_judge's loop with any SimulatedModel, its counter set to ``calls_before`` first.

    Returns the JudgeRun that loop gives; its ``calls`` counts only the calls made here.
    """
    model.reset(calls_before)
    labels, retries, unreadable, tokens, causes = {}, 0, 0, 0, {}
    for record in records:
        answer = ask_for_label(model, build_prompt(record, guideline), seed)
        tokens += answer.input_tokens
        if answer.retried:
            retries += 1
            cause = RETRY_CAUSE.get(answer.statuses[0], "unreadable reply")
            causes[cause] = causes.get(cause, 0) + 1
        unreadable += answer.label is None
        fallback = "temiz" if unreadable_as == "clean" else "zararli"
        labels[record.no] = answer.label or fallback
    return L.JudgeRun(
        labels, model.calls - calls_before, retries, unreadable, tokens, seed, causes
    )
