# SPDX-License-Identifier: Apache-2.0
"""experiments/joint-lower-bound: its Hellinger, total-variation and Assouad/Le Cam arithmetic against
closed forms and enumeration, and the bound against tinyldp's own estimators on reports drawn from
the bound's own hypotheses (privatized by `tinyldp joint simulate`, estimated by estimate_joint)."""
import importlib.machinery
import importlib.util
import itertools
import math
import os

import numpy as np
import pytest

import tinyldp

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "experiments", "joint-lower-bound")


@pytest.fixture(scope="module")
def lb():
    loader = importlib.machinery.SourceFileLoader("joint_lower_bound", SCRIPT)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def law(p, p_star, q_star):
    """The law of one binary attribute's two one-hot bits, written out: P(bit for value v = 1) is
    q* when the value is v, p* otherwise."""
    out = {}
    for y0, y1 in itertools.product((0, 1), repeat=2):
        def bit(y, hit):
            prob = q_star if hit else p_star
            return prob if y else 1 - prob
        out[(y0, y1)] = p[0] * bit(y0, True) * bit(y1, False) + p[1] * bit(y0, False) * bit(y1, True)
    return out


def bhattacharyya(a, b):
    return sum(math.sqrt(a[y] * b[y]) for y in a)


@pytest.mark.parametrize("p_star,q_star", [(0.0, 1.0), (0.6125, 0.6375), (0.2, 0.9)])
def test_one_binary_attribute_equals_the_closed_form(lb, p_star, q_star):
    p0, h, n = np.array([0.7, 0.3]), 0.2, 50
    face = lb.Face((0,), (1,), h)
    channels = [lb.attribute_channel(2, p_star, q_star)]
    q0 = lb.push_forward(p0, channels)
    got = lb.neighbour_hellinger(q0, [face], channels)[0]
    bc = bhattacharyya(law(p0 + [h, -h], p_star, q_star), law(p0 - [h, -h], p_star, q_star))
    assert got == pytest.approx(1 - bc, rel=1e-12, abs=1e-15)
    tv = lb.tv_of_reports(got, n)
    assert tv == pytest.approx(math.sqrt(1 - bc ** (2 * n)), rel=1e-10)
    # The two-point form of the face: bound = (|δ|₁/2)(1 − TV), |δ|₁ = 2h; P0 ± δ at AVD 2h apart.
    assert face.l1() / 2 * (1 - tv) == pytest.approx(h * (1 - math.sqrt(1 - bc ** (2 * n))), rel=1e-10)
    if p_star == 0.0:  # a noiseless channel: the law is the joint itself
        assert 1 - got == pytest.approx(math.sqrt(0.9 * 0.5) + math.sqrt(0.1 * 0.5), rel=1e-12)


def test_lower_bound_uses_the_device_channel(lb):
    """lower_bound's own channel at f = 0.9 is (p*, q*) of the docs, and its one-face hypercube bound
    is the closed form's."""
    p0, h, n = np.array([0.7, 0.3]), 0.1, 4315
    out = lb.lower_bound(p0, n, 0.9, faces=[lb.Face((0,), (1,), h)], two_points=False)
    assert (out["p_star"], out["q_star"]) == pytest.approx((0.6125, 0.6375), abs=1e-9)
    bc = bhattacharyya(law(p0 + [h, -h], 0.6125, 0.6375), law(p0 - [h, -h], 0.6125, 0.6375))
    assert out["cube_bound"] == pytest.approx(h * (1 - math.sqrt(1 - bc ** (2 * n))), rel=1e-6)


def test_neighbour_bound_holds_for_every_vertex(lb):
    """The bound on 1 − BC between neighbours is taken over every setting of the other faces: check
    it against every vertex of a small cube, enumerated, where the signal is strong (f = 0.1)."""
    p0 = np.array([[0.35, 0.15], [0.2, 0.3]])
    faces = [lb.Face((0, 0), (1, 0), 0.15), lb.Face((0, 1), (1, 1), 0.12)]
    p_star, q_star = lb.bit_probabilities(0.1)
    channels = [lb.attribute_channel(2, p_star, q_star)] * 2
    bound = lb.neighbour_hellinger(lb.push_forward(p0, channels), faces, channels)
    worst = np.zeros(len(faces))
    for tau in itertools.product((-1, 1), repeat=len(faces)):
        for i in range(len(faces)):
            other = list(tau)
            other[i] = -other[i]
            a = lb.push_forward(lb.vertex(p0, faces, tau), channels)
            b = lb.push_forward(lb.vertex(p0, faces, other), channels)
            assert a.sum() == pytest.approx(1) and (a >= 0).all()
            worst[i] = max(worst[i], 1 - np.sqrt(a * b).sum())
    assert (worst <= bound + 1e-15).all(), (worst, bound)
    assert (worst >= 0.5 * bound).all(), "the bound is not vacuous"


def test_tv_of_three_reports_enumerated(lb):
    p_star, q_star = 0.2, 0.9
    a, b = law(np.array([0.8, 0.2]), p_star, q_star), law(np.array([0.5, 0.5]), p_star, q_star)
    tv = 0.0
    for ys in itertools.product(list(a), repeat=3):
        tv += abs(math.prod(a[y] for y in ys) - math.prod(b[y] for y in ys)) / 2
    bound = lb.tv_of_reports(1 - bhattacharyya(a, b), 3)
    assert 0.1 < tv <= bound


P0_MONTE_CARLO = np.array([0.60, 0.07, 0.06, 0.05, 0.04, 0.03, 0.05, 0.10]).reshape(2, 2, 2)


def estimators_on(vertices, cli, tmp_path, n, f, runs):
    """Every tinyldp estimator's AVD per run: run r draws n records from vertices[r % len], privatizes
    them with `tinyldp joint simulate` and estimates the joint of the three attributes."""
    rng = np.random.default_rng(16)
    avd = {}
    for run in range(runs):
        truth = vertices[run % len(vertices)]
        assert (truth >= -1e-12).all() and truth.sum() == pytest.approx(1)
        cells = rng.choice(8, size=n, p=np.clip(truth.ravel(), 0, None) / np.clip(truth.ravel(), 0, None).sum())
        csv_path, counts = tmp_path / f"r{run}.csv", tmp_path / f"r{run}.tldpj"
        with open(csv_path, "w") as fh:
            fh.write("a,b,c\n")
            fh.writelines(f"{c >> 2 & 1},{c >> 1 & 1},{c & 1}\n" for c in cells)
        cli("joint", "simulate", "-i", csv_path, "--f", f, "--p", 0.5, "--q", 0.75, "--seed", run + 1, "-o", counts)
        result = tinyldp.estimate_joint(str(counts), [0, 1, 2], threads=1)
        ordered = np.array([truth[tuple(int(v) for v in label.split("|"))] for label in result["cells"]])
        for name, e in result["estimators"].items():
            avd.setdefault(name, []).append(0.5 * np.abs(np.asarray(e["estimate"]) - ordered).sum())
    assert set(avd) == {"em", "map", "lasso", "lremh", "pairs", "uniform", "marginals"}
    return avd


def check_against(avd, bound):
    """Each estimator's mean AVD over the runs is at least the bound within 5σ, and the same check
    with the bound planted 3× too high fails for the best of them."""
    def holds(name, planted):
        xs = np.array(avd[name])
        return xs.mean() >= planted - 5 * xs.std(ddof=1) / math.sqrt(len(xs))

    for name in avd:
        assert holds(name, bound), f"{name}: mean AVD {np.mean(avd[name]):.3f} below the bound {bound:.3f}"
    best = min(avd, key=lambda name: np.mean(avd[name]))
    assert not holds(best, 3 * bound), (f"planted 3× ({3 * bound:.3f}) passes for {best} "
                                        f"({np.mean(avd[best]):.3f}): the check cannot fail")


def test_estimators_on_the_bounds_hypotheses(lb, cli, tmp_path):
    """Monte Carlo: records drawn from the hypotheses of the hypercube or of P0 ± δ, whichever of
    the two gives more (k = 3 binary attributes, f = 0.9, the experiment's 4 315 reports), privatized
    by the CLI and estimated by every tinyldp estimator: each estimator's mean AVD over the runs (the
    hypotheses alternating) is at least that bound within 5σ, and not 3× that bound for the best."""
    p0, n, f = P0_MONTE_CARLO, 4315, 0.9
    out = lb.lower_bound(p0, n, f)
    bound = max(out["cube_bound"], out["pair_bound"])
    assert 0.05 < bound < 0.5
    if out["pair_bound"] > out["cube_bound"]:
        vertices = [p0 + out["delta_cells"], p0 - out["delta_cells"]]
    else:
        rng_tau = np.random.default_rng(3)
        vertices = [lb.vertex(p0, out["faces"], rng_tau.choice([-1, 1], size=len(out["faces"]))) for _ in range(4)]
    check_against(estimators_on(vertices, cli, tmp_path, n, f, runs=24), bound)


def test_estimators_on_p0_and_p2(lb, cli, tmp_path):
    """Monte Carlo for the pair P0, P2 = P0 + D: reports from P0 itself and from P2 alternating (the
    same set-up): no estimator has a mean AVD over the two below the pair's bound (the lemma bounds
    the mean of the two, not only the larger), and the check fails when the bound is planted 3× too
    high."""
    p0, n, f = P0_MONTE_CARLO, 4315, 0.9
    out = lb.lower_bound(p0, n, f)
    assert out["asym_bound"] > 0.05 and out["asym_avd"] > 0.2
    check_against(estimators_on([p0, p0 + out["asym_delta_cells"]], cli, tmp_path, n, f, runs=24), out["asym_bound"])


# ---------------------------------------------------------------------------------------------
# Le Cam with P0 itself as one point: P0 and P2 = P0 + D.

def pair_bound_by_hand(p0, p2, p_star, q_star, n):
    """(AVD(P0, P2)/2)(1 − √(1 − BC^(2N))) for one binary attribute, BC from the written-out laws."""
    bc = bhattacharyya(law(p0, p_star, q_star), law(p2, p_star, q_star))
    return 0.5 * np.abs(np.subtract(p2, p0)).sum() / 2 * (1 - math.sqrt(max(0.0, 1 - bc ** (2 * n))))


@pytest.mark.parametrize("p_star,q_star", [(0.0, 1.0), (0.6125, 0.6375), (0.2, 0.9)])
def test_pair_with_p0_equals_the_closed_form(lb, p_star, q_star):
    p0, d, n = np.array([0.7, 0.3]), np.array([-0.4, 0.4]), 50
    channels = [lb.attribute_channel(2, p_star, q_star)]
    bound, avd, tv, h, _ = lb.pair_with_p0(d, channels, lb.push_forward(p0, channels), n)
    bc = bhattacharyya(law(p0, p_star, q_star), law(p0 + d, p_star, q_star))
    assert h == pytest.approx(1 - bc, rel=1e-12, abs=1e-15)
    assert avd == pytest.approx(0.4)
    assert tv == pytest.approx(math.sqrt(1 - bc ** (2 * n)), rel=1e-10)
    assert bound == pytest.approx(pair_bound_by_hand(p0, p0 + d, p_star, q_star, n), rel=1e-10)
    if p_star == 0.0:  # noiseless: the law is the joint, BC = 2√(0.7 · 0.3)
        assert 1 - h == pytest.approx(2 * math.sqrt(0.21), rel=1e-12)


def test_pair_search_finds_the_one_dimensional_optimum(lb):
    """k = 1 binary attribute: every P2 is (1 − t, t), so the best pair is a maximum over t in [0, 1]:
    the search (through lower_bound, the device channel at f = 0.9 and f = 0.5) reaches the maximum
    over a fine grid of the closed form, and no grid point beats it."""
    p0 = np.array([0.7, 0.3])
    for f, n in ((0.9, 4315), (0.5, 4315), (0.9, 300)):
        out = lb.lower_bound(p0, n, f)
        p_star, q_star = out["p_star"], out["q_star"]
        grid = max(pair_bound_by_hand(p0, np.array([1 - t, t]), p_star, q_star, n) for t in np.linspace(0, 1, 4001))
        assert out["asym_bound"] == pytest.approx(grid, rel=2e-3), (f, n)
        assert out["asym_bound"] <= grid * (1 + 1e-3)
        p2 = p0 + out["asym_delta_cells"]
        assert out["asym_bound"] == pytest.approx(pair_bound_by_hand(p0, p2, p_star, q_star, n), rel=1e-9)


def test_pair_is_recomputed_from_d_and_p2_is_a_distribution(lb):
    """The reported figures of the pair are the exact ones of the D returned, recomputed here with
    BC = Σ √(Q0 Q2) straight from P0 and P0 + D; P0 + D ≥ 0 sums to 1; the bound is the largest of
    the three constructions and `method` names it. In a box (--max-bits) D stays inside it."""
    rng = np.random.default_rng(5)
    cases = [(rng.dirichlet(np.full(8, 0.5)).reshape(2, 2, 2), 16), (rng.dirichlet(np.ones(27)).reshape(3, 3, 3), 6)]
    for p0, max_bits in cases:
        n = 2000
        out = lb.lower_bound(p0, n, 0.8, max_bits=max_bits)
        d = out["asym_delta_cells"]
        p2 = p0 + d
        assert (p2 >= 0).all() and p2.sum() == pytest.approx(1, abs=1e-12)
        inside = np.zeros(p0.shape, dtype=bool)
        inside[np.ix_(*out["box"])] = True
        assert (d[~inside] == 0).all()
        channels = [lb.attribute_channel(len(v), out["p_star"], out["q_star"]) for v in out["box"]]
        q0 = lb.push_forward(p0[np.ix_(*out["box"])], channels)
        q2 = lb.push_forward(p2[np.ix_(*out["box"])], channels)
        bc = float(np.sqrt(q0 * q2).sum()) + (1 - out["box_mass"])  # outside the box: the same law
        tv = math.sqrt(max(0.0, 1 - bc ** (2 * n)))
        avd = 0.5 * np.abs(d).sum()
        assert out["asym_avd"] == pytest.approx(avd, rel=1e-12)
        assert out["asym_tv"] == pytest.approx(tv, rel=1e-5, abs=1e-7)
        assert out["asym_bound"] == pytest.approx(avd / 2 * (1 - tv), rel=1e-6)
        assert 0 < out["asym_bound"] <= 0.5
        three = {"hypercube": out["cube_bound"], "two points": out["pair_bound"], "P0 and P2": out["asym_bound"]}
        assert out["bound"] == max(three.values()) and three[out["method"]] == out["bound"]
