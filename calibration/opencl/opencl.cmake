# OpenCL backend (issue 5): kernels are compiled by the driver at run time, so building it costs
# one C++ file. On by default when the OpenCL headers and ICD loader are found; never required.
# It is a module, libinfercap-backend-opencl.so (calibration/CMakeLists.txt): only the module
# links libOpenCL, and infercap opens it when `calibrate --backend opencl` or `--list` asks.
find_package(OpenCL QUIET)
option(INFERCAP_WITH_OPENCL "Build the OpenCL calibration backend module" ${OpenCL_FOUND})
if(INFERCAP_WITH_OPENCL)
  find_package(OpenCL REQUIRED)
  infercap_add_backend_module(opencl ${CMAKE_CURRENT_LIST_DIR}/opencl_backend.cpp)
  target_link_libraries(infercap-backend-opencl PRIVATE OpenCL::OpenCL)
endif()
