# models/calibrate.cmake - calibration: micro-benchmark parsing (models/bench_parse), the GSL
# fit (models/calibrate), model files (models/model_file, libxml2 + models/model.xsd compiled
# in), `tunesim calibrate` (sim/calibrate_cmd) and the tunesim-probe MPI program (built only
# when MPI is found). Included from CMakeLists.txt.

pkg_check_modules(GSL REQUIRED IMPORTED_TARGET gsl)
pkg_check_modules(LIBXML2 REQUIRED IMPORTED_TARGET libxml-2.0)

# The schema goes into the program as bytes, so that a model file is validated without the
# source tree. Regenerated when model.xsd changes (configure dependency); written only when
# its content changes, so that an unchanged schema recompiles nothing.
set(ts_xsd_src ${CMAKE_SOURCE_DIR}/models/model.xsd)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ts_xsd_src})
file(READ ${ts_xsd_src} ts_xsd_hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," ts_xsd_hex "${ts_xsd_hex}")
file(WRITE ${CMAKE_BINARY_DIR}/generated/model_xsd.inc.new "${ts_xsd_hex}0x00\n")
configure_file(${CMAKE_BINARY_DIR}/generated/model_xsd.inc.new
               ${CMAKE_BINARY_DIR}/generated/model_xsd.inc COPYONLY)

target_sources(tunesim_core PRIVATE models/bench_parse.c models/calibrate.c models/model_file.c)
target_include_directories(tunesim_core PRIVATE ${CMAKE_BINARY_DIR}/generated)
target_link_libraries(tunesim_core PUBLIC PkgConfig::GSL PkgConfig::LIBXML2)
target_sources(tunesim PRIVATE sim/calibrate_cmd.c)

# tunesim-probe: an MPI program users run with the application's mpirun settings. Built
# without sanitizers (mpirun's processes cannot load the ASan runtime late), like the tracer.
find_package(MPI COMPONENTS C QUIET)
if(MPI_C_FOUND)
  add_executable(tunesim-probe models/probe/tunesim_probe.c)
  target_link_libraries(tunesim-probe PRIVATE MPI::MPI_C)
  set_target_properties(tunesim-probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  foreach(prop COMPILE_OPTIONS LINK_OPTIONS)
    get_target_property(opts tunesim-probe ${prop})
    if(opts)
      list(FILTER opts EXCLUDE REGEX "sanitize")
      set_target_properties(tunesim-probe PROPERTIES ${prop} "${opts}")
    endif()
  endforeach()
else()
  message(STATUS "MPI not found: tunesim-probe is not built")
endif()
