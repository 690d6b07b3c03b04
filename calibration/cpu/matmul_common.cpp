#include <algorithm>
#include <cmath>
#include <cstring>

#include "matmul.hpp"

namespace infercap::calibration::cpu {

double PackedWeights::weight_bytes() const {
  const double nk = static_cast<double>(n) * static_cast<double>(k);
  switch (dtype) {
    case DType::fp32:
      return nk * 4;
    case DType::bf16:
      return nk * 2;
    case DType::int8:
      return nk + static_cast<double>(n) * 4;
    case DType::int4:
      return nk / 2 + nk / kInt4Block * 2;
    default:
      return 0;
  }
}

void allocate_weights(PackedWeights& p, DType dt, long n, long k, int numa_node) {
  p.dtype = dt;
  p.n = n;
  p.k = k;
  const auto nk = static_cast<std::size_t>(n) * static_cast<std::size_t>(k);
  switch (dt) {
    case DType::fp32:
      p.data = Buffer(nk * 4, numa_node);
      break;
    case DType::bf16:
      p.data = Buffer(nk * 2, numa_node);
      break;
    case DType::int8:
      p.data = Buffer(nk, numa_node);
      p.scales = Buffer(static_cast<std::size_t>(n) * 4, numa_node);
      break;
    case DType::int4:
      p.data = Buffer(nk / 2, numa_node);
      p.scales = Buffer(nk / kInt4Block * 2, numa_node);
      break;
    default:
      break;
  }
}

void pack_rows(PackedWeights& p, const float* w, long n_begin, long n_end) {
  for (long r = n_begin; r < n_end; ++r) pack_row(p, w + r * p.k, r);
}

void pack_row(PackedWeights& p, const float* src, long r) {
  const long k = p.k;
  {
    switch (p.dtype) {
      case DType::fp32:
        std::memcpy(p.data.as<float>() + r * k, src, sizeof(float) * k);
        break;
      case DType::bf16: {
        uint16_t* dst = p.data.as<uint16_t>() + r * k;
        for (long i = 0; i < k; ++i) dst[i] = fp32_to_bf16(src[i]);
        break;
      }
      case DType::int8: {
        float amax = 0;
        for (long i = 0; i < k; ++i) amax = std::max(amax, std::fabs(src[i]));
        const float d = amax > 0 ? amax / 127.0f : 1.0f;
        p.scales.as<float>()[r] = d;
        uint8_t* dst = p.data.as<uint8_t>() + r * k;
        for (long i = 0; i < k; ++i) {
          const long q = std::lround(src[i] / d);
          dst[i] = static_cast<uint8_t>(std::clamp(q, -127L, 127L) + 128);
        }
        break;
      }
      case DType::int4: {
        uint8_t* dst = p.data.as<uint8_t>() + r * k / 2;
        uint16_t* sc = p.scales.as<uint16_t>() + r * (k / kInt4Block);
        for (long b = 0; b < k / kInt4Block; ++b) {
          const float* blk = src + b * kInt4Block;
          float amax = 0;
          for (long i = 0; i < kInt4Block; ++i) amax = std::max(amax, std::fabs(blk[i]));
          const uint16_t h = fp32_to_fp16(amax > 0 ? amax / 7.0f : 1.0f);
          sc[b] = h;
          const float d = fp16_to_fp32(h);  // quantise with the scale the kernel will use
          auto q = [&](long i) {
            return static_cast<unsigned>(std::clamp(std::lround(blk[i] / d), -8L, 7L) + 8);
          };
          for (long i = 0; i < kInt4Block / 2; ++i)
            dst[b * 16 + i] = static_cast<uint8_t>(q(i) | (q(i + 16) << 4));
        }
        break;
      }
      default:
        break;
    }
  }
}

double dequant(const PackedWeights& p, long row, long col) {
  const long k = p.k;
  switch (p.dtype) {
    case DType::fp32:
      return p.data.as<float>()[row * k + col];
    case DType::bf16:
      return bf16_to_fp32(p.data.as<uint16_t>()[row * k + col]);
    case DType::int8:
      return (static_cast<int>(p.data.as<uint8_t>()[row * k + col]) - 128) *
             static_cast<double>(p.scales.as<float>()[row]);
    case DType::int4: {
      const long b = col / kInt4Block, i = col % kInt4Block;
      const uint8_t byte = p.data.as<uint8_t>()[row * k / 2 + b * 16 + (i % 16)];
      const int q = (i < 16 ? (byte & 0xf) : (byte >> 4)) - 8;
      return q *
             static_cast<double>(fp16_to_fp32(p.scales.as<uint16_t>()[row * (k / kInt4Block) + b]));
    }
    default:
      return 0;
  }
}

Activations::Activations(ActFormat f, long m_, long k_, bool amx_layout)
    : fmt(f), m(m_), k(k_), amx(amx_layout) {
  const auto mk = static_cast<std::size_t>(m) * static_cast<std::size_t>(k);
  const auto mpad = static_cast<std::size_t>((m + 15) / 16 * 16);
  if (f == ActFormat::bf16) {
    bf16 = Buffer(mk * 2, -1);
    if (amx) vnni = Buffer(mpad * static_cast<std::size_t>(k) * 2, -1);
  } else if (f == ActFormat::q8) {
    q = Buffer(mk, -1);
    d = Buffer(static_cast<std::size_t>(m) * 4, -1);
    sum = Buffer(static_cast<std::size_t>(m) * 4, -1);
    corr4 = Buffer(mk + 4, -1);
    if (amx) vnni = Buffer(mpad * static_cast<std::size_t>(k), -1);
  }
  if (amx) std::memset(vnni.as<void>(), 0, vnni.bytes());
}

void prepare_activations(Activations& a, const float* x, long m_begin, long m_end) {
  const long k = a.k;
  if (a.fmt == ActFormat::bf16) {
    for (long r = m_begin; r < m_end; ++r) {
      uint16_t* dst = a.bf16.as<uint16_t>() + r * k;
      const float* src = x + r * k;
      for (long i = 0; i < k; ++i) dst[i] = fp32_to_bf16(src[i]);
      if (a.amx) {
        // [k/2][16][2] per block of 16 rows
        uint16_t* v = a.vnni.as<uint16_t>() + (r / 16) * 16 * k;
        const long j = r % 16;
        for (long i = 0; i < k; i += 2) {
          v[(i / 2) * 32 + j * 2] = dst[i];
          v[(i / 2) * 32 + j * 2 + 1] = dst[i + 1];
        }
      }
    }
  } else if (a.fmt == ActFormat::q8) {
    for (long r = m_begin; r < m_end; ++r) {
      const float* src = x + r * k;
      float amax = 0;
      for (long i = 0; i < k; ++i) amax = std::max(amax, std::fabs(src[i]));
      const float d = amax > 0 ? amax / 127.0f : 1.0f;
      const float inv = 1.0f / d;
      int8_t* dst = a.q.as<int8_t>() + r * k;
      int32_t total = 0;
      int32_t* c4 = a.corr4.as<int32_t>() + r * (k / 4);
      for (long b = 0; b < k / 4; ++b) {
        int32_t s = 0;
        for (long i = b * 4; i < b * 4 + 4; ++i) {
          const int q = static_cast<int>(std::nearbyint(src[i] * inv));
          dst[i] = static_cast<int8_t>(std::clamp(q, -127, 127));
          s += dst[i];
        }
        c4[b] = -8 * s;
        total += s;
      }
      a.d.as<float>()[r] = d;
      a.sum.as<int32_t>()[r] = total;
      if (a.amx) {
        // [k/4][16][4] per block of 16 rows
        int8_t* v = a.vnni.as<int8_t>() + (r / 16) * 16 * k;
        const long j = r % 16;
        for (long i = 0; i < k; i += 4)
          for (long t = 0; t < 4; ++t) v[(i / 4) * 64 + j * 4 + t] = dst[i + t];
      }
    }
  }
}

double act_value(const Activations& a, const float* x, long row, long col) {
  switch (a.fmt) {
    case ActFormat::f32:
      return x[row * a.k + col];
    case ActFormat::bf16:
      return bf16_to_fp32(a.bf16.as<uint16_t>()[row * a.k + col]);
    case ActFormat::q8:
      return a.q.as<int8_t>()[row * a.k + col] * static_cast<double>(a.d.as<float>()[row]);
  }
  return 0;
}

MatmulCheck check_matmul(const PackedWeights& w, const Activations& a, const float* x,
                         const float* y, long m) {
  MatmulCheck c;
  // Large shapes: a strided subset of output features (always the last, which ends the tails),
  // so a check stays around 4M multiply-adds.
  const double work = static_cast<double>(m) * static_cast<double>(w.n) * static_cast<double>(w.k);
  const long step = std::max(1L, static_cast<long>(work / 4e6));
  for (long r = 0; r < m; ++r) {
    for (long j = 0; j < w.n; j = (j + step < w.n || j == w.n - 1) ? j + step : w.n - 1) {
      double ref = 0, mag = 0;
      for (long i = 0; i < w.k; ++i) {
        const double p = dequant(w, j, i) * act_value(a, x, r, i);
        ref += p;
        mag += std::fabs(p);
      }
      const double err = std::fabs(y[r * w.n + j] - ref) / (mag > 0 ? mag : 1.0);
      if (!(err <= c.error)) {  // also catches NaN
        c.error = std::isnan(err) ? INFINITY : err;
        c.worst_m = r;
        c.worst_n = j;
      }
    }
  }
  return c;
}

}  // namespace infercap::calibration::cpu
