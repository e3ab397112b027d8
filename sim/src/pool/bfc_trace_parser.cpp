// Parser for the tsl_bfc oracle trace format: header line of key=value options, a description
// line, then `a ID BYTES [ALIGN]` and `f ID` ops. Every id is checked against the live set while
// parsing, so the replay itself can never meet a bad op.
#include <bit>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "allocsim/pool/bfc_trace.h"

namespace allocsim {
namespace {

std::string format_error(const std::string& source, std::size_t line, const std::string& message) {
  return line == 0 ? source + ": " + message : source + ":" + std::to_string(line) + ": " + message;
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) words.push_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

class LineParser {
 public:
  LineParser(const std::string& source, std::size_t line) : source_(source), line_(line) {}

  [[noreturn]] void fail(const std::string& message) const { throw BfcTraceError(source_, line_, message); }

  template <class Int>
  Int integer(std::string_view text, const char* what) const {
    Int value{};
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc{} || ptr != end || text.empty())
      fail(std::string("malformed ") + what + " '" + std::string(text) + "'");
    return value;
  }

  double real(std::string_view text, const char* what) const {
    std::string s(text);
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty() || !(v >= 0)) fail(std::string("malformed ") + what + " '" + s + "'");
    return v;
  }

  bool flag(std::string_view text, const char* what) const {
    if (text == "0") return false;
    if (text == "1") return true;
    fail(std::string(what) + " must be 0 or 1, got '" + std::string(text) + "'");
  }

 private:
  const std::string& source_;
  std::size_t line_;
};

void parse_header(std::string_view text, const LineParser& p, BfcOptions& options) {
  if (text.size() < 1 || text[0] != '#' || text.find('=') == std::string_view::npos)
    p.fail("missing header: expected '# memory_limit=<bytes> allow_growth=<0|1> garbage_collection=<0|1>'");
  for (std::string_view word : split_words(text.substr(1))) {
    const std::size_t eq = word.find('=');
    if (eq == std::string_view::npos) p.fail("malformed header entry '" + std::string(word) + "' (want key=value)");
    const std::string_view key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "memory_limit") {
      options.memory_limit = p.integer<std::uint64_t>(value, "memory_limit");
    } else if (key == "allow_growth") {
      options.allow_growth = p.flag(value, "allow_growth");
    } else if (key == "garbage_collection") {
      options.garbage_collection = p.flag(value, "garbage_collection");
    } else if (key == "coalesce_regions") {
      options.coalesce_regions = p.flag(value, "coalesce_regions");
    } else if (key == "fragmentation_fraction") {
      options.fragmentation_fraction = p.real(value, "fragmentation_fraction");
    }  // other keys: ignored, so newer traces still parse
  }
}

}  // namespace

BfcTraceError::BfcTraceError(const std::string& source, std::size_t line, const std::string& message)
    : std::runtime_error(format_error(source, line, message)), line_(line) {}

BfcTrace parse_bfc_trace(std::istream& in, const std::string& source) {
  BfcTrace trace;
  std::unordered_map<std::int64_t, std::uint32_t> slot_of;
  std::vector<bool> allocated;  // per slot: allocated in the trace and not yet freed
  std::string raw;
  std::size_t line = 0;
  bool header_seen = false;

  while (std::getline(in, raw)) {
    ++line;
    std::string_view text(raw);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    const LineParser p(source, line);
    if (!header_seen) {
      parse_header(text, p, trace.options);
      header_seen = true;
      continue;
    }
    if (!text.empty() && text[0] == '#') {
      if (line == 2) trace.description = std::string(text.substr(text.size() > 1 && text[1] == ' ' ? 2 : 1));
      continue;
    }
    const std::vector<std::string_view> w = split_words(text);
    if (w.empty()) continue;

    BfcTraceOp op{};
    if (w[0] == "a") {
      if (w.size() != 3 && w.size() != 4) p.fail("'a' wants 'a <id> <bytes> [<alignment>]'");
      op.kind = BfcTraceOp::Kind::kAlloc;
      op.bytes = p.integer<std::uint64_t>(w[2], "byte count");
      if (w.size() == 4) {
        op.alignment = p.integer<std::uint64_t>(w[3], "alignment");
        if (!std::has_single_bit(op.alignment))
          p.fail("alignment must be a power of two, got " + std::string(w[3]));
      }
    } else if (w[0] == "f") {
      if (w.size() != 2) p.fail("'f' wants 'f <id>'");
      op.kind = BfcTraceOp::Kind::kFree;
    } else {
      p.fail("unknown op '" + std::string(w[0]) + "' (want 'a' or 'f')");
    }
    const auto id = p.integer<std::int64_t>(w[1], "id");
    auto [it, fresh] = slot_of.try_emplace(id, static_cast<std::uint32_t>(trace.ids.size()));
    if (fresh) {
      trace.ids.push_back(id);
      allocated.push_back(false);
    }
    op.slot = it->second;
    if (op.kind == BfcTraceOp::Kind::kAlloc) {
      if (allocated[op.slot]) p.fail("id " + std::to_string(id) + " is allocated again before it was freed");
      allocated[op.slot] = true;
      ++trace.alloc_ops;
    } else {
      if (!allocated[op.slot]) p.fail("free of unknown id " + std::to_string(id) + " (not allocated, or already freed)");
      allocated[op.slot] = false;
      ++trace.free_ops;
    }
    trace.ops.push_back(op);
  }
  if (in.bad()) throw BfcTraceError(source, line, "read error");
  if (!header_seen) throw BfcTraceError(source, 1, "missing header: the trace is empty");
  return trace;
}

BfcTrace load_bfc_trace(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw BfcTraceError(path, 0, "cannot read trace file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BfcTraceError(path, 0, "cannot open trace file");
  return parse_bfc_trace(in, path);
}

}  // namespace allocsim
