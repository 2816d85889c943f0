//===- FileIO.cpp - POSIX file reading and writing with Status ------------===//

#include "FileIO.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace fx::rt;
using namespace fx::rt::detail;

std::string fx::rt::detail::errnoMessage() { return std::strerror(errno); }

//===----------------------------------------------------------------------===//
// InputFile
//===----------------------------------------------------------------------===//

Result<InputFile> InputFile::open(const std::string &path) {
  int fd;
  do
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return Status::error(path + ": cannot open: " + errnoMessage());
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    std::string reason = errnoMessage();
    ::close(fd);
    return Status::error(path + ": cannot stat: " + reason);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return Status::error(path + ": cannot open: not a regular file");
  }
  return InputFile(fd, uint64_t(info.st_size), path);
}

InputFile::InputFile(InputFile &&other) noexcept
    : fileFd(other.fileFd), fileSize(other.fileSize),
      filePath(std::move(other.filePath)) {
  other.fileFd = -1;
}

InputFile &InputFile::operator=(InputFile &&other) noexcept {
  if (this != &other) {
    if (fileFd >= 0)
      ::close(fileFd);
    fileFd = other.fileFd;
    fileSize = other.fileSize;
    filePath = std::move(other.filePath);
    other.fileFd = -1;
  }
  return *this;
}

InputFile::~InputFile() {
  if (fileFd >= 0)
    ::close(fileFd);
}

Status InputFile::readAt(uint64_t offset, void *dst, size_t count) const {
  auto *out = static_cast<char *>(dst);
  while (count > 0) {
    // Linux transfers at most ~2 GiB per call.
    size_t chunk = count < (size_t(1) << 30) ? count : (size_t(1) << 30);
    ssize_t got = ::pread(fileFd, out, chunk, off_t(offset));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return Status::error(filePath + ": read failed: " + errnoMessage());
    if (got == 0)
      return Status::error(filePath +
                           ": unexpected end of file (was it truncated while "
                           "being read?)");
    out += got;
    offset += uint64_t(got);
    count -= size_t(got);
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// OutputFile
//===----------------------------------------------------------------------===//

Result<OutputFile> OutputFile::create(const std::string &path) {
  int fd;
  do
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return Status::error(path + ": cannot open for writing: " + errnoMessage());
  return OutputFile(fd, path);
}

OutputFile::OutputFile(OutputFile &&other) noexcept
    : fileFd(other.fileFd), written(other.written),
      filePath(std::move(other.filePath)) {
  other.fileFd = -1;
}

OutputFile::~OutputFile() {
  if (fileFd < 0)
    return;
  ::close(fileFd);
  ::unlink(filePath.c_str());
}

Status OutputFile::write(const void *data, size_t count) {
  const auto *in = static_cast<const char *>(data);
  while (count > 0) {
    size_t chunk = count < (size_t(1) << 30) ? count : (size_t(1) << 30);
    ssize_t done = ::write(fileFd, in, chunk);
    if (done < 0 && errno == EINTR)
      continue;
    if (done < 0)
      return Status::error(filePath + ": write failed: " + errnoMessage());
    in += done;
    written += uint64_t(done);
    count -= size_t(done);
  }
  return Status::ok();
}

Status OutputFile::close() {
  int fd = fileFd;
  fileFd = -1;
  if (::close(fd) != 0) {
    std::string reason = errnoMessage();
    ::unlink(filePath.c_str());
    return Status::error(filePath + ": write failed: " + reason);
  }
  return Status::ok();
}
