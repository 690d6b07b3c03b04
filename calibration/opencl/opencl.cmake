# OpenCL backend (issue 5): kernels are compiled by the driver at run time, so building it costs
# one C++ file. On by default when the OpenCL headers and ICD loader are found; never required.
find_package(OpenCL QUIET)
option(INFERCAP_WITH_OPENCL "Build the OpenCL calibration backend" ${OpenCL_FOUND})
if(INFERCAP_WITH_OPENCL)
  find_package(OpenCL REQUIRED)
  target_sources(infercap_calibration PRIVATE ${CMAKE_CURRENT_LIST_DIR}/opencl_backend.cpp)
  target_link_libraries(infercap_calibration PUBLIC OpenCL::OpenCL)
  target_compile_definitions(infercap_calibration PUBLIC INFERCAP_HAVE_OPENCL=1)
endif()
