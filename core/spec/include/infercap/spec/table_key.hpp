#pragma once
// A name checked against a reader's table when the reader is compiled. Readers of formats with a
// fixed set of columns or keys (calibrate's imports, validate's measurement CSV) keep that set
// as a constexpr table of entries with a `name` (and whatever else the reader needs: bounds,
// whether it is required), document it from the same table, and name each column they read
// through TableKey<table>: its constructor is consteval and looks the name up, so a column read
// but not listed is a compile error, not documentation that has drifted.
//
//   inline constexpr Column kColumns[] = {{"value", ...}, ...};
//   using Col = spec::TableKey<kColumns>;
//   auto get = [&](Col c) { ... c.name() ... c->bounds ... };
//   get("value");   // compiles; get("valeu") does not
#include <string_view>
#include <type_traits>

namespace infercap::spec {

template <const auto& Table>
class TableKey {
 public:
  using Entry = std::remove_cvref_t<decltype(Table[0])>;

  /// Implicit on purpose: a reader writes get("value"). Only a constant name compiles.
  consteval TableKey(const char* name)
      : entry_(find(name)) {}  // NOLINT(google-explicit-constructor)

  std::string_view name() const { return entry_->name; }
  const Entry& entry() const { return *entry_; }
  const Entry* operator->() const { return entry_; }

 private:
  static consteval const Entry* find(std::string_view name) {
    for (const auto& e : Table)
      if (e.name == name) return &e;
    throw "a name the reader reads is missing from its table";
  }

  const Entry* entry_;
};

}  // namespace infercap::spec
