# Shared helpers for ecstore targets.

# Warnings are errors on our own code only (not on the system libraries we include).
function(ecstore_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
  # GCC 12 reports -Wrestrict false positives inside libstdc++'s std::string operator+ at -O3
  # (GCC bug 105329); it is not a finding about our code.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endfunction()

# Where the shared test data lives (Ceph's corpus and vectors); tests fail when it is missing.
if(DEFINED ENV{ECSTORE_SHARED})
  set(ECSTORE_SHARED_DIR "$ENV{ECSTORE_SHARED}" CACHE PATH "Shared test data")
else()
  get_filename_component(ECSTORE_SHARED_DIR "${PROJECT_SOURCE_DIR}/../shared" ABSOLUTE)
  set(ECSTORE_SHARED_DIR "${ECSTORE_SHARED_DIR}" CACHE PATH "Shared test data")
endif()

# ecstore_add_test(NAME SOURCES... [LIBS ...] [LABELS ...])
# Builds one gtest program and registers its tests with CTest (one CTest entry per gtest case).
function(ecstore_add_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES} ${T_UNPARSED_ARGUMENTS})
  ecstore_target_warnings(${name})
  if(ECSTORE_TEST_OPTIMIZE)
    target_compile_options(${name} PRIVATE ${ECSTORE_TEST_OPTIMIZE})
  endif()
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  # An empty LABELS value would be dropped and shift the property list, so add it only if given.
  set(label_props "")
  if(T_LABELS)
    set(label_props LABELS "${T_LABELS}")
  endif()
  # CTest starts the tests of highest COST first when it has no timings of its own (a clean
  # checkout, as CI's): the cluster tests (seconds to a minute each) before the unit tests, so
  # that a long one does not start last and run alone (the thrashers and the netns scripts set
  # theirs where they are added).
  if("cluster" IN_LIST T_LABELS)
    list(APPEND label_props COST 30)
  endif()
  gtest_discover_tests(${name}
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
    DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${T_TIMEOUT} ${label_props}
               ENVIRONMENT "EC_PLUGIN_DIR=${CMAKE_BINARY_DIR}/lib"
               ENVIRONMENT_MODIFICATION "ECSTORE_SHARED=set:${ECSTORE_SHARED_DIR}")
endfunction()

# ecstore_add_plugin(NAME SOURCES... PLUGIN_HEADER h PLUGIN_CLASS c LIBS ...)
# Builds libec_NAME.so (loaded by the registry) and ec_NAME_static (linked into programs that
# register it as a built-in). The shared object's entry points are plugins/plugin_entry.cc, written
# once for every plugin, compiled with the plugin's header and class (an ec::ErasureCodePlugin).
function(ecstore_add_plugin name)
  cmake_parse_arguments(P "" "PLUGIN_HEADER;PLUGIN_CLASS" "SOURCES;LIBS" ${ARGN})
  if(NOT P_PLUGIN_HEADER OR NOT P_PLUGIN_CLASS)
    message(FATAL_ERROR "ecstore_add_plugin(${name}): PLUGIN_HEADER and PLUGIN_CLASS are required")
  endif()
  add_library(ec_${name}_static STATIC ${P_SOURCES})
  ecstore_target_warnings(ec_${name}_static)
  target_link_libraries(ec_${name}_static PUBLIC ec ${P_LIBS})
  target_include_directories(ec_${name}_static PUBLIC ${PROJECT_SOURCE_DIR})
  add_library(ec_${name} MODULE ${PROJECT_SOURCE_DIR}/plugins/plugin_entry.cc)
  ecstore_target_warnings(ec_${name})
  target_link_libraries(ec_${name} PRIVATE ec_${name}_static)
  set_target_properties(ec_${name} PROPERTIES PREFIX "lib" OUTPUT_NAME "ec_${name}")
  # The version is baked into the shared object (not read from libec.so), so that a plugin built
  # from another tree really claims another version and the loader refuses it.
  target_compile_definitions(ec_${name} PRIVATE
    ECSTORE_PLUGIN_VERSION="${ECSTORE_PLUGIN_VERSION}"
    ECSTORE_PLUGIN_HEADER="${P_PLUGIN_HEADER}"
    ECSTORE_PLUGIN_CLASS=${P_PLUGIN_CLASS})
endfunction()
