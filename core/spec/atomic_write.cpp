#include "infercap/spec/atomic_write.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace infercap::spec {

namespace {

Error os_error(const std::string& path, int err) {
  return Error{fmt::format("cannot write {} ({})", path, std::strerror(err))};
}

}  // namespace

Result<std::string> write_file_atomically(const std::string& path, std::string_view text,
                                          bool force) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Error{fmt::format("cannot write {} (it is a directory)", path)};
    if (S_ISLNK(st.st_mode) && !force) {
      return Error{fmt::format(
          "refusing to replace {}: it is a symbolic link (pass --force to replace the link "
          "with a file)",
          path)};
    }
    // Write bits cleared counts as read-only even for root, who may write anything: the mode
    // says what the file's owner meant.
    const bool read_only =
        (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(path.c_str(), W_OK) != 0;
    if (S_ISREG(st.st_mode) && read_only && !force) {
      return Error{
          fmt::format("refusing to overwrite {}: the file is read-only (pass --force to "
                      "overwrite it)",
                      path)};
    }
  }
  // The pid keeps two concurrent writers of the same path off each other's temporary file.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* out = std::fopen(tmp.c_str(), "wb");
  if (out == nullptr) return os_error(path, errno);
  const bool wrote = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  int err = wrote ? 0 : errno;
  if (std::fflush(out) != 0 && err == 0) err = errno;
  if (std::fclose(out) != 0 && err == 0) err = errno;
  if (!wrote || err != 0) {
    std::remove(tmp.c_str());
    return os_error(path, err != 0 ? err : EIO);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    std::remove(tmp.c_str());
    return os_error(path, err);
  }
  return path;
}

}  // namespace infercap::spec
