#!/usr/bin/env python3
"""Make a copy of Debian's HIP 5.2 headers that compiles with CUDA 13 (HIP's NVIDIA platform).

Debian 12 ships HIP 5.2 (libamdhip64-dev). Its hip/nvidia_detail/nvidia_hip_runtime_api.h wraps
CUDA runtime calls that CUDA 12/13 removed or changed, so any translation unit that includes
<hip/hip_runtime.h> with __HIP_PLATFORM_NVIDIA__ fails under nvcc 13. This script copies the whole
hip/ tree to OUT/hip and applies the edits below, each one named in a comment in the patched header
("allocsim patch: ..."). Every edit must match exactly once: if Debian's header changes, the build
stops with a message naming the edit instead of producing a silently different header.

Usage: patch_hip_headers.py SRC_INCLUDE_DIR OUT_INCLUDE_DIR   (e.g. /usr/include build/hip-nvidia)
"""
import pathlib
import re
import shutil
import sys

TAG = "/* allocsim patch: {} */"

# (why, old text, new text). `old` must occur exactly once in nvidia_hip_runtime_api.h.
EDITS = [
    ("cudaMemAdvise takes a cudaMemLocation since CUDA 12.2/13 (int device overload removed)",
     "return hipCUDAErrorTohipError(cudaMemAdvise(dev_ptr, count,\n        hipMemoryAdviseTocudaMemoryAdvise(advice), device));",
     "cudaMemLocation loc{}; loc.type = device < 0 ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;\n"
     "    loc.id = device < 0 ? 0 : device;\n"
     "    return hipCUDAErrorTohipError(cudaMemAdvise(dev_ptr, count,\n        hipMemoryAdviseTocudaMemoryAdvise(advice), loc));"),
    ("cudaMemPrefetchAsync takes (cudaMemLocation, flags, stream) in CUDA 13",
     "return hipCUDAErrorTohipError(cudaMemPrefetchAsync(dev_ptr, count, device, stream));",
     "cudaMemLocation loc{}; loc.type = device < 0 ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;\n"
     "    loc.id = device < 0 ? 0 : device;\n"
     "    return hipCUDAErrorTohipError(cudaMemPrefetchAsync(dev_ptr, count, loc, 0, stream));"),
    ("cudaDeviceProp::clockRate removed in CUDA 13 (hipChooseDevice: field ignored)",
     "    cdprop.clockRate = prop->clockRate;\n", "    /* clockRate: not in cudaDeviceProp since CUDA 13 */\n"),
    ("cudaDeviceProp::computeMode removed in CUDA 13 (hipChooseDevice: field ignored)",
     "    cdprop.computeMode = prop->computeMode;\n", "    /* computeMode: not in cudaDeviceProp since CUDA 13 */\n"),
    ("cudaDeviceProp::memoryClockRate removed in CUDA 13 (hipChooseDevice: field ignored)",
     "    cdprop.memoryClockRate = prop->memoryClockRate;\n", "    /* memoryClockRate: not in cudaDeviceProp since CUDA 13 */\n"),
    ("clockRate / memoryClockRate read via cudaDeviceGetAttribute in CUDA 13",
     "    p_prop->clockRate = cdprop.clockRate;\n    p_prop->memoryClockRate = cdprop.memoryClockRate;\n",
     "    cudaDeviceGetAttribute(&p_prop->clockRate, cudaDevAttrClockRate, device);\n"
     "    cudaDeviceGetAttribute(&p_prop->memoryClockRate, cudaDevAttrMemoryClockRate, device);\n"),
    ("computeMode / clockRate (second use) read via cudaDeviceGetAttribute in CUDA 13",
     "    p_prop->computeMode = cdprop.computeMode;\n    p_prop->clockInstructionRate = cdprop.clockRate; // Same as clock-rate:\n",
     "    cudaDeviceGetAttribute(&p_prop->computeMode, cudaDevAttrComputeMode, device);\n"
     "    p_prop->clockInstructionRate = p_prop->clockRate;\n"),
    ("cudaDeviceProp::cooperativeMultiDeviceLaunch removed in CUDA 13 (multi-device launch is gone)",
     "    p_prop->cooperativeMultiDeviceLaunch = cdprop.cooperativeMultiDeviceLaunch;\n",
     "    p_prop->cooperativeMultiDeviceLaunch = 0;\n"),
    ("cudaDeviceProp::kernelExecTimeoutEnabled removed in CUDA 13",
     "    p_prop->kernelExecTimeoutEnabled = cdprop.kernelExecTimeoutEnabled;\n",
     "    cudaDeviceGetAttribute(&p_prop->kernelExecTimeoutEnabled, cudaDevAttrKernelExecTimeout, device);\n"),
    ("cudaDevAttrCooperativeMultiDeviceLaunch removed in CUDA 13: reported as unsupported",
     "            cdattr = cudaDevAttrCooperativeMultiDeviceLaunch;\n            break;\n",
     "            *pi = 0;\n            return hipSuccess;\n"),
    ("cuCtxCreate takes CUctxCreateParams* in CUDA 13 (pass none)",
     "return hipCUResultTohipError(cuCtxCreate(ctx, flags, device));",
     "return hipCUResultTohipError(cuCtxCreate(ctx, nullptr, flags, device));"),
    ("texture-reference API cudaBindTexture removed in CUDA 12: hipBindTexture returns hipErrorNotSupported",
     "return hipCUDAErrorTohipError(cudaBindTexture(offset, tex, devPtr, desc, size));\n}\n\n__HIP_DEPRECATED",
     "(void)offset; (void)tex; (void)devPtr; (void)desc; (void)size;\n    return hipErrorNotSupported;\n}\n\n__HIP_DEPRECATED"),
    ("texture-reference API cudaBindTexture2D removed in CUDA 12",
     "return hipCUDAErrorTohipError(cudaBindTexture2D(offset, tex, devPtr, desc, width, height, pitch));",
     "(void)offset; (void)tex; (void)devPtr; (void)desc; (void)width; (void)height; (void)pitch;\n"
     "    return hipErrorNotSupported;"),
    ("texture-reference API cudaGetTextureAlignmentOffset removed in CUDA 12",
     "return hipCUDAErrorTohipError(cudaGetTextureAlignmentOffset(offset,texref));",
     "(void)offset; (void)texref;\n    return hipErrorNotSupported;"),
    ("cudaLaunchCooperativeKernelMultiDevice removed in CUDA 13",
     "return hipCUDAErrorTohipError(cudaLaunchCooperativeKernelMultiDevice(launchParamsList, numDevices, flags));",
     "(void)launchParamsList; (void)numDevices; (void)flags;\n    return hipErrorNotSupported;"),
    ("cudaGraphAddDependencies gained edge data (CUDA 13): pass none",
     "cudaGraphAddDependencies(graph, from, to, numDependencies)",
     "cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies)"),
    ("cudaGraphRemoveDependencies gained edge data (CUDA 13): pass none",
     "cudaGraphRemoveDependencies(graph, from, to, numDependencies)",
     "cudaGraphRemoveDependencies(graph, from, to, nullptr, numDependencies)"),
    ("cudaGraphGetEdges gained edge data (CUDA 13): pass none",
     "cudaGraphGetEdges(graph, from, to, numEdges)", "cudaGraphGetEdges(graph, from, to, nullptr, numEdges)"),
    ("cudaGraphNodeGetDependencies gained edge data (CUDA 13): pass none",
     "cudaGraphNodeGetDependencies(node, pDependencies, pNumDependencies)",
     "cudaGraphNodeGetDependencies(node, pDependencies, nullptr, pNumDependencies)"),
    ("cudaGraphNodeGetDependentNodes gained edge data (CUDA 13): pass none",
     "cudaGraphNodeGetDependentNodes(node, pDependentNodes, pNumDependentNodes)",
     "cudaGraphNodeGetDependentNodes(node, pDependentNodes, nullptr, pNumDependentNodes)"),
    ("cudaStreamGetCaptureInfo_v2 removed in CUDA 13: cudaStreamGetCaptureInfo has its arguments plus edge data",
     "cudaStreamGetCaptureInfo_v2(\n        stream, captureStatus_out, id_out, graph_out, dependencies_out, numDependencies_out)",
     "cudaStreamGetCaptureInfo(\n        stream, captureStatus_out, id_out, graph_out, dependencies_out, nullptr, numDependencies_out)"),
    ("cudaStreamUpdateCaptureDependencies gained edge data (CUDA 13): pass none",
     "cudaStreamUpdateCaptureDependencies(stream, dependencies,\n",
     "cudaStreamUpdateCaptureDependencies(stream, dependencies, nullptr,\n"),
]

# Whole template wrappers over texture<T, dim, mode> (the class template was removed in CUDA 12).
TEXTURE_TEMPLATE = re.compile(
    r"template <class T, int dim, enum cudaTextureReadMode readMode>\n"
    r"(?:__HIP_DEPRECATED )?inline static hipError_t hip(?:Bind|Unbind)Texture\w*\([^{]*\{[^}]*\}\n")


def patch_runtime_api(text: str) -> str:
    for why, old, new in EDITS:
        count = text.count(old)
        if count != 1:
            raise SystemExit(f"patch_hip_headers: edit '{why}' matched {count} times (expected 1); "
                             "Debian's HIP headers changed: update hw/cmake/patch_hip_headers.py")
        if old.startswith(" "):  # whole lines: the comment gets its own indented line
            replacement = "    " + TAG.format(why) + "\n" + new
        else:  # inside a line: the comment is whitespace to the compiler
            replacement = TAG.format(why) + "\n    " + new
        text = text.replace(old, replacement, 1)
    text, n = TEXTURE_TEMPLATE.subn(
        TAG.format("texture<T,dim,mode> templates removed in CUDA 12: wrapper dropped") + "\n", text)
    if n == 0:
        raise SystemExit("patch_hip_headers: found no texture<> template wrappers to drop; update the script")
    return text


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src = pathlib.Path(sys.argv[1]) / "hip"
    out_root = pathlib.Path(sys.argv[2])
    target = src / "nvidia_detail" / "nvidia_hip_runtime_api.h"
    if not target.is_file():
        print(f"patch_hip_headers: {target} not found (install libamdhip64-dev)", file=sys.stderr)
        return 2
    tmp = out_root / "hip.tmp"
    if tmp.exists():
        shutil.rmtree(tmp)
    out_root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src, tmp, symlinks=False)
    api = tmp / "nvidia_detail" / "nvidia_hip_runtime_api.h"
    api.write_text(patch_runtime_api(api.read_text()))
    final = out_root / "hip"
    if final.exists():
        shutil.rmtree(final)
    tmp.rename(final)  # whole tree or nothing
    return 0


if __name__ == "__main__":
    sys.exit(main())
