// libFuzzer target: the PyTorch snapshot importer must turn any input (JSON text, or gzip of it)
// into a Scenario or a ScenarioError: no crash, no hang, no sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>

#include "allocsim/scenarios/torch_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256 * 1024) return 0;
  allocsim::LoadLimits limits;
  limits.max_ops = 100'000;
  limits.max_input_bytes = 4u << 20;
  try {
    allocsim::torch_trace_from_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json", {}, limits);
  } catch (const allocsim::ScenarioError&) {
  }
  return 0;
}
