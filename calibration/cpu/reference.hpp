#pragma once
// Reference implementations the calibration kernels are compared with in bench/: a canonical
// STREAM triad (OpenMP, static schedule, same compiler flags as cpu/matmul_avx512.cpp's streams)
// and OpenBLAS sgemv. Not used by `infercap calibrate`.
namespace infercap::calibration::reference {

/// a[i] = b[i] + s * c[i] over n floats with `threads` OpenMP threads.
void stream_triad_omp(float* a, const float* b, const float* c, float s, long n, int threads);
/// First-touch the three arrays with the same static OpenMP schedule.
void stream_init_omp(float* a, float* b, float* c, long n, int threads);
/// y = W x with W row-major n x k (cblas_sgemv, no transpose); threads via
/// openblas_set_num_threads.
void openblas_sgemv(const float* w, const float* x, float* y, long n, long k, int threads);

}  // namespace infercap::calibration::reference
