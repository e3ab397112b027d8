// Output files are written whole or not at all (DESIGN.md section 6): the content goes to a temp
// file next to the target, is flushed, then renamed over it. rename() within one directory is
// atomic on POSIX, so a reader (or a crash) sees either the old file or the complete new one.
// Shared by `allocsim run --json/--trace`, the sweep writer and the platform-profile writer.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace allocsim {

/// An output file could not be written. The message names the path and the OS reason.
class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Write `content` to `path` atomically. Throws FileWriteError; on error no temp file is left and
/// an existing `path` is untouched.
void write_file_atomically(const std::string& path, std::string_view content);

/// Before a possibly long run: the folder the output file `path` (given as `flag`) goes to exists
/// and `path` is not a folder, so the run never ends in "cannot write". Throws FileWriteError.
/// An empty path (no such output) passes.
void check_output_path(const std::string& path, const char* flag);

/// Read a whole file. Throws FileWriteError (named for symmetry: any file I/O failure) with the path.
std::string read_whole_file(const std::string& path);

}  // namespace allocsim
