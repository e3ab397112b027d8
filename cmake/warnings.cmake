# Project-wide warning and sanitizer flags, applied with allocsim_target_defaults(target).
function(allocsim_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(ALLOCSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(ALLOCSIM_SANITIZE)
  # -O1, as the ASan documentation advises: unoptimised code made the sanitizer pass's replays of
  # committed results (tests/hw) run more than 17 times slower than release and past CTest's timeout.
  add_compile_options(-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  # GCC 12's -Wmaybe-uninitialized gives false positives under the sanitizers' instrumentation
  # (Boost.MPI's status::count in results/mpi); the release build keeps the warning.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()

# A static library from every .cpp under DIR/src (one job per file; new files need no CMake edit).
function(allocsim_library name dir)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${dir}/src/*.cpp)
  if(NOT srcs)  # a part not written yet still links
    set(srcs ${CMAKE_CURRENT_BINARY_DIR}/${name}_empty.cpp)
    file(WRITE ${srcs} "// ${name} has no sources yet\n")
  endif()
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} PUBLIC ${dir}/include)
  allocsim_target_defaults(${name})
endfunction()
