// Human-readable run summary (see header).
#include "allocsim/results/run_summary.h"

#include <cinttypes>
#include <cstdio>

namespace allocsim {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

std::string us(TimeNs ns) { return fmt("%.3f", double(ns) / 1000.0); }

std::string buffer_name(const Program* program, BufferId id) {
  std::string s = "alloc " + std::to_string(id);
  if (program && id >= 0 && std::size_t(id) < program->buffer_names.size() &&
      !program->buffer_names[std::size_t(id)].empty())
    s += " '" + program->buffer_names[std::size_t(id)] + "'";
  return s;
}

std::string side(const FindingSide& s, const Program* program) {
  std::string out = buffer_name(program, s.alloc) + " (" + std::to_string(s.alloc_bytes) + " B";
  if (!s.alloc_stream.empty()) out += " on " + s.alloc_stream + " at " + us(s.alloc_time) + " us";
  if (s.release_time >= 0) out += ", released " + us(s.release_time) + " us";
  out += ")";
  if (!s.op.empty())
    out += ": " + s.op + (s.write ? " write" : " read") + " on " + s.stream + " [" + us(s.start) + ", " +
           us(s.end) + "] us";
  return out;
}

std::string kind_label(FindingKind kind) {
  switch (kind) {
    case FindingKind::Latent: return "latent race";
    case FindingKind::Manifest: return "manifest corruption";
    default: return std::string(finding_kind_name(kind));
  }
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  return fmt("%.2f", double(bytes) / (1024.0 * 1024.0)) + " MiB (" + std::to_string(bytes) + " B)";
}

std::string format_duration(TimeNs ns) {
  return fmt("%.6f", double(ns) / 1e6) + " ms (" + std::to_string(ns) + " ns)";
}

std::string format_finding(const Finding& f, const Program* program) {
  std::string line1 = kind_label(f.kind) + " on [" + hex(f.range.begin) + ", " + hex(f.range.end()) + ") " +
                      std::to_string(f.range.bytes) + " B: " + side(f.first, program);
  // Lifetime findings (leak, double free, ...) have one side: the second line says what happened.
  const bool one_sided = f.second.alloc < 0 && f.second.op.empty();
  std::string line2 = one_sided ? "      " + f.action_between : "      vs " + side(f.second, program);
  if (!one_sided && !f.action_between.empty()) line2 += "; between: " + f.action_between;
  return line1 + "\n" + line2;
}

std::string format_run_summary(const RunResult& r, const Program* program, std::size_t max_findings) {
  std::string o;
  o += "scenario  " + r.scenario + "\n";
  o += "config    policy " + r.policy + ", guard " + r.guard + ", semaphore " + std::to_string(r.semaphore) +
       ", seed " + std::to_string(r.seed) + "\n";
  if (!r.completed) o += "ERROR     run did not complete: " + r.error + "\n";
  if (r.race_detection) {
    o += "races     latent " + std::to_string(r.races_latent) + ", manifest " + std::to_string(r.races_manifest) + "\n";
  } else {
    o += "races     not checked (--no-races)\n";
  }
  std::string lifetime;
  std::uint64_t total = 0;
  for (const FindingKindNames& k : kFindingKindNames) {
    total += r.count(k.kind);
    if (!is_lifetime(k.kind)) continue;
    lifetime += (lifetime.empty() ? "" : ", ") + std::string(k.name) + " " + std::to_string(r.count(k.kind));
  }
  o += "lifetime  " + lifetime + "\n";
  o += "peak      in_use  " + format_bytes(r.peak_bytes_in_use) + "\n";
  o += "          live    " + format_bytes(r.peak_live_bytes) + "\n";
  o += "          pending " + format_bytes(r.peak_pending_bytes) + "\n";
  o += "          pool    " + format_bytes(r.peak_pool_bytes) + "\n";
  o += "time      makespan   " + format_duration(r.makespan_ns) + "\n";
  o += "          host stall " + format_duration(r.host_stall_ns) + " (host blocked, every cause below)\n";
  // Host blocked, by cause: the first two are the policy's doing (its and the guard's waits, and
  // waits for frees on OOM), the last two the workload's (semaphore, the program's own syncs).
  o += "          blocked in policy/guard waits " + format_duration(r.host_blocked_policy_ns) + "\n";
  o += "          blocked in OOM waits          " + format_duration(r.host_blocked_oom_ns) + "\n";
  o += "          blocked on the semaphore      " + format_duration(r.host_blocked_semaphore_ns) + "\n";
  o += "          blocked in program syncs      " + format_duration(r.host_blocked_sync_ns) + "\n";
  o += "          device idle " + format_duration(r.device_idle_ns) + "\n";
  // A policy's host cost per free: its release plans' host time (work and waits) over the frees.
  if (r.releases > 0)
    o += "          host per free " + format_duration(r.host_release_ns / TimeNs(r.releases)) + " (" +
         format_duration(r.host_release_ns) + " in " + std::to_string(r.releases) + " release plans)\n";
  o += "counts    allocs " + std::to_string(r.allocs) + ", frees " + std::to_string(r.frees) + ", callbacks " +
       std::to_string(r.callbacks) + ", ooms " + std::to_string(r.ooms) + ", fallbacks " +
       std::to_string(r.fallbacks) + "\n";
  if (r.warnings.empty()) {
    o += "warnings  none\n";
  } else {
    o += "warnings  " + std::to_string(r.warnings.size()) + "\n";
    for (const auto& w : r.warnings) o += "  - " + w + "\n";
  }
  if (!r.findings.empty() && max_findings > 0) {
    const std::size_t shown = std::min(max_findings, r.findings.size());
    o += "findings  first " + std::to_string(shown) + " of " + std::to_string(total) + "\n";
    for (std::size_t i = 0; i < shown; ++i)
      o += "  " + std::to_string(i + 1) + ". " + format_finding(r.findings[i], program) + "\n";
  }
  return o;
}

}  // namespace allocsim
