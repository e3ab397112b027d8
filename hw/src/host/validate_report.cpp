// validate.json / validate.md writers (schema in validate_report.h).
#include "allocsim/hw/validate_report.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "allocsim/core/platform_spread.h"
#include "allocsim/results/atomic_file.h"
#include "allocsim/results/platform_io.h"

namespace allocsim::hw {
namespace {

boost::json::array int_array(const std::vector<int>& v) {
  boost::json::array a;
  for (int x : v) a.push_back(x);
  return a;
}

boost::json::array double_array(const std::vector<double>& v) {
  boost::json::array a;
  for (double x : v) a.push_back(x);
  return a;
}

double rate_diff_pp(const ValidateRun& run) { return 100.0 * (run.corrupted_rate - run.sim.manifest_rate); }

boost::json::object prediction_json(const SimPrediction& p) {
  boost::json::object sim;
  sim["runs"] = p.runs;
  sim["latent"] = p.latent;
  sim["manifest"] = p.manifest;
  sim["manifest_executions"] = p.manifest_executions;
  sim["manifest_rate"] = p.manifest_rate;
  sim["manifest_by_execution"] = int_array(p.manifest_by_execution);
  sim["trial_manifest_rate"] = p.trial_manifest_rate;
  sim["peak_bytes_in_use"] = p.peak_bytes_in_use;
  sim["peak_bytes_in_use_min"] = p.peak_bytes_in_use_min;
  sim["peak_bytes_in_use_max"] = p.peak_bytes_in_use_max;
  sim["host_ns_per_free"] = p.host_ns_per_free;
  sim["host_busy_ns"] = p.host_busy_ns;
  sim["host_cadence_ns"] = p.host_cadence_ns;
  sim["host_pace"] = double_array(p.host_pace);
  sim["completed"] = p.completed;
  sim["available"] = p.available;
  return sim;
}

boost::json::object run_json(const ValidateRun& run) {
  boost::json::object o;
  o["policy"] = run.policy;
  o["guard"] = run.guard;
  o["trials"] = run.trials;
  o["executions"] = run.executions;
  o["aliased"] = run.aliased;
  o["corrupted"] = run.corrupted;
  o["corrupted_executions"] = run.corrupted_executions;
  o["corrupted_rate"] = run.corrupted_rate;
  o["corrupted_by_execution"] = int_array(run.corrupted_by_execution);
  o["corrupted_words"] = run.corrupted_words;
  o["stale_trials"] = run.stale_trials;
  o["stale_words"] = run.stale_words;
  o["rate_diff_pp"] = rate_diff_pp(run);
  o["peak_bytes_in_use"] = run.peak_bytes_in_use;
  o["peak_bytes_in_use_min"] = run.peak_bytes_in_use_min;
  o["host_ns_per_free"] = run.host_ns_per_free;
  o["instrument_ns_per_free"] = run.instrument_ns_per_free;
  auto calls = [](const std::array<CallTime, std::size_t(HostCall::kCount)>& by_kind) {
    boost::json::object out;
    for (std::size_t i = 0; i < kHostCalls.size(); ++i)
      out[kHostCalls[i].name] = boost::json::object{{"calls", by_kind[i].calls}, {"ns", by_kind[i].ns}};
    return out;
  };
  o["host_calls"] = calls(run.host_calls);
  o["host_calls_all"] = calls(run.host_calls_all);
  o["frees"] = run.frees;
  o["wall_ns"] = run.wall_ns;
  o["error"] = run.error;
  o["host_busy_ns"] = run.host_busy_ns;
  o["host_cadence_ns"] = run.host_cadence_ns;
  o["host_cadence_by_trial"] = double_array(run.host_cadence_by_trial);
  if (!run.host_cpu_by_trial.empty()) o["host_cpu_by_trial"] = int_array(run.host_cpu_by_trial);
  if (!run.cpu_probe_ns_by_trial.empty()) o["cpu_probe_ns_by_trial"] = double_array(run.cpu_probe_ns_by_trial);
  boost::json::object calls_by_trial;
  for (std::size_t i = 0; i < run.call_ns_by_trial.size(); ++i) {
    const std::vector<double>& v = run.call_ns_by_trial[i];
    if (std::any_of(v.begin(), v.end(), [](double ns) { return ns > 0; })) calls_by_trial[kHostCalls[i].name] = double_array(v);
  }
  if (!calls_by_trial.empty()) o["call_ns_by_trial"] = std::move(calls_by_trial);
  if (!run.steal_ticks_by_trial.empty()) {
    o["cpu_ticks_by_trial"] = boost::json::array(run.cpu_ticks_by_trial.begin(), run.cpu_ticks_by_trial.end());
    o["steal_ticks_by_trial"] = boost::json::array(run.steal_ticks_by_trial.begin(), run.steal_ticks_by_trial.end());
    o["steal_share"] = run.steal_share();
  }
  boost::json::array by_trial;
  for (const std::vector<int>& executions : run.corrupted_executions_by_trial) by_trial.push_back(int_array(executions));
  o["corrupted_executions_by_trial"] = std::move(by_trial);
  if (!run.release_after_op_by_trial.empty()) {
    boost::json::array releases;
    for (const std::vector<double>& rounds : run.release_after_op_by_trial) releases.push_back(double_array(rounds));
    o["release_after_op_by_trial"] = std::move(releases);
  }
  if (run.warmup_trials > 0)
    o["warmup"] = boost::json::object{{"trials", run.warmup_trials},
                                      {"host_cadence_by_trial", double_array(run.warmup_host_cadence_by_trial)}};
  o["sim"] = prediction_json(run.sim);
  if (run.sim_host_paced) o["sim_host_paced"] = prediction_json(*run.sim_host_paced);
  if (run.sim_warmup_paced) o["sim_warmup_paced"] = prediction_json(*run.sim_warmup_paced);
  if (run.sim_process_release) o["sim_process_release"] = prediction_json(*run.sim_process_release);
  if (run.sim_pace_band)
    o["sim_pace_band"] = boost::json::object{{"low_factor", run.sim_pace_band->low_factor},
                                             {"high_factor", run.sim_pace_band->high_factor},
                                             {"low", prediction_json(run.sim_pace_band->low)},
                                             {"high", prediction_json(run.sim_pace_band->high)}};
  boost::json::array pairs;
  for (const CorruptionPair& c : run.corruption_pairs)
    pairs.push_back(boost::json::object{{"reader", c.reader},
                                        {"reader_execution", c.reader_execution},
                                        {"writer", c.writer},
                                        {"writer_execution", c.writer_execution},
                                        {"hw_trials", c.hw_trials},
                                        {"hw_words", c.hw_words},
                                        {"sim_runs", c.sim_runs}});
  o["corruption_pairs"] = std::move(pairs);
  if (!run.callback_trials.empty()) {
    boost::json::array trials;
    for (const CallbackTrial& t : run.callback_trials)
      trials.push_back(boost::json::object{{"peak_bytes_in_use", t.peak_bytes_in_use},
                                           {"callbacks", t.callbacks},
                                           {"lock_wait_max_ns", t.lock_wait_max_ns},
                                           {"lock_wait_total_ns", t.lock_wait_total_ns},
                                           {"delay_median_ns", t.delay_median_ns},
                                           {"delay_max_ns", t.delay_max_ns},
                                           {"hold_median_ns", t.hold_median_ns},
                                           {"hold_total_ns", t.hold_total_ns},
                                           {"instrument_ns", t.instrument_ns},
                                           {"host_lock_wait_ns", t.host_lock_wait_ns},
                                           {"reach_max_ns", t.reach_max_ns},
                                           {"wake_max_ns", t.wake_max_ns},
                                           {"wall_ns", t.wall_ns}});
    o["callback_trials"] = std::move(trials);
  }
  return o;
}

boost::json::object schedule_json(const ScheduleSection& sch) {
  boost::json::object forced = run_json(sch.forced);
  boost::json::array delays;
  for (const ForcedDelayResult& d : sch.forced.forced_delays) {
    boost::json::object o;
    o["hold"] = d.hold;
    o["until"] = d.until;
    o["held_ns"] = d.held_ns ? boost::json::value(*d.held_ns) : boost::json::value(nullptr);
    o["timed_out_trials"] = int_array(d.timed_out_trials);
    o["not_held_trials"] = int_array(d.not_held_trials);
    o["not_signalled_trials"] = int_array(d.not_signalled_trials);
    delays.push_back(std::move(o));
  }
  forced["delays"] = std::move(delays);
  boost::json::object o;
  o["file"] = sch.file;
  o["schedule"] = boost::json::parse(sch.schedule);
  o["sim_replay"] = true;  // the forced run's "sim" is the simulator's replay of the same schedule
  o["forced"] = std::move(forced);
  return o;
}

/// "3/20" and, when non-empty, the trials: "3/20 (0, 4, 7)".
std::string trials_of(const std::vector<int>& trials, int total) {
  std::string s = std::to_string(trials.size()) + "/" + std::to_string(total);
  for (std::size_t i = 0; i < trials.size() && i < 20; ++i) s += (i ? ", " : " (") + std::to_string(trials[i]);
  if (trials.size() > 20) s += ", ...";
  if (!trials.empty()) s += ")";
  return s;
}

void schedule_markdown(std::ostringstream& md, const ScheduleSection& sch, const std::vector<ValidateRun>& runs) {
  const ValidateRun& f = sch.forced;
  const ValidateRun* base = nullptr;
  for (const ValidateRun& r : runs)
    if (r.policy == f.policy && r.guard == f.guard) base = &r;
  md << "\n## Schedule: forced delays\n\n";
  md << "`" << sch.file << "`, " << f.policy << " / " << f.guard << ": every trial ran with the delays below forced "
        "(a gate kernel before the held op spins until a signal kernel after the until op sets its flag; a host "
        "hold waits for an event after the until op; each gives up after 100 ms: `timed out`). The same number of "
        "trials ran without them (the table above).";
  if (!f.error.empty()) md << " The forced run failed: " << f.error << ".";
  md << "\n\n| delay | hold | until | held_ns (sim) | timed out | held step never came | until step never came |\n";
  md << "|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < f.forced_delays.size(); ++i) {
    const ForcedDelayResult& d = f.forced_delays[i];
    md << "| " << i << " | " << d.hold << " | " << d.until << " | "
       << (d.held_ns ? std::to_string(*d.held_ns) : std::string("-")) << " | " << trials_of(d.timed_out_trials, f.trials)
       << " | " << trials_of(d.not_held_trials, f.trials) << " | " << trials_of(d.not_signalled_trials, f.trials)
       << " |\n";
  }
  md << "\nCorrupted trials per execution, forced against unforced, each next to the simulator's prediction: "
        "its replay of the schedule (`allocsim run --schedule`), and its timed run.\n\n";
  md << "| execution | forced hw | sim replay | unforced hw | sim (unforced) |\n|---|---|---|---|---|\n";
  auto cell = [](const std::vector<int>& v, std::size_t i, int of) {
    char buf[64];
    const int n = i < v.size() ? v[i] : 0;
    std::snprintf(buf, sizeof buf, "%d/%d (%.0f%%)", n, of, of > 0 ? 100.0 * n / of : 0.0);
    return std::string(buf);
  };
  for (std::size_t i = 0; i < std::size_t(f.executions); ++i) {
    md << "| " << i << " | " << cell(f.corrupted_by_execution, i, f.trials) << " | "
       << cell(f.sim.manifest_by_execution, i, f.sim.runs) << " | ";
    if (base) md << cell(base->corrupted_by_execution, i, base->trials) << " | " << cell(base->sim.manifest_by_execution, i, base->sim.runs);
    else md << "- | -";
    md << " |\n";
  }
  char all[96];
  std::snprintf(all, sizeof all, "%.1f%%", 100.0 * f.corrupted_rate);
  char replay[32];
  std::snprintf(replay, sizeof replay, "%.1f%%", 100.0 * f.sim.manifest_rate);
  md << "| all | " << all << " | " << replay << " | ";
  if (base) {
    char b[32], sm[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100.0 * base->corrupted_rate);
    std::snprintf(sm, sizeof sm, "%.1f%%", 100.0 * base->sim.manifest_rate);
    md << b << " | " << sm;
  } else {
    md << "- | -";
  }
  md << " |\n";
  if (!f.corruption_pairs.empty()) {
    md << "\nWho corrupted whom in the forced run:\n\n| reader | reader exec | writer | writer exec | hw trials |\n"
          "|---|---|---|---|---|\n";
    for (const CorruptionPair& c : f.corruption_pairs)
      md << "| " << c.reader << " | " << c.reader_execution << " | " << c.writer << " | "
         << (c.writer_execution < 0 ? std::string("-") : std::to_string(c.writer_execution)) << " | " << c.hw_trials
         << "/" << f.trials << " |\n";
  }
  md << "\nThe schedule as read:\n\n```json\n" << sch.schedule << "```\n";
}

}  // namespace

std::string sim_prediction_json(const SimPrediction& p) { return boost::json::serialize(prediction_json(p)); }

std::string validate_json(const ValidateReport& r) {
  boost::json::object o;
  o["device"] = r.device;
  o["scenario"] = r.scenario;
  o["command"] = r.command;
  o["semaphore"] = r.semaphore;
  o["platform_source"] = r.platform_source;
  o["platform"] = boost::json::parse(platform_to_json(r.platform));
  if (r.process_pace)
    o["process_pace"] = boost::json::object{{"trials", r.process_pace->trials},
                                            {"reference_ns", r.process_pace->reference_ns},
                                            {"busy_ns", r.process_pace->busy_ns},
                                            {"pace", r.process_pace->pace()},
                                            {"applied", false}};
  if (r.process_release) {
    auto levels = [](const std::vector<double>& q) { return boost::json::array(q.begin(), q.end()); };
    o["process_release"] = boost::json::object{{"rounds", r.process_release->rounds},
                                               {"calibration_ns", r.process_release->calibration_ns},
                                               {"measured_ns", double(r.process_release->measured_ns())},
                                               {"calibration", levels(r.process_release->calibration)},
                                               {"measured", levels(r.process_release->measured)},
                                               {"measured_tail", levels(r.process_release->measured_tail)},
                                               {"applied", false}};
  }
  boost::json::array runs;
  for (const ValidateRun& run : r.runs) runs.push_back(run_json(run));
  o["runs"] = std::move(runs);
  if (r.schedule) o["schedule"] = schedule_json(*r.schedule);
  return boost::json::serialize(o) + "\n";
}

double ValidateRun::steal_share() const {
  std::uint64_t total = 0, steal = 0;
  for (std::uint64_t t : cpu_ticks_by_trial) total += t;
  for (std::uint64_t t : steal_ticks_by_trial) steal += t;
  return steal_ticks_by_trial.empty() || total == 0 ? -1 : double(steal) / double(total);
}

std::string validate_markdown(const ValidateReport& r) {
  std::ostringstream md;
  md << "# allocsim-hw validate: " << r.scenario << "\n\n";
  md << "- device: " << r.device << "\n- command: `" << r.command << "`\n";
  md << "- platform profile: " << r.platform_source << "\n- compute semaphore: " << r.semaphore << "\n";
  if (r.process_pace) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "- host pace in this process: %.3f (the calibration's host-pace workload, %d trials here: median "
                  "%.0f us host busy against %.0f us when calibrated); reported, not applied to the prediction\n",
                  r.process_pace->pace(), r.process_pace->trials, r.process_pace->busy_ns / 1000,
                  r.process_pace->reference_ns / 1000);
    md << line;
  }
  std::string steal;
  for (const ValidateRun& run : r.runs)
    if (run.steal_share() >= 0) {
      char share[64];
      std::snprintf(share, sizeof share, "%.2f%%", 100 * run.steal_share());
      steal += (steal.empty() ? "" : ", ") + run.policy + " + " + run.guard + " " + share;
    }
  if (!steal.empty())
    md << "- CPU time the hypervisor stole during the counted trials (/proc/stat, all CPUs): " << steal << "\n";
  if (r.process_release) {
    const ProcessRelease& pr = *r.process_release;
    auto p90 = [](const std::vector<double>& q) { return q.empty() ? 0.0 : PlatformSpread::at(q, 0.9); };
    char line[300];
    std::snprintf(line, sizeof line,
                  "- semaphore release in this process (a kernel's end to its callback, %d rounds): median %.0f us, "
                  "p90 %.0f us, against %.0f us and %.0f us when calibrated; predicted apart (`sim_process_release` in "
                  "validate.json), not applied\n",
                  pr.rounds, double(pr.measured_ns()) / 1000, p90(pr.measured) / 1000, pr.calibration_ns / 1000,
                  p90(pr.calibration) / 1000);
    md << line;
  }
  md << "\n";
  md << "`aliased` / `corrupted`: trials with cross-allocation address reuse / with at least one read that "
        "saw another allocation's data or zeroing (foreign word). `stale`: trials with reads that saw an older "
        "version of their own allocation (a same-allocation race, not corruption). `hw rate`: executions with "
        "a foreign read / (trials x executions); `sim rate`: executions with a manifest corruption / (simulated "
        "seeds x executions); `diff`: hw - sim in percentage points. `sim latent`: latent races of the first "
        "seed.\n\n";
  md << "| policy | guard | trials | exec/trial | aliased | corrupted | stale | hw rate | sim rate | diff pp | "
        "sim latent | peak in use hw | peak in use sim | host ns/free hw | host ns/free sim | wall ms | note |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const ValidateRun& run : r.runs) {
    char hostns[32], simhostns[32], wall[32], simrate[32], hwrate[32], diff[32];
    std::snprintf(hwrate, sizeof hwrate, "%.1f%%", 100.0 * run.corrupted_rate);
    std::snprintf(diff, sizeof diff, "%+.1f", rate_diff_pp(run));
    std::snprintf(hostns, sizeof hostns, "%.0f", run.host_ns_per_free);
    std::snprintf(simhostns, sizeof simhostns, "%.0f", run.sim.host_ns_per_free);
    std::snprintf(wall, sizeof wall, "%.1f", run.wall_ns / 1e6);
    std::snprintf(simrate, sizeof simrate, "%.1f%%", 100.0 * run.sim.manifest_rate);
    std::string note = run.error;
    if (!run.sim.available) note += (note.empty() ? "" : "; ") + std::string("no sim prediction");
    else if (run.peak_bytes_in_use != run.sim.peak_bytes_in_use) note += (note.empty() ? "" : "; ") + std::string("peak differs");
    if (run.peak_bytes_in_use_min != run.peak_bytes_in_use)
      note += (note.empty() ? "" : "; ") + std::string("hw peak varies across trials (min ") +
              std::to_string(run.peak_bytes_in_use_min) + ")";
    if (std::abs(rate_diff_pp(run)) > 10.0) note += (note.empty() ? "" : "; ") + std::string("rate miss > 10 pp");
    md << "| " << run.policy << " | " << run.guard << " | " << run.trials << " | " << run.executions << " | "
       << run.aliased << " | " << run.corrupted << " | " << run.stale_trials << " | " << hwrate << " | " << simrate
       << " | " << diff << " | " << run.sim.latent << " | " << run.peak_bytes_in_use << " | " << run.sim.peak_bytes_in_use << " | " << hostns << " | "
       << simhostns << " | " << wall << " | " << note << " |\n";
  }
  bool any_pair = false;
  for (const ValidateRun& run : r.runs) any_pair = any_pair || !run.corruption_pairs.empty();
  if (any_pair) {
    md << "\n## Who corrupted whom\n\nEach pair of a read that saw foreign data (reader) and whose data it was "
          "(writer; a memset's zeroes are \"(zeroing)\" on both sides): trials in which the GPU saw it, and "
          "simulated runs with a manifest finding of that pair. Execution: the execution the allocation belongs "
          "to.\n\n";
    md << "| policy | guard | reader | reader exec | writer | writer exec | hw trials | sim runs |\n";
    md << "|---|---|---|---|---|---|---|---|\n";
    for (const ValidateRun& run : r.runs)
      for (const CorruptionPair& c : run.corruption_pairs)
        md << "| " << run.policy << " | " << run.guard << " | " << c.reader << " | " << c.reader_execution << " | "
           << c.writer << " | " << (c.writer_execution < 0 ? std::string("-") : std::to_string(c.writer_execution))
           << " | " << c.hw_trials << "/" << run.trials << " | " << c.sim_runs << "/" << run.sim.runs << " |\n";
  }
  if (r.schedule) schedule_markdown(md, *r.schedule, r.runs);
  return md.str();
}

void write_validate_files(const std::string& dir, const ValidateReport& r) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output folder " + dir + ": " + ec.message());
  const std::string json = validate_json(r), md = validate_markdown(r);
  const fs::path jpath = fs::path(dir) / "validate.json", mpath = fs::path(dir) / "validate.md";
  // Both files are rendered before either is written; each write is atomic. If the second write
  // fails, the first is removed again so the folder never holds one without the other.
  write_file_atomically(jpath.string(), json);
  try {
    write_file_atomically(mpath.string(), md);
  } catch (...) {
    fs::remove(jpath, ec);
    throw;
  }
}

}  // namespace allocsim::hw
