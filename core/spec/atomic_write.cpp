#include "infercap/spec/atomic_write.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace infercap::spec {

namespace {

Error os_error(const std::string& path, int err) {
  return Error{fmt::format("cannot write {} ({})", path, std::strerror(err))};
}

// The target a symbolic link names, as written in the link ("?" if it cannot be read).
std::string link_target(const std::string& path) {
  std::error_code ec;
  const auto t = std::filesystem::read_symlink(path, ec);
  return ec ? std::string("?") : t.string();
}

}  // namespace

Result<std::string> check_output_path(const std::string& path, bool force) {
  if (path.empty()) return Error{"cannot write a file without a name"};
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      if (!force) {
        return Error{fmt::format(
            "refusing to replace {}: it is a symbolic link to {} (pass --force to replace the "
            "link with a file; its target is left alone)",
            path, link_target(path))};
      }
      return path;
    }
    if (S_ISDIR(st.st_mode)) return Error{fmt::format("cannot write {} (it is a directory)", path)};
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
    return path;
  }
  if (errno != ENOENT) return os_error(path, errno);
  // A new file: its folder must exist (the temporary file is created there).
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    struct stat pst {};
    if (::stat(parent.c_str(), &pst) != 0) {
      return Error{
          fmt::format("cannot write {} (its folder {} does not exist)", path, parent.string())};
    }
    if (!S_ISDIR(pst.st_mode))
      return Error{fmt::format("cannot write {} ({} is not a folder)", path, parent.string())};
  }
  return path;
}

Result<std::string> write_file_atomically(const std::string& path, std::string_view text,
                                          bool force) {
  if (auto ok = check_output_path(path, force); !ok) return ok;
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
