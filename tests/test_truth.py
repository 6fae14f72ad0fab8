"""lessonlib.truth (notebooks 07 and 14): the population's true figures, against a brute-force
sum written here from the generator's tables and the simulator's own probabilities."""

from __future__ import annotations

import itertools

import pytest

import lessonlib as L
from lessonlib.criteria import rule_filter
from lessonlib.judge import build_prompt
from lessonlib.records import Flags, Record
from lessonlib.simulator import label_probabilities


def brute_force(class_shares=L.CLASS_SHARE, **settings):
    """Every class, source, text and flag profile, weighted by the generator's tables."""
    counts = {who: {"tp": 0.0, "fp": 0.0, "harm": 0.0} for who in ("judge", "filter")}
    seen = {}
    for c, cls in enumerate(L.CLASSES):
        for s, source in enumerate(L.SOURCES):
            for text in L.TEXTS:
                for flags in itertools.product((0, 1), repeat=7):
                    w = class_shares[c] * L.SOURCE_SHARE[cls][s] / len(L.TEXTS)
                    for on, p in zip(flags, L.PROFILE[cls]):
                        w *= p if on else 1 - p
                    record = Record(7, cls, source, Flags(flags), text, 100)
                    prompt = build_prompt(record, settings.get("guideline", L.GUIDELINE))
                    if prompt not in seen:
                        seen[prompt] = label_probabilities(
                            prompt,
                            settings.get("temperature", 0.3),
                            settings.get("cues", L.CUE_TABLE),
                            settings.get("spurious", L.SPURIOUS),
                            settings.get("prior", L.PRIOR),
                        )["zararli"]
                    for who, block in (("judge", seen[prompt]), ("filter", rule_filter(record))):
                        harmful = cls != "clean"
                        counts[who]["harm"] += w * harmful
                        counts[who]["tp"] += w * block * harmful
                        counts[who]["fp"] += w * block * (not harmful)
    out = {}
    for who, k in counts.items():
        tp, fp, harm = k["tp"], k["fp"], k["harm"]
        out[who] = {
            "agreement": tp + (1 - harm - fp),
            "recall": tp / harm,
            "false_block_rate": fp / (1 - harm),
            "precision": tp / (tp + fp),
        }
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"temperature": 0.0},
        {"temperature": 1.0, "spurious": {}},
        {"prior": {"temiz": 0.0, "zararli": 1.5}},
        {"class_shares": (0.4, 0.1, 0.1, 0.1, 0.1, 0.2)},
    ],
)
def test_population_figures_match_a_brute_force_sum(settings):
    got = L.population_figures(**settings)
    want = brute_force(**settings)
    for who in ("judge", "filter"):
        assert got[who] == pytest.approx(want[who], rel=1e-12, abs=1e-12)


def test_population_figures_shape_and_the_issue_figures():
    got = L.population_figures()
    assert set(got) == {"judge", "filter"}
    for figures in got.values():
        assert list(figures) == ["agreement", "recall", "false_block_rate", "precision"]
    # the judge blocks 46.4% of the population while 38.0% is harmful
    j = got["judge"]
    harmful = 1 - L.CLASS_SHARE[0]
    blocked = j["recall"] * harmful + j["false_block_rate"] * (1 - harmful)
    assert round(blocked, 3) == 0.464


@pytest.mark.parametrize(
    "kwargs, kind, match",
    [
        ({"seed": 1}, TypeError, "judge settings"),
        ({"class_shares": (0.5, 0.5)}, ValueError, "one share per class"),
        ({"class_shares": (0.5, 0.5, 0.5, 0, 0, 0)}, ValueError, "sum to 1"),
        ({"class_shares": "abc"}, TypeError, "class_shares"),
        ({"temperature": -1}, ValueError, "temperature"),
    ],
)
def test_population_figures_refuses_bad_input(kwargs, kind, match):
    with pytest.raises(kind, match=match):
        L.population_figures(**kwargs)
