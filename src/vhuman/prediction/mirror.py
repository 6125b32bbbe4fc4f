"""Test-time mirror averaging: a predictor's forecast averaged with that of the mirror image.

The observed poses are mirrored left/right (the body's sagittal plane,
``y → −y``, left and right joints swapped, as the training option ``mirror``
of :mod:`vhuman.prediction.training` does: rotations mirrored, positions by
forward kinematics), the model predicts from both the original and the
mirrored input, the second forecast is mirrored back, and the two are
averaged: test-time augmentation by a symmetry the training data were
augmented with. Rotations are averaged as unit quaternions (the normalised
sum, signs aligned: the chordal mean of two rotations) and the positions
recomputed by forward kinematics, so bone lengths stay exact; for a model of
rotations the average is then exactly left/right symmetric (tested). Models
that predict positions only get the reflected positions
(:func:`mirror_positions`) as the mirrored input and their second forecast
reflected back: the CMU skeleton's left and right bones differ in length by
up to a few centimetres, so the FK mirror followed by a reflection back would
not return the input (it cost siMLPe 2.4 mm at 80 ms).
"""

from __future__ import annotations

import torch

from vhuman.prediction.models import MotionPredictor, Prediction
from vhuman.prediction.sampling import mirror_rotations

__all__ = ["MirrorAveraged", "mirror_positions"]


def mirror_positions(p: torch.Tensor, swap: torch.Tensor) -> torch.Tensor:
    """Left/right mirror images ``(..., J, 3)`` of root-relative positions ``(..., J, 3)`` [m].

    ``swap``: the mirror joint of each joint
    (:func:`~vhuman.prediction.data.mirror_joints`), as an index tensor.
    """
    return p[..., swap, :] * p.new_tensor([1.0, -1.0, 1.0])


class MirrorAveraged(MotionPredictor):
    """``model``'s forecast averaged with its mirrored forecast of the mirrored input.

    Parameters
    ----------
    model : MotionPredictor
        A trained predictor; its weights are shared, not copied.
    swap : sequence of int, length J
        :func:`~vhuman.prediction.data.mirror_joints` of the model's skeleton.
    """

    def __init__(self, model: MotionPredictor, swap: tuple[int, ...]) -> None:
        super().__init__(
            model.fk.parents,
            model.fk.offsets.detach().cpu().numpy(),
            model.position_joints,
            model.angle_joints,
            model.n_observed,
            model.n_future,
        )
        self.model = model
        self.kind = model.kind
        self.register_buffer("swap", torch.tensor(swap), persistent=False)

    def forward(self, q_obs: torch.Tensor, p_obs: torch.Tensor) -> Prediction:
        """See :meth:`MotionPredictor.forward`."""
        first = self.model(q_obs, p_obs)
        q_mirror = mirror_rotations(q_obs, self.swap)
        if first.rotations is None:  # positions only: reflected in, reflected back
            second = self.model(q_mirror, mirror_positions(p_obs, self.swap))
            positions = 0.5 * (first.positions + mirror_positions(second.positions, self.swap))
            return Prediction(None, positions)
        second = self.model(q_mirror, self.fk(q_mirror))
        assert second.rotations is not None
        back = mirror_rotations(second.rotations, self.swap)
        sign = torch.where((first.rotations * back).sum(-1, keepdim=True) < 0.0, -1.0, 1.0)
        q = first.rotations + sign * back
        q = q / q.norm(dim=-1, keepdim=True)
        return Prediction(q, self.fk(q))
