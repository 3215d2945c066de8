# tests/calibrate.cmake - the calibration tests: test_calibrate (parser, fit, model files,
# --model, the CLI; committed inputs only) and test_calibrate_shared (the BM.Optimized3.36
# micro-benchmarks in ../shared/reference/microbench: parsed, the shipped calibration checked
# current, predicted vs measured; skipped when ../shared is absent). Included from
# tests/CMakeLists.txt.
tunesim_test(test_calibrate)
add_dependencies(test_calibrate tunesim)
tunesim_test(test_calibrate_shared)
add_dependencies(test_calibrate_shared tunesim)
target_compile_definitions(test_calibrate_shared PRIVATE
  TS_SHARED_MICROBENCH="${CMAKE_SOURCE_DIR}/../shared/reference/microbench")
