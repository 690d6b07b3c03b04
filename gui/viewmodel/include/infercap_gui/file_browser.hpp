#pragma once
// The state of the GUI's own file dialog (drawn with ImGui, so it works under Xvfb and needs no
// desktop portal): a folder, its entries, and the name typed. No ImGui here.
#include <string>
#include <vector>

namespace infercap::gui {

struct DirEntry {
  std::string name;  ///< file or folder name, no path
  bool folder = false;
};

/// Folders first, then files whose name ends in one of `extensions` (".yaml", ".yml"), each
/// group sorted by name; hidden entries (leading '.') left out. An unreadable folder gives an
/// empty list.
std::vector<DirEntry> list_dir(const std::string& folder,
                               const std::vector<std::string>& extensions);

struct FileBrowser {
  enum class Mode { open, save };
  Mode mode = Mode::open;
  std::string purpose;  ///< what the chosen path is for ("scenario", "csv", "png")
  std::vector<std::string> extensions = {".yaml", ".yml"};
  bool visible = false;
  std::string folder;
  std::string name;  ///< typed or clicked file name
  std::vector<DirEntry> entries;
  std::string error;

  /// Shows the dialog in `start_folder` (made absolute) with `name` pre-filled.
  void show(Mode m, const std::string& start_folder, const std::string& file_name = "",
            std::string what = "scenario", std::vector<std::string> exts = {".yaml", ".yml"});
  /// Enters a sub-folder, or ".." for the parent; re-lists.
  void enter(const std::string& sub);
  /// The chosen path (folder / name), or "" when no name is given.
  std::string chosen() const;
};

}  // namespace infercap::gui
