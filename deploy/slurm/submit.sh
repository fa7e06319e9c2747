#!/bin/bash
# Submits a campaign of SHARDS shards (default 8, one per card) as a job
# array, then the merge job, which runs once every shard succeeded
# (afterok) and writes hbgbench-<campaign>.txt and .md here.
#   SHARDS=8 ROUNDS=10 deploy/slurm/submit.sh [hbgbench-shard.sbatch]
# Prints the campaign (the array's job id) and the merge job's id.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
script=${1:-$here/hbgbench-shard.sbatch}
shards=${SHARDS:-8}
HBGBENCH=${HBGBENCH:-hbgbench}
campaign=$(sbatch --parsable --array=0-$((shards - 1)) "$script")
campaign=${campaign%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$campaign" --job-name=hbgbench-merge \
    --output=hbgbench-merge-%j.out \
    --wrap "$HBGBENCH report .hbgbench/$campaign > hbgbench-$campaign.txt && $HBGBENCH report .hbgbench/$campaign --format markdown > hbgbench-$campaign.md")
merge=${merge%%;*}
echo "campaign $campaign merge $merge"
