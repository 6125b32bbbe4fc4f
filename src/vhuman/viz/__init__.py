"""Pictures of motions: matplotlib figures and animations, a shaded-body HTML viewer (walks
compared side by side, aligned by gait cycle), a report."""

from vhuman.viz.animation import ANIMATION_SUFFIXES, save_animation
from vhuman.viz.comparison import gait_aligned, gait_phase, heel_strikes, repeated
from vhuman.viz.manikin import Manikin
from vhuman.viz.plots import (
    plot_curves,
    plot_ergonomic_scores,
    plot_pareto,
    plot_pose,
    plot_posture_pareto,
    plot_trajectories,
    save_figure,
)
from vhuman.viz.report import Report, Section
from vhuman.viz.scene_mesh import SceneMesh
from vhuman.viz.viewer import VIEWER_DIV_ID, motion_figure, write_figure, write_viewer

__all__ = [
    "ANIMATION_SUFFIXES",
    "VIEWER_DIV_ID",
    "Manikin",
    "Report",
    "SceneMesh",
    "Section",
    "gait_aligned",
    "gait_phase",
    "heel_strikes",
    "motion_figure",
    "plot_curves",
    "plot_ergonomic_scores",
    "plot_pareto",
    "plot_pose",
    "plot_posture_pareto",
    "plot_trajectories",
    "repeated",
    "save_animation",
    "save_figure",
    "write_figure",
    "write_viewer",
]
