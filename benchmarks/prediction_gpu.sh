#!/usr/bin/env bash
# Prediction training on a GPU machine, one run: checks, then GPU and one-CPU-thread windows/s
# of the shipped model and its 1 M-weight variant beside nn.TransformerEncoder, and the
# per-stage profile (benchmarks/prediction_training.py). Each part writes its JSON to OUT_DIR
# as it ends, so a run cut short still leaves what it measured.
#
# Usage: benchmarks/prediction_gpu.sh OUT_DIR DATA
#   DATA: the CMU folder or its preprocessed .npz ($VHUMAN_CACHE_DIR/prediction/cmu-*.npz).
#   DEVICE=cpu benchmarks/prediction_gpu.sh ... runs every part on the CPU (to try it out).
set -u
out=${1:?usage: prediction_gpu.sh OUT_DIR DATA}
data=${2:?usage: prediction_gpu.sh OUT_DIR DATA}
device=${DEVICE:-cuda}
py=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
export VHUMAN_CACHE_DIR=${VHUMAN_CACHE_DIR:-$(mktemp -d)}
bench=("$py" "$here/prediction_training.py" --data "$data")
allow=()
[ "$device" = cuda ] || allow=(--allow-cpu)

(nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv || true) >"$out/device.txt" 2>&1
"$py" -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" \
    >>"$out/device.txt" 2>&1
echo "== CLI, --device $device (DeepMimic clips, 100 steps)"
"$py" -m vhuman predict train --data deepmimic --device "$device" --steps 100 --batch-size 16 \
    --seed 0 -o "$(mktemp -d)/m.pt" --json >"$out/cli.txt" 2>&1
echo "exit $?" >>"$out/cli.txt"
cat "$out/cli.txt"
echo "== checks, throughput, profile and peer on $device"
"${bench[@]}" --device cuda "${allow[@]}" --check 200 --variants shipped,1m --batches 16,256 \
    --steps 400 --warmup 20 --every 20 --profile --profile-steps 10 --peer --out "$out/gpu.json" \
    | grep -v '^{'
echo "== one CPU thread on this machine"
"${bench[@]}" --device cpu --threads 1 --variants shipped,1m --batches 16,256 --steps 40 \
    --warmup 2 --every 5 --peer --out "$out/cpu.json" | grep -v '^{'
