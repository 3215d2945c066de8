# tests/validate.cmake - tests of `tunesim validate`: the measured-runs reader and statistics
# (models/measured.c), the comparison and its reports (sim/validate_cmd.c, linked in), the
# CLI, and the committed localhost validation re-derived from its logs.
tunesim_test(test_validate PkgConfig::JSONC m)
target_sources(test_validate PRIVATE ${CMAKE_SOURCE_DIR}/sim/validate_cmd.c)
add_dependencies(test_validate tunesim)
