"""One judge-settings value (issue 28): every judge entry point takes a ``JudgeSettings``
whole (``settings=``) or builds it from keyword changes, and passes it on whole.

Each entry point runs with a non-default value of every setting and is compared with a
reference written here from the simulator's own parts (a model's ``call``, ``read_label``,
``label_probabilities``), not from the library's loops; where a setting changes what the
entry point returns, the result is also shown to differ from the lesson's judge, so a
setting dropped on the way fails.  The keyword form and the ``settings=`` form must agree.
An introspection test keeps the table whole: a public function that takes ``settings`` and
is not in it fails, and so does one that takes a setting by its own name outside the places
named in ``OWN_PARAMETERS``.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import lessonlib as L
from lessonlib import designs as D
from lessonlib import probing as P
from lessonlib import truth as T
from lessonlib import variance as V
from lessonlib import weeks as W
from lessonlib.judge import SETTINGS, JudgeSettings, resolve_settings
from lessonlib.simulator import label_probabilities

RECS = L.make_records(120)
SEEDS = [5, 6]
# no 'tek': free-form replies (some unreadable); 'yok' in it: a cue for clean in every prompt
FREE_FORM = L.GUIDELINE.replace("tek ", "") + "yok . "

# one change per setting, each away from the lesson's judge; unreadable_as needs unreadable
# replies to act on, so its row caps the output too (and differs from the max_output row)
CHANGES = {
    "temperature": {"temperature": 0.9},
    "guideline": {"guideline": FREE_FORM},
    "cues": {"cues": {"yok": "zararli"}},  # no flag cue left, and 'no flag' read as harmful
    "spurious": {"spurious": {"asiri": "temiz"}},  # the length cue turned round
    "prior": {"prior": {"temiz": 0, "zararli": 1.5}},  # the issue's example
    "max_output": {"max_output": 1},
    "unreadable_as": {"max_output": 1, "unreadable_as": "harmful"},
}
# the result a row must move away from: the lesson's judge, or for unreadable_as the same
# capped judge counting its unreadable replies as clean
BASELINE = {"unreadable_as": {"max_output": 1}}


# ---------------------------------------------------------------- references, from the parts


def ref_labels(records, seed, s):
    """A judge run by hand: ask, read, ask once more with seed + 1, else unreadable_as."""
    model = L.SimulatedModel(s.temperature, s.cues, s.spurious, s.prior, max_output=s.max_output)
    fallback = "temiz" if s.unreadable_as == "clean" else "zararli"
    labels = {}
    for r in records:
        prompt = L.build_prompt(r, s.guideline)
        label = None
        for k in (0, 1):
            reply = model.call(prompt, seed + k)
            label = L.read_label(reply.text) if reply.status == "ok" else None
            if label is not None:
                break
        labels[r.no] = fallback if label is None else label
    return labels


def ref_blocks(records, seed, s):
    labels = ref_labels(records, seed, s)
    return np.array([labels[r.no] == "zararli" for r in records])


def ref_score(records, s):
    return {
        r.no: label_probabilities(
            L.build_prompt(r, s.guideline), s.temperature, s.cues, s.spurious, s.prior
        )["zararli"]
        for r in records
    }


def ref_cascade(records, seed, s, rules=L.DEFAULT_RULES, low=None, high=None):
    """The filter first, the judge (by hand) on the rest, the unsure ones to a person."""
    block = L.make_rule_filter(rules)
    passed = [r for r in records if not block(r)]
    labels = ref_labels(passed, seed, s) if passed else {}
    score = ref_score(passed, s)
    out, people = [], 0
    for r in records:
        if block(r):
            out.append(True)
        elif low is not None and low < score[r.no] < high:
            out.append(r.cls != "clean")
            people += 1
        else:
            out.append(labels[r.no] == "zararli")
    return np.array(out), people


def agreement_of(blocks, records=RECS):
    truth = np.array([r.cls != "clean" for r in records])
    return float(np.mean(blocks == truth))


# ---------------------------------------------------------------- the entry points

# name -> (run(**changes), reference(settings)); each returns something == can compare
ENTRY = {
    "run_judge": (
        lambda **c: L.run_judge(RECS, 5, **c).labels,
        lambda s: ref_labels(RECS, 5, s),
    ),
    "run_judge_many": (
        lambda **c: L.run_judge_many(RECS, SEEDS, **c).harmful.tolist(),
        lambda s: [ref_blocks(RECS, seed, s).tolist() for seed in SEEDS],
    ),
    "cascade": (
        lambda **c: L.cascade(RECS, 5, low=0.2, high=0.8, **c).labels,
        lambda s: {
            r.no: "zararli" if b else "temiz"
            for r, b in zip(RECS, ref_cascade(RECS, 5, s, low=0.2, high=0.8)[0])
        },
    ),
    "judge_probabilities": (
        lambda **c: L.judge_probabilities(RECS, **c),
        lambda s: ref_score(RECS, s),
    ),
    "design_shares": (
        lambda **c: {
            name: d["harmful"].tolist()
            for name, d in D.design_shares(RECS, SEEDS, 0.2, 0.8, **c).items()
        },
        lambda s: {
            name: (
                [[L.rule_filter(r) for r in RECS]] * len(SEEDS)
                if design is None
                else [ref_cascade(RECS, seed, s, **design)[0].tolist() for seed in SEEDS]
            )
            for name, design in D.designs(0.2, 0.8).items()
        },
    ),
    "harmful_probability": (
        lambda **c: P.harmful_probability(RECS, **c),
        lambda s: ref_score(RECS, s),
    ),
    "probe": (
        lambda **c: (lambda p: (dict(p.before), dict(p.after)))(P.probe(RECS, "length", 5, **c)),
        lambda s: (
            ref_labels(RECS, 5, s),
            ref_labels([P.twin(r, "length") for r in RECS], 5, s),
        ),
    ),
    "temperature_sweep": (
        lambda **c: round(
            V.temperature_sweep(RECS, [0.5], SEEDS, **without_temperature(c))[0]["agreement low"],
            12,
        ),
        lambda s: round(
            V.run_band(
                [
                    agreement_of(ref_blocks(RECS, k, dataclasses.replace(s, temperature=0.5)))
                    for k in SEEDS
                ]
            )[0],
            12,
        ),
    ),
}


def agreement_of_shares(shares, records=RECS):  # the expected agreement of shares
    truth = np.array([r.cls != "clean" for r in records])
    return float(np.mean(np.where(truth, shares, 1 - shares)))


def without_temperature(changes):
    return {k: v for k, v in changes.items() if k != "temperature"}


# the settings that do not change an entry point's result, and why
UNMOVED = {
    "judge_probabilities": {"max_output", "unreadable_as"},  # the score: one call's P(zararli)
    "harmful_probability": {"max_output", "unreadable_as"},  # the same score
    "temperature_sweep": {"temperature"},  # the sweep sets its own temperatures
}


def test_the_agreement_of_shares_reads_a_share_as_a_chance():
    shares = np.array([1.0, 0.25])
    recs = [r for r in RECS if r.cls != "clean"][:1] + [r for r in RECS if r.cls == "clean"][:1]
    assert agreement_of_shares(shares, recs) == (1.0 + 0.75) / 2


@pytest.mark.slow
@pytest.mark.parametrize("setting", list(CHANGES))
@pytest.mark.parametrize("entry", list(ENTRY))
def test_every_entry_point_passes_every_setting_on(entry, setting):
    run, reference = ENTRY[entry]
    changes = CHANGES[setting]
    if entry == "temperature_sweep" and setting == "temperature":
        pytest.skip("the sweep sets the temperature itself (a temperature keyword is refused)")
    got = run(**changes)
    assert got == reference(JudgeSettings(**changes))
    baseline = run(**BASELINE.get(setting, {}))
    if setting not in UNMOVED.get(entry, set()):
        assert got != baseline, f"{entry} gave the same result with {changes}: a dropped setting"
    else:
        assert got == baseline


@pytest.mark.slow
@pytest.mark.parametrize("entry", list(ENTRY))
def test_settings_given_whole_or_as_keywords_are_one_judge(entry):
    run, _ = ENTRY[entry]
    whole = JudgeSettings(temperature=0.9, prior={"temiz": 0.5, "zararli": 0.4})
    assert run(settings=whole) == run(temperature=0.9, prior={"temiz": 0.5, "zararli": 0.4})
    # keywords change the value given whole
    assert run(settings=JudgeSettings(temperature=0.9), spurious={}) == run(
        temperature=0.9, spurious={}
    )


def test_the_lesson_settings_are_the_defaults_and_the_names_come_from_the_value():
    assert SETTINGS == tuple(f.name for f in dataclasses.fields(JudgeSettings))
    assert resolve_settings(None, {}) == JudgeSettings() == L.judge.LESSON_SETTINGS
    assert repr(JudgeSettings()) == "JudgeSettings()"
    assert repr(JudgeSettings(temperature=0, spurious={})) == (
        "JudgeSettings(temperature=0.0, spurious={})"
    )
    s = JudgeSettings(cues={"yoner": "zararli"})
    with pytest.raises(TypeError):  # read-only tables: a changed copy is a new value
        s.cues["x"] = "temiz"  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.temperature = 1.0  # type: ignore[misc]
    assert hash(s) == hash(JudgeSettings(cues={"yoner": "zararli"}))
    with pytest.raises(ValueError, match="max_output"):
        dataclasses.replace(s, max_output=0)  # a changed copy is checked again


def test_the_issues_prior_escalates_the_same_records_in_every_design_as_in_cascade():
    prior = {"temiz": 0, "zararli": 1.5}
    seeds = range(L.SEED, L.SEED + 3)
    records = L.make_records()
    shares = D.design_shares(records, seeds, 0.1, 0.9, prior=prior)
    for name in ("judge or a person", "filter, judge or a person"):
        design = D.designs(0.1, 0.9)[name]
        runs = [L.cascade(records, seed, prior=prior, **design) for seed in seeds]
        assert int(shares[name]["sent"].sum()) == len(runs[0].escalated)
        for i, run in enumerate(runs):
            assert shares[name]["harmful"][i].tolist() == [run.decide(r) for r in records]


# ---------------------------------------------------------------- the truth, by simulation


def cell_records():
    """One record per (source, text, flag profile) and its weight in each class."""
    import itertools

    profiles = list(itertools.product((False, True), repeat=len(L.FEATURES)))
    cells = [(s, t, f) for s in L.SOURCES for t in L.TEXTS for f in profiles]
    records = [L.Record(i + 1, "clean", s, L.Flags(f), t, 40) for i, (s, t, f) in enumerate(cells)]
    weights = {}
    for cls in L.CLASSES:
        w = []
        for s, _t, flags in cells:
            x = L.records.SOURCE_SHARE[cls][L.SOURCES.index(s)] / len(L.TEXTS)
            for on, p in zip(flags, L.PROFILE[cls]):
                x *= p if on else 1 - p
            w.append(x)
        weights[cls] = np.array(w)
    return records, weights


@pytest.mark.slow
@pytest.mark.parametrize("setting", list(CHANGES))
def test_the_population_truth_is_what_runs_block_on_average(setting):
    """population_figures (an exact sum) against the share of 400 simulated runs that block
    each kind of record: within 0.01 for every setting, and away from the lesson's truth."""
    changes = CHANGES[setting]
    records, weights = cell_records()
    blocked = L.run_judge_many(records, range(400), **changes).harmful.mean(axis=0)
    harmful_share = 1 - L.CLASS_SHARE[L.CLASSES.index("clean")]
    tp = sum(
        L.CLASS_SHARE[i] * float(weights[c] @ blocked)
        for i, c in enumerate(L.CLASSES)
        if c != "clean"
    )
    fp = L.CLASS_SHARE[L.CLASSES.index("clean")] * float(weights["clean"] @ blocked)
    truth = T.population_figures(**changes)["judge"]
    assert truth["recall"] == pytest.approx(tp / harmful_share, abs=0.01)
    assert truth["false_block_rate"] == pytest.approx(fp / (1 - harmful_share), abs=0.01)
    assert truth != T.population_figures()["judge"]
    # the same truth reaches production's true rates and the profile table
    rates = W.true_rates(**changes)
    assert rates["judge_blocks"] == pytest.approx(tp + fp, abs=0.01)
    assert rates == W.true_rates(settings=JudgeSettings(**changes))
    chances = T.block_chances(records, **changes)
    table = T.profile_table(**changes)
    assert sorted({row[2] for row in table}) == sorted(set(chances.values()))


def test_at_the_lesson_settings_a_runs_chance_of_blocking_is_the_score():
    records = L.make_records()
    assert T.block_chances(records) == L.judge_probabilities(records)
    assert T.block_chances(records, max_output=1) != L.judge_probabilities(records)


def test_production_weeks_take_the_judge_settings():
    kw = dict(weeks=20, size=200, labelled=20, seed=1)
    base = W.simulate_estimates(**kw)["ppi"]
    moved = W.simulate_estimates(**kw, max_output=1)["ppi"]
    assert not np.array_equal(base, moved)
    assert np.array_equal(
        moved, W.simulate_estimates(**kw, settings=JudgeSettings(max_output=1))["ppi"]
    )
    assert W.labels_needed(0.05, stand_in="score", prior={"temiz": 0, "zararli": 1.5}) != (
        W.labels_needed(0.05, stand_in="score")
    )


def test_notebook_16s_studies_take_the_judge_settings():
    from lessonlib import labelling as B

    for study in (
        lambda **c: B.simulate_designs(("neyman",), weeks=5, size=400, budget=60, seed=1, **c),
        lambda **c: {"slips": B.simulate_slips(0.05, 40, weeks=5, size=400, seed=1, **c)},
    ):
        base, moved = study(), study(max_output=1)
        assert any(not np.array_equal(base[k], moved[k]) for k in base)
        whole = study(settings=JudgeSettings(max_output=1))
        assert all(np.array_equal(moved[k], whole[k]) for k in moved)
    prior = {"temiz": 0, "zararli": 1.5}
    assert B.design_labels_needed(0.05, prior=prior) != B.design_labels_needed(0.05)
    assert B.score_levels(prior=prior) != B.score_levels()
    assert B.score_levels(max_output=1) == B.score_levels(settings=JudgeSettings(max_output=1))


# ---------------------------------------------------------------- the table is whole

# where a setting is a parameter by its own name, and why it is not a judge entry point
OWN_PARAMETERS = {
    "lessonlib.simulator": "the model itself: JudgeSettings.model() builds it from the value",
    "lessonlib.judge.JudgeSettings": "the value",
    "lessonlib.judge.build_prompt": "the prompt's first words, one field of the value",
    "lessonlib.many.plan_blocks": "the engine, fed the value's fields by run_judge_many",
    "lessonlib.many.run_plans": "the engine, fed the value's fields by run_judge_many",
    "lessonlib.panel": "a panel member carries its own model (JudgeSpec); guideline: its prompt",
    "lessonlib.client": "a real judge: its prompt and fail-open rule, no simulated model",
    "lessonlib.raters": "the raters' guideline (simulated people), not the judge's",
    "lessonlib.sdk_ask": "the API's own temperature",
    "lessonlib.widgets": "an explorer's slider values, made into one JudgeSettings inside",
    "lessonlib.exercises": "an exercise check's own argument",
}


def public_functions():
    """(qualified name, function) for every public function and method of lessonlib."""
    for info in pkgutil.walk_packages(L.__path__, "lessonlib."):
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if getattr(obj, "__module__", None) != info.name:
                continue  # a re-export: seen where it lives
            if inspect.isfunction(obj):
                yield f"{info.name}.{name}", obj
            elif inspect.isclass(obj):
                yield f"{info.name}.{name}", obj
                for meth, func in vars(obj).items():
                    if inspect.isfunction(func) and not meth.startswith("_"):
                        yield f"{info.name}.{name}.{meth}", func


def parameters(func):
    try:
        return inspect.signature(func).parameters
    except ValueError:  # a class with a builtin constructor (ReadOnlyDict)
        return {}


def test_every_function_that_takes_the_settings_value_is_in_the_table():
    takes = {
        qual.rpartition(".")[2]
        for qual, func in public_functions()
        if "settings" in parameters(func)
    }
    helpers = {"judge_model", "resolve_settings"}  # they make the value, they are no door
    covered = set(ENTRY) | {"population_figures", "profile_table", "block_chances"}
    covered |= {"true_rates", "simulate_estimates", "labels_needed"}
    covered |= {"simulate_designs", "simulate_slips", "design_labels_needed", "score_levels"}
    assert takes - helpers <= covered, f"not run with every setting: {takes - helpers - covered}"


def test_no_function_takes_a_setting_by_its_own_name_outside_the_known_places():
    stray = [
        qual
        for qual, func in public_functions()
        if set(parameters(func)) & set(SETTINGS)
        and not any(qual == k or qual.startswith(k + ".") for k in OWN_PARAMETERS)
    ]
    assert not stray, f"takes a judge setting by its own name: {stray}; take settings="


def test_the_stray_check_can_fail(monkeypatch):
    def study(records, temperature=0.3):
        return records

    study.__module__ = "lessonlib.designs"
    monkeypatch.setattr(D, "study", study, raising=False)
    monkeypatch.setattr(D, "__all__", [*D.__all__, "study"])
    with pytest.raises(AssertionError, match="designs.study"):
        test_no_function_takes_a_setting_by_its_own_name_outside_the_known_places()
