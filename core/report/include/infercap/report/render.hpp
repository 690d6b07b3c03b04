#pragma once
// One renderer per format over the one document model (document.hpp). Text formats return a
// string; PDF and XLSX write a file. `render_to_path` picks the format from the extension and
// writes the whole file or nothing (a temporary beside it, then rename).
#include <string>
#include <string_view>

#include "infercap/report/document.hpp"
#include "infercap/result.hpp"

namespace infercap::report {

enum class Format : unsigned char { markdown, html, pdf, xlsx };

/// ".md", ".markdown", ".html", ".htm", ".pdf", ".xlsx" (case-insensitive); Error otherwise.
Result<Format> format_for_path(std::string_view path);

/// GitHub-flavoured Markdown. User text is escaped so that `|`, `<!--`, `*`, backticks or a
/// leading `#` cannot change the document's structure.
std::string render_markdown(const Document& d);
/// One self-contained HTML file: inline CSS and SVG charts, no external requests, print styles.
/// Every string is HTML-escaped.
std::string render_html(const Document& d);
/// Cairo PDF: A4 pages, a table of contents with page numbers, page numbers in the footer,
/// embedded font subsets (Noto Sans CJK, so Chinese renders). Returns the page count.
Result<int> write_pdf(const Document& d, const std::string& path);
/// libxlsxwriter workbook: a sheet per section, numbers as numbers, formula columns and totals
/// as live formulas, native charts.
Result<int> write_xlsx(const Document& d, const std::string& path);

/// Renders `d` to `path` in the format of its extension; atomic (temporary file + rename).
/// `path` is checked first as every output is (spec/atomic_write.hpp, check_output_path: a
/// symbolic link or a read-only file only with `force`); a failure names `path` and the reason,
/// never the temporary file.
Result<Format> render_to_path(const Document& d, const std::string& path, bool force = false);

/// Escapers, exposed for tests.
std::string html_escape(std::string_view s);
std::string markdown_escape(std::string_view s);

}  // namespace infercap::report
