// A sampled sweep (`allocsim sweep --samples N`, issue 17): each point of policies x guards x
// semaphore capacities plays the program N times with every cost drawn from the platform's spread
// (run_samples, samples.h), so each point gets its manifest-corruption probability with a 95%
// interval, by execution and over all, and the distributions of peak in-use and host blocking,
// instead of the 0 or 1 of one timing.
//
// Points run one after another and each point's samples run on every thread: samples are the many
// equal pieces of work, while a sweep may have fewer points than cores. DIR follows run_sweep's
// contract (sweep.h): one record per point under DIR/jobs (its summary and its samples' runs),
// resume runs only the missing points, --force starts over. Outputs: results.csv / results.json
// with one run per sample (point-major, then sample), results.json's `samples` and samples.csv with
// one summary per point (sample_summary.h). The bytes do not depend on the thread count.
#pragma once
#include <filesystem>
#include <functional>

#include "allocsim/results/progress.h"
#include "allocsim/results/samples.h"
#include "allocsim/results/sweep.h"

namespace allocsim::results {

/// Runs one point's spec.samples samples on `threads` threads, ticking `progress` once per sample
/// (run_samples with the point's policy, guard, semaphore and seed). Deterministic per point.
using SampledJobFn = std::function<SampleSet(const SweepJob& point, int threads, ProgressMeter* progress)>;

/// Runs the missing points, then writes DIR/results.csv, DIR/results.json and DIR/samples.csv.
/// `spec.samples` must be >= 1 and `spec.seeds` 1 (SweepError otherwise); the outcome's `total`,
/// `ran` and `reused` count points. Rethrows the first exception a point threw (points finished
/// before it stay recorded).
SweepOutcome run_sampled_sweep(const SweepSpec& spec, const std::filesystem::path& dir, const SampledJobFn& run_point,
                               const SweepOptions& options = {});

}  // namespace allocsim::results
