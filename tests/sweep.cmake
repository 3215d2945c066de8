# tests/sweep.cmake - the sweep's tests (included from tests/CMakeLists.txt): sets files
# (test_sets, commands/sets.c) and `tunesim sweep` end to end on the bundled trace (test_sweep:
# runs the CLI, bash, and sbatch / gnuplot where installed).
tunesim_test(test_sets tunesim_commands)
tunesim_test(test_sweep PkgConfig::JSONC)
add_dependencies(test_sweep tunesim)
