#pragma once
// One unit table for the whole project. Inside infercap every quantity is SI (bytes, seconds,
// FLOP/s, bytes/s, watts, joules); human strings such as "3.35 TB/s" or "80 GiB" are converted
// here and nowhere else. The dimension a key expects comes from its name's suffix
// (`bandwidth_bytes_per_s`, `memory_bytes`, `ttft_p99_s`, `tdp_w`), so the key documents its unit.
#include <string>
#include <string_view>

#include "infercap/result.hpp"

namespace infercap {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * kKiB;
inline constexpr double kGiB = 1024.0 * kMiB;
inline constexpr double kKB = 1e3;
inline constexpr double kMB = 1e6;
inline constexpr double kGB = 1e9;
inline constexpr double kTB = 1e12;
inline constexpr double kTera = 1e12;
inline constexpr double kGiga = 1e9;

enum class Dim {
  dimensionless,
  bytes,
  bytes_per_s,
  flops,
  flops_per_s,
  seconds,
  watts,
  joules,
  hertz,
  tokens_per_s,
  per_s,  // request rates (QPS)
  money,  // in the currency the surrounding file names
  money_per_kwh,
};

std::string_view dim_name(Dim d);
/// Canonical SI unit spelled for messages, e.g. "bytes/s".
std::string_view dim_unit(Dim d);

/// The dimension a spec key's name implies from its suffix, e.g. "_bytes_per_s" -> bytes_per_s,
/// "_bytes" -> bytes, "_flops_per_s" -> flops_per_s, "_s" -> seconds, "_w" -> watts,
/// "_hz" -> hertz, "_qps" / "_per_s" -> per_s, "_usd" / "_cny" -> money. Keys with no unit suffix
/// are dimensionless.
Dim dim_from_key(std::string_view key);

/// Parses "3.35 TB/s", "80 GiB", "989 TFLOP/s", "700 W", "0.5 s", "250 ms", "1.2e9" (a bare number
/// is already SI) into SI units, checking the unit's dimension against `expected`.
/// Decimal prefixes (k, M, G, T, P) are powers of 1000; binary ones (Ki, Mi, Gi, Ti) of 1024.
Result<double> parse_quantity(std::string_view text, Dim expected);

/// Formats an SI value with a readable prefix, e.g. 3.35e12 bytes/s -> "3.35 TB/s".
std::string format_quantity(double si_value, Dim d, int significant = 3);

}  // namespace infercap
