#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A job trace for the cluster-scale replay (bench/replay.sh), deterministic for a seed.

Each line: id, submit offset (s), nodes, pipeline stages, duration (s). Sizes are 4-64 nodes,
mostly small (as in published LLM cluster traces: many small jobs, a few large ones); stages
divide the nodes into stages of at least 2 nodes (1-8 stages); durations are log-uniform
between --min-duration and --max-duration; arrivals are Poisson with the rate that offers
--load times the cluster's node-seconds, which keeps it busy and fragmented.
"""
import argparse
import math
import random
import sys

SIZES = [4, 8, 12, 16, 24, 32, 48, 64]
WEIGHTS = [0.22, 0.22, 0.08, 0.18, 0.08, 0.12, 0.04, 0.06]


def stage_choices(nodes):
    return [s for s in range(1, 9) if nodes % s == 0 and (s == 1 or nodes // s >= 2)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--cluster-nodes", type=int, default=128)
    ap.add_argument("--load", type=float, default=1.0,
                    help="offered node-seconds per available node-second")
    ap.add_argument("--min-duration", type=float, default=5)
    ap.add_argument("--max-duration", type=float, default=120)
    a = ap.parse_args()
    if a.jobs < 1 or a.cluster_nodes < 64 or not 0 < a.load <= 4:
        sys.exit("replay_trace.py: expected --jobs >= 1, --cluster-nodes >= 64, 0 < --load <= 4")
    if not 0 < a.min_duration <= a.max_duration:
        sys.exit("replay_trace.py: expected 0 < --min-duration <= --max-duration")
    rng = random.Random(a.seed)
    lo, hi = math.log(a.min_duration), math.log(a.max_duration)
    mean_d = (a.max_duration - a.min_duration) / (hi - lo) if hi > lo else a.min_duration
    mean_n = sum(s * w for s, w in zip(SIZES, WEIGHTS)) / sum(WEIGHTS)
    gap = mean_n * mean_d / (a.load * a.cluster_nodes)
    t = 0.0
    print("# id submit_s nodes stages duration_s  (replay_trace.py --seed %d --jobs %d --load %g)"
          % (a.seed, a.jobs, a.load))
    for i in range(1, a.jobs + 1):
        nodes = rng.choices(SIZES, WEIGHTS)[0]
        stages = rng.choice(stage_choices(nodes))
        duration = math.exp(rng.uniform(lo, hi))
        print("%d %.1f %d %d %.1f" % (i, t, nodes, stages, duration))
        t += rng.expovariate(1.0 / gap)


if __name__ == "__main__":
    main()
