// A sampled sweep (`allocsim sweep --samples N`, issue 17): each point of policies x guards x
// semaphore capacities plays the program N times with every cost drawn from the platform's spread
// (run_samples, samples.h), so each point gets its manifest-corruption probability with a 95%
// interval, by execution and over all, and the distributions of peak in-use and host blocking,
// instead of the 0 or 1 of one timing.
//
// Each sample is a job of the farm (threads, or MPI ranks): samples are the many equal pieces of
// work, while a sweep may have fewer points than cores. DIR follows run_sweep's contract
// (sweep.h) with the sample as the job: one record per sample in DIR/jobs, resume runs only the
// missing samples, a shard is a share of the samples (so shards can split one point), --force
// starts over. Outputs: results.csv / results.json
// with one run per sample (point-major, then sample), results.json's `samples` and samples.csv with
// one summary per point (sample_summary.h). The bytes do not depend on the thread count.
#pragma once
#include <filesystem>
#include <functional>

#include "allocsim/results/progress.h"
#include "allocsim/results/samples.h"
#include "allocsim/results/sweep.h"

namespace allocsim::results {

/// Runs sample `sample` of a point (run_sample with the point's policy, guard, semaphore and seed).
/// Deterministic per point and sample; called from any thread or rank.
using SampleJobFn = std::function<SampleRun(const SweepJob& point, int sample)>;

/// Runs the missing points, then writes DIR/results.csv, DIR/results.json and DIR/samples.csv.
/// `spec.samples` must be >= 1 and `spec.seeds` 1 (SweepError otherwise); the outcome's `total`,
/// `ran` and `reused` count samples. Throws SweepJobsFailed naming the failed samples (every
/// other sample finished and is recorded).
SweepOutcome run_sampled_sweep(const SweepSpec& spec, const std::filesystem::path& dir, const SampleJobFn& run_sample,
                               const SweepOptions& options = {});

}  // namespace allocsim::results
