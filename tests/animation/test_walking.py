"""The walking generator, measured on its own output."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.animation import Easing, GaitParameters, ease, generate_walk
from vhuman.animation.gait_analysis import VHUMAN_JOINTS, leg_length
from vhuman.animation.walking import (
    FOOT_FLAT,
    HEEL_OFF,
    PELVIS_LEAD,
    STANCE_KNEE,
    TURN_PER_STEP,
    WalkResult,
    paced_path,
    stance_knee,
)
from vhuman.errors import InputError
from vhuman.geometry import quat_angle, quat_apply
from vhuman.skeleton import standard_humanoid


@pytest.fixture(scope="module")
def straight():
    return generate_walk(GaitParameters(step_length=0.7, speed=1.3, cycles=3))


@pytest.mark.parametrize(
    "params",
    [
        GaitParameters(step_length=0.7, speed=1.3, cycles=3),
        GaitParameters(step_length=0.55, speed=0.9, cycles=2, fps=100.0),
        GaitParameters(step_length=0.75, speed=1.5, cycles=2, turn_rate=np.radians(20.0)),
    ],
)
def test_measured_gait_matches_request(params: GaitParameters) -> None:
    result = generate_walk(params)
    assert result.step_length_m == pytest.approx(params.step_length, rel=0.02)
    assert result.speed_m_s == pytest.approx(params.speed, rel=0.02)
    assert result.foot_skate_mm < 2.0
    assert result.ground_penetration_mm < 1.0
    assert result.motion.n_frames == int(params.duration * params.fps + 1e-9) + 1


def test_planted_heel_and_ball_of_foot_never_move(straight) -> None:
    """Independent of the generator's own figure: the heel is still from heel strike to
    heel-off, the ball of the foot (toe joint) from foot-flat to toe-off."""
    m = straight.motion
    p = straight.parameters
    d = p.cycle_duration
    sk = m.skeleton
    ankle = sk.index("r_ankle")
    seg = sk.segments[ankle]
    heel = m.global_positions[:, ankle] + quat_apply(m.global_rotations[:, ankle], seg.start)
    toe = m.global_positions[:, sk.index("r_toe")]
    phase = (m.times / d) % 1.0
    cycle = np.floor(m.times / d)
    for c in np.unique(cycle):
        on_heel = (cycle == c) & (phase <= HEEL_OFF)
        assert np.abs(heel[on_heel] - heel[on_heel][0]).max() < 1e-6
        on_ball = (cycle == c) & (phase >= FOOT_FLAT) & (phase < p.stance_fraction)
        assert np.abs(toe[on_ball] - toe[on_ball][0]).max() < 1e-6


def test_feet_alternate_and_arms_oppose_legs(straight) -> None:
    m = straight.motion
    sk = m.skeleton
    pos = m.global_positions
    forward = lambda j: pos[:, sk.index(j), 0] - m.root_positions[:, 0]  # noqa: E731
    legs = forward("l_ankle") - forward("r_ankle")
    arms = forward("l_hand") - forward("r_hand")
    assert legs.max() > 0.3
    assert legs.min() < -0.3  # each foot leads in turn
    # Arms swing in opposition: when the left foot leads, the right hand leads.
    assert np.corrcoef(legs, arms)[0, 1] < -0.7


def test_joint_angles_are_continuous_and_within_limits(straight) -> None:
    m = straight.motion
    steps = np.degrees(quat_angle(m.local_rotations[:-1], m.local_rotations[1:]))
    # A wrapped or flipped joint would jump ~180°; knees move up to ~400°/s.
    assert steps.max() < 10.0  # recorded walking (CMU walking_1 at 60 fps) reaches 9°
    violation = np.degrees(m.skeleton.limit_violation(m.local_rotations))
    ankles = m.skeleton.indices(["l_ankle", "r_ankle"])
    others = np.delete(violation, ankles, axis=1)
    assert others.max() < 1.0  # AAOS ranges of motion, within a degree


def test_foot_pitches_as_far_as_the_toes_bend_after_toe_off(straight) -> None:
    """Push-off: just after toe-off the foot carries on pitching, heel up, to about the toe
    joint's extension and not past it; the toes stay within their range as the previous
    test checks."""
    m = straight.motion
    sk = m.skeleton
    for side in ("l", "r"):
        forward = quat_apply(m.global_rotations[:, sk.index(f"{side}_ankle")], [1.0, 0.0, 0.0])
        pitch = np.degrees(np.arctan2(-forward[:, 2], np.hypot(forward[:, 0], forward[:, 1])))
        extension = np.degrees(sk.limits[sk.index(f"{side}_toe")][0, 1])
        assert extension - 2.0 < pitch.max() <= extension + 0.5


@pytest.mark.parametrize("speed", [1.0, 1.3, 1.6])
def test_planted_ankles_within_their_range(speed: float) -> None:
    m = generate_walk(GaitParameters(speed=speed, cycles=3)).motion
    violation = np.degrees(m.skeleton.limit_violation(m.local_rotations))
    assert violation[:, m.skeleton.indices(["l_ankle", "r_ankle"])].max() < 1.0


def test_left_stays_left_and_upright(straight) -> None:
    m = straight.motion
    sk = m.skeleton
    p = m.global_positions
    assert np.all(p[:, sk.index("l_hip"), 1] > p[:, sk.index("r_hip"), 1])
    assert np.all(p[:, sk.index("head"), 2] > 1.3)


def test_turning_changes_heading() -> None:
    rate = np.radians(30.0)
    result = generate_walk(GaitParameters(cycles=3, turn_rate=rate))
    m = result.motion
    root = m.root_positions
    v = root[-1, :2] - root[-2, :2]
    heading = np.arctan2(v[1], v[0])
    assert heading == pytest.approx(rate * m.duration, abs=np.radians(8.0))


def test_stature_scales_the_walk() -> None:
    tall = generate_walk(GaitParameters(cycles=1), standard_humanoid(stature=1.9))
    short = generate_walk(GaitParameters(cycles=1), standard_humanoid(stature=1.6))
    assert tall.motion.root_positions[:, 2].mean() > short.motion.root_positions[:, 2].mean()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"step_length": 0.0}, "step_length must be"),
        ({"step_length": -0.5}, "step_length must be"),
        ({"speed": 0.0}, "speed must be"),
        ({"speed": float("nan")}, "speed must be"),
        ({"speed": 5.0, "step_length": 0.7}, "cadence"),
        ({"cycles": 0}, "cycles"),
        ({"turn_rate": float("inf")}, "turn_rate"),
        ({"double_support": 0.0}, "double_support"),
    ],
)
def test_bad_parameters(kwargs, message) -> None:
    with pytest.raises(InputError, match=message):
        GaitParameters(**kwargs)


def test_impossible_step_for_the_leg() -> None:
    with pytest.raises(InputError, match=r"step length 1\.6 m is too long .* at most 0\.6"):
        generate_walk(GaitParameters(step_length=1.6, speed=2.4))
    with pytest.raises(InputError, match=r"step length 1\.05 m is too long"):
        generate_walk(GaitParameters(step_length=1.05, speed=1.9))


def test_steps_up_to_a_metre_keep_the_feet_planted() -> None:
    result = generate_walk(GaitParameters(step_length=1.0, speed=1.9, cycles=2))
    assert result.step_length_m == pytest.approx(1.0, rel=0.02)
    assert result.foot_skate_mm < 1.0
    assert result.ground_penetration_mm < 1.0


@pytest.mark.parametrize("speed", [1.0, 1.3, 1.6])
@pytest.mark.parametrize("step", [0.9, 1.0])
def test_long_steps_have_no_joint_jump(speed: float, step: float) -> None:
    # Where the trailing leg's reach holds the pelvis down until toe-off, the pelvis regains
    # its height over a fifth of a second, so no joint turns as a flipped or snapped one
    # would (CMU walking: up to 16.6° a frame at 60 fps).
    result = generate_walk(GaitParameters(step_length=step, speed=speed, cycles=2))
    assert result.max_joint_step_deg < 15.0
    assert result.foot_skate_mm < 1.0
    rise = np.diff(result.motion.root_positions[:, 2]) * result.motion.fps
    assert np.abs(rise).max() < 1.5  # m/s: the pelvis never jumps


def test_long_steps_keep_the_trailing_knee_bent() -> None:
    """A step of half the stature (CMU walking_4: 0.50 at 1.64 m/s): the heel rises as far
    as keeps the trailing knee bent before toe-off, so the foot is never dragged; from the
    other heel strike to toe-off the knee only flexes, from its straightest (about 6°)."""
    result = generate_walk(GaitParameters(step_length=0.84, speed=1.64, cycles=2))
    assert result.step_length_m == pytest.approx(0.84, rel=0.02)
    assert result.foot_skate_mm < 2.0
    assert result.ground_penetration_mm < 1.0
    assert result.max_joint_step_deg < 15.0  # a flipped joint jumps ~180°; CMU: up to 16.6°
    m, p = result.motion, result.parameters
    tau = (m.times / p.cycle_duration) % 1.0  # right heel strikes at 0, D, 2D…
    pre_swing = (tau >= 0.5) & (tau < p.stance_fraction)
    knee = _knee_flexion_deg(m, "r_knee")
    assert pre_swing.sum() > 5
    assert knee[pre_swing].min() >= 5.0
    for run in np.split(
        knee[pre_swing], np.flatnonzero(np.diff(np.flatnonzero(pre_swing)) > 1) + 1
    ):
        assert np.all(np.diff(run) > 0.0)
        assert run[-1] >= 25.0


STATURE = 1.678  # the standard humanoid's [m]
LONG_STEPS = [(0.40, 1.0), (0.45, 1.0), (0.475, 0.5), (0.50, 0.0), (0.55, 0.0)]
"""(step [statures], fade): the pelvis's lead and the hips' peak at 40 % of the cycle are
whole up to 0.45 statures, gone from 0.5 and fade linearly between."""


def _long_step_walk(share: float) -> WalkResult:
    """A straight walk of steps of ``share`` statures at 111 steps/min."""
    step = share * STATURE
    return generate_walk(
        GaitParameters(step_length=step, speed=1.3 * step / 0.7, cycles=2),
        standard_humanoid(stature=STATURE),
    )


def _pelvis_leads(result: WalkResult) -> np.ndarray:
    """How far [m] the pelvis lies ahead of the midpoint between the footprints at each heel
    strike of a straight walk along +x whose footprints both lie in the motion.

    A footprint is where its ankle lies while the foot is flat (from ``FOOT_FLAT`` to
    ``HEEL_OFF``), taken at 20 % of that foot's cycle. The right heel strikes at 0, D, 2D…,
    the left at D/2, 3D/2…; the pelvis moves at constant speed, so interpolating it
    linearly between frames is exact.
    """
    m, d = result.motion, result.parameters.cycle_duration
    sk = m.skeleton

    def ankle_x(name: str, t: float) -> float:
        return m.global_positions[int(np.argmin(np.abs(m.times - t))), sk.index(name), 0]

    leads = []
    for k in range(1, int(m.duration / (0.5 * d)) + 1):
        strike = 0.5 * k * d
        if strike - 0.3 * d < 0.0 or strike + 0.2 * d > m.times[-1]:
            continue
        leading, trailing = ("r_ankle", "l_ankle") if k % 2 == 0 else ("l_ankle", "r_ankle")
        middle = 0.5 * (ankle_x(leading, strike + 0.2 * d) + ankle_x(trailing, strike - 0.3 * d))
        leads.append(np.interp(strike, m.times, m.root_positions[:, 0]) - middle)
    assert len(leads) >= 2
    return np.array(leads)


# The footprints and the pelvis are exact (analytic leg IK, a pelvis at constant speed):
# only rounding remains (about 1e-15 m). 1 µm is under a ten-thousandth of the whole lead
# (12.4 mm for this leg), so a lead or fade off by 0.01 % fails.
LEAD_TOLERANCE = 1e-6


@pytest.mark.parametrize("speed", [1.0, 1.3, 1.6])
def test_pelvis_lies_ahead_of_the_footprints_at_heel_strike(speed: float) -> None:
    """At every heel strike of a straight walk the pelvis lies ``PELVIS_LEAD`` leg lengths
    ahead of the midpoint between the footprints, times the long-step fade (1 at 1.0 and
    1.3 m/s, about 0.9 at 1.6 m/s, whose default step is 0.455 statures)."""
    result = generate_walk(
        GaitParameters(speed=speed, cycles=2), standard_humanoid(stature=STATURE)
    )
    fade = np.clip((0.5 - result.parameters.step_length / STATURE) / 0.05, 0.0, 1.0)
    leg = leg_length(result.motion, VHUMAN_JOINTS)
    assert fade > 0.85
    assert np.abs(_pelvis_leads(result) - PELVIS_LEAD * leg * fade).max() < LEAD_TOLERANCE


@pytest.mark.parametrize(("share", "fade"), LONG_STEPS)
def test_pelvis_lead_fades_out_on_long_steps(share: float, fade: float) -> None:
    result = _long_step_walk(share)
    leg = leg_length(result.motion, VHUMAN_JOINTS)
    assert np.abs(_pelvis_leads(result) - PELVIS_LEAD * leg * fade).max() < LEAD_TOLERANCE


@pytest.mark.parametrize(("share", "fade"), LONG_STEPS)
def test_hips_peak_earlier_on_long_steps(share: float, fade: float) -> None:
    """Pelvic obliquity: the right hip stands highest over the left at 40 % of its cycle,
    moving to a third of the cycle as the long-step fade falls to 0. The hips' height
    difference is a sine of the roll, symmetric about its peak, so its fundamental over a
    whole cycle peaks where the roll does: to under 1e-6 of the cycle with the frames
    dividing the cycle unevenly; 1e-4 is 0.15 % of the fade's whole shift (1/15)."""
    result = _long_step_walk(share)
    m, d = result.motion, result.parameters.cycle_duration
    sk = m.skeleton
    whole = m.times < np.floor(m.times[-1] / d) * d
    angle = 2.0 * np.pi * m.times[whole] / d
    rise = m.global_positions[whole, sk.index("r_hip"), 2]
    rise = rise - m.global_positions[whole, sk.index("l_hip"), 2]
    basis = np.stack([np.cos(angle), np.sin(angle), np.ones_like(angle)], axis=-1)
    (a, b, _), *_ = np.linalg.lstsq(basis, rise, rcond=None)
    peak = (np.arctan2(b, a) / (2.0 * np.pi)) % 1.0
    assert peak == pytest.approx(1.0 / 3.0 + fade * (0.4 - 1.0 / 3.0), abs=1e-4)


def _knee_flexion_deg(motion, name: str) -> np.ndarray:
    q = motion.local_rotations[:, motion.skeleton.index(name)]
    return np.degrees(2.0 * np.arctan2(np.linalg.norm(q[:, 1:], axis=-1), np.abs(q[:, 0])))


def test_stance_knee_follows_its_profile(straight) -> None:
    """From heel strike to the end of mid-stance the knee follows STANCE_KNEE exactly:
    about 5° at heel strike, at most 20° in loading response (Perry & Burnfield), still
    flexed but below its loading peak at the end of mid-stance (30 %), straightest in
    terminal stance (the recorded CMU walks: at about 50 %)."""
    m, p = straight.motion, straight.parameters
    tau = (m.times / p.cycle_duration) % 1.0  # right heel strikes at 0, D, 2D…
    knee = _knee_flexion_deg(m, "r_knee")
    early = tau <= STANCE_KNEE[-1][0]
    assert np.abs(knee[early] - np.degrees(stance_knee(tau[early]))).max() < 0.01
    for key, flexion in STANCE_KNEE:
        assert np.degrees(stance_knee(key)) == pytest.approx(flexion)
    assert knee[tau < 0.01].max() < 10.0
    loading = knee[tau < 0.2].max()
    assert loading <= 20.0
    assert knee[(tau > 0.28) & (tau < 0.3)].max() < loading
    terminal = (tau > 0.4) & (tau < 0.55)
    assert knee[terminal].min() < knee[tau < 0.01].max() + 3.0


def test_pelvis_vertical_excursion_is_plausible(straight) -> None:
    # Perry & Burnfield: about 4-5 cm
    assert 0.02 <= straight.pelvis_excursion_m <= 0.075


def test_heel_touches_down_before_the_toes(straight) -> None:
    m, p = straight.motion, straight.parameters
    sk = m.skeleton
    j = sk.index("r_ankle")
    seg = sk.segments[j]
    ends = m.global_positions[:, j, None] + quat_apply(
        m.global_rotations[:, j, None], np.stack([seg.start, seg.end])
    )
    heel, toe = ends[:, 0, 2] - seg.radius, ends[:, 1, 2] - seg.radius
    strikes = np.flatnonzero(np.diff(np.floor(m.times / p.cycle_duration)) > 0) + 1
    for f in strikes:
        assert abs(heel[f]) < 1e-3  # the heel is on the floor at heel strike
        assert toe[f] > 5e-3  # and the forefoot still in the air


@pytest.mark.parametrize("speed", [1.0, 1.3, 1.6])
def test_forefoot_comes_down_within_loading_response(speed: float) -> None:
    """The foot lands toes up and rolls over its heel to flat by 9 % of the cycle after heel
    strike, or later where that would take less than 95 ms (a shorter heel rocker turns the
    ankle faster than the recorded walks at 1.6 m/s). At 240 fps, to time it."""
    result = generate_walk(GaitParameters(speed=speed, cycles=2, fps=240.0))
    m, p = result.motion, result.parameters
    j = m.skeleton.index("r_ankle")
    pitch = np.arcsin(-quat_apply(m.global_rotations[:, j], [1.0, 0.0, 0.0])[:, 2])
    tau = (m.times / p.cycle_duration) % 1.0  # right heel strikes at 0, D, 2D…
    landing = (tau * p.cycle_duration < 1.5 / m.fps) & (m.times > 0.0)
    assert landing.any()
    assert np.all(pitch[landing] < -0.1)  # toes up at heel strike
    first_flat = tau[(tau < 0.2) & (np.abs(pitch) < 1e-4)].min()
    expected = max(FOOT_FLAT, 0.095 / p.cycle_duration)
    assert expected - 1.0 / (m.fps * p.cycle_duration) <= first_flat <= expected + 0.002
    assert first_flat * p.cycle_duration >= 0.095 - 1.0 / m.fps


def test_seed_ccd_legs_reach_the_analytic_targets() -> None:
    """Chen et al.'s walking IK (CCD on hip → knee → ankle, which ends at the pelvis, the
    sub-root) reaches the same ankles as the law of cosines, within its tolerance."""
    params = {"step_length": 0.7, "speed": 1.3, "cycles": 1}
    analytic = generate_walk(GaitParameters(**params))
    ccd = generate_walk(GaitParameters(**params, leg_ik="ccd"))
    figures = ccd.to_dict()
    assert figures["ik_solver"] == "CCD"
    assert figures["ik_solves"] == 2 * ccd.motion.n_frames
    assert figures["ik_converged"] >= 0.98 * figures["ik_solves"]
    assert figures["ik_max_error_mm"] < 1.0
    assert figures["ik_joint_updates"] > 2 * ccd.motion.n_frames  # it iterates
    assert analytic.to_dict()["ik_joint_updates"] is None
    sk = ccd.motion.skeleton
    feet = sk.indices(["r_ankle", "l_ankle", "r_toe", "l_toe"])
    gap = ccd.motion.global_positions[:, feet] - analytic.motion.global_positions[:, feet]
    gap = np.linalg.norm(gap, axis=-1)
    # Ankles and toes, in stance and in swing: the leg's swivel about the hip-ankle line,
    # which CCD leaves free, is turned back onto the analytic knee after each solve, so
    # the thigh does not twist and the ankle's range of motion binds as it does there.
    assert gap.max() < 1e-3
    # No joint jumps (a twisted thigh made the foot snap back by 27° at heel strike).
    assert ccd.max_joint_step_deg < 10.0
    assert ccd.foot_skate_mm < 1.0
    assert ccd.ground_penetration_mm < 1.0
    violation = np.degrees(sk.limit_violation(ccd.motion.local_rotations))
    assert np.delete(violation, sk.indices(["l_ankle", "r_ankle"]), axis=1).max() < 1.0


def test_unknown_leg_ik_is_refused() -> None:
    with pytest.raises(InputError, match="leg_ik must be one of analytic, ccd"):
        GaitParameters(leg_ik="fabrik")


def test_short_steps_land_flatter() -> None:
    """On a path that starts and ends at rest the steps grow from nothing and shrink again;
    the foot lands toes up by ``heel_strike`` on full steps and flatter on short ones (an
    upright shank would otherwise bend the ankle past its range), never below 0.4 of it."""
    base = GaitParameters(speed=1.3).for_stature(1.678)
    cycles = 3
    duration = cycles * base.cycle_duration
    length = 2.0 * base.step_length * cycles / 1.875  # minimum jerk: peak speed 1.875 × mean

    def path(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = length * ease(Easing.MINIMUM_JERK, np.clip(t / duration, 0.0, 1.0))
        return np.stack([s, np.zeros_like(s)], axis=-1), np.zeros_like(s)

    p = GaitParameters(step_length=base.step_length, speed=1.3, cycles=cycles, path=path)
    result = generate_walk(p)
    m = result.motion
    sk = m.skeleton
    landing, steps = [], []
    for k in range(1, 2 * cycles):
        t = 0.5 * k * p.cycle_duration
        f = int(np.ceil(t * p.fps - 1e-9))  # the first frame of the stance
        foot = sk.index("l_ankle" if k % 2 else "r_ankle")
        forward = quat_apply(m.global_rotations[f, foot], [1.0, 0.0, 0.0])
        landing.append(np.degrees(np.arctan2(forward[2], forward[0])))
        prints = path(t + np.array([-0.25, 0.25]) * p.cycle_duration)[0][:, 0]
        steps.append(prints[1] - prints[0])
    landing, steps = np.array(landing), np.array(steps)
    full = np.degrees(p.heel_strike)
    assert landing.max() <= full + 0.5
    assert landing.min() >= 0.4 * full - 2.0
    longest, shortest = int(np.argmax(steps)), int(np.argmin(steps))
    assert landing[shortest] < landing[longest] - 5.0
    assert result.foot_skate_mm < 1.0
    assert result.ground_penetration_mm < 1.0


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_paced_path_turns_at_most_the_turn_per_step_and_steps_at_most_the_step(seed: int) -> None:
    rng = np.random.default_rng(seed)
    s = np.linspace(0.0, rng.uniform(1.0, 5.0), 2001)  # [m]
    # A heading that turns by up to 180° over a stretch of 0.1-1 m somewhere on the path.
    middle, width = rng.uniform(0.2, 0.8) * s[-1], rng.uniform(0.1, 1.0)
    heading = rng.uniform(-np.pi, np.pi) * np.clip((s - middle) / width + 0.5, 0.0, 1.0)
    step, cycle = 0.6, 1.1
    cycles, distance_at = paced_path(s, heading, step, cycle)
    t = np.linspace(0.0, cycles * cycle, 20001)
    d = distance_at(t)
    assert d[0] == 0.0
    assert d[-1] == pytest.approx(s[-1])
    assert np.all(np.diff(d) >= 0.0)  # never walks back
    dt = t[1] - t[0]
    assert np.diff(d).max() / dt <= 2.0 * step / cycle * 1.001  # [m/s]: the cadence's speed
    turn = np.abs(np.diff(np.interp(d, s, heading))) / dt  # [rad/s]
    assert turn.max() <= 2.0 * TURN_PER_STEP / cycle * 1.02
