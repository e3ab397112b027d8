// Runs a job so that a crash inside it (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) comes back as a
// failure of that job instead of ending the process: the signal handler jumps back to the guard
// on the crashing thread (an alternate signal stack per thread covers stack overflows). The
// job's destructors do not run and the process may be damaged, so the caller retires the thread.
// A crash outside a guarded job goes to the handler that was there before (a test framework's, a
// sanitizer's) or the default action.
#pragma once
#include <functional>
#include <string>

namespace allocsim::results::detail {

/// (Re)installs the handlers. A worker thread calls it when it starts: something else (a test
/// framework) may have replaced them since the last time.
void install_crash_handlers();

/// (Re)installs the handlers and this thread's alternate signal stack. A worker thread calls it
/// when it starts: something else (a test framework) may have replaced the handlers since.
void install_crash_handlers();

/// Runs `job` on this thread (after install_crash_handlers). Returns 0, or the signal number it
/// crashed with.
int run_guarded(const std::function<void()>& job);

/// "signal 11, SIGSEGV".
std::string describe_signal(int signal);

}  // namespace allocsim::results::detail
