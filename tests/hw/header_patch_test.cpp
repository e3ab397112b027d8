// The HIP header patch script, applied to Debian's headers, yields headers nvcc compiles.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "test_inputs.h"

namespace fs = std::filesystem;

TEST_CASE("patched Debian HIP headers compile with nvcc for HIP on NVIDIA") {
  const fs::path header = "/usr/include/hip/nvidia_detail/nvidia_hip_runtime_api.h";
  const std::string python = ALLOCSIM_TEST_PYTHON, nvcc = ALLOCSIM_TEST_NVCC;
  allocsim::test::require_tool(fs::exists(header) && !python.empty(),
                               "Debian's HIP headers (libamdhip64-dev) or python3 not found");
  // One folder per process: two builds' test runs on one machine must not patch into each other's.
  const fs::path out = fs::temp_directory_path() / ("allocsim_hw_patch_test." + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::string script = std::string(ALLOCSIM_SOURCE_DIR) + "/hw/cmake/patch_hip_headers.py";
  REQUIRE(std::system((python + " " + script + " /usr/include " + out.string()).c_str()) == 0);
  std::ifstream in(out / "hip/nvidia_detail/nvidia_hip_runtime_api.h");
  std::stringstream text;
  text << in.rdbuf();
  const std::string patched = text.str();
  CHECK(patched.find("allocsim patch: cudaDeviceProp::clockRate removed") != std::string::npos);
  CHECK(patched.find("cudaBindTexture(") == std::string::npos);  // every texture-reference call gone
  CHECK(patched.find("cudaLaunchCooperativeKernelMultiDevice(") == std::string::npos);
  allocsim::test::require_tool(!nvcc.empty() && nvcc.find("NOTFOUND") == std::string::npos,
                               "nvcc not found: the patched headers' compile check needs it");
  const fs::path src = out / "t.cu";
  std::ofstream(src) << "#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[threadIdx.x] = 1; }\n"
                        "int main() { int* d = nullptr; if (hipMalloc(&d, 64) != hipSuccess) return 1;\n"
                        "  hipLaunchKernelGGL(k, dim3(1), dim3(16), 0, 0, d); return hipDeviceSynchronize() == hipSuccess ? 0 : 1; }\n";
  const std::string cmd = nvcc + " -D__HIP_PLATFORM_NVIDIA__ -x cu -arch=sm_90 -std=c++17 -isystem " + out.string() +
                          " -c " + src.string() + " -o " + (out / "t.o").string();
  CHECK(std::system(cmd.c_str()) == 0);
  fs::remove_all(out);
}
