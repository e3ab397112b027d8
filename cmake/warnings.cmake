# Project-wide warning and sanitizer flags, applied with allocsim_target_defaults(target).
function(allocsim_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(ALLOCSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(ALLOCSIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
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
