"""Walks that look like people walking: properties measured from joint positions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from vhuman.animation import GaitParameters, generate_walk
from vhuman.animation.gait import default_stance_fraction, default_step_length
from vhuman.animation.gait_analysis import (
    CMU_JOINTS,
    VHUMAN_JOINTS,
    analyse_gait,
    curve_agreement,
    knee_maxima,
    leg_length,
    monotonic_until,
)
from vhuman.errors import InputError
from vhuman.geometry import quat_angle
from vhuman.io import read_cmu

SPEEDS = (1.0, 1.3, 1.6)


@pytest.fixture(scope="module")
def walks() -> dict:
    """Walks given their speed only (step and stance share from speed), with their analyses."""
    out = {}
    for v in SPEEDS:
        result = generate_walk(GaitParameters(speed=v, cycles=4))
        out[v] = (result, analyse_gait(result.motion))
    return out


@pytest.mark.parametrize("speed", SPEEDS)
def test_knee_has_one_maximum_from_mid_stance_to_the_swing_peak(walks, speed) -> None:
    _, a = walks[speed]
    assert np.all(knee_maxima(a.curves["knee"]) == 1)
    knee = a.curves["knee"].mean(axis=0)
    peak = 50 + int(np.argmax(knee[50:]))
    assert 60.0 <= knee[peak] <= 70.0
    assert 70 <= peak <= 80
    assert knee[round(100 * a.stance_fraction)] >= 35.0  # flexed at toe-off


@pytest.mark.parametrize("speed", SPEEDS)
def test_hip_extends_monotonically_to_its_peak_then_flexes(walks, speed) -> None:
    """Every cycle's hip extends from heel strike to its peak without flexing again by more
    than 1.5° on the way (the mean curve: 0.5°), and the peak lies at 50–62 %."""
    _, a = walks[speed]
    assert monotonic_until(a.curves["hip"].mean(axis=0), 0) >= 0
    for hip in a.curves["hip"]:
        end = monotonic_until(hip, 0, tolerance_deg=1.5)
        assert end >= 0, "the hip re-flexes before its extension peak"
        assert 50 <= end <= 62
        assert end < round(100 * a.stance_fraction)  # flexing again before toe-off


def test_relations_with_speed(walks) -> None:
    results = [walks[v][0] for v in SPEEDS]
    analyses = [walks[v][1] for v in SPEEDS]
    stature = 1.678
    for v, r in zip(SPEEDS, results, strict=True):
        assert r.step_length_m == pytest.approx(default_step_length(v, stature), rel=0.02)
        assert r.parameters.stance_fraction == pytest.approx(default_stance_fraction(v))
    cadence = [a.cadence_steps_min for a in analyses]
    assert np.all(np.diff(cadence) > 0)
    assert np.all(np.diff([a.stance_fraction for a in analyses]) < 0)
    assert np.all(np.diff([a.sway_m for a in analyses]) < 0)  # sway falls with speed
    assert np.all(np.diff([np.ptp(a.curves["hip"].mean(axis=0)) for a in analyses]) > 0)
    assert np.all(np.diff([a.elbow_range_deg for a in analyses]) > 0)
    # The pelvis rises and falls more as the step lengthens (people: ~2.5/4/5 cm).
    assert np.all(np.diff([a.pelvis_excursion_m for a in analyses]) > 0.005)
    # The knee's loading-response peak does not fall with speed, and rises above 1.3 m/s.
    wave = [a.curves["knee"].mean(axis=0)[5:30].max() for a in analyses]
    assert np.all(np.diff(wave) > -0.5)
    assert wave[2] > wave[1] + 3.0


@pytest.mark.parametrize("speed", SPEEDS)
def test_hip_range_is_peoples(walks, speed) -> None:
    """The hip's range over the cycle lies within people's 40–55° (Perry & Burnfield 2010;
    it grows with speed, :func:`test_relations_with_speed`): the swing's lift for the toes
    is gone by terminal swing, so the hip does not flex further there to carry a raised
    foot."""
    _, a = walks[speed]
    assert 40.0 <= np.ptp(a.curves["hip"].mean(axis=0)) <= 55.0


def test_pelvis_turns_more_about_the_vertical_when_walking_faster(walks) -> None:
    """The pelvis's rotation about the vertical grows with speed above 1.3 m/s, as in the
    recorded CMU walks (hip line against the walking direction, peak to peak: 11.0 ± 2.6°
    at 1.3 m/s, 14.3 ± 1.9° at 1.6 m/s)."""
    turn = {}
    for v in SPEEDS:
        result, _ = walks[v]
        pelvis = result.motion.local_rotations[:, result.motion.skeleton.index("pelvis")]
        yaw = Rotation.from_quat(pelvis, scalar_first=True).as_euler("ZYX")
        turn[v] = np.degrees(np.ptp(yaw[:, 0]))  # straight walks along +x: heading 0
    assert turn[1.6] > 1.4 * turn[1.3]
    assert 10.0 <= turn[1.6] <= 18.0


@pytest.mark.parametrize("speed", SPEEDS)
def test_ankle_loads_then_pushes_off(walks, speed) -> None:
    """The ankle plantarflexes in loading response (−3…−8° at 3–12 %, as the foot rolls
    over the heel), dorsiflexes while the shank turns over the flat foot, then plantarflexes
    at push-off well past its loading dip (15–20°, Perry & Burnfield 2010, at 60–70 %; the
    benchmark's target is 60–67 %: the heel rises about the ball of the foot as far as the
    pre-swing knee needs, and the foot carries on rotating just after toe-off; the recorded
    CMU walks peak at 66–70 %)."""
    _, a = walks[speed]
    ankle = a.curves["ankle"].mean(axis=0)
    loading = 3 + int(np.argmin(ankle[3:13]))
    assert -8.0 <= ankle[loading] <= -3.0
    assert 5 <= loading <= 12
    assert ankle[loading:50].max() >= ankle[loading] + 15.0  # rolls over the flat foot
    push_off = 55 + int(np.argmin(ankle[55:75]))
    assert 60 <= push_off <= 67
    assert -20.0 <= ankle[push_off] <= -15.0
    assert ankle[push_off] < ankle[loading] - 5.0


@pytest.mark.parametrize("speed", SPEEDS)
def test_ankle_is_about_neutral_from_mid_swing_to_heel_strike(walks, speed) -> None:
    """The dorsiflexors hold the ankle near neutral from mid-swing to heel strike (within
    5°, Perry & Burnfield 2010), having lifted it from its push-off plantarflexion."""
    _, a = walks[speed]
    ankle = a.curves["ankle"].mean(axis=0)
    mid_swing = round(50 * (1.0 + a.stance_fraction))
    assert np.all(np.abs(ankle[mid_swing:]) <= 5.0)
    toe_off = round(100 * a.stance_fraction)
    assert ankle[toe_off:mid_swing].min() < -10.0  # it was plantarflexed after toe-off


@pytest.mark.parametrize("speed", SPEEDS)
def test_ball_of_the_foot_clears_the_floor_at_mid_swing(walks, speed) -> None:
    """The ball of the foot at mid-swing is 2-3 cm above its height on the floor: high
    enough not to catch the floor, no higher than a neutral ankle needs."""
    _, a = walks[speed]
    assert 0.02 <= a.ball_clearance_m <= 0.03


@pytest.mark.parametrize("speed", SPEEDS)
def test_knee_flexes_in_loading_response(walks, speed) -> None:
    """The stance knee flexes 10-20° by 12-18 % of the cycle (Perry & Burnfield 2010,
    ch. 5: 15-20° in loading response)."""
    _, a = walks[speed]
    knee = a.curves["knee"].mean(axis=0)
    wave = 5 + int(np.argmax(knee[5:30]))
    assert 10.0 <= knee[wave] <= 20.0
    assert 12 <= wave <= 18
    assert knee[wave] >= knee[:wave].min() + 5.0  # flexes after heel strike


@pytest.mark.parametrize(("speed", "people"), [(1.0, 0.025), (1.3, 0.04), (1.6, 0.05)])
def test_pelvis_rises_and_falls_about_as_far_as_peoples(walks, speed, people) -> None:
    """Vertical excursion of the pelvis within 7.5 mm of people's (about 2.5 / 4 / 5 cm at
    1.0 / 1.3 / 1.6 m/s for a 1.68 m body; the recorded CMU walks, scaled: 2.4 / 3.5 / 3.9)."""
    _, a = walks[speed]
    assert abs(a.pelvis_excursion_m - people) <= 0.0075


_VAULT = pytest.mark.xfail(
    strict=True,
    reason="the pelvis comes to rest at its lowest at heel strike but then vaults up over the "
    "nearly straight leading leg: its lowest point is about 1.9 and 3.2 times as sharp as its "
    "highest at 1.3 and 1.6 m/s",
)


@pytest.mark.parametrize(
    "speed", [1.0, pytest.param(1.3, marks=_VAULT), pytest.param(1.6, marks=_VAULT)]
)
def test_pelvis_is_as_round_at_its_minima_as_at_its_maxima(walks, speed) -> None:
    """People's pelvis path is about as round at its lowest as at its highest (CMU: curvature
    ratio 1.0-1.2)."""
    _, a = walks[speed]
    assert 0.7 <= a.pelvis_curvature_ratio <= 1.5


@pytest.mark.parametrize("speed", SPEEDS)
def test_no_joint_moves_faster_than_recorded_walking(walks, speed) -> None:
    """At 60 fps: knees, ankles and toes at most 10° a frame, hips and every other joint 7°;
    leg angles' second difference at its 99th percentile at most 5°/frame², scaled by
    cadence / 110 above 110 steps/min (the recorded CMU walks stay within these)."""
    result, a = walks[speed]
    m = result.motion
    assert m.fps == 60.0
    steps = np.degrees(quat_angle(m.local_rotations[:-1], m.local_rotations[1:])).max(axis=0)
    for name, step in zip(m.skeleton.names, steps, strict=True):
        fast = name.endswith(("_knee", "_ankle", "_toe"))
        assert step <= (10.0 if fast else 7.0), name
    assert a.leg_acceleration_p99_deg <= 5.0 * max(1.0, a.cadence_steps_min / 110.0)


@pytest.mark.parametrize("speed", SPEEDS)
def test_contacts_and_arms(walks, speed) -> None:
    result, a = walks[speed]
    assert result.foot_skate_mm <= 1.0
    assert result.ground_penetration_mm <= 1.0
    assert 15.0 <= a.elbow_range_deg <= 27.0
    assert 6.0 <= a.obliquity_deg <= 12.0


def test_step_length_from_speed_needs_a_stature() -> None:
    p = GaitParameters(speed=1.3)
    with pytest.raises(InputError, match="step_length is not set"):
        _ = p.cadence
    assert p.for_stature(1.678).step_length == pytest.approx(0.41 * 1.678)
    assert GaitParameters(step_length=0.7).for_stature(1.9).step_length == 0.7


def test_knee_maxima_counts_humps_beyond_the_dip() -> None:
    x = np.linspace(0.0, 1.0, 101)
    one = 5.0 + 55.0 * np.exp(-(((x - 0.73) / 0.1) ** 2))
    two = one + 45.0 * np.exp(-(((x - 0.5) / 0.04) ** 2))
    shallow = one + 1.0 * np.sin(40 * x) * (x > 0.4) * (x < 0.6)  # dips under 2°
    assert knee_maxima(np.stack([one, two, shallow])).tolist() == [1, 2, 1]


def test_monotonic_until_and_curve_agreement() -> None:
    x = np.linspace(0.0, 1.0, 101)
    hip = 30.0 * np.cos(2 * np.pi * x / 1.2)
    assert monotonic_until(hip, 0) == int(np.argmin(hip))
    bumped = hip.copy()
    bumped[31] += 5.0  # flexes again by about 1.9° on the way
    assert monotonic_until(bumped, 0) == -1
    r, rms = curve_agreement(hip + 12.0, hip)  # an offset is not a difference
    assert r == pytest.approx(1.0)
    assert rms == pytest.approx(0.0, abs=1e-9)


@pytest.mark.shared
def test_cmu_walks_measure_as_people_walk(shared_data) -> None:
    """Zeni et al.'s events and the angles from positions on real walking: one knee hump,
    stance about 60–70 % of the cycle (events from positions), cadence of ordinary walking."""
    a = analyse_gait(read_cmu(shared_data / "train" / "walking" / "walking_2.txt")[1:], CMU_JOINTS)
    assert a.cycles >= 4
    assert np.all(knee_maxima(a.curves["knee"]) == 1)
    assert 0.6 <= a.stance_fraction <= 0.7
    assert 85.0 <= a.cadence_steps_min <= 115.0


@pytest.mark.shared
def test_joint_curves_follow_recorded_walks(shared_data, walks) -> None:
    """Against the mean of the recorded CMU walks at the same Froude speed (1.3 m/s ± 0.15
    for vhuman's leg, Alexander & Jayes 1983), offsets removed: knee r ≥ 0.92 and RMS ≤ 7°,
    hip r ≥ 0.95 and RMS ≤ 6°, ankle r ≥ 0.85 and RMS ≤ 6°."""
    _, ours = walks[1.3]
    leg = leg_length(walks[1.3][0].motion, VHUMAN_JOINTS)
    cycles = {"knee": [], "hip": [], "ankle": []}
    for path in sorted((shared_data / "train").glob("walking*/*.txt")):
        motion = read_cmu(path)[1:]  # frame 0 is not a pose
        a = analyse_gait(motion, CMU_JOINTS)
        their_leg = leg_length(motion, CMU_JOINTS)
        steady = a.step_length_m >= 0.5 * their_leg and 0.55 <= a.stance_fraction <= 0.7
        if steady and abs(a.speed_m_s * np.sqrt(leg / their_leg) - 1.3) <= 0.15:
            for name in cycles:
                cycles[name].append(a.curves[name])
    assert len(cycles["knee"]) >= 5
    targets = {"knee": (0.92, 7.0), "hip": (0.95, 6.0), "ankle": (0.85, 6.0)}
    for name, (least_r, most_rms) in targets.items():
        reference = np.concatenate(cycles[name]).mean(axis=0)
        r, rms = curve_agreement(ours.curves[name].mean(axis=0), reference)
        assert r >= least_r, name
        assert rms <= most_rms, name


def test_too_short_a_walk_is_refused() -> None:
    result = generate_walk(GaitParameters(speed=1.3, cycles=1))
    with pytest.raises(InputError, match="at least one complete gait cycle"):
        analyse_gait(result.motion[: result.motion.n_frames // 3])
