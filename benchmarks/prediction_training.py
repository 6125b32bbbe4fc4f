"""Training speed of the motion predictors: windows per second, where a step's time goes.

Three parts, one run, a table each and one JSON object at the end (also written
to ``--out``):

1. **Throughput** of ``vhuman.prediction.train`` on the CMU training windows
   with the shipped recipe (``data/models/README.md``: mirroring, reversal,
   speeds 0.2, EMA 0.999, warm-up 500, learning rate 3e-3), for each model
   variant, batch size, device and CPU thread count asked for. The clock is
   read in the progress callback, after the loss has come back from the
   device (a synchronisation), every ``--every`` steps; the first reading
   after ``--warmup`` steps starts the clock. Windows/s = windows trained
   between the first and the last reading / the time between them; on the
   CPU also per second of the process's CPU time (the machine may be
   shared: wall time then counts other people's jobs, CPU time much less).
   With ``--reference SRC`` (another version's ``src`` folder, e.g. made by
   ``git archive <commit> src | tar -x -C DIR``) each measurement also runs
   that version, alternating with this one in fresh processes, ``--repeats``
   times each; the table gives medians and the speed-up.
2. **Profile** (``--profile``): ``torch.profiler`` over ``--profile-steps``
   training steps of each variant and batch, time by stage: data and
   augmentation (window gather, interpolation, mirroring, reversal and their
   FK), FK of the prediction, Jacobian features, attention, the rest of the
   forward pass and the loss, backward, gradient clipping, optimizer, EMA.
   Stages are labelled by wrapping the library's functions from here, so the
   library runs unchanged. CPU time per stage; on CUDA also the device
   time of the kernels launched within the stage.
3. **Peer** (``--peer``): a plain PyTorch ``nn.TransformerEncoder`` of the same
   width, feed-forward width, heads and depth (encoder + decoder layers),
   over the same token count per window (7 time tokens × the position and
   angle joints), trained with Adam on the same batch: the framework's own
   figure for a model of this size, and the Lie-algebra Transformer's windows/s as a
   ratio of it.

Run (CPU; ``--device cuda`` on a GPU; ``--data`` also takes a preprocessed
``.npz`` from ``$VHUMAN_CACHE_DIR/prediction``)::

    .venv/bin/python benchmarks/prediction_training.py --threads 1,2 --batches 16,256 \\
        --reference /tmp/ref/src --profile --peer --out training.json
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from headline import run_script

CMU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cmu_mocap"
RECIPE = {"lr": 0.003, "mirror": True, "reverse": True, "ema": 0.999, "speed": 0.2, "warmup": 500}
"""The shipped model's training options (``data/models/README.md``)."""
VARIANTS: dict[str, dict[str, int]] = {
    "shipped": {},
    "1m": {"dim": 128, "ff": 256, "heads": 4, "encoder_layers": 2, "decoder_layers": 2},
}
"""Model options: the shipped Lie-algebra Transformer (53 k weights) and a 1.0 M-weight variant."""


def load(data: str) -> Any:
    """The CMU sequences from a folder, or from a preprocessed ``.npz`` cache file."""
    from vhuman.prediction import load_cmu_sequences

    if data.endswith(".npz"):
        from vhuman.io import cmu_skeleton
        from vhuman.prediction.data import _sequences_from_arrays

        with np.load(data, allow_pickle=False) as f:
            return _sequences_from_arrays({k: f[k] for k in f.files}, cmu_skeleton())
    return load_cmu_sequences(data)


def transformer_kind() -> str:
    """The Lie-algebra Transformer's kind in the imported version (``seed`` before its renaming)."""
    from vhuman.prediction.models import MODEL_KINDS

    return "lie-transformer" if "lie-transformer" in MODEL_KINDS else "seed"


def throughput(
    data: str, variant: str, batch: int, device: str, steps: int, warmup: int, every: int
) -> dict[str, Any]:
    """Train ``warmup + steps`` steps; windows/s by wall and by process CPU time."""
    from vhuman.prediction import TrainConfig, train

    sequences = load(data)
    config = TrainConfig(
        kind=transformer_kind(),
        steps=warmup + steps,
        batch_size=batch,
        seed=0,
        options=VARIANTS[variant],
        **RECIPE,
    )
    marks: list[tuple[int, float, float, float]] = []

    def clock(step: int, total: int, loss: float) -> None:
        if device == "cuda":
            torch.cuda.synchronize()
        marks.append((step, time.perf_counter(), time.process_time(), loss))

    kwargs: dict[str, Any] = {"device": device} if device != "cpu" else {}
    import inspect

    if "progress_every" in inspect.signature(train).parameters:
        kwargs["progress_every"] = every
    with tempfile.TemporaryDirectory() as tmp:
        model, _, _ = train(sequences, config, output=Path(tmp) / "m.pt", progress=clock, **kwargs)
    marks = [m for m in marks if m[0] % every == 0 and m[0] >= warmup]
    (s0, w0, c0, _), (s1, w1, c1, _) = marks[0], marks[-1]
    n = (s1 - s0) * batch
    weights = torch.cat([p.detach().flatten() for p in model.parameters()])
    return {
        "windows_per_s": n / (w1 - w0),
        "windows_per_cpu_s": n / (c1 - c0),
        "s_per_step": (w1 - w0) / (s1 - s0),
        "steps_timed": s1 - s0,
        "losses": [m[3] for m in marks],
        "weights_checksum": float(weights.double().abs().sum()),
        "parameters": int(weights.numel()),
    }


def _worker(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.worker_threads)
    result = throughput(
        args.data,
        args.variant,
        args.worker_batch,
        args.device,
        args.steps,
        args.warmup,
        args.every,
    )
    print("RESULT " + json.dumps(result))


def measure(
    args: argparse.Namespace, src: Path, variant: str, batch: int, threads: int
) -> dict[str, Any]:
    """One throughput measurement of the code in ``src``, in a fresh process."""
    steps = args.steps if batch <= 64 else max(2 * args.every, args.steps // 8)
    env = {
        **os.environ,
        "PYTHONPATH": str(src),
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
    }
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        "--data",
        args.data,
        "--variant",
        variant,
        "--worker-batch",
        str(batch),
        "--worker-threads",
        str(threads),
        "--device",
        args.device,
        "--steps",
        str(steps),
        "--warmup",
        str(args.warmup),
        "--every",
        str(args.every),
    ]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"worker failed ({src}): {out.stderr[-2000:]}")


# --------------------------------------------------------------------------- profile


def _labelled(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        with torch.profiler.record_function(name):
            return fn(*a, **k)

    return wrapper


@contextlib.contextmanager
def stage_labels() -> Iterator[None]:
    """Label the training step's stages for the profiler by wrapping library functions."""
    from vhuman.prediction import kinematics, models, sampling, training

    in_data = [False]
    fk_forward = kinematics.TorchFK.forward

    def fk(self: Any, *a: Any, **k: Any) -> Any:
        with torch.profiler.record_function("fk (augmentation)" if in_data[0] else "fk"):
            return fk_forward(self, *a, **k)

    batch = sampling.WindowSampler.batch

    def data(self: Any, *a: Any, **k: Any) -> Any:
        in_data[0] = True
        try:
            with torch.profiler.record_function("data and augmentation"):
                return batch(self, *a, **k)
        finally:
            in_data[0] = False

    patches = [
        (kinematics.TorchFK, "forward", fk),
        (sampling.WindowSampler, "batch", data),
        (
            models.LieTransformer,
            "_position_rotvecs",
            _labelled("jacobian features", models.LieTransformer._position_rotvecs),
        ),
        (
            models._TemporalAttention,
            "forward",
            _labelled("attention", models._TemporalAttention.forward),
        ),
        (models._Attention, "forward", _labelled("attention", models._Attention.forward)),
        (
            models.LieTransformer,
            "forward",
            _labelled("forward and loss", models.LieTransformer.forward),
        ),
        (models.LieTransformer, "loss", _labelled("forward and loss", models.LieTransformer.loss)),
        (torch.Tensor, "backward", _labelled("backward", torch.Tensor.backward)),
        (torch.nn.utils, "clip_grad_norm_", _labelled("clip", torch.nn.utils.clip_grad_norm_)),
        (training, "ema_update", _labelled("ema", training.ema_update)),
    ]
    saved = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
    for obj, name, new in patches:
        setattr(obj, name, new)
    try:
        yield
    finally:
        for obj, name, old in saved:
            setattr(obj, name, old)


STAGES = (
    "data and augmentation",
    "fk (augmentation)",
    "forward and loss",
    "fk",
    "jacobian features",
    "attention",
    "backward",
    "clip",
    "optimizer",
    "ema",
)


def profile(data: str, variant: str, batch: int, device: str, steps: int) -> dict[str, Any]:
    """Per-stage CPU (and device) time per step [ms] over ``steps`` profiled steps."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    from vhuman.prediction import TrainConfig, train

    sequences = load(data)
    warm = 5
    config = TrainConfig(
        kind="lie-transformer",
        steps=warm + steps,
        batch_size=batch,
        seed=0,
        options=VARIANTS[variant],
        **RECIPE,
    )
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    prof = torch_profile(activities=activities)
    wall: list[float] = []

    def clock(step: int, total: int, loss: float) -> None:
        if device == "cuda":
            torch.cuda.synchronize()
        wall.append(time.perf_counter())
        if step == warm:
            prof.start()
        if step == warm + steps:
            prof.stop()

    with tempfile.TemporaryDirectory() as tmp, stage_labels():
        train(
            sequences,
            config,
            output=Path(tmp) / "m.pt",
            device=device,
            progress=clock,
            progress_every=1,
        )
    events = {e.key: e for e in prof.key_averages()}
    out: dict[str, Any] = {"wall_ms_per_step": 1e3 * (wall[-1] - wall[warm - 1]) / steps}
    for stage in STAGES:
        key = "Optimizer.step#Adam.step" if stage == "optimizer" else stage
        e = events.get(key)
        out[stage] = {
            "cpu_ms": 0.0 if e is None else e.cpu_time_total / 1e3 / steps,
            "device_ms": (
                0.0
                if e is None or device != "cuda"
                else getattr(e, "device_time_total", 0.0) / 1e3 / steps
            ),
        }
    if device == "cuda":
        kernels = sum(
            getattr(e, "self_device_time_total", 0.0)
            for e in prof.key_averages()
            if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA
        )
        out["device_kernel_ms_per_step"] = kernels / 1e3 / steps
    return out


# --------------------------------------------------------------------------- checks


def check(data: str, device: str, steps: int) -> dict[str, Any]:
    """Same seed → same weights on ``device``; host synchronisations per step; CPU agreement.

    Two trainings of ``steps`` steps (batch 16, the shipped recipe) on
    ``device`` are compared bit for bit, and with one on the CPU (largest
    weight difference). On CUDA, ``torch.cuda.set_sync_debug_mode`` counts
    the operations that wait for the device in two runs of different lengths
    without progress callbacks: their difference over the extra steps is the
    synchronisations per step.
    """
    import warnings

    from vhuman.prediction import TrainConfig, train

    sequences = load(data)

    def run(n: int, on: str) -> dict[str, torch.Tensor]:
        config = TrainConfig(kind="lie-transformer", steps=n, batch_size=16, seed=0, **RECIPE)
        with tempfile.TemporaryDirectory() as tmp:
            model, _, _ = train(sequences, config, output=Path(tmp) / "m.pt", device=on)
        return {k: v.detach().cpu() for k, v in model.state_dict().items()}

    a, b, cpu = run(steps, device), run(steps, device), run(steps, "cpu")
    out: dict[str, Any] = {
        "steps": steps,
        "same_weights_same_seed": all(torch.equal(a[k], b[k]) for k in a),
        "max_weight_difference_vs_cpu": max(float((a[k] - cpu[k]).abs().max()) for k in a),
        "max_weight": max(float(v.abs().max()) for v in cpu.values()),
    }
    if device == "cuda":
        counts = []
        for n in (steps // 2, steps):
            torch.cuda.set_sync_debug_mode("warn")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                run(n, device)
            torch.cuda.set_sync_debug_mode(0)
            counts.append(sum("synchroniz" in str(w.message) for w in caught))
        out["syncs_per_step"] = (counts[1] - counts[0]) / (steps - steps // 2)
        out["syncs_outside_steps"] = counts[0]
    return out


# --------------------------------------------------------------------------- peer


def peer(batch: int, variant: str, device: str, steps: int, tokens: int) -> dict[str, Any]:
    """Windows/s of a plain ``nn.TransformerEncoder`` of the variant's size, trained with Adam."""
    from vhuman.prediction.models import LieTransformer

    defaults = {
        k: v.default
        for k, v in __import__("inspect").signature(LieTransformer.__init__).parameters.items()
    }
    opts = {**{k: defaults[k] for k in ("dim", "ff", "heads")}, **VARIANTS[variant]}
    depth = VARIANTS[variant].get("encoder_layers", 1) + VARIANTS[variant].get("decoder_layers", 1)
    layer = torch.nn.TransformerEncoderLayer(
        opts["dim"], opts["heads"], opts["ff"], dropout=0.0, batch_first=True, norm_first=True
    )
    model = torch.nn.TransformerEncoder(layer, depth, enable_nested_tensor=False).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator(device=device).manual_seed(0)
    x = torch.randn(batch, tokens, opts["dim"], device=device, generator=g)
    y = torch.randn(batch, tokens, opts["dim"], device=device, generator=g)

    def step() -> None:
        loss = (model(x) - y).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    for _ in range(5 if device == "cuda" else 1):
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    dt = (time.perf_counter() - t0) / steps
    return {
        "windows_per_s": batch / dt,
        "s_per_step": dt,
        "parameters": sum(p.numel() for p in model.parameters()),
        "layers": depth,
        "tokens": tokens,
    }


# --------------------------------------------------------------------------- main


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def main() -> None:
    """Parse the options, run the parts asked for, print tables and the JSON object."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(CMU), help="CMU folder or preprocessed .npz")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--variants", default="shipped", help="comma-separated: shipped, 1m")
    ap.add_argument("--threads", default="1", help="CPU threads, comma-separated")
    ap.add_argument("--batches", default="16,256", help="batch sizes, comma-separated")
    ap.add_argument("--steps", type=int, default=200, help="timed steps at batch ≤ 64 (÷8 above)")
    ap.add_argument("--warmup", type=int, default=10, help="untimed steps first")
    ap.add_argument("--every", type=int, default=10, help="steps between clock readings")
    ap.add_argument("--repeats", type=int, default=1, help="measurements of each version")
    ap.add_argument("--reference", type=Path, help="src folder of the version to compare with")
    ap.add_argument("--profile", action="store_true", help="per-stage profile")
    ap.add_argument("--profile-steps", type=int, default=10)
    ap.add_argument("--peer", action="store_true", help="plain nn.TransformerEncoder beside it")
    ap.add_argument("--check", type=int, default=0, help="reproducibility/sync check, steps")
    ap.add_argument("--allow-cpu", action="store_true", help="--device cuda without CUDA: use CPU")
    ap.add_argument("--out", type=Path, help="also write the JSON object here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--variant", default="shipped", help=argparse.SUPPRESS)
    ap.add_argument("--worker-batch", type=int, default=16, help=argparse.SUPPRESS)
    ap.add_argument("--worker-threads", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker(args)
        return
    if args.out:
        from vhuman.io import check_writable

        check_writable(args.out, "--out")
    if args.device == "cuda" and not torch.cuda.is_available():
        if not args.allow_cpu:
            raise SystemExit(
                "--device cuda: torch sees no CUDA device (add --allow-cpu to use CPU)"
            )
        args.device = "cpu"
    if not (Path(args.data).is_dir() or args.data.endswith(".npz")):
        print(json.dumps({"skipped": f"needs the CMU data in {args.data}"}))
        return
    here = Path(__file__).resolve().parents[1] / "src"
    console = Console(width=160)
    result: dict[str, Any] = {
        "device": args.device,
        "device_name": torch.cuda.get_device_name() if args.device == "cuda" else "cpu",
        "torch": torch.__version__,
        "load_before": os.getloadavg(),
        "cpu_count": os.cpu_count(),
        "recipe": RECIPE,
        "throughput": [],
    }
    if args.check:
        result["check"] = check(args.data, args.device, args.check)
        console.print(f"checks ({args.device}): {result['check']}")
    variants = [v for v in args.variants.split(",") if v]
    threads = _ints(args.threads) if args.device == "cpu" else [1]
    table = Table(title=f"training windows/s ({args.device}; median of {args.repeats})")
    for col in ("variant", "threads", "batch", "windows/s", "per CPU-s", "ms/step"):
        table.add_column(col, justify="right")
    if args.reference:
        for col in ("reference w/s", "ref. per CPU-s", "speed-up (wall)", "speed-up (CPU)"):
            table.add_column(col, justify="right")
    for variant in variants:
        for t in threads:
            for batch in _ints(args.batches):
                runs: dict[str, list[dict[str, Any]]] = {"new": [], "reference": []}
                for _ in range(args.repeats):
                    runs["new"].append(measure(args, here, variant, batch, t))
                    if args.reference:
                        runs["reference"].append(measure(args, args.reference, variant, batch, t))
                row: dict[str, Any] = {"variant": variant, "threads": t, "batch": batch}
                for name, rs in runs.items():
                    if rs:
                        row[name] = {
                            k: statistics.median(r[k] for r in rs)
                            for k in ("windows_per_s", "windows_per_cpu_s", "s_per_step")
                        }
                        row[name]["runs"] = rs
                new = row["new"]
                cells = [
                    variant,
                    str(t),
                    str(batch),
                    f"{new['windows_per_s']:.0f}",
                    f"{new['windows_per_cpu_s']:.0f}",
                    f"{1e3 * new['s_per_step']:.1f}",
                ]
                if args.reference:
                    ref = row["reference"]
                    row["speedup_wall"] = new["windows_per_s"] / ref["windows_per_s"]
                    row["speedup_cpu"] = new["windows_per_cpu_s"] / ref["windows_per_cpu_s"]
                    a, b = runs["new"][0]["losses"], runs["reference"][0]["losses"]
                    row["max_loss_difference"] = float(
                        np.max(np.abs(np.subtract(a[: len(b)], b[: len(a)])))
                    )
                    cells += [
                        f"{ref['windows_per_s']:.0f}",
                        f"{ref['windows_per_cpu_s']:.0f}",
                        f"{row['speedup_wall']:.2f}×",
                        f"{row['speedup_cpu']:.2f}×",
                    ]
                table.add_row(*cells)
                result["throughput"].append(row)
    console.print(table)
    if args.profile:
        torch.set_num_threads(1)
        result["profile"] = []
        ptable = Table(title=f"one training step by stage, ms ({args.device}, 1 CPU thread)")
        ptable.add_column("stage")
        runs = [(v, b) for v in variants for b in _ints(args.batches)]
        for v, b in runs:
            ptable.add_column(f"{v} B={b}", justify="right")
        profiles = []
        for v, b in runs:
            p = profile(args.data, v, b, args.device, args.profile_steps)
            profiles.append(p)
            result["profile"].append({"variant": v, "batch": b, **p})
        for stage in STAGES:
            ptable.add_row(
                stage,
                *(
                    f"{p[stage]['cpu_ms']:.1f}"
                    + (f" / {p[stage]['device_ms']:.1f}" if args.device == "cuda" else "")
                    + f" ({100 * p[stage]['cpu_ms'] / p['wall_ms_per_step']:.0f} %)"
                    for p in profiles
                ),
            )
        ptable.add_row("wall per step", *(f"{p['wall_ms_per_step']:.1f}" for p in profiles))
        if args.device == "cuda":
            ptable.add_row(
                "device kernels", *(f"{p['device_kernel_ms_per_step']:.1f}" for p in profiles)
            )
        console.print(ptable)
        console.print(
            "CPU ms per step (share of the profiled step's wall time; inclusive: 'fk "
            "(augmentation)' lies within 'data and augmentation'; fk, jacobian features and "
            "attention within 'forward and loss'; on CUDA CPU / device ms); a profiled step is "
            "slower than an unprofiled one"
        )
    if args.peer:
        result["peer"] = []
        seq = load(args.data)
        joints = seq.joint_sets()
        tokens = 7 * (len(joints.position) + len(joints.angle))
        torch.set_num_threads(1)
        qtable = Table(title=f"lie-transformer against nn.TransformerEncoder ({args.device})")
        for col in (
            "variant",
            "batch",
            "tokens",
            "encoder w/s",
            "lie-transformer w/s",
            "lie-transformer / encoder",
        ):
            qtable.add_column(col, justify="right")
        for v in variants:
            for b in _ints(args.batches):
                steps = 50 if args.device == "cuda" else max(2, 100 // b)
                p = peer(b, v, args.device, steps, tokens)
                mine = next(
                    (
                        r["new"]["windows_per_s"]
                        for r in result["throughput"]
                        if r["variant"] == v and r["batch"] == b and r["threads"] == 1
                    ),
                    None,
                )
                p.update(variant=v, batch=b, lie_transformer_windows_per_s=mine)
                p["ratio"] = None if mine is None else mine / p["windows_per_s"]
                result["peer"].append(p)
                qtable.add_row(
                    v,
                    str(b),
                    str(tokens),
                    f"{p['windows_per_s']:.0f}",
                    "—" if mine is None else f"{mine:.0f}",
                    "—" if mine is None else f"{p['ratio']:.2f}",
                )
        console.print(qtable)
    result["load_after"] = os.getloadavg()
    text = json.dumps(result)
    if args.out:
        from vhuman.io import atomic_write

        atomic_write(args.out, text)
    print(text)


if __name__ == "__main__":
    run_script(main)
