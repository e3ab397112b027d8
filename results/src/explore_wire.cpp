// See explore_wire.h.
#include "explore_wire.h"

#include <charconv>
#include <stdexcept>

namespace allocsim::explore_detail {
namespace {

class Writer {
 public:
  template <class T>
  void num(T v) {
    char b[24];
    const auto [end, ec] = std::to_chars(b, b + sizeof b, v);
    sep();
    out_.append(b, end);
  }
  void str(const std::string& s) {
    num(s.size());
    out_ += ':';
    out_ += s;
  }
  void ref(const StepRef& r) {
    num(int(r.agent));
    num(r.stream);
    num(r.index);
  }
  void holds(const std::vector<StepHold>& hs) {
    num(hs.size());
    for (const StepHold& h : hs) ref(h.hold), ref(h.until);
  }
  std::string take() { return std::move(out_); }

 private:
  void sep() {
    if (!out_.empty()) out_ += ' ';
  }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}

  template <class T>
  T num() {
    skip_sep();
    T v{};
    const char* first = s_.data() + at_;
    const char* last = s_.data() + s_.size();
    const auto [end, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || end == first) bad("a number");
    at_ = std::size_t(end - s_.data());
    if (at_ < s_.size() && s_[at_] != ' ' && s_[at_] != ':') bad("a number");
    return v;
  }
  /// A count of items of at least `item_bytes` bytes each: no larger than what is left, so a
  /// corrupt count cannot ask for a huge allocation.
  std::size_t count(std::size_t item_bytes) {
    const auto n = num<std::size_t>();
    if (n > (s_.size() - at_) / item_bytes) bad("a count within the message");
    return n;
  }
  std::string str() {
    const std::size_t n = num<std::size_t>();
    if (at_ >= s_.size() || s_[at_] != ':' || n > s_.size() - at_ - 1) bad("a string");
    std::string out = s_.substr(at_ + 1, n);
    at_ += 1 + n;
    return out;
  }
  bool flag() {
    const int v = num<int>();
    if (v != 0 && v != 1) bad("0 or 1");
    return v == 1;
  }
  StepRef ref() {
    StepRef r;
    const int agent = num<int>();
    if (agent < int(StepAgent::Host) || agent > int(StepAgent::Callback)) bad("a step agent");
    r.agent = StepAgent(agent);
    r.stream = num<StreamId>();
    r.index = num<std::uint64_t>();
    return r;
  }
  std::vector<StepHold> holds() {
    std::vector<StepHold> hs(count(12));  // six numbers, each with its separator
    for (StepHold& h : hs) h.hold = ref(), h.until = ref();
    return hs;
  }
  void end() {
    if (at_ != s_.size()) bad("the end of the message");
  }

 private:
  void skip_sep() {
    if (at_ > 0) {
      if (at_ >= s_.size() || s_[at_] != ' ') bad("a value");
      ++at_;
    }
  }
  [[noreturn]] void bad(const char* expected) const {
    throw std::runtime_error("explore: malformed job message: expected " + std::string(expected) +
                             " at byte " + std::to_string(at_));
  }
  const std::string& s_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode_job(const ScheduleJob& job) {
  Writer w;
  w.num(int(job.expand));
  w.holds(job.delays);
  return w.take();
}

ScheduleJob decode_job(const std::string& text) {
  Reader r(text);
  ScheduleJob job;
  job.expand = r.flag();
  job.delays = r.holds();
  r.end();
  return job;
}

std::string encode_played(const Played& p) {
  const ExploredSchedule& s = p.schedule;
  Writer w;
  w.holds(s.delays);
  w.num(s.holds.size());
  for (const HoldOutcome& h : s.holds) {
    w.num(int(h.reached));
    w.num(int(h.waited));
    w.num(int(h.quiescence));
    w.num(h.held_ns);
  }
  w.num(int(s.verdict));
  w.str(s.detail);
  w.str(s.signature);
  w.num(s.manifest_executions.size());
  for (int e : s.manifest_executions) w.num(e);
  w.num(p.children.size());
  for (const std::vector<StepHold>& c : p.children) w.holds(c);
  w.num(p.pruned);
  return w.take();
}

Played decode_played(const std::string& text) {
  Reader r(text);
  Played p;
  ExploredSchedule& s = p.schedule;
  s.delays = r.holds();
  s.holds.resize(r.count(8));
  for (HoldOutcome& h : s.holds) {
    h.reached = r.flag();
    h.waited = r.flag();
    h.quiescence = r.flag();
    h.held_ns = r.num<TimeNs>();
  }
  const int verdict = r.num<int>();
  if (verdict < int(ScheduleVerdict::Deadlock) || verdict > int(ScheduleVerdict::Clean))
    throw std::runtime_error("explore: malformed job message: verdict " + std::to_string(verdict));
  s.verdict = ScheduleVerdict(verdict);
  s.detail = r.str();
  s.signature = r.str();
  s.manifest_executions.resize(r.count(2));
  for (int& e : s.manifest_executions) e = r.num<int>();
  p.children.resize(r.count(2));
  for (std::vector<StepHold>& c : p.children) c = r.holds();
  p.pruned = r.num<std::uint64_t>();
  r.end();
  return p;
}

}  // namespace allocsim::explore_detail
