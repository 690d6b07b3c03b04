// Format dispatch and the atomic write shared by every format.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "infercap/report/render.hpp"
#include "infercap/spec/atomic_write.hpp"

namespace infercap::report {

Result<Format> format_for_path(std::string_view path) {
  const size_t dot = path.rfind('.');
  std::string ext = dot == std::string_view::npos ? "" : std::string(path.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (ext == "md" || ext == "markdown") return Format::markdown;
  if (ext == "html" || ext == "htm") return Format::html;
  if (ext == "pdf") return Format::pdf;
  if (ext == "xlsx") return Format::xlsx;
  return Error{"report file '" + std::string(path) +
               "': expected an extension .md, .html, .pdf or .xlsx, found '" +
               (ext.empty() ? std::string("none") : "." + ext) + "'"};
}

Result<Format> render_to_path(const Document& d, const std::string& path, bool force) {
  auto f = format_for_path(path);
  if (!f) return f;
  if (auto ok = spec::check_output_path(path, force); !ok) return ok.error();
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path tmp =
      target.parent_path() / (".~" + target.filename().string() + "." + std::to_string(::getpid()));
  auto fail = [&](std::string why) -> Result<Format> {
    std::error_code ec;
    fs::remove(tmp, ec);
    // A renderer's own message may name the temporary file it wrote; the user knows `path`.
    for (auto p = why.find(tmp.string()); p != std::string::npos; p = why.find(tmp.string()))
      why.replace(p, tmp.string().size(), path);
    return Error{"cannot write " + path + " (" + why + ")"};
  };
  if (*f == Format::markdown || *f == Format::html) {
    const std::string text = *f == Format::markdown ? render_markdown(d) : render_html(d);
    std::FILE* out = std::fopen(tmp.c_str(), "wb");
    if (out == nullptr) return fail(std::strerror(errno));
    const bool wrote = std::fwrite(text.data(), 1, text.size(), out) == text.size();
    int err = wrote ? 0 : errno;
    if (std::fclose(out) != 0 && err == 0) err = errno;
    if (!wrote || err != 0) return fail(std::strerror(err != 0 ? err : EIO));
  } else {
    auto r = *f == Format::pdf ? write_pdf(d, tmp.string()) : write_xlsx(d, tmp.string());
    if (!r) return fail(r.error().message);
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) return fail(ec.message());
  return *f;
}

}  // namespace infercap::report
