"""Human motion prediction: a Lie-algebra Transformer, siMLPe, LTD, simple baselines, metrics."""

from vhuman.prediction.data import (
    HORIZON_FRAMES,
    HORIZONS_MS,
    N_FUTURE,
    N_OBSERVED,
    JointSets,
    PoseSequences,
    Split,
    Windows,
    cache_dir,
    load_bvh_sequences,
    load_cmu_sequences,
    load_deepmimic_sequences,
    load_sequences,
)
from vhuman.prediction.evaluation import EvaluationResult, ModelScores, evaluate, predict_motion
from vhuman.prediction.files import ModelInfo, load_model, save_model
from vhuman.prediction.kinematics import TorchFK
from vhuman.prediction.metrics import bone_length_drift, euler_error, foot_skating, mpjpe
from vhuman.prediction.models import (
    LTD,
    MODEL_KINDS,
    ConstantVelocity,
    LieTransformer,
    ModelKind,
    MotionPredictor,
    Prediction,
    SiMLPe,
    ZeroVelocity,
)
from vhuman.prediction.shipped import SHIPPED_MODELS, default_model_path
from vhuman.prediction.training import TrainConfig, build_model, train

__all__ = [
    "HORIZONS_MS",
    "HORIZON_FRAMES",
    "LTD",
    "MODEL_KINDS",
    "N_FUTURE",
    "N_OBSERVED",
    "SHIPPED_MODELS",
    "ConstantVelocity",
    "EvaluationResult",
    "JointSets",
    "LieTransformer",
    "ModelInfo",
    "ModelKind",
    "ModelScores",
    "MotionPredictor",
    "PoseSequences",
    "Prediction",
    "SiMLPe",
    "Split",
    "TorchFK",
    "TrainConfig",
    "Windows",
    "ZeroVelocity",
    "bone_length_drift",
    "build_model",
    "cache_dir",
    "default_model_path",
    "euler_error",
    "evaluate",
    "foot_skating",
    "load_bvh_sequences",
    "load_cmu_sequences",
    "load_deepmimic_sequences",
    "load_model",
    "load_sequences",
    "mpjpe",
    "predict_motion",
    "save_model",
    "train",
]
