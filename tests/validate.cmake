# tests/validate.cmake - tests of `tunesim validate`: the measured-runs reader and statistics
# (validation/measured.c), the comparison and its reports (commands/validate_cmd.c), the
# CLI, and the committed localhost validation re-derived from its logs.
tunesim_test(test_validate tunesim_commands PkgConfig::JSONC m)
add_dependencies(test_validate tunesim)
