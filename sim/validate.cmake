# sim/validate.cmake - `tunesim validate` (sim/validate_cmd.c, JSON through json-c) and the
# measured-runs reader it uses (models/measured.c, plain C in tunesim_core).
target_sources(tunesim_core PRIVATE ${CMAKE_SOURCE_DIR}/models/measured.c)
target_sources(tunesim PRIVATE ${CMAKE_SOURCE_DIR}/sim/validate_cmd.c)
target_link_libraries(tunesim PRIVATE m)
