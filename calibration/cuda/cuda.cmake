# CUDA backend (issue 5). On by default when nvcc is found, never required. The kernels are one
# .cu file in a small shared library (sm_90 SASS + compute_90 PTX only, to keep nvcc time low);
# the host side (instances, cuBLAS/cuBLASLt, graphs) is plain C++ in the module
# libinfercap-backend-cuda.so (calibration/CMakeLists.txt), which alone links the CUDA runtime and
# cuBLAS: infercap opens it when `calibrate --backend cuda` or `--list` asks, so the program
# starts without mapping them and runs where they are absent. Both .so files sit side by side
# (the module finds the kernels library through its $ORIGIN run path).
if(NOT DEFINED INFERCAP_WITH_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  set(_infercap_cuda_default OFF)
  if(CMAKE_CUDA_COMPILER)
    set(_infercap_cuda_default ON)
  endif()
endif()
option(INFERCAP_WITH_CUDA "Build the CUDA calibration backend (needs nvcc; runs without a GPU)"
       ${_infercap_cuda_default})
if(INFERCAP_WITH_CUDA AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/kernels.cu)
  if(NOT CMAKE_CUDA_COMPILER)
    include(CheckLanguage)
    check_language(CUDA)
  endif()
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "INFERCAP_WITH_CUDA=ON but no CUDA compiler was found (set CUDACXX)")
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)  # sm_90 SASS + compute_90 PTX (JIT on newer GPUs)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  add_library(infercap_cuda_kernels SHARED ${CMAKE_CURRENT_LIST_DIR}/kernels.cu)
  set_target_properties(infercap_cuda_kernels PROPERTIES CUDA_RUNTIME_LIBRARY Shared
                        CUDA_STANDARD 17 POSITION_INDEPENDENT_CODE ON
                        LIBRARY_OUTPUT_DIRECTORY ${INFERCAP_MODULE_OUTPUT_DIR})
  target_compile_options(infercap_cuda_kernels PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  target_link_libraries(infercap_cuda_kernels PRIVATE CUDA::cudart)
  install(TARGETS infercap_cuda_kernels LIBRARY DESTINATION ${INFERCAP_MODULE_INSTALL_DIR})
  # The host side, one file a question (cuda_instances.hpp lists them).
  infercap_add_backend_module(cuda ${CMAKE_CURRENT_LIST_DIR}/cuda_backend.cpp
                              ${CMAKE_CURRENT_LIST_DIR}/cuda_device.cpp
                              ${CMAKE_CURRENT_LIST_DIR}/cuda_memory.cpp
                              ${CMAKE_CURRENT_LIST_DIR}/cuda_launch.cpp
                              ${CMAKE_CURRENT_LIST_DIR}/cuda_gemv.cpp
                              ${CMAKE_CURRENT_LIST_DIR}/cuda_gemm.cpp)
  target_include_directories(infercap-backend-cuda PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(infercap-backend-cuda PRIVATE infercap_cuda_kernels CUDA::cudart
                        CUDA::cublas CUDA::cublasLt)
endif()
