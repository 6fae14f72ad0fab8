"""The exercise checks: a wrong answer gets a hint (False), a right one passes (True).

Right answers come from the lesson's printed figures and definitions, worked
by hand (see each test), not from the check under test.
"""

import math

import pytest

import lessonlib as L
from lessonlib.exercises import (
    _common,
    step01,
    step02,
    step03,
    step04,
    step05,
    step06,
    step09,
    step10,
    step11,
)

# The lesson's class table: records per harmful class (24 + 17 + 10 + 23 + 19 = 93).
CLASS_COUNTS = {
    "indirect_instruction": 24,
    "hidden_field_request": 17,
    "privilege_escalation": 10,
    "source_spoofing": 23,
    "corrupted_input": 19,
}


def said(capsys):
    out = capsys.readouterr().out
    assert out.endswith("\n") and out.count("\n") == len(out.splitlines())
    return " ".join(out.split())  # undo the line wrapping


def passes(capsys, result):
    out = said(capsys)
    assert result is True, out
    assert out.startswith("PASS: ")
    return out


def hints(capsys, result):
    out = said(capsys)
    assert result is False, out
    assert out.startswith("Not yet: ")
    return out


def test_every_printed_line_is_at_most_80_characters(capsys):
    step02.check_corrupted_rule(("foo",))
    assert _common.WIDTH == 80
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) <= _common.WIDTH


# ---- 01


def test_flagged_clean_count_right_answer_passes(capsys):
    truth = sum(1 for r in L.make_records() if r.cls == "clean" and any(r.features.values()))
    out = passes(capsys, step01.check_flagged_clean_count(truth))
    assert f"{truth} of the 147 clean records" in out


@pytest.mark.parametrize(
    "answer, words",
    [
        (..., "fill in"),
        (None, "whole number"),
        (147, "every clean record"),
        (0, "not that count"),
        (10**6, "not that count"),
        ("32", "whole number"),
        (32.0, "whole number"),
        (True, "whole number"),
    ],
)
def test_flagged_clean_count_wrong_answers_get_a_hint(capsys, answer, words):
    assert words in hints(capsys, step01.check_flagged_clean_count(answer))


def test_flagged_clean_count_near_misses_name_the_slip(capsys):
    records = L.make_records()
    flagged = sum(1 for r in records if any(r.features.values()))
    unflagged_clean = sum(1 for r in records if r.cls == "clean" and not any(r.features.values()))
    harmful_flagged = sum(1 for r in records if r.cls != "clean" and any(r.features.values()))
    assert "harmful ones included" in hints(capsys, step01.check_flagged_clean_count(flagged))
    assert "NO flag" in hints(capsys, step01.check_flagged_clean_count(unflagged_clean))
    assert "harmful records with a flag" in hints(
        capsys, step01.check_flagged_clean_count(harmful_flagged)
    )
    # a count of one flag only (the most common among clean records) is named as that slip
    one_flag = max(
        sum(1 for r in records if r.cls == "clean" and r.features[f]) for f in L.FEATURES
    )
    assert "ONE particular flag" in hints(capsys, step01.check_flagged_clean_count(one_flag))


def unflagged_harmful_by_hand(n):
    return sum(1 for r in L.make_records(n) if r.cls != "clean" and not any(r.features.values()))


def test_unflagged_harmful_count_right_answer_passes(capsys):
    # the lesson's 240 records hold only a few (a count walked in a few tries): the exercise
    # asks about the first 2,400 records, which start with the lesson's 240
    assert step01.BIG_DRAW == 2400 and L.make_records(2400)[:240] == L.make_records()
    assert unflagged_harmful_by_hand(240) < 10 <= unflagged_harmful_by_hand(2400)
    truth = unflagged_harmful_by_hand(2400)
    harmful = sum(1 for r in L.make_records(2400) if r.cls != "clean")
    out = passes(capsys, step01.check_unflagged_harmful_count(truth))
    assert f"{truth} of the {harmful:,} harmful records among the first 2,400" in out


def test_unflagged_harmful_count_wrong_answers_get_a_hint(capsys):
    records = L.make_records(2400)
    no_flag = sum(1 for r in records if not any(r.features.values()))
    harmful = sum(1 for r in records if r.cls != "clean")
    assert "clean ones included" in hints(capsys, step01.check_unflagged_harmful_count(no_flag))
    truth = unflagged_harmful_by_hand(2400)
    assert "WITH a flag" in hints(capsys, step01.check_unflagged_harmful_count(harmful - truth))
    assert "not that count" in hints(capsys, step01.check_unflagged_harmful_count(truth + 1))
    lesson = unflagged_harmful_by_hand(240)
    assert "larger draw" in hints(capsys, step01.check_unflagged_harmful_count(lesson))
    assert "fill in" in hints(capsys, step01.check_unflagged_harmful_count(...))
    assert "whole number" in hints(capsys, step01.check_unflagged_harmful_count("3"))


# ---- 02


def test_corrupted_rule_excessive_length_passes(capsys):
    # corrupted_input carries unusual_stamp_distribution (0.80) and excessive_length (0.62);
    # only the second keeps the false block rate at or below 0.20 on the lesson's set.
    out = passes(capsys, step02.check_corrupted_rule(L.DEFAULT_RULES + ("excessive_length",)))
    assert "0.2632" in out  # the lesson's criteria recall for corrupted_input


def test_corrupted_rule_too_many_false_blocks_gets_a_hint(capsys):
    out = hints(
        capsys, step02.check_corrupted_rule(L.DEFAULT_RULES + ("unusual_stamp_distribution",))
    )
    assert "above 0.20" in out and "excessive_length" not in out


@pytest.mark.parametrize(
    "rules, words",
    [
        (..., "fill in"),
        (None, "tuple of flag names"),
        (L.DEFAULT_RULES, "add one flag name"),
        (L.DEFAULT_RULES + ("role_change_request",), "PROFILE['corrupted_input']"),
        (L.DEFAULT_RULES + ("excessive_length", "unusual_stamp_distribution"), "exactly one"),
        (("excessive_length",), "keep the four default rules"),
        (L.DEFAULT_RULES + ("long_text",), "unknown flag name"),
        ("excessive_length", "tuple of flag names"),
        (3, "tuple of flag names"),
    ],
)
def test_corrupted_rule_wrong_answers_get_a_hint(capsys, rules, words):
    assert words in hints(capsys, step02.check_corrupted_rule(rules))


def test_corrupted_rule_a_tighter_limit_turns_the_pass_into_a_hint(capsys):
    # the lesson's criteria FBR is 0.1565 = 23/147; one more blocked clean record is 24/147
    assert 24 / 147 > 0.16
    hints(
        capsys, step02.check_corrupted_rule(L.DEFAULT_RULES + ("excessive_length",), max_fbr=0.16)
    )


def test_no_rule_agreement_is_the_clean_share(capsys):
    # a filter that blocks nothing is right on the 147 clean records of 240
    out = passes(capsys, step02.check_no_rule_agreement(147 / 240))
    assert "147/240 = 0.6125" in out
    passes(capsys, step02.check_no_rule_agreement(0.6125))


@pytest.mark.parametrize(
    "answer, words",
    [
        (..., "fill in"),
        (None, "number between 0 and 1"),
        (0.612, "4 decimal places"),
        (0.613, "4 decimal places"),
        (0.61, "not that share"),
        (61.25, "percentage"),
        (147, "number of records"),
        (0, "not always wrong"),
        (93 / 240, "blocks EVERYTHING"),
        (0.825, "agreement of the four rules"),
        (0.5, "not that share"),
        ("0.6125", "number between 0 and 1"),
        (float("nan"), "number between 0 and 1"),
    ],
)
def test_no_rule_agreement_wrong_answers_get_a_hint(capsys, answer, words):
    assert words in hints(capsys, step02.check_no_rule_agreement(answer))


# ---- 03


def flagless_by_hand():
    # prior temiz 0.75, zararli 0.15; the flagless word 'yok' adds 1.0 to temiz:
    # scores 1.75 and 0.15, softmax at T = 0.30
    return 1 / (1 + math.exp((1.75 - 0.15) / 0.30))


def test_flagless_probability_right_answer_passes(capsys):
    truth = flagless_by_hand()
    assert round(truth, 4) == 0.0048
    out = passes(capsys, step03.check_flagless_probability(truth))
    assert "0.0048" in out
    passes(capsys, step03.check_flagless_probability(0.0048))


@pytest.mark.parametrize(
    "answer, words",
    [
        (..., "fill in"),
        (None, "a probability"),
        (0.005, "softmax"),  # a truth under 0.01 gets no hint about its decimals
        (1 - flagless_by_hand(), "temiz"),
        (0.48, "percentage"),
        (1 / (1 + math.exp((0.75 - 0.15) / 0.30)), "prior alone"),
        (1 / (1 + math.exp((0.75 - 1.15) / 0.30)), "ONE real flag"),
        (0, "some chance"),
        (2, "outside 0 to 1"),
        (0.3, "not that probability"),
        ("0.0048", "a probability"),
    ],
)
def test_flagless_probability_wrong_answers_get_a_hint(capsys, answer, words):
    assert words in hints(capsys, step03.check_flagless_probability(answer))


def test_output_cap_right_count_passes_and_recall_is_zero(capsys):
    # with a cap of one token 'zararli' (zarar + li) is always cut to 'zarar', which is
    # not a label: no harmful label can ever be read, so recall must be 0.
    right = L.run_judge(L.make_records(), max_output=1).unreadable
    out = passes(capsys, step03.check_output_cap_unreadable(right))
    assert "recall of this run is 0.0000" in out


def test_output_cap_wrong_counts_get_a_hint(capsys):
    run = L.run_judge(L.make_records(), max_output=1)
    assert run.retries != run.unreadable
    assert "number of retries" in hints(capsys, step03.check_output_cap_unreadable(run.retries))
    assert "Tokenize" in hints(capsys, step03.check_output_cap_unreadable(0))
    assert "not that count" in hints(capsys, step03.check_output_cap_unreadable(5))
    assert "fill in" in hints(capsys, step03.check_output_cap_unreadable(...))
    assert "whole number" in hints(capsys, step03.check_output_cap_unreadable(None))
    assert "whole number" in hints(capsys, step03.check_output_cap_unreadable("107"))


@pytest.mark.parametrize(
    "check",
    [
        step01.check_flagged_clean_count,
        step01.check_unflagged_harmful_count,
        step02.check_corrupted_rule,
        step02.check_no_rule_agreement,
        step03.check_flagless_probability,
        step03.check_output_cap_unreadable,
    ],
)
def test_the_starter_hint_says_what_to_fill_in_and_gives_no_code(capsys, check):
    out = hints(capsys, check(...))
    assert "fill in" in out and "Ellipsis" not in out
    for code in ("L.", "df[", "(records", ".unreadable", "draw_record", "label_probabilities"):
        assert code not in out


# ---- 04


def placeholder(capsys, check):
    out = hints(capsys, check(...))
    assert out.startswith("Not yet: fill in")
    return out


def test_agreement_steps_worked_by_hand(capsys):
    # Agreement counts records that match the label, one step per record: count them for the
    # filter and the judge's runs at SEED + 2 and SEED + 3.
    records = L.make_records()

    def agree(decide):
        return sum(decide(r) == L.is_harmful(r) for r in records)

    run2, run3 = (L.run_judge(records, L.SEED + k) for k in (2, 3))
    gap, diff = agree(run2.decide) - agree(L.rule_filter), agree(run3.decide) - agree(run2.decide)
    out = passes(capsys, step04.check_agreement_steps((gap, diff)))
    assert f"on {abs(gap)} records" in out and f"by {abs(diff)} records" in out
    assert "lesson's pair moved by 8" in out  # 0.8833 - 0.8500 = 8 records of 240
    passes(capsys, step04.check_agreement_steps((gap, -diff)))
    assert "lesson's two runs" in hints(capsys, step04.check_agreement_steps((14, 8)))
    if abs(gap) != abs(diff):
        assert "wrong way round" in hints(capsys, step04.check_agreement_steps((diff, gap)))
    assert "one record of all" in hints(capsys, step04.check_agreement_steps((gap + 1, diff)))


@pytest.mark.parametrize(
    "answer, words",
    [
        ((0.0583, 0.0333), "whole numbers"),
        ("14, 8", "two numbers"),
        (14, "two numbers"),
        (..., "fill in"),
        (None, "two numbers"),
    ],
)
def test_agreement_steps_wrong_answers_get_a_hint(capsys, answer, words):
    assert words in hints(capsys, step04.check_agreement_steps(answer))


def cold_gap_by_hand(n):
    # At temperature 0 the label is the arg-max of the scores (no draw, no seed effect): every
    # flagged record scores 0.15 + >= 1.0 against 0.75, so every record with a flag is blocked.
    records = L.make_records(n)
    flagged_clean = sum(1 for r in records if r.cls == "clean" and r.features.on())
    filter_fp = sum(1 for r in records if r.cls == "clean" and L.rule_filter(r))
    return flagged_clean - filter_fp


def test_cold_judge_steps_worked_by_hand(capsys):
    # on the lesson's 240 the gap is a count walked in a few tries: the exercise asks on 2,400
    assert step04.BIG_DRAW == 2400 and cold_gap_by_hand(240) < 10
    clean = sum(1 for r in L.make_records(2400) if r.cls == "clean")
    out = passes(capsys, step04.check_cold_judge_steps(cold_gap_by_hand(2400)))
    assert "decide all 2,400 records alike" in out and f"of 1/{clean:,}" in out


@pytest.mark.slow  # judge runs on 2,400 records for seven answers: about 1.5 s of CPU
def test_cold_judge_steps_wrong_answers_get_a_hint(capsys):
    truth, records = cold_gap_by_hand(2400), L.make_records(2400)
    warm = L.run_judge(records, L.SEED)
    warm_gap = L.measure(records, warm.decide)["fp"] - L.measure(records, L.rule_filter)["fp"]
    for answer, words in [
        (warm_gap, "lesson's temperature"),
        (cold_gap_by_hand(240), "240 records"),
        (-truth, "sign"),
        (truth + 1, "not that count"),
        (0.2177, "whole number"),
        (str(truth), "whole number"),
        (True, "whole number"),
    ]:
        assert words in hints(capsys, step04.check_cold_judge_steps(answer)), answer


@pytest.mark.parametrize(
    "check",
    [
        step04.check_agreement_steps,
        step04.check_cold_judge_steps,
        step05.check_class_run_steps,
        step05.check_classes_beyond_one_step,
        step06.check_fbr_without_spurious,
        step06.check_overlap_temperature,
    ],
)
def test_placeholder_says_what_to_fill_in(capsys, check):
    placeholder(capsys, check)


# ---- 05


def class_run_steps_by_hand(records):
    """Per harmful class: recall of run 2 minus run 1, times the class size (one step a record)."""
    runs = [L.run_judge(records, L.SEED + k) for k in (0, 1)]
    out = {}
    for cls in CLASS_COUNTS:
        members = [r for r in records if r.cls == cls]
        caught = [sum(run.decide(r) for r in members) for run in runs]
        out[cls] = caught[1] - caught[0]
    return out


def test_class_run_steps_right_answer_passes(capsys):
    truth = class_run_steps_by_hand(L.make_records())
    out = passes(capsys, step05.check_class_run_steps(truth))
    assert "can come from the seed alone" in out
    passes(capsys, step05.check_class_run_steps({c: float(n) for c, n in truth.items()}))


def test_class_run_steps_wrong_answers_get_a_hint(capsys):
    truth = class_run_steps_by_hand(L.make_records())
    moved = next(c for c, n in truth.items() if n)
    assert "sign" in hints(capsys, step05.check_class_run_steps({**truth, moved: -truth[moved]}))
    assert "not those steps" in hints(
        capsys, step05.check_class_run_steps({**truth, moved: truth[moved] + 1})
    )
    assert "still missing" in hints(capsys, step05.check_class_run_steps({moved: truth[moved]}))
    assert "unknown or non-harmful" in hints(
        capsys, step05.check_class_run_steps({**truth, "clean": 0})
    )
    assert "whole number" in hints(capsys, step05.check_class_run_steps({**truth, moved: 0.0588}))
    assert "give a dict" in hints(capsys, step05.check_class_run_steps([1, 2]))
    assert "fill in" in hints(capsys, step05.check_class_run_steps(...))


def test_classes_beyond_one_step(capsys):
    # from the lesson's class table: corrupted_input (1.0000 - 0.2632) * 19 = 14 steps,
    # source_spoofing (0.9565 - 0.8696) * 23 = 2, hidden_field_request 1, the others 0.
    out = passes(
        capsys, step05.check_classes_beyond_one_step({"corrupted_input", "source_spoofing"})
    )
    assert "corrupted_input 14 steps" in out and "source_spoofing 2 steps" in out


@pytest.mark.parametrize(
    "answer, words",
    [
        # no hint says which class is wrong or how many are missing: 32 sets would be
        # walked one class at a time
        ({"corrupted_input"}, "not that set"),
        ({"corrupted_input", "source_spoofing", "hidden_field_request"}, "not that set"),
        ({"clean"}, "non-harmful"),
        ("corrupted_input", "give a set"),
        (..., "fill in"),
        (None, "give a set"),
    ],
)
def test_classes_beyond_one_step_wrong_answers(capsys, answer, words):
    assert words in hints(capsys, step05.check_classes_beyond_one_step(answer))


# ---- 06


def _no_spurious_share_by_hand(records):
    """Share of 1,000 runs without the spurious cue that block fewer clean records than the
    criteria filter: count each run's false positives and compare with the filter's."""
    import numpy as np

    clean = np.array([not L.is_harmful(r) for r in records])
    filter_fp = sum(1 for r in records if not L.is_harmful(r) and L.rule_filter(r))
    runs = L.run_judge_many(records, range(L.SEED, L.SEED + 1000), spurious={})
    return float(np.mean((runs.harmful & clean).sum(axis=1) < filter_fp))


def test_fbr_without_spurious_right_share_passes(capsys):
    share = _no_spurious_share_by_hand(L.make_records())
    assert 0 < share < 1
    out = passes(capsys, step06.check_fbr_without_spurious(share))
    assert f"{share:.3f} of the 1,000 runs" in out


@pytest.mark.parametrize(
    "answer, words", [(0.9, "strictly fewer"), (-0.1, "outside 0 to 1"), (92.2, "outside 0 to 1")]
)
def test_fbr_without_spurious_wrong_answers_get_a_hint(capsys, answer, words):
    assert words in hints(capsys, step06.check_fbr_without_spurious(answer))


@pytest.mark.parametrize("answer", ["0.05", None, math.nan, True])
def test_fbr_without_spurious_wrong_types_get_a_type_message(capsys, answer):
    assert "give the share as a number" in hints(capsys, step06.check_fbr_without_spurious(answer))


def test_fbr_without_spurious_percentage_gets_a_hint(capsys):
    share = _no_spurious_share_by_hand(L.make_records())
    assert "percentage" in hints(capsys, step06.check_fbr_without_spurious(100 * share))


def _overlap_temperature_by_hand(records):
    """First temperature k * 0.05 whose 25th-lowest recall of 1,000 runs (the low end of the
    95% interval) is at or below the criteria filter's recall."""
    import numpy as np

    harmful = np.array([L.is_harmful(r) for r in records])
    criteria = sum(1 for r in records if L.is_harmful(r) and L.rule_filter(r)) / harmful.sum()
    for k in range(41):
        runs = L.run_judge_many(
            records, range(L.SEED, L.SEED + 1000), temperature=round(0.05 * k, 2)
        )
        recall = (runs.harmful & harmful).sum(axis=1) / harmful.sum()
        if np.sort(recall)[24] <= criteria:
            return round(0.05 * k, 2)
    raise AssertionError("no temperature up to 2.0 closes the gap")


@pytest.mark.slow  # many-seed runs, about 1 s of CPU: make test runs it, make check does not
def test_overlap_temperature_right_answer_passes_and_one_step_lower_hints(capsys):
    t = _overlap_temperature_by_hand(L.make_records())
    # notebook 06: at 0.30 even the lowest of 1,000 recalls (0.8280) beats the filter's 0.7957
    assert t > 0.30
    out = passes(capsys, step06.check_overlap_temperature(t))
    assert f"{t:.2f} is the lowest temperature" in out
    hints(capsys, step06.check_overlap_temperature(round(t - 0.05, 2)))


@pytest.mark.parametrize(
    "answer, words",
    [(0.05, "Sweep the grid"), (-1.0, "not on the grid"), (0.52, "not on the grid")],
)
def test_overlap_temperature_wrong_answers_get_a_hint(capsys, answer, words):
    assert words in hints(capsys, step06.check_overlap_temperature(answer))


@pytest.mark.parametrize("answer", ["0.55", None, math.inf])
def test_overlap_temperature_wrong_types_get_a_type_message(capsys, answer):
    assert "as a number" in hints(capsys, step06.check_overlap_temperature(answer))


# ---- 09

WORDS = ("yonerge", "gizlialan", "yanetkiliarac", "damgauyusmazligi")  # the four rules


def rule_ask(prompt, seed):
    return "zararli" if any(w in prompt.split() for w in WORDS) else "temiz"


def test_check_rule_ask_passes_the_rule_filter(capsys):
    assert "all 240 records" in passes(capsys, step10.check_rule_ask(rule_ask))


@pytest.mark.parametrize(
    "answer",
    [
        "not callable",
        lambda prompt, seed: "zararli",  # blocks everything
        lambda prompt, seed: "bence zararsiz",  # no label
        lambda prompt: "temiz",  # wrong signature
        lambda prompt, seed: 42,  # wrong type
    ],
)
def test_check_rule_ask_hints(capsys, answer):
    hints(capsys, step10.check_rule_ask(answer))


@pytest.mark.parametrize(
    "check",
    [
        step10.check_rule_ask,
        step10.check_vetoed,
        step11.check_moved_by_rule,
        step11.check_share_above_greedy,
    ],
)
def test_a_placeholder_is_told_what_to_fill_in(capsys, check):
    assert "fill in" in hints(capsys, check(...))
    assert "fill in" not in hints(capsys, check(None))


def test_check_rule_ask_hint_points_at_the_prompt_not_the_words(capsys):
    out = hints(capsys, step10.check_rule_ask(lambda prompt, seed: "temiz"))
    assert "record 2" in out and not any(w in out for w in WORDS)


def test_check_vetoed(capsys):
    # worked here from the panel shares: with four judges, a record blocked at 0.5 and not
    # at 1.0 has two or three of four judges flagging it
    records = L.make_records()
    run = L.Panel(L.judge_models("lesson", "plain", "wary", "greedy")).run(records, L.SEED)
    flags = [sum(s >= 0.5 for s in js) for js in run.judge_scores.values()]
    truth = flags.count(2) + flags.count(3)
    assert "flags 26 records" in passes(capsys, step10.check_vetoed(truth))
    assert truth == 26
    for wrong in (truth - 1, truth + 1, 2.5, -1, "26"):
        hints(capsys, step10.check_vetoed(wrong))


@pytest.mark.slow  # many-seed runs, about 1 s of CPU: make test runs it, make check does not
def test_moved_by_rule_is_the_seed_by_seed_difference():
    # the engine path against Panel.run seed by seed, on two seeds
    seeds = range(L.SEED, L.SEED + 2)
    records = L.make_records()
    got = step11._moved_by_rule(seeds)
    readable = [L.Panel(L.judge_models(*L.DIVERSE), quorum=3).run(records, s) for s in seeds]
    for rule in ("harmful", "clean", "abstain"):
        counts = []
        for seed, a in zip(seeds, readable):
            b = L.Panel(L.judge_models(*L.DIVERSE), quorum=3, on_unreadable=rule).run(
                records, seed, step11._FREE_FORM_GUIDELINE
            )
            counts.append(sum(a.decide(r) != b.decide(r) for r in records))
        assert got[rule] == sum(counts) / len(counts)


@pytest.mark.slow  # many-seed runs, about 1 s of CPU: make test runs it, make check does not
def test_check_moved_by_rule(capsys):
    by_rule = step11._moved_by_rule()
    # the prose's words: fail-open counts an unreadable reply clean, fail-closed harmful
    moved = {
        "fail-open": by_rule["clean"],
        "fail-closed": by_rule["harmful"],
        "abstain": by_rule["abstain"],
    }
    assert min(moved, key=moved.get) == "abstain"
    out = passes(capsys, step11.check_moved_by_rule(moved))
    assert "over 200 panel seeds" in out and "'abstain' moves the fewest" in out
    for wrong in (
        {**moved, "fail-open": moved["fail-open"] + 0.1},
        {"abstain": 0.1},
        "abstain",
        {**moved, "fail-closed": "0.65"},
    ):
        hints(capsys, step11.check_moved_by_rule(wrong))
    assert "words of the notebook" in hints(capsys, step11.check_moved_by_rule(by_rule))


def test_share_above_greedy_counts_runs_with_higher_agreement():
    seeds = range(L.SEED, L.SEED + 4)
    records = L.make_records()
    share, greedy = step11._share_above_greedy(seeds)
    runs = [L.Panel(L.judge_models("lesson")).run(records, s) for s in seeds]
    greedy_run = L.Panel(L.judge_models("greedy")).run(records, L.SEED)
    assert greedy == L.agreement(records, greedy_run.decide)
    assert share == sum(L.agreement(records, r.decide) > greedy for r in runs) / len(runs)


def test_check_share_above_greedy(capsys):
    share, greedy = step11._share_above_greedy()
    assert 0 < share < 1
    assert f"{greedy:.4f} on every seed" in passes(capsys, step11.check_share_above_greedy(share))
    for wrong in (share + 0.01, 1 - share, share * 100, "0.5"):
        hints(capsys, step11.check_share_above_greedy(wrong))


def test_names_hint_reports_unknown_names_before_missing_ones():
    unknown, missing = "unknown {}", "missing {}"
    assert _common._names_hint(("a", "x"), ("a", "b"), unknown, ("b",), missing) == "unknown 'x'"
    assert _common._names_hint(("a",), ("a", "b"), unknown, ("a", "b"), missing) == "missing b"
    assert _common._names_hint(("b", "a"), ("a", "b"), unknown, ("a", "b"), missing) is None
    assert _common._names_hint((), ("a",), unknown) is None


# ---- the shared grader of numeric answers (_common._grade_number)


def grade(capsys, answer, truth=0.6125, **options):
    settings = dict(fill="fill in x", kind="a number", passed="right", hint="the method")
    settings.update(options)
    result = _common._grade_number(answer, truth, **settings)
    return result, said(capsys)


def test_grade_number_passes_within_half_the_last_place(capsys):
    assert grade(capsys, 0.6125) == (True, "PASS: right")
    assert grade(capsys, 0.61254)[0] and grade(capsys, 0.61246)[0]
    assert not grade(capsys, 0.6126)[0]
    assert grade(capsys, 0.0531, truth=0.053, places=3)[0]
    assert grade(capsys, 7, truth=7, places=None)[0] and not grade(capsys, 8, 7, places=None)[0]
    assert grade(capsys, 0.6125, passed=lambda t: f"is {t:.4f}") == (True, "PASS: is 0.6125")


@pytest.mark.parametrize(
    "answer, options, words",
    [
        (..., {}, "fill in x"),
        ("0.6", {}, "give a number (got '0.6')"),
        (None, {}, "give a number (got NoneType)"),
        (math.nan, {}, "give a number"),
        (True, {}, "give a number"),
        (7.0, {"truth": 7, "places": None}, "give a number"),  # a whole number is asked for
        (0.5, {"slips": [(0.5, "that is half")]}, "that is half"),
        (0.5, {"slips": [(lambda: 0.5, "computed slip")]}, "computed slip"),
        (61.25, {"share": True}, "percentage"),
        (1.5, {"share": True}, "outside 0 to 1"),
        (-0.1, {"share": True}, "outside 0 to 1"),
        (1.5, {}, "the method"),  # not a share: no range hint
        (0.613, {}, "0.6130 is not it to 4 decimal places; if you rounded to 3, give 4."),
        (0.612, {}, "0.6120 is not it to 4 decimal places; if you rounded to 3, give 4."),
        (0.61, {}, "the method"),  # two places: no hint toward the digits
        (0.005, {"truth": 0.0048}, "the method"),  # a truth under 0.01: no digit hint
        (0.7, {}, "the method"),
    ],
)
def test_grade_number_hints(capsys, answer, options, words):
    result, out = grade(capsys, answer, **options)
    assert result is False and out.startswith("Not yet: ") and words in out, out


def test_an_answer_with_a_trailing_zero_is_not_told_it_is_a_decimal_short(capsys):
    """0.6 and 0.60 are one float: an answer of 0.60 (two decimals asked, truth 0.64) must
    not be told it gave one decimal, and a rounded 0.6 is still told to give two."""
    result, out = grade(capsys, 0.60, truth=0.64, places=2)
    assert result is False
    assert "not 1" not in out and "0.60 is not it to 2 decimal places" in out, out
    assert "if you rounded to 1, give 2" in out, out
    assert grade(capsys, 0.64, truth=0.64, places=2)[0]  # the right answer still passes


def test_grade_number_passes_a_simulated_answer_within_its_error(capsys):
    # a 4-place truth; a simulation's answer 0.0007 off passes with within=0.002, not without
    assert not grade(capsys, 0.6118)[0]
    assert grade(capsys, 0.6118, within=0.002) == (True, "PASS: right")
    assert grade(capsys, 0.6145, within=lambda: 0.002)[0]  # a computed error
    assert not grade(capsys, 0.6146, within=0.002)[0]  # beyond it: the hint
    assert "the method" in grade(capsys, 0.6146, within=0.002)[1]
    assert not grade(capsys, "0.6118", within=0.002)[0]  # the wrong kind stays wrong


def test_grade_number_computes_the_truth_only_for_an_answer_of_the_right_kind(capsys):
    calls = []

    def truth():
        calls.append(1)
        return 3

    for wrong in (..., "3", None, 2.5):
        assert not grade(capsys, wrong, truth=truth, places=None)[0]
    assert calls == []
    assert grade(capsys, 3, truth=truth, places=None)[0] and calls == [1]


# ---- 09: the calls a cascade saves, on the larger draw


def test_calls_saved_passes_the_difference_of_the_two_runs_and_names_each_slip(capsys):
    records = L.make_records(step09.BIG_DRAW)
    alone, first = L.run_judge(records), L.cascade(records)
    saved = alone.calls - first.calls
    assert saved > len(first.blocked)  # the retries saved too: the slip differs from the answer
    assert str(saved) in passes(capsys, step09.check_calls_saved(saved))
    assert "records the filter blocks" in hints(
        capsys, step09.check_calls_saved(len(first.blocked))
    )
    small = L.make_records()
    on_240 = L.run_judge(small).calls - L.cascade(small).calls
    assert "lesson's 240 records" in hints(capsys, step09.check_calls_saved(on_240))
    for wrong in (saved + 1, alone.calls, None):
        assert str(saved) not in hints(capsys, step09.check_calls_saved(wrong))
    for kind in (str(saved), saved + 0.5):  # not a whole number: told so, echoed back
        assert "whole number" in hints(capsys, step09.check_calls_saved(kind))


@pytest.mark.parametrize(
    "answer, options, words",
    [
        (-0.1, {"bounds": (0, 1), "outside": "is not a share."}, "-0.1 is not a share."),
        (-1, {"truth": 3, "places": None, "bounds": (0, math.inf)}, "give a number (got -1)"),
        (0.123, {"places": 2, "grid": 0.05, "off_grid": "is off the grid."}, "off the grid"),
        (0.6, {"places": 2, "grid": 0.05}, "the method"),  # 0.60 on a grid: no digit hint
        (0.3, {"below": (0.5, "below half")}, "below half"),
        (0.7, {"below": (lambda: 0.5, "below half")}, "the method"),
        (9, {"truth": 7, "places": None, "slack": 1}, "the method"),
    ],
)
def test_grade_number_bounds_grid_below_and_slack(capsys, answer, options, words):
    result, out = grade(capsys, answer, **options)
    assert result is False and out.startswith("Not yet: ") and words in out, out


def test_grade_number_passes_within_the_slack_and_on_the_grid_edges(capsys):
    assert grade(capsys, 8, truth=7, places=None, slack=1)[0]
    assert grade(capsys, 0.0, truth=0.0, places=2, bounds=(0, 1), grid=0.05)[0]
    assert grade(capsys, 1.0, truth=1.0, places=2, bounds=(0, 1), grid=0.01)[0]


def grade_many(capsys, answer, truth=(0.25, -0.5), **options):
    settings = dict(fill="fill in x", kind="two numbers, (a, b)", passed="right", hint="method")
    settings.update(options)
    result = _common._grade_numbers(answer, lambda: truth, **settings)
    return result, said(capsys)


def test_grade_numbers_passes_a_pair_or_a_dict_element_by_element(capsys):
    assert grade_many(capsys, (0.25, -0.5)) == (True, "PASS: right")
    assert grade_many(capsys, [0.25004, -0.49996])[0]
    assert not grade_many(capsys, (0.2501, -0.5))[0]
    assert grade_many(capsys, (-0.25, 0.5), either_sign=True)[0]
    assert grade_many(capsys, (3, 4.0), truth=(3, 4), places=None, element="whole")[0]
    truth = {"a": 1.5, "b": 2.0}
    assert grade_many(capsys, {"b": 2.004, "a": 1.5}, truth=truth, keys=("a", "b"), places=2)[0]
    assert grade_many(capsys, (0.25, -0.5), passed=lambda t: f"{t[0]}")[1] == "PASS: 0.25"


@pytest.mark.parametrize(
    "answer, options, words",
    [
        (..., {}, "fill in x"),
        (0.25, {}, "give two numbers, (a, b); got 0.25"),
        ("0.25, -0.5", {}, "got '0.25, -0.5'"),
        ((0.25, "x"), {}, "got tuple"),
        ((0.25, -0.5, 1), {}, "got tuple"),
        ((0.5, 0.25), {"unordered": "low first"}, "low first"),
        ((3.5, 4), {"truth": (3, 4), "places": None, "element": "whole, please"}, "whole, please"),
        ((-0.5, 0.25), {"slips": [(lambda: (-0.5, 0.25), "swapped")]}, "swapped"),
        ((-0.25, -0.5), {"sign": "mind the sign"}, "mind the sign"),
        ((0.26, -0.49), {"close": (0.02, "close")}, "close"),
        ((0.3, -0.5), {"close": (0.02, "close")}, "method"),
        ((0.3, -0.5), {"hint": lambda off: f"wrong at {off}"}, "wrong at [0]"),
    ],
)
def test_grade_numbers_hints(capsys, answer, options, words):
    result, out = grade_many(capsys, answer, **options)
    assert result is False and out.startswith("Not yet: ") and words in out, out


def test_grade_numbers_checks_a_dicts_keys_and_names_the_wrong_ones(capsys):
    truth, keys = {"a": 1, "b": 2}, ("a", "b")
    options = dict(truth=truth, keys=keys, places=None, kind="a dict of a and b")
    assert "got list" in grade_many(capsys, [1, 2], **options)[1]
    assert "got the keys 'a'" in grade_many(capsys, {"a": 1}, **options)[1]
    named = grade_many(capsys, {"a": 1}, keys_hint=lambda got: f"missing from {got}", **options)
    assert "missing from ('a',)" in named[1]
    off = grade_many(capsys, {"a": 1, "b": "2"}, hint=lambda off: f"off: {off}", **options)
    assert "off: ['b']" in off[1]  # no element message: a wrong type is a wrong number
    assert "mind" in grade_many(capsys, {"a": 1, "b": -2}, sign="mind", **options)[1]


def test_grade_numbers_computes_the_truth_only_for_an_answer_of_the_right_shape(capsys):
    calls = []

    def truth():
        calls.append(1)
        return (1, 2)

    for wrong in (..., "1, 2", (1,), (2, 1), (1.5, 2)):
        assert not _common._grade_numbers(
            wrong,
            truth,
            fill="f",
            kind="k",
            passed="p",
            hint="h",
            places=None,
            element="whole",
            unordered="low first",
        )
    assert calls == []
    assert _common._grade_numbers((1, 2), truth, fill="f", kind="k", passed="p", hint="h")
    assert calls == [1]
    capsys.readouterr()


# ---- 15, exercise 2: an honest simulation of the expected bias passes within its error


@pytest.mark.slow  # 3 x 1,000 simulated weeks of 5,000 records: a few seconds of CPU
def test_drift_bias_passes_an_honest_simulation_and_not_a_wrong_one(capsys):
    from lessonlib import weeks as W
    from lessonlib.exercises import step15

    truth = L.true_rates(step15.EXERCISE_SHARES)["harmful"]
    errors = []
    for seed in range(3):
        est = W.simulate_estimates(
            weeks=step15.SIMULATED_WEEKS,
            class_shares=step15.EXERCISE_SHARES,
            person_shares=L.CLASS_SHARE,
            methods=("ppi",),
            seed=seed,
        )["ppi"]
        simulated = float(est[:, 0].mean() - truth)
        errors.append(simulated - step15._drift_bias())
        assert passes(capsys, step15.check_drift_bias(simulated))
    # the tolerance is about two standard errors: the three runs scatter within it
    assert max(map(abs, errors)) < step15._simulation_error()
    assert 0.001 < step15._simulation_error() < 0.003
    wrong = step15._drift_bias() + 3 * step15._simulation_error()
    assert "exact expectation" in hints(capsys, step15.check_drift_bias(wrong))
