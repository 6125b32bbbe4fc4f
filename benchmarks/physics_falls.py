"""Why the walker falls after a push: what ends the run, torques against their limits, steps.

Each run pushes the shipped walker (or ``--controller``) once, 0.2 s on the chest, at one
gait phase of its sixth cycle (the push sweep's times, `physics.push_times`), and follows
it with an observer after every control step until a body part other than the feet touches
the ground (at most 0.6 s after the fall criterion). Per run it prints:

- ``criterion``: the first fall criterion met (``tilt``: pelvis pitch or roll beyond
  `FALL_TILT_RAD`; ``height``: root below `FALL_HEIGHT_RATIO` of its start height;
  ``contact``: a body part other than the feet on the ground) and its time after the push
  starts; ``ground``: the first body part other than a foot to touch the ground and how long
  after the criterion (a criterion that fires long before any contact, or without one, would
  be too strict);
- ``steps``: foot strikes between the push and the criterion (does the walker step at all);
- time at the torque limit (>= 99 %; the JSON also gives the peak |torque| / limit) from
  the push to the criterion at the stance hip (pitch, roll), stance knee and stance ankle
  (pitch, roll), and how long before the criterion any leg hinge first reached its limit;
- ``legs touch``: time the two legs are in contact (a crossing swing foot blocked by the
  stance leg); ``scuff``: time the swing foot touches the ground in early swing;
  ``lag``: the largest swing hip roll / pitch error (target − angle) at the foot strikes
  after the push (a foot placed off where the feedback asked).

Run: ``python benchmarks/physics_falls.py --force 100`` (16 runs, about 20 s on one core);
``--force`` takes several values, ``--direction`` and ``--phase`` narrow the runs.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field

import mujoco
import numpy as np
from rich.console import Console
from rich.table import Table

from headline import run_script
from physics import PUSH_PHASES, push_times
from vhuman.control.controller import (
    Controller,
    default_controller_path,
    load_controller,
    pelvis_attitude,
    sides,
)
from vhuman.control.simulation import FALL_HEIGHT_RATIO, FALL_TILT_RAD, Push, simulate

DIRECTIONS = ("forward", "backward", "left", "right")
AFTER_FALL_S = 0.6
"""How long [s] after the criterion the run is followed, looking for a body contact."""
WATCH_S = 3.2
"""How long [s] after the push start a run is followed (the push sweep's survival window)."""


@dataclass
class FallObserver:
    """Collects the diagnosis of one pushed run (see the module notes); an `Observer`."""

    ctrl: Controller
    push_start: float
    criterion: str | None = None
    criterion_t: float | None = None
    ground: str | None = None
    ground_t: float | None = None
    steps_at_push: int | None = None
    steps_after: int = 0
    peak: dict[str, float] = field(default_factory=dict)
    at_limit_s: dict[str, float] = field(default_factory=dict)
    saturated_t: float | None = None
    legs_touch_s: float = 0.0
    scuff_s: float = 0.0
    lag: list[tuple[float, float]] = field(default_factory=list)
    _last_steps: int = 0
    _last_t: float = 0.0

    def __post_init__(self) -> None:
        h = self.ctrl.humanoid
        model = h.model
        self.right, self.left = sides(h)
        knee = [h.hinge(n) for n in h.hinge_names if "knee" in n]
        self.knee = (knee[0], knee[1]) if "right" in h.hinge_names[knee[0]] else knee[::-1]
        names = [model.body(b).name for b in range(model.nbody)]
        self.side_of_body = {
            b: ("right" if n.startswith("right") else "left")
            for b, n in enumerate(names)
            if any(k in n for k in ("hip", "knee", "ankle", "toe"))
        }
        feet = {self.right[4], self.left[4]} | {
            b for b, n in enumerate(names) if "toe" in n or "ankle" in n
        }
        self.foot_geoms = set(np.flatnonzero(np.isin(model.geom_bodyid, list(feet))).tolist())
        self.limit = model.actuator_forcerange[:, 1].copy()
        self.leg_hinges = [
            i for i, n in enumerate(h.hinge_names) if any(k in n for k in ("hip", "knee", "ankle"))
        ]
        self.fall_height = FALL_HEIGHT_RATIO * float(self.ctrl.start_qpos[2])
        self.body_names = names

    def __call__(self, data: mujoco.MjData, right: bool, state: int, steps: int) -> None:
        t = float(data.time)
        dt, self._last_t = t - self._last_t, t
        if t < self.push_start or self.ground is not None:
            self._last_steps = steps
            return
        if self.steps_at_push is None:
            self.steps_at_push = steps
        if t > self.push_start + WATCH_S or (
            self.criterion_t is not None and t > self.criterion_t + AFTER_FALL_S
        ):
            return
        model = data.model
        legs = scuff = False
        swing_body = (self.left if right else self.right)[4]
        for g1, g2 in data.contact.geom[: data.ncon].tolist():
            if g1 == 0 or g2 == 0:
                other = g2 if g1 == 0 else g1
                scuff = scuff or (state == 0 and int(model.geom_bodyid[other]) == swing_body)
                if other not in self.foot_geoms and self.ground is None:
                    self.ground = self.body_names[model.geom_bodyid[other]]
                    self.ground_t = t
            else:
                s1 = self.side_of_body.get(int(model.geom_bodyid[g1]))
                s2 = self.side_of_body.get(int(model.geom_bodyid[g2]))
                legs = legs or (s1 is not None and s2 is not None and s1 != s2)
        if self.criterion_t is None:
            self.steps_after = steps - self.steps_at_push
            self._before_fall(data, right, steps, t, dt, legs)
            self.scuff_s += dt * scuff
        self._last_steps = steps

    def _before_fall(
        self, data: mujoco.MjData, right: bool, steps: int, t: float, dt: float, legs: bool
    ) -> None:
        """Torques, steps, leg contacts and placement until the first fall criterion."""
        stance, swing = (self.right, self.left) if right else (self.left, self.right)
        knee = self.knee[0 if right else 1]
        force = np.abs(data.actuator_force) / self.limit
        groups = {
            "stance hip pitch": stance[0],
            "stance hip roll": stance[1],
            "stance knee": knee,
            "stance ankle pitch": stance[2],
            "stance ankle roll": stance[3],
            "swing hip pitch": swing[0],
        }
        for name, i in groups.items():
            self.peak[name] = max(self.peak.get(name, 0.0), float(force[i]))
            self.at_limit_s[name] = self.at_limit_s.get(name, 0.0) + dt * float(force[i] >= 0.99)
        if self.saturated_t is None and force[self.leg_hinges].max() >= 0.99:
            self.saturated_t = t
        if legs:
            self.legs_touch_s += dt
        if steps > self._last_steps:  # a foot strike: the leg that landed is the new stance
            landed = self.right if right else self.left
            self.lag.append(
                tuple(float(data.ctrl[i] - data.qpos[7 + i]) for i in (landed[1], landed[0]))
            )
        _, pitch, roll = pelvis_attitude(data.qpos[3:7])
        tilt = max(abs(pitch), abs(roll)) > FALL_TILT_RAD
        low = data.qpos[2] < self.fall_height
        if tilt or low or self.ground is not None:
            self.criterion = "tilt" if tilt else "height" if low else "contact"
            self.criterion_t = t

    def summary(self) -> dict:
        """The diagnosis as JSON-ready numbers (times relative to the push start [s])."""
        rel = None if self.criterion_t is None else self.criterion_t - self.push_start
        lag = np.array(self.lag) if self.lag else np.zeros((0, 2))
        return {
            "criterion": self.criterion,
            "criterion_after_push_s": rel,
            "ground": self.ground,
            "ground_after_criterion_s": None
            if self.ground_t is None or self.criterion_t is None
            else self.ground_t - self.criterion_t,
            "steps_before_criterion": self.steps_after,
            "peak_torque_over_limit": self.peak,
            "time_at_torque_limit_s": self.at_limit_s,
            "saturated_before_criterion_s": None
            if self.saturated_t is None or self.criterion_t is None
            else self.criterion_t - self.saturated_t,
            "legs_touch_s": self.legs_touch_s,
            "swing_foot_scuff_s": self.scuff_s,
            "max_lag_roll_pitch_rad": np.abs(lag).max(axis=0).tolist() if len(lag) else None,
        }


def diagnose(ctrl: Controller, force: float, direction: str, at: float) -> dict:
    """The diagnosis of one push of ``force`` [N] for 0.2 s at ``at`` [s]."""
    observer = FallObserver(ctrl, at)
    end = at + WATCH_S + AFTER_FALL_S
    simulate(
        ctrl,
        1.5 * end / ctrl.period,
        pushes=[Push(force, 0.2, at, direction)],
        record_fps=None,
        stop_on_fall=False,
        observe=observer,
    )
    out = observer.summary()
    out["fell"] = observer.criterion is not None
    return out


def _table(rows: list[dict]) -> Table:
    t = Table(title="pushed runs: what ends the walk (times after the push start)")
    cols = (
        "push",
        "fell",
        "criterion",
        "ground",
        "steps",
        "s at τ limit: hip p,r knee ankle p,r",
        "saturated",
        "legs touch",
        "scuff",
        "lag roll,pitch",
    )
    for c in cols:
        t.add_column(c, justify="left" if c in ("push", "criterion", "ground") else "right")
    for r in rows:
        p = r["time_at_torque_limit_s"]
        peak = " ".join(
            f"{p.get(k, 0):.2f}"
            for k in (
                "stance hip pitch",
                "stance hip roll",
                "stance knee",
                "stance ankle pitch",
                "stance ankle roll",
            )
        )
        crit = r["criterion"] and f"{r['criterion']} +{r['criterion_after_push_s']:.2f}s"
        ground = r["ground"] and f"{r['ground']} +{r['ground_after_criterion_s']:.2f}s"
        sat = r["saturated_before_criterion_s"]
        lag = r["max_lag_roll_pitch_rad"]
        t.add_row(
            f"{r['force_n']:.0f} N {r['direction']} @{r['phase']:g}",
            str(r["fell"]),
            crit or "-",
            ground or "-",
            str(r["steps_before_criterion"]),
            peak,
            "-" if sat is None else f"{sat:.2f}s before",
            f"{r['legs_touch_s']:.2f}s",
            f"{r['swing_foot_scuff_s']:.2f}s",
            "-" if lag is None else f"{lag[0]:.2f},{lag[1]:.2f}",
        )
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--force", type=float, nargs="+", default=[100.0], help="push forces [N]")
    ap.add_argument("--direction", nargs="+", default=list(DIRECTIONS), choices=DIRECTIONS)
    ap.add_argument("--phase", type=float, nargs="+", default=list(PUSH_PHASES))
    ap.add_argument("--controller", default=str(default_controller_path()))
    args = ap.parse_args()
    ctrl = load_controller(args.controller)
    times = push_times(ctrl, tuple(args.phase))
    rows = []
    for force in args.force:
        for direction in args.direction:
            for phase, at in times.items():
                row = {"force_n": force, "direction": direction, "phase": phase}
                rows.append(row | diagnose(ctrl, force, direction, at))
    Console(width=160, highlight=False).print(_table(rows))
    print(json.dumps({"benchmark": "physics_falls", "controller": args.controller, "runs": rows}))


if __name__ == "__main__":
    run_script(main)
