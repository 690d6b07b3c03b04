#include "cpuid.hpp"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <mutex>

namespace infercap::calibration::cpu {

namespace {

constexpr int kArchGetXcompPerm = 0x1022;
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

uint64_t xgetbv0() {
  uint32_t eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}

IsaSupport probe() {
  IsaSupport s;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return s;
  const unsigned max_leaf = a;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  s.vendor = vendor;
  __get_cpuid(1, &a, &b, &c, &d);
  const bool osxsave = (c >> 27) & 1U;
  s.fma = (c >> 12) & 1U;
  s.f16c = (c >> 29) & 1U;
  s.hypervisor = (c >> 31) & 1U;
  if (osxsave) {
    const uint64_t xcr0 = xgetbv0();
    s.os_avx = (xcr0 & 0x6) == 0x6;                   // XMM | YMM
    s.os_avx512 = s.os_avx && (xcr0 & 0xe0) == 0xe0;  // opmask | ZMM_Hi256 | Hi16_ZMM
    s.os_amx = (xcr0 & 0x60000) == 0x60000;           // XTILECFG | XTILEDATA
  }
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    s.avx2 = (b >> 5) & 1U;
    s.avx512f = (b >> 16) & 1U;
    s.avx512dq = (b >> 17) & 1U;
    s.avx512bw = (b >> 30) & 1U;
    s.avx512vl = (b >> 31) & 1U;
    s.avx512_vnni = (c >> 11) & 1U;
    s.avx512_vp2intersect = (d >> 8) & 1U;
    s.amx_bf16 = (d >> 22) & 1U;
    s.amx_tile = (d >> 24) & 1U;
    s.amx_int8 = (d >> 25) & 1U;
    __cpuid_count(7, 1, a, b, c, d);
    s.avx512_bf16 = (a >> 5) & 1U;
  }
  unsigned ext = __get_cpuid_max(0x80000000U, nullptr);
  if (ext >= 0x80000004U) {
    char brand[49] = {};
    for (size_t i = 0; i < 3; ++i) {
      __get_cpuid(0x80000002U + static_cast<unsigned>(i), &a, &b, &c, &d);
      std::memcpy(brand + 16 * i, &a, 4);
      std::memcpy(brand + 16 * i + 4, &b, 4);
      std::memcpy(brand + 16 * i + 8, &c, 4);
      std::memcpy(brand + 16 * i + 12, &d, 4);
    }
    s.brand = brand;
    while (!s.brand.empty() && s.brand.back() == ' ') s.brand.pop_back();
    while (!s.brand.empty() && s.brand.front() == ' ') s.brand.erase(0, 1);
  }
  return s;
}

}  // namespace

const IsaSupport& isa() {
  static const IsaSupport s = probe();
  return s;
}

Availability avx2_available() {
  const auto& s = isa();
  if (!s.avx2 || !s.fma || !s.f16c) return Availability::no("CPU lacks AVX2/FMA/F16C (CPUID)");
  if (!s.os_avx) return Availability::no("OS does not enable YMM state (XCR0)");
  return Availability::yes("AVX2 + FMA");
}

Availability avx512_available() {
  const auto& s = isa();
  if (!(s.avx512f && s.avx512bw && s.avx512vl && s.avx512dq))
    return Availability::no("CPU lacks AVX-512 F/BW/VL/DQ (CPUID leaf 7)");
  if (!s.os_avx512) return Availability::no("OS does not enable ZMM state (XCR0)");
  if (!s.f16c || !s.fma) return Availability::no("CPU lacks F16C/FMA");
  return Availability::yes("AVX-512");
}

Availability avx512_bf16_available() {
  Availability a = avx512_available();
  if (!a.available) return a;
  if (!isa().avx512_bf16)
    return Availability::no("CPU lacks AVX512_BF16 (CPUID leaf 7.1 EAX bit 5)");
  return Availability::yes("AVX-512 BF16");
}

Availability avx512_vnni_available() {
  Availability a = avx512_available();
  if (!a.available) return a;
  if (!isa().avx512_vnni)
    return Availability::no("CPU lacks AVX512_VNNI (CPUID leaf 7 ECX bit 11)");
  return Availability::yes("AVX-512 VNNI");
}

Availability amx_available(bool int8) {
  const auto& s = isa();
  if (!s.amx_tile) return Availability::no("CPU lacks AMX-TILE (CPUID leaf 7 EDX bit 24)");
  if (int8 && !s.amx_int8) return Availability::no("CPU lacks AMX-INT8 (CPUID leaf 7 EDX bit 25)");
  if (!int8 && !s.amx_bf16) return Availability::no("CPU lacks AMX-BF16 (CPUID leaf 7 EDX bit 22)");
  if (!s.os_amx) return Availability::no("OS does not enable AMX tile state (XCR0 bits 17-18)");
  Availability avx = avx512_available();
  if (!avx.available) return avx;
  // Linux hands out the large XTILEDATA state per process on request (ARCH_REQ_XCOMP_PERM).
  static std::once_flag once;
  static long rc = -1;
  std::call_once(once, [] {
    rc = syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata);
    if (rc == 0) {
      unsigned long bitmask = 0;
      if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &bitmask) != 0 ||
          (bitmask & (1UL << kXfeatureXtiledata)) == 0)
        rc = -1;
    }
  });
  if (rc != 0)
    return Availability::no("the OS refused AMX tile data (arch_prctl ARCH_REQ_XCOMP_PERM failed)");
  return Availability::yes(int8 ? "AMX-INT8" : "AMX-BF16");
}

std::string isa_flags() {
  const auto& s = isa();
  std::string out;
  auto add = [&](bool on, const char* name) {
    if (!on) return;
    if (!out.empty()) out += ' ';
    out += name;
  };
  add(s.avx2, "avx2");
  add(s.fma, "fma");
  add(s.f16c, "f16c");
  add(s.avx512f, "avx512f");
  add(s.avx512bw, "avx512bw");
  add(s.avx512vl, "avx512vl");
  add(s.avx512dq, "avx512dq");
  add(s.avx512_bf16, "avx512_bf16");
  add(s.avx512_vnni, "avx512_vnni");
  add(s.avx512_vp2intersect, "avx512_vp2intersect");
  add(s.amx_tile, "amx_tile");
  add(s.amx_bf16, "amx_bf16");
  add(s.amx_int8, "amx_int8");
  add(s.hypervisor, "hypervisor");
  return out;
}

}  // namespace infercap::calibration::cpu
