// The human summary of `allocsim run`: units, the two-line finding form, and the lines that must
// appear for incomplete runs and runs without race detection.
#include <catch2/catch.hpp>

#include "allocsim/results/run_summary.h"

using namespace allocsim;

TEST_CASE("bytes and durations print in both units", "[summary]") {
  CHECK(format_bytes(3 * 1024 * 1024 + 512 * 1024) == "3.50 MiB (3670016 B)");
  CHECK(format_bytes(0) == "0.00 MiB (0 B)");
  CHECK(format_duration(1234567) == "1.234567 ms (1234567 ns)");
}

TEST_CASE("a finding prints in two lines with both sides and the action between", "[summary]") {
  Finding f;
  f.kind = FindingKind::Manifest;
  f.range = {0x1000, 0x100};
  f.first.alloc = 0;
  f.first.alloc_bytes = 4096;
  f.first.alloc_stream = "compute";
  f.first.op = "kernel";
  f.first.stream = "compute";
  f.first.start = 1000;
  f.first.end = 2500;
  f.first.release_time = 1200;
  f.second.alloc = 1;
  f.second.alloc_stream = "autotune";
  f.second.op = "memset";
  f.second.stream = "autotune";
  f.second.write = true;
  f.action_between = "immediate free";
  Program p;
  p.buffer_names = {"X", "scratch"};
  const std::string s = format_finding(f, &p);
  CHECK(s == "manifest corruption on [0x1000, 0x1100) 256 B: alloc 0 'X' (4096 B on compute at 0.000 us, "
             "released 1.200 us): kernel read on compute [1.000, 2.500] us\n"
             "      vs alloc 1 'scratch' (0 B on autotune at 0.000 us): memset write on autotune [0.000, 0.000] us; "
             "between: immediate free");

  Finding leak;  // one-sided, allocation stream unknown
  leak.kind = FindingKind::Leak;
  leak.range = {0, 512};
  leak.first.alloc = 1;
  leak.first.alloc_bytes = 512;
  leak.action_between = "never returned to the pool";
  CHECK(format_finding(leak, &p) == "leak on [0x0, 0x200) 512 B: alloc 1 'scratch' (512 B)\n"
                                    "      never returned to the pool");
}

TEST_CASE("summary shows incomplete runs, disabled detection, warnings and a bounded finding list", "[summary]") {
  RunResult r;
  r.scenario = "s";
  r.policy = "immediate";
  r.guard = "none";
  r.completed = false;
  r.error = "deadlock: host waits on the semaphore";
  r.race_detection = false;
  r.warnings = {"fell back"};
  r.findings.resize(5);
  for (auto& f : r.findings) f.kind = FindingKind::Leak;
  r.leaks = 7;
  const std::string s = format_run_summary(r, nullptr, 2);
  CHECK(s.find("ERROR     run did not complete: deadlock: host waits on the semaphore\n") != std::string::npos);
  CHECK(s.find("races     not checked (--no-races)\n") != std::string::npos);
  CHECK(s.find("warnings  1\n  - fell back\n") != std::string::npos);
  CHECK(s.find("findings  first 2 of 7\n") != std::string::npos);
  CHECK(s.find("  2. leak") != std::string::npos);
  CHECK(s.find("  3. leak") == std::string::npos);
  CHECK(format_run_summary(r, nullptr, 0).find("findings") == std::string::npos);
}

TEST_CASE("summary shows host blocking by cause and device idle time, each under its own label",
          "[summary]") {
  RunResult r;
  r.host_stall_ns = 9'000;
  r.host_blocked_policy_ns = 1'000;
  r.host_blocked_oom_ns = 2'000;
  r.host_blocked_semaphore_ns = 3'000;
  r.host_blocked_sync_ns = 4'000;
  r.device_idle_ns = 5'000;
  const std::string s = format_run_summary(r, nullptr, 0);
  CHECK(s.find("host stall 0.009000 ms (9000 ns) (host blocked, every cause below)\n") != std::string::npos);
  CHECK(s.find("blocked in policy/guard waits 0.001000 ms (1000 ns)\n") != std::string::npos);
  CHECK(s.find("blocked in OOM waits          0.002000 ms (2000 ns)\n") != std::string::npos);
  CHECK(s.find("blocked on the semaphore      0.003000 ms (3000 ns)\n") != std::string::npos);
  CHECK(s.find("blocked in program syncs      0.004000 ms (4000 ns)\n") != std::string::npos);
  CHECK(s.find("device idle 0.005000 ms (5000 ns)\n") != std::string::npos);
}

TEST_CASE("summary shows the host time per free when the run released anything", "[summary]") {
  RunResult r;
  CHECK(format_run_summary(r, nullptr, 0).find("host per free") == std::string::npos);
  r.releases = 4;
  r.host_release_ns = 10'000;
  CHECK(format_run_summary(r, nullptr, 0).find("host per free 0.002500 ms (2500 ns) (0.010000 ms (10000 ns) in 4 release plans)\n") !=
        std::string::npos);
}
