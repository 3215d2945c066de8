# tests/calibrate.cmake - the calibration tests: test_calibrate (parser, fit, model files,
# --model, the CLI; committed inputs only) and test_calibrate_shared (the BM.Optimized3.36
# micro-benchmarks in ../shared/reference/microbench: parsed, the shipped calibration checked
# current, predicted vs measured; skipped when ../shared is absent). Included from
# tests/CMakeLists.txt.
tunesim_test(test_calibrate tunesim_calibration)
add_dependencies(test_calibrate tunesim)
tunesim_test(test_calibrate_shared tunesim_calibration)
add_dependencies(test_calibrate_shared tunesim)
target_compile_definitions(test_calibrate_shared PRIVATE
  TS_SHARED_MICROBENCH="${CMAKE_SOURCE_DIR}/../shared/reference/microbench")

# The probe itself, run briefly under mpirun by test_calibrate (where CMake found MPI, as
# calibration/CMakeLists.txt builds it then).
find_package(MPI COMPONENTS C QUIET)
if(MPI_C_FOUND)
  add_dependencies(test_calibrate tunesim-probe)
  target_compile_definitions(test_calibrate PRIVATE
    TS_PROBE="$<TARGET_FILE:tunesim-probe>" TS_PROBE_MPIEXEC="${MPIEXEC_EXECUTABLE}")
endif()
