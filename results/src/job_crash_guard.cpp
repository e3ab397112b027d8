// See job_crash_guard.h. siglongjmp out of a handler is what the guard needs: the crashed job's
// frames are abandoned, not unwound (C++ offers no way to unwind from a signal), which is why the
// thread takes no more jobs afterwards.
#include "job_crash_guard.h"

#include <csetjmp>
#include <csignal>
#include <cstring>
#include <mutex>
#include <vector>

#include <unistd.h>

namespace allocsim::results::detail {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

thread_local sigjmp_buf t_jump;
thread_local volatile sig_atomic_t t_guarded = 0;
thread_local std::vector<char> t_alt_stack;

void on_crash(int sig) {
  if (t_guarded) {
    t_guarded = 0;
    siglongjmp(t_jump, sig);
  }
  // Not inside a guarded job: the default action (core dump, status), as if we were not here.
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_ONSTACK | SA_NODEFER;  // NODEFER: the next job's crash is caught too
    sigemptyset(&sa.sa_mask);
    for (int s : kSignals) sigaction(s, &sa, nullptr);
  });
  if (t_alt_stack.empty()) {  // a stack overflow leaves no stack to run the handler on
    t_alt_stack.resize(64 * 1024);
    stack_t ss{};
    ss.ss_sp = t_alt_stack.data();
    ss.ss_size = t_alt_stack.size();
    sigaltstack(&ss, nullptr);
  }
}

}  // namespace

int run_guarded(const std::function<void()>& job) {
  install_handlers();
  if (const int sig = sigsetjmp(t_jump, 1); sig != 0) return sig;
  t_guarded = 1;
  try {
    job();
  } catch (...) {
    t_guarded = 0;
    throw;
  }
  t_guarded = 0;
  return 0;
}

std::string describe_signal(int signal) {
  const char* name = "signal";
  switch (signal) {
    case SIGSEGV: name = "SIGSEGV"; break;
    case SIGBUS: name = "SIGBUS"; break;
    case SIGFPE: name = "SIGFPE"; break;
    case SIGILL: name = "SIGILL"; break;
    case SIGABRT: name = "SIGABRT"; break;
  }
  return "signal " + std::to_string(signal) + ", " + name;
}

}  // namespace allocsim::results::detail
