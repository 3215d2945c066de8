# platforms.cmake - the platform layer (included from the top-level CMakeLists.txt): machine
# descriptions (*.platform), rank placement and the SimGrid platform XML generator. Plain C
# in tunesim_core; only sim/ and the test that loads the generated XML link SimGrid.

# Where ts_platform_open_name looks by default: the source tree, so nothing needs installing.
set(TUNESIM_PLATFORM_DIR "${CMAKE_SOURCE_DIR}/platforms" CACHE PATH
    "Directory of the .platform machine descriptions")

target_sources(tunesim_core PRIVATE
  ${CMAKE_SOURCE_DIR}/platforms/platform.c
  ${CMAKE_SOURCE_DIR}/platforms/placement.c
  ${CMAKE_SOURCE_DIR}/platforms/xml.c)
set_source_files_properties(${CMAKE_SOURCE_DIR}/platforms/platform.c PROPERTIES
  COMPILE_DEFINITIONS "TS_PLATFORM_DIR=\"${TUNESIM_PLATFORM_DIR}\"")
