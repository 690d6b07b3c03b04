// Format dispatch and the atomic write shared by every format.
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "infercap/report/render.hpp"

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

Result<Format> render_to_path(const Document& d, const std::string& path) {
  auto f = format_for_path(path);
  if (!f) return f;
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path tmp =
      target.parent_path() / (".~" + target.filename().string() + "." + std::to_string(::getpid()));
  auto fail = [&](const std::string& why) -> Result<Format> {
    std::error_code ec;
    fs::remove(tmp, ec);
    return Error{"cannot write '" + path + "': " + why};
  };
  if (*f == Format::markdown || *f == Format::html) {
    const std::string text = *f == Format::markdown ? render_markdown(d) : render_html(d);
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return fail("cannot create a file there");
    out << text;
    out.close();
    if (!out) return fail("write failed");
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
