# sweep.cmake - `tunesim sweep` (included from the top-level CMakeLists.txt): the sets-file
# parser (models/sets.c, plain C, in tunesim_core), the replay job shared by `tunesim replay`
# and the sweep workers, the sweep command and its reports (sim/, linked into tunesim).
target_sources(tunesim_core PRIVATE ${CMAKE_SOURCE_DIR}/models/sets.c)
target_sources(tunesim PRIVATE
  ${CMAKE_SOURCE_DIR}/sim/replay_job.c
  ${CMAKE_SOURCE_DIR}/sim/sweep_cmd.c
  ${CMAKE_SOURCE_DIR}/sim/sweep_report.c)
