"""lessonlib.truth (notebooks 07 and 15): the population's true figures, against a brute-force
sum written here from the generator's tables and the simulator's own probabilities."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import lessonlib as L
from lessonlib import truth as T
from lessonlib.criteria import rule_filter
from lessonlib.judge import build_prompt
from lessonlib.records import Flags, Record
from lessonlib.score import judge_probabilities
from lessonlib.simulator import label_probabilities
from lessonlib.variance import run_band


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
        ({"seed": 1}, TypeError, "unknown judge setting"),
        ({"class_shares": (0.5, 0.5)}, ValueError, "one share per class"),
        ({"class_shares": (0.5, 0.5, 0.5, 0, 0, 0)}, ValueError, "sum to 1"),
        ({"class_shares": "abc"}, TypeError, "class_shares"),
        ({"temperature": -1}, ValueError, "temperature"),
    ],
)
def test_population_figures_refuses_bad_input(kwargs, kind, match):
    with pytest.raises(kind, match=match):
        L.population_figures(**kwargs)


# ------------------------------------------------------------ band_coverage (notebook 07)

STRIDE = 6151  # records.RECORD_STRIDE, restated: record i of seed s draws from s + 6151 i


def cell_of(record):
    """The cell index of _draw_sets, from a Record: source, text, then the flags as bits."""
    bits = int("".join("1" if record.features[f] else "0" for f in L.FEATURES), 2)
    return (
        L.SOURCES.index(record.source) * len(L.TEXTS) + L.TEXTS.index(record.text)
    ) * 128 + bits


@pytest.mark.parametrize("seed, start", [(0, 0), (L.SEED, 3), (2**40 + 5, 1), (2**50 + 7, 0)])
def test_the_fresh_sets_are_make_records_records(seed, start):
    cls, cell = T._draw_sets(4, 30, seed, start)
    for k in range(4):
        records = L.make_records(30, seed + (start + k) * STRIDE * 30)
        assert cls[k].tolist() == [L.CLASSES.index(r.cls) for r in records]
        assert cell[k].tolist() == [cell_of(r) for r in records]


def test_the_first_set_from_the_lessons_seed_is_the_lessons_records():
    cls, cell = T._draw_sets(1, 240, L.SEED)
    assert cell[0].tolist() == [cell_of(r) for r in L.make_records()]


def test_a_cells_chance_and_filter_are_the_records():
    values, index, blocks = T._default_cells()
    records = L.make_records()
    chance = judge_probabilities(records)
    for r in records:
        assert values[index[cell_of(r)]] == chance[r.no]
        assert blocks[cell_of(r)] == L.rule_filter(r)


@pytest.mark.parametrize("kind", ["run", "averaged"])
@pytest.mark.parametrize("figure", ["agreement", "recall", "false_block_rate", "precision"])
def test_a_set_drawn_once_each_gives_its_own_difference(kind, figure):
    """The categories' sums with every record drawn once are the set's own figures, as
    rates() scores them (expected counts for the seed-averaged decision)."""
    seed = 77
    cls, cell = T._draw_sets(3, 240, seed)
    counts, rows = T._set_categories(kind, figure, cls, cell, np.random.default_rng(5))
    sums = np.einsum("sj,sjm->ms", counts, rows)
    got = T._difference(figure, sums, 240)
    decide_rng = np.random.default_rng(5)  # the same stream: the same run
    draws = decide_rng.random(cell.shape) if kind == "run" else None
    for k in range(3):
        records = L.make_records(240, seed + k * STRIDE * 240)
        chance = judge_probabilities(records)
        truth = np.array([L.is_harmful(r) for r in records])
        crit = np.array([L.rule_filter(r) for r in records])
        p = np.array([chance[r.no] for r in records])
        judge = draws[k] < p if kind == "run" else p

        def figure_of(d, truth=truth):
            tp = float(np.sum(d * truth))
            fp = float(np.sum(d)) - tp
            harm = int(truth.sum())
            return L.rates(tp, fp, harm - tp, 240 - harm - fp, rounded=False)[figure]

        assert got[k] == pytest.approx(figure_of(judge) - figure_of(crit.astype(float)), abs=1e-12)


def test_coverage_is_a_frozen_result_of_floats():
    got = L.band_coverage("averaged", "recall", n_sets=20, n_resamples=200, seed=3)
    assert isinstance(got, T.Coverage)
    with pytest.raises(AttributeError):
        got.coverage = 1.0  # type: ignore[misc]
    for name in ("truth", "coverage", "mean_width", "excludes_zero"):
        assert type(getattr(got, name)) is float
    assert 0 <= got.coverage <= 1 and 0 <= got.excludes_zero <= 1 and got.mean_width > 0
    pop = L.population_figures()
    assert got.truth == pop["judge"]["recall"] - pop["filter"]["recall"]
    assert L.band_coverage("averaged", "recall", n_sets=20, n_resamples=200, seed=3) == got


def independent_coverage(kind, figure, n_sets, n_resamples, seed):
    """The coverage simulation written out: fresh records from make_records, the judge's
    side drawn with its own generator, the band from the public paired_bootstrap (for a run
    drawn per resample, written out here)."""
    pop = L.population_figures()
    truth_gap = pop["judge"][figure] - pop["filter"][figure]
    rng = np.random.default_rng(1234)
    covered, clear, widths = [], [], []
    for k in range(n_sets):
        records = L.make_records(240, seed + k * STRIDE * 240)
        chance = judge_probabilities(records)
        p = np.array([chance[r.no] for r in records])
        truth = [L.is_harmful(r) for r in records]
        crit = [L.rule_filter(r) for r in records]
        if kind == "run":
            judge = rng.random(len(p)) < p
        elif kind == "averaged":
            judge = p
        else:  # 500 runs: each resample draws one, a record drawn twice keeps its decision
            judge = rng.random((500, len(p))) < p
        if judge.ndim == 1:
            low, high = L.paired_bootstrap(truth, judge, crit, figure, n_resamples, seed=k)
        else:  # agreement only: the resampled records, each resample's run on them
            assert figure == "agreement"
            draws = np.random.default_rng(k).integers(0, len(p), (n_resamples, len(p)))
            run = np.random.default_rng([k, 1]).integers(0, len(judge), n_resamples)
            t, c = np.array(truth)[draws], np.array(crit)[draws]
            diffs = (judge[run[:, None], draws] == t).mean(axis=1) - (c == t).mean(axis=1)
            low, high = run_band(diffs)
        covered.append(low <= truth_gap <= high)
        clear.append(low > 0 or high < 0)
        widths.append(high - low)
    return np.mean(covered), np.mean(clear), np.array(widths)


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind, figure",
    [
        ("run", "agreement"),
        ("averaged", "agreement"),
        ("records_and_runs", "agreement"),
        ("averaged", "false_block_rate"),
        ("run", "precision"),
    ],
)
def test_band_coverage_agrees_with_a_simulation_written_here(kind, figure):
    n_sets, n_resamples, seed = 120, 1000, 99
    cover, clear, widths = independent_coverage(kind, figure, n_sets, n_resamples, seed)
    got = L.band_coverage(kind, figure, n_sets=n_sets, n_resamples=n_resamples, seed=seed)

    def binomial(share):  # two independent estimates of one share: 4 standard errors apart
        share = min(max(share, 0.02), 0.98)
        return 4 * math.sqrt(2 * share * (1 - share) / n_sets)

    assert got.coverage == pytest.approx(cover, abs=binomial(cover))
    assert got.excludes_zero == pytest.approx(clear, abs=binomial(clear))
    spread = 4 * math.sqrt(2 / n_sets) * widths.std()
    assert got.mean_width == pytest.approx(widths.mean(), abs=spread)


@pytest.mark.slow
def test_the_band_that_draws_a_run_per_resample_is_wider_and_overcovers():
    """The issue's finding: the old band counts the judge's noise twice; the seed-averaged
    band is the narrowest and holds its promise."""
    got = {k: L.band_coverage(k, n_sets=600, n_resamples=1000, seed=5) for k in T.KINDS}
    assert got["averaged"].mean_width < got["run"].mean_width < got["records_and_runs"].mean_width
    error = 4 * math.sqrt(0.95 * 0.05 / 600)
    assert abs(got["averaged"].coverage - 0.95) < error
    assert abs(got["run"].coverage - 0.95) < error
    assert got["records_and_runs"].coverage > 0.95 + 0.01


def test_plot_coverage_draws_each_band_at_its_coverage_in_the_slide_style():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lessonlib.figures import SMALLEST_POINTS

    results = [
        T.Coverage(kind, "agreement", 0.01, cover, width, 0.1, 500, 240, 100, 0.95)
        for kind, cover, width in (
            ("run", 0.94, 0.09),
            ("averaged", 0.95, 0.08),
            ("records_and_runs", 0.99, 0.11),
        )
    ]
    fig = T.plot_coverage(results)
    try:
        left, right = fig.axes
        dots = [line for line in left.lines if line.get_marker() == "o"]
        assert [float(d.get_xdata()[0]) for d in dots] == [0.94, 0.95, 0.99]
        assert [t.get_text() for t in left.get_yticklabels()] == list(T.KINDS.values())
        assert any(list(line.get_xdata()) == [0.95, 0.95] for line in left.lines)
        assert sorted(p.get_width() for p in right.patches) == [0.08, 0.09, 0.11]
        fig.canvas.draw()
        sizes = [
            t.get_fontsize()
            for t in fig.findobj(matplotlib.text.Text)
            if t.get_visible() and t.get_text().strip()
        ]
        assert sizes and min(sizes) >= SMALLEST_POINTS
    finally:
        plt.close("all")


# ------------------------- issue 35: Monte Carlo error, power, near-duplicates (notebook 07)


def test_mc_error_by_hand_and_every_coverage_row_shows_it():
    # 1.96 * sqrt(0.95 * 0.05 / 1000) = 0.0135; 1.96 * sqrt(0.9 * 0.1 / 100) = 0.0588
    assert T.mc_error(0.95, 1000) == pytest.approx(0.013508, abs=1e-6)
    assert T.mc_error(0.9, 100) == pytest.approx(0.058799, abs=1e-6)
    assert T.mc_error(0.9, 100, level=0.5) == pytest.approx(0.6745 * 0.03, abs=1e-4)
    assert T.mc_error(1.0, 10) == 0.0
    results = [
        T.Coverage("run", "agreement", 0.01, 0.944, 0.096, 0.064, 1000, 240, 2000, 0.95),
        T.Coverage("averaged", "agreement", 0.01, 0.9, 0.08, 0.05, 100, 240, 2000, 0.95),
    ]
    assert results[0].mc_error == T.mc_error(0.944, 1000)
    assert round(100 * results[1].mc_error, 1) == 5.9


def _population_sds():
    """The per-record difference judge right - filter right (agreement) over the population,
    from profile_table: its mean, and its sd for the seed-averaged decision and for one run."""
    rows = T.profile_table()
    w = np.array([L.CLASS_SHARE[L.CLASSES.index(c)] * p for c, p, _, _ in rows])
    harmful = np.array([c != "clean" for c, *_ in rows])
    judge = np.array([np.where(h, r[2], 1 - r[2]) for h, r in zip(harmful, rows)])
    crit = np.array([r[3] == h for h, r in zip(harmful, rows)], dtype=float)
    delta = float(w @ (judge - crit))
    averaged = math.sqrt(w @ (judge - crit) ** 2 - delta**2)
    run = math.sqrt(w @ (judge + crit - 2 * judge * crit) - delta**2)  # one run: J in {0, 1}
    return delta, averaged, run


@pytest.mark.slow  # two coverage checks of 1,000 sets: about 6 s of CPU
def test_the_coverage_tables_clears_zero_column_is_the_paired_power():
    delta, averaged, run = _population_sds()
    truth = T.population_figures()
    assert delta == pytest.approx(truth["judge"]["agreement"] - truth["filter"]["agreement"])
    for kind, sd in (("averaged", averaged), ("run", run)):
        got = T.band_coverage(kind, n_sets=1000)
        want = L.paired_power(delta, sd, 240)
        assert 0.04 < want < 0.08
        assert abs(got.excludes_zero - want) < 4 * math.sqrt(want * (1 - want) / 1000)
    # the records 80% power needs: the seed-averaged decision needs fewer than one run
    assert L.paired_records_needed(delta, averaged) < L.paired_records_needed(delta, run)


# ------------------------------- what 07 (and 06, 08, 14) print, read from the stored outputs


def _printed(name):
    import json

    from conftest import ROOT

    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    out = []
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            plain = o.get("data", {}).get("text/plain", "")
            out.append("".join(o.get("text", "")) + "".join(plain))
    return out


def test_every_coverage_table_07_prints_shows_its_monte_carlo_error():
    tables = [o for o in _printed("07_records_sample") if "coverage" in o]
    assert len(tables) >= 2  # the coverage check and the near-duplicates
    for table in tables:
        assert "MC" in table or "mc_error" in table, table
    # the coverage table's error column is the binomial error of its coverage column
    text = next(t for t in tables if "+/- MC" in t)
    for line in text.splitlines():
        if line.startswith(tuple(T.KINDS.values())):
            cover, error = float(line.split()[-4]), float(line.split()[-3])  # shares
            assert error == pytest.approx(T.mc_error(cover, 1000), abs=0.00051)


def test_the_power_07_prints_is_the_populations():
    import re

    text = next(o for o in _printed("07_records_sample") if "power at 240" in o)
    w, judge, crit = T.agreement_cells()
    delta = w @ (judge - crit)
    sds = {
        "one run": math.sqrt(w @ (judge + crit - 2 * judge * crit) - delta**2),
        "seed-averaged": math.sqrt(w @ (judge - crit) ** 2 - delta**2),
    }
    for name, sd in sds.items():
        row = next(line for line in text.splitlines() if line.startswith(name))
        numbers = re.findall(r"\d+\.?\d*", row[len(name) :])
        assert float(numbers[1]) == round(L.paired_power(delta, sd, 240), 4)
        assert int(numbers[3]) == L.paired_records_needed(delta, sd)
    assert 0.05 < L.paired_power(delta, sds["seed-averaged"], 240) < 0.07


def test_06_07_08_and_14_print_one_percentile_for_run_1s_agreement():
    import re

    patterns = {
        "06_many_seeds": r"agreement\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+0\.8833\s+([\d.]+)",
        "07_records_sample": r"agreement\s+0\.8833\s+[\d.]+\s+([\d.]+)",
        "08_judge_score": r"run 1's agreement: percentile ([\d.]+)",
        "14_label_raters": r"run 1's agreement: percentile ([\d.]+)",
    }
    found = {}
    for name, pattern in patterns.items():
        hits = [m.group(1) for o in _printed(name) for m in re.finditer(pattern, o)]
        assert hits, f"{name} prints no percentile of run 1's agreement"
        found[name] = set(hits)
    assert len(set().union(*found.values())) == 1, found


def test_07s_near_duplicates_against_the_design_effect():
    """07's cell: five identical copies shrink the records' band by sqrt(5), so it holds the
    truth about 2 Phi(1.96 / sqrt(5)) - 1 = 0.62 of the time; the band over groups ~95%."""
    import re

    text = next(o for o in _printed("07_records_sample") if o.startswith("coverage: ["))
    records, groups = (float(x) for x in re.findall(r"[\d.]+", text.split("]")[0]))
    error = 4 * math.sqrt(0.25 / 200)
    want = 2 * 0.5 * (1 + math.erf(1.959964 / math.sqrt(5) / math.sqrt(2))) - 1
    assert abs(records - want) < error and abs(groups - 0.95) < error
