// Runs a job so that a crash inside it (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) comes back as a
// failure of that job instead of ending the process: the signal handler jumps back to the guard
// on the crashing thread (an alternate signal stack per thread covers stack overflows). The
// job's destructors do not run and the process may be damaged, so the caller retires the thread.
// A crash outside a guarded job keeps the signal's default action.
#pragma once
#include <functional>
#include <string>

namespace allocsim::results::detail {

/// Runs `job` on this thread. Returns 0, or the signal number it crashed with.
int run_guarded(const std::function<void()>& job);

/// "signal 11, SIGSEGV".
std::string describe_signal(int signal);

}  // namespace allocsim::results::detail
