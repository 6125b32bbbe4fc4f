"""Lateral balance step by step after a side push: where the feet land against where asked.

Each run pushes a walker (default ``walk_push_xcom``) once, 0.2 s on the chest, at one gait
phase of its sixth cycle (the push sweep's times, `physics.push_times`), and logs every step
(foot strike) from the step before the push until a fall or 3.2 s after it. Lateral places
are in the heading frame at the strike, positive to the body's left [m]; per step:

- ``stance``: the leg that stood during the step, and its duration ``T`` [s];
- at the strike: the centre of mass ``y`` and its velocity ``v`` [m/s], both relative to
  the stance ankle, and the extrapolated centre of mass ``ξ = y + v √(h / g)`` (Hof 2008);
- ``asked``: where a straight swing leg at the swing hip's last roll target would put the
  foot (what the feedback matrix and the ``xcom_margin`` bound ask), ``landed``: where the
  swing ankle is at the strike, ``need``: ``ξ`` plus the walker's ``xcom_margin`` (0 without
  one) towards the swing side (Hof's rule), ``beyond ξ``: how far past ``ξ`` it landed;
- ``roll err``: the largest swing hip roll error (target − angle) [rad] in late swing
  (after the first 0.2 s of the step, or once the state machine's late swing starts);
  ``τ``: the peak |torque| / limit of the swing hip roll, stance hip roll and stance ankle
  roll during the step; ``foot roll``: the stance foot's largest tilt about
  its long axis [rad] (a foot rolling onto its edge); ``legs``: time [s] the two legs touch.

Which link of lateral balance breaks shows in the columns: ``asked`` short of ``need``
(gains), ``landed`` short of ``asked`` with a large roll error or a saturated swing hip
(tracking), a landing past ``need`` that the walker still cannot hold (stance torques at
their limit, foot roll), or leg contact (crossing).

Run: ``python benchmarks/physics_steps.py --force 100 --direction left --phase 0.25``
(one run: a few seconds on one core); ``--controller`` picks the walker.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass, field

import mujoco
import numpy as np
from rich.console import Console
from rich.table import Table

from headline import run_script
from physics import PUSH_S, push_times
from vhuman.control.controller import Controller, load_controller, pelvis_attitude, sides
from vhuman.control.simulation import CONTROL_SUBSTEPS, GRAVITY, Push, simulate

WATCH_S = 3.2
"""How long [s] after the push start a run is followed (the push sweep's survival window)."""


@dataclass
class StepLog:
    """Per-step lateral balance figures of one run (see the module notes); an `Observer`."""

    ctrl: Controller
    push_start: float
    steps: list[dict] = field(default_factory=list)
    fall_t: float | None = None
    _cur: dict = field(default_factory=dict)
    _last_steps: int = -1
    _step_start: float = 0.0

    def __post_init__(self) -> None:
        h = self.ctrl.humanoid
        model = h.model
        self.right, self.left = sides(h)
        names = [model.body(b).name for b in range(model.nbody)]
        self.side_of_body = {
            b: ("right" if n.startswith("right") else "left")
            for b, n in enumerate(names)
            if any(k in n for k in ("hip", "knee", "ankle", "toe"))
        }
        self.hip_body = {
            side: next(b for b, n in enumerate(names) if n.startswith(side) and "hip" in n)
            for side in ("right", "left")
        }
        self.limit = model.actuator_forcerange[:, 1].copy()
        # Hip to ankle with the knee straight: thigh and shank lengths (as the controller's
        # XCoM bound takes it).
        foot = self.right[4]
        self.leg_length = float(
            np.linalg.norm(model.body_pos[model.body_parentid[foot]])
            + np.linalg.norm(model.body_pos[foot])
        )

    def __call__(self, data: mujoco.MjData, right: bool, state: int, steps: int) -> None:
        t = float(data.time)
        if t > self.push_start + WATCH_S:
            return
        if steps != self._last_steps:
            if self._last_steps >= 0:
                self._strike(data, right, t)
            self._last_steps = steps
            self._step_start = t
            self._cur = {"roll_err": 0.0, "tau": [0.0, 0.0, 0.0], "foot_roll": 0.0, "legs": 0.0}
        st, sw = (self.right, self.left) if right else (self.left, self.right)
        dt = CONTROL_SUBSTEPS * data.model.opt.timestep
        c = self._cur
        force = np.abs(data.actuator_force) / self.limit
        c["tau"] = [
            max(a, float(force[i])) for a, i in zip(c["tau"], (sw[1], st[1], st[3]), strict=True)
        ]
        if t - self._step_start > 0.2 or state == 1:
            c["roll_err"] = max(c["roll_err"], abs(float(data.ctrl[sw[1]] - data.qpos[7 + sw[1]])))
        foot = data.xmat[st[4]].reshape(3, 3)
        c["foot_roll"] = max(c["foot_roll"], abs(math.asin(max(-1.0, min(1.0, foot[2, 1])))))
        for g1, g2 in data.contact.geom[: data.ncon].tolist():
            if g1 and g2:
                s1 = self.side_of_body.get(int(data.model.geom_bodyid[g1]))
                s2 = self.side_of_body.get(int(data.model.geom_bodyid[g2]))
                if s1 is not None and s2 is not None and s1 != s2:
                    c["legs"] += dt
                    break
        # Where the swing hip's roll target would put a straight leg's foot, kept each step:
        # the value at the strike is the placement asked for.
        yaw, _, roll = pelvis_attitude(data.qpos[3:7])
        world_roll = float(data.ctrl[sw[1]]) + roll
        hip = data.xpos[self.hip_body["left" if right else "right"]]
        c["asked_world"] = (hip[:2].copy(), world_roll, yaw)

    def _strike(self, data: mujoco.MjData, right_now: bool, t: float) -> None:
        """A foot strike: the leg that stood (``not right_now``'s side) ends its step."""
        stood, landed = (self.left, self.right) if right_now else (self.right, self.left)
        yaw = pelvis_attitude(data.qpos[3:7])[0]
        c_, s_ = math.cos(yaw), math.sin(yaw)

        def lateral(p: np.ndarray) -> float:
            return float(-s_ * p[0] + c_ * p[1])

        mujoco.mj_subtreeVel(data.model, data)
        ankle = data.xpos[stood[4]]
        com = data.subtree_com[1]
        vel = data.subtree_linvel[1]
        y = lateral(com - ankle)
        v = lateral(vel)
        omega = math.sqrt(GRAVITY / max(com[2] - ankle[2], 1e-3))
        xcom = y + v / omega
        side = -1.0 if right_now else 1.0  # towards the leg that landed
        hip_xy, world_roll, _ = self._cur.get("asked_world", (ankle[:2], 0.0, yaw))
        hip_lat = lateral(np.array([*hip_xy, 0.0]) - ankle)
        asked = hip_lat + self.leg_length * math.sin(world_roll)
        landed_lat = lateral(data.xpos[landed[4]] - ankle)
        margin = self.ctrl.xcom_margin or 0.0
        self.steps.append(
            {
                "t_after_push_s": t - self.push_start,
                "stance": "right" if stood is self.right else "left",
                "step_time_s": t - self._step_start,
                "com_y_m": y,
                "com_vy_m_s": v,
                "xcom_m": xcom,
                "asked_m": asked,
                "landed_m": landed_lat,
                "need_m": xcom + side * margin,
                "landed_beyond_xcom_m": side * (landed_lat - xcom),
                "swing_roll_err_rad": self._cur["roll_err"],
                "tau_over_limit": dict(
                    zip(
                        ("swing hip roll", "stance hip roll", "stance ankle roll"),
                        self._cur["tau"],
                        strict=True,
                    )
                ),
                "stance_foot_roll_rad": self._cur["foot_roll"],
                "legs_touch_s": self._cur["legs"],
            }
        )


def follow(ctrl: Controller, force: float, direction: str, at: float) -> StepLog:
    """The step log of one push of ``force`` [N] for 0.2 s at ``at`` [s]."""
    log = StepLog(ctrl, at)
    end = at + WATCH_S
    result, _ = simulate(
        ctrl,
        1.5 * end / ctrl.period,
        pushes=[Push(force, PUSH_S, at, direction)] if force > 0 else [],
        record_fps=None,
        observe=log,
    )
    log.fall_t = result.fall_time_s
    log.steps = [s for s in log.steps if s["t_after_push_s"] > -0.6]
    return log


def _table(title: str, log: StepLog) -> Table:
    t = Table(title=title)
    cols = (
        "t s",
        "stance",
        "T s",
        "y",
        "v m/s",
        "ξ",
        "asked",
        "landed",
        "need",
        "beyond ξ",
        "roll err",
        "τ sw hip,st hip,st ank",
        "foot roll",
        "legs s",
    )
    for col in cols:
        t.add_column(col, justify="left" if col == "stance" else "right")
    for s in log.steps:
        tau = " ".join(f"{v:.2f}" for v in s["tau_over_limit"].values())
        t.add_row(
            f"{s['t_after_push_s']:+.2f}",
            s["stance"],
            f"{s['step_time_s']:.2f}",
            f"{s['com_y_m']:+.3f}",
            f"{s['com_vy_m_s']:+.2f}",
            f"{s['xcom_m']:+.3f}",
            f"{s['asked_m']:+.3f}",
            f"{s['landed_m']:+.3f}",
            f"{s['need_m']:+.3f}",
            f"{s['landed_beyond_xcom_m']:+.3f}",
            f"{s['swing_roll_err_rad']:.2f}",
            tau,
            f"{s['stance_foot_roll_rad']:.2f}",
            f"{s['legs_touch_s']:.2f}",
        )
    fall = "no fall" if log.fall_t is None else f"fall at +{log.fall_t - log.push_start:.2f} s"
    t.caption = f"{fall}; lateral places relative to the stance ankle \\[m], + left"
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--force", type=float, nargs="+", default=[100.0], help="push forces [N]")
    ap.add_argument("--direction", default="left", choices=("left", "right"))
    ap.add_argument("--phase", type=float, nargs="+", default=[0.25])
    ap.add_argument("--controller", default="walk_push_xcom")
    args = ap.parse_args()
    ctrl = load_controller(args.controller)
    times = push_times(ctrl, tuple(args.phase))
    console = Console(width=175, highlight=False)
    runs = []
    for force in args.force:
        for phase, at in times.items():
            log = follow(ctrl, force, args.direction, at)
            console.print(_table(f"{force:.0f} N {args.direction} at phase {phase:g}", log))
            runs.append(
                {
                    "force_n": force,
                    "direction": args.direction,
                    "phase": phase,
                    "fall_after_push_s": None if log.fall_t is None else log.fall_t - at,
                    "steps": log.steps,
                }
            )
    print(json.dumps({"benchmark": "physics_steps", "controller": args.controller, "runs": runs}))


if __name__ == "__main__":
    run_script(main)
