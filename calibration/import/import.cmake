# Measurement import (issue 5): NPU/vendor-profiler rows read into the calibration fit.
target_sources(infercap_calibration PRIVATE ${CMAKE_CURRENT_LIST_DIR}/measurement_import.cpp)
target_include_directories(infercap_calibration PUBLIC ${CMAKE_CURRENT_LIST_DIR}/include)
