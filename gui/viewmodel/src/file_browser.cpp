#include "infercap_gui/file_browser.hpp"

#include <algorithm>
#include <filesystem>

namespace infercap::gui {

namespace fs = std::filesystem;

std::vector<DirEntry> list_dir(const std::string& folder,
                               const std::vector<std::string>& extensions) {
  std::vector<DirEntry> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code ec2;
    if (it->is_directory(ec2)) {
      out.push_back({name, true});
      continue;
    }
    const std::string ext = it->path().extension().string();
    if (std::find(extensions.begin(), extensions.end(), ext) != extensions.end())
      out.push_back({name, false});
  }
  std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) {
    return a.folder != b.folder ? a.folder : a.name < b.name;
  });
  return out;
}

void FileBrowser::show(Mode m, const std::string& start_folder, const std::string& file_name,
                       std::string what, std::vector<std::string> exts) {
  mode = m;
  purpose = std::move(what);
  extensions = std::move(exts);
  visible = true;
  std::error_code ec;
  fs::path f = fs::absolute(start_folder.empty() ? fs::path(".") : fs::path(start_folder), ec);
  folder = (ec ? fs::path(start_folder) : f.lexically_normal()).string();
  name = file_name;
  error.clear();
  entries = list_dir(folder, extensions);
}

void FileBrowser::enter(const std::string& sub) {
  fs::path f = fs::path(folder);
  f = sub == ".." ? f.parent_path() : f / sub;
  folder = f.lexically_normal().string();
  entries = list_dir(folder, extensions);
}

std::string FileBrowser::chosen() const {
  if (name.empty()) return "";
  const fs::path n = name;
  return (n.is_absolute() ? n : fs::path(folder) / n).string();
}

}  // namespace infercap::gui
