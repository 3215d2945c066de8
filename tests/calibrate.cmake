# tests/calibrate.cmake - the calibration tests, on committed inputs only: test_calibrate
# (parser, fit, model files, --model in settings) and test_calibrate_cli (--model in replays
# and sweeps, the CLI, the probe), helpers in calibcheck.c; and test_calibrate_shared (the
# BM.Optimized3.36 micro-benchmarks in ../shared/reference/microbench: parsed, the shipped
# calibration checked current, predicted vs measured; skipped when ../shared is absent).
# Included from tests/CMakeLists.txt.
add_library(tunesim_calibcheck STATIC calibcheck.c)
target_link_libraries(tunesim_calibcheck PUBLIC tunesim_testutil)
tunesim_test(test_calibrate tunesim_calibcheck tunesim_calibration)
add_dependencies(test_calibrate tunesim)
tunesim_test(test_calibrate_cli tunesim_calibcheck tunesim_calibration)
add_dependencies(test_calibrate_cli tunesim)
tunesim_test(test_calibrate_shared tunesim_calibration)
add_dependencies(test_calibrate_shared tunesim)
target_compile_definitions(test_calibrate_shared PRIVATE
  TS_SHARED_MICROBENCH="${CMAKE_SOURCE_DIR}/../shared/reference/microbench")

# The probe itself, run briefly under mpirun by test_calibrate_cli (where CMake found MPI, as
# calibration/CMakeLists.txt builds it then).
find_package(MPI COMPONENTS C QUIET)
if(MPI_C_FOUND)
  add_dependencies(test_calibrate_cli tunesim-probe)
  target_compile_definitions(test_calibrate_cli PRIVATE
    TS_PROBE="$<TARGET_FILE:tunesim-probe>" TS_PROBE_MPIEXEC="${MPIEXEC_EXECUTABLE}")
endif()
