# tests/tracer.cmake - the tracer's end-to-end tests (ctest names: tracer and
# tracer_exclusive, label: mpi): the small MPI programs of tests/mpi run under `tunesim record`
# (tests/tracerrun.c), and test_tracer and test_tracer_exclusive read their traces back. Included from tests/CMakeLists.txt. Without MPI the programs are not built
# and the test skips its MPI runs (exit 77).

find_package(MPI COMPONENTS C QUIET)

# The MPI programs are run with the tracer preloaded; a sanitizer runtime linked into them
# would have to come before it in the library list, so they are built without sanitizers
# (like the tracer itself, see traces/tracer/CMakeLists.txt).
function(tunesim_tracer_unsanitized target)
  foreach(prop COMPILE_OPTIONS LINK_OPTIONS)
    get_target_property(opts ${target} ${prop})
    if(opts)
      list(FILTER opts EXCLUDE REGEX "sanitize")
      set_target_properties(${target} PROPERTIES ${prop} "${opts}")
    endif()
  endforeach()
endfunction()

set(tracer_defs TS_TRACER_LIB="" TS_MPIEXEC="" TS_MPI_BIN_DIR="")
set(tracer_deps tunesim)
if(MPI_C_FOUND AND TARGET tunesim-trace)
  foreach(prog ring pingpong collectives flood compute bursts abort slow latefail edges)
    add_executable(tracer_${prog} mpi/${prog}.c)
    target_link_libraries(tracer_${prog} PRIVATE MPI::MPI_C)
    tunesim_tracer_unsanitized(tracer_${prog})
    list(APPEND tracer_deps tracer_${prog})
  endforeach()
  list(APPEND tracer_deps tunesim-trace)
  set(tracer_defs
    TS_TRACER_LIB="$<TARGET_FILE:tunesim-trace>"
    TS_MPIEXEC="${MPIEXEC_EXECUTABLE}"
    TS_MPI_BIN_DIR="$<TARGET_FILE_DIR:tracer_ring>")
endif()

add_library(tunesim_tracerrun STATIC tracerrun.c)
target_link_libraries(tunesim_tracerrun PUBLIC tunesim_testutil tunesim_traces)
target_compile_definitions(tunesim_tracerrun PRIVATE ${tracer_defs})
add_executable(test_tracer test_tracer.c)
target_link_libraries(test_tracer PRIVATE tunesim_tracerrun tunesim_collbytes)
target_compile_definitions(test_tracer PRIVATE ${tracer_defs})
add_dependencies(test_tracer ${tracer_deps})
add_test(NAME tracer COMMAND test_tracer)
set_tests_properties(tracer PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS mpi)
add_executable(test_tracer_exclusive test_tracer_exclusive.c)
target_link_libraries(test_tracer_exclusive PRIVATE tunesim_tracerrun)
target_compile_definitions(test_tracer_exclusive PRIVATE ${tracer_defs})
add_dependencies(test_tracer_exclusive ${tracer_deps})
add_test(NAME tracer_exclusive COMMAND test_tracer_exclusive)
set_tests_properties(tracer_exclusive PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS mpi)
