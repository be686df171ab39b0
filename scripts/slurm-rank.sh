#!/bin/sh
# Runs COMMAND as one data-parallel rank of the Slurm step it is a task of,
# with torchrun's variables made from Slurm's, as a site's srun wrapper for
# PyTorch jobs does: RANK (the task's rank in the step, across its nodes),
# WORLD_SIZE (the step's tasks), LOCAL_RANK (the task's GPU among those it
# sees: under --iashim a task sees only its own, else all of the node's), and
# MASTER_ADDR/MASTER_PORT, where the ranks meet (simgpu names a collective
# group by them, so one value for the whole step: the job's id). A step of
# one task runs COMMAND as it is.
#
#   srun -N 2 -n 8 --ntasks-per-node=4 --gres=gpu:4 scripts/slurm-rank.sh iashim-fakejob --model resnet18
set -eu
[ $# -ge 1 ] || { echo "usage: slurm-rank.sh COMMAND [ARGS...] (a task of a Slurm step)" >&2; exit 2; }
if [ "${SLURM_NTASKS:-1}" -gt 1 ]; then
  [ -n "${SLURM_PROCID:-}" ] && [ -n "${SLURM_JOB_ID:-}" ] ||
    { echo "slurm-rank.sh: SLURM_PROCID or SLURM_JOB_ID is not set: run it as a task of srun" >&2; exit 2; }
  export RANK="$SLURM_PROCID" WORLD_SIZE="$SLURM_NTASKS" MASTER_ADDR=127.0.0.1 MASTER_PORT="$SLURM_JOB_ID"
  case "${CUDA_VISIBLE_DEVICES:-}" in *,*) export LOCAL_RANK="${SLURM_LOCALID:-0}" ;; *) export LOCAL_RANK=0 ;; esac
fi
exec "$@"
