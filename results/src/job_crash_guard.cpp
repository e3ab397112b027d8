// See job_crash_guard.h. siglongjmp out of a handler is what the guard needs: the crashed job's
// frames are abandoned, not unwound (C++ offers no way to unwind from a signal), which is why the
// thread takes no more jobs afterwards.
#include "job_crash_guard.h"

#include <csetjmp>
#include <csignal>
#include <cstring>
#include <iterator>
#include <mutex>
#include <vector>

namespace allocsim::results::detail {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

thread_local sigjmp_buf t_jump;
thread_local volatile sig_atomic_t t_guarded = 0;
// The thread's alternate signal stack, and the one it had before (AddressSanitizer gives each
// thread its own, and unmaps whatever stack is installed when the thread ends): the previous one
// is put back before this memory is freed, which thread_local destructors do before the
// sanitizer's thread teardown.
struct AltStack {
  std::vector<char> memory;
  stack_t previous{};
  ~AltStack() {
    if (!memory.empty()) sigaltstack(&previous, nullptr);
  }
};
thread_local AltStack t_alt_stack;

// The handler each signal had before ours, to hand a crash outside a guarded job to.
struct sigaction g_previous[std::size(kSignals)];
std::mutex g_install_mu;

void on_crash(int sig) {
  if (t_guarded) {
    t_guarded = 0;
    siglongjmp(t_jump, sig);
  }
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (kSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
  std::raise(sig);
}

}  // namespace

void install_crash_handlers() {
  {
    std::lock_guard lock(g_install_mu);
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_ONSTACK | SA_NODEFER;  // NODEFER: the next job's crash is caught too
    sigemptyset(&sa.sa_mask);
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
      struct sigaction old;
      sigaction(kSignals[i], &sa, &old);
      if (old.sa_handler != on_crash) g_previous[i] = old;
    }
  }
  if (t_alt_stack.memory.empty()) {  // a stack overflow leaves no stack to run the handler on
    t_alt_stack.memory.resize(64 * 1024);
    stack_t ss{};
    ss.ss_sp = t_alt_stack.memory.data();
    ss.ss_size = t_alt_stack.memory.size();
    sigaltstack(&ss, &t_alt_stack.previous);
  }
}

int run_guarded(const std::function<void()>& job) {
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
