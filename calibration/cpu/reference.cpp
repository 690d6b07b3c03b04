#include "reference.hpp"

#include <cblas.h>
#include <omp.h>

extern "C" void openblas_set_num_threads(int);

namespace infercap::calibration::reference {

void stream_triad_omp(float* a, const float* b, const float* c, float s, long n, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

void stream_init_omp(float* a, float* b, float* c, long n, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = 1;
    c[i] = 2;
  }
}

void openblas_sgemv(const float* w, const float* x, float* y, long n, long k, int threads) {
  openblas_set_num_threads(threads);
  cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(n), static_cast<int>(k), 1.0f, w,
              static_cast<int>(k), x, 1, 0.0f, y, 1);
}

}  // namespace infercap::calibration::reference
