//===- FileIO.h - POSIX file reading and writing with Status ----*- C++ -*-===//
//
// Private to lib/Runtime. Thin wrappers over open/pread/write that report
// failures as Status messages naming the file, shared by the .npy/.npz and
// safetensors readers and writers.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_FILEIO_H
#define FX_RUNTIME_FILEIO_H

#include "fx/Runtime/Status.h"

#include <cstdint>
#include <string>

namespace fx::rt::detail {

/// `errno` as text, for "cannot open" messages.
std::string errnoMessage();

/// A regular file opened for reading. Move-only.
class InputFile {
public:
  /// Opens `path`; fails with "PATH: cannot open: REASON" or if it is not a
  /// regular file.
  static Result<InputFile> open(const std::string &path);

  InputFile(InputFile &&other) noexcept;
  InputFile &operator=(InputFile &&other) noexcept;
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;
  ~InputFile();

  uint64_t size() const { return fileSize; }
  const std::string &path() const { return filePath; }
  int fd() const { return fileFd; }

  /// Reads exactly `count` bytes at `offset`; the range must lie within
  /// size(), which callers check first to report what is truncated.
  Status readAt(uint64_t offset, void *dst, size_t count) const;

private:
  InputFile(int fd, uint64_t size, std::string path)
      : fileFd(fd), fileSize(size), filePath(std::move(path)) {}

  int fileFd = -1;
  uint64_t fileSize = 0;
  std::string filePath;
};

/// A file being written. If it is destroyed before a successful close(), the
/// partial file is removed, so a failed write leaves no truncated output.
class OutputFile {
public:
  /// Creates or truncates `path`.
  static Result<OutputFile> create(const std::string &path);

  OutputFile(OutputFile &&other) noexcept;
  OutputFile &operator=(OutputFile &&other) = delete;
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;
  ~OutputFile();

  Status write(const void *data, size_t count);
  Status write(const std::string &bytes) {
    return write(bytes.data(), bytes.size());
  }
  /// Bytes written so far.
  uint64_t offset() const { return written; }
  /// Closes the file, reporting a failure to flush it.
  Status close();

private:
  OutputFile(int fd, std::string path)
      : fileFd(fd), filePath(std::move(path)) {}

  int fileFd = -1;
  uint64_t written = 0;
  std::string filePath;
};

} // namespace fx::rt::detail

#endif // FX_RUNTIME_FILEIO_H
