#include "infercap/report/render.hpp"
namespace infercap::report {
Result<int> write_pdf(const Document&, const std::string&) {
  return Error{"PDF not built yet"};
}
Result<int> write_xlsx(const Document&, const std::string&) {
  return Error{"XLSX not built yet"};
}
}  // namespace infercap::report
