# Reads the two registries, the only lists of protocols and workloads:
#   engine/cc/protocols.txt -> CCB_ALL_PROTOCOLS, CCB_CLASS_<name> and the
#       properties CCB_SERIALIZABLE_<name>, CCB_PARTITIONED_ONLY_<name>,
#       CCB_BUNDLE_<name> (ON/OFF); and from each protocol's folder
#       engine/cc/<name>/ (its home: <name>.h, README.md, its own sources and
#       tests): CCB_PROTOCOL_SOURCES (its *.cpp but the tests: its flags'
#       options tables, compiled into ccb_core) and CCB_PROTOCOL_TESTS (its
#       *_test.cpp, compiled into cc_unit_tests, tests/cc/CMakeLists.txt)
#   workloads/workloads.txt -> CCB_WORKLOADS, CCB_WORKLOAD_<name> (a list:
#       header;class template;options struct;library), CCB_EXTENDED_<name>
#       (ON: takes the runtime-skew and I/O-latency extensions; the list of
#       those is CCB_EXTENDED_WORKLOADS), CCB_PARTITIONED_<name> (ON: has a
#       static partitioning), CCB_CONTENDED_<name>
#       (the high-contention flags, a list) and CCB_WORKLOAD_NAMES_TEXT
#       ("ycsb, tpcc, ...", for help texts)
#   partitioners/frontends.txt -> CCB_FRONTENDS, CCB_BUNDLE_FRONTENDS (those
#       of the bundle executor) and CCB_FRONTEND_LIBRARIES (the libraries
#       defining the bundle front-ends' factories)
# and generates, in ${CCB_GENERATED_DIR}:
#   protocol_registry.h: every protocol's header, the type list
#       ccb::AllProtocolClasses, from which tests/support/protocols.h builds
#       the tests' AllProtocols, and ccb::kRegisteredSerializable<Class> (the
#       serializable field);
#   protocol_test_expectations.h: every protocol's
#       engine/cc/<name>/test_expectations.h that exists (its specialisations
#       of the test expectations' defaults, tests/support/protocols.h);
#   frontend_names.h: every front-end's name, executor and owner-threads
#       field, and --frontend's help text: the names and help for the
#       kernel's --frontend flag (engine/config.cpp; it includes nothing),
#       the fields for rundb/frontends.cpp, which resolves --frontend into
#       the executors' spec (engine/exec/frontend_spec.h);
#   frontend_registry.h: the bundle front-ends' headers and factories, for
#       their construction (rundb/frontends.cpp).
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_SOURCE_DIR}/engine/cc/protocols.txt ${CMAKE_SOURCE_DIR}/workloads/workloads.txt
             ${CMAKE_SOURCE_DIR}/partitioners/frontends.txt)

function(_ccb_registry_lines file out)
  file(STRINGS ${file} lines)
  set(kept)
  foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    if(line STREQUAL "" OR line MATCHES "^#")
      continue()
    endif()
    list(APPEND kept "${line}")
  endforeach()
  set(${out} "${kept}" PARENT_SCOPE)
endfunction()

# The `count` fields of a registry line separated by "|", stripped, into the
# list `out` (FATAL_ERROR naming `file` and saying the form otherwise).
function(_ccb_registry_fields file line count form out)
  string(REPLACE "|" ";" fields "${line}")
  set(stripped)
  foreach(f IN LISTS fields)
    string(STRIP "${f}" f)
    list(APPEND stripped "${f}")
  endforeach()
  list(LENGTH stripped n)
  if(NOT n EQUAL count)
    message(FATAL_ERROR "${file}: '${line}' needs ${count} fields separated by '|'${form}")
  endif()
  set(${out} "${stripped}" PARENT_SCOPE)
endfunction()

set(CCB_ALL_PROTOCOLS)
set(CCB_PROTOCOL_SOURCES)
set(CCB_PROTOCOL_TESTS)
set(_includes "")
set(_expectations "")
set(_classes)
set(_not_serializable "")
_ccb_registry_lines(${CMAKE_SOURCE_DIR}/engine/cc/protocols.txt _lines)
foreach(line IN LISTS _lines)
  if(NOT line MATCHES "^([a-z][a-z0-9_]*)[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+(yes|no)[ \t]+(all|partitioned)[ \t]+(online\\+bundle|online)$")
    message(FATAL_ERROR "engine/cc/protocols.txt: '${line}' is not '<name> <Class> <serializable: yes|no> "
                        "<workloads: all|partitioned> <executors: online+bundle|online>'")
  endif()
  set(name ${CMAKE_MATCH_1})
  set(serializable ${CMAKE_MATCH_3})
  set(workloads ${CMAKE_MATCH_4})
  set(executors ${CMAKE_MATCH_5})
  list(APPEND CCB_ALL_PROTOCOLS ${name})
  set(CCB_CLASS_${name} ${CMAKE_MATCH_2})
  set(CCB_SERIALIZABLE_${name} OFF)
  set(CCB_PARTITIONED_ONLY_${name} OFF)
  set(CCB_BUNDLE_${name} OFF)
  if(serializable STREQUAL "yes")
    set(CCB_SERIALIZABLE_${name} ON)
  else()
    string(APPEND _not_serializable "template <>\ninline constexpr bool kRegisteredSerializable<${CMAKE_MATCH_2}> = false;\n")
  endif()
  if(workloads STREQUAL "partitioned")
    set(CCB_PARTITIONED_ONLY_${name} ON)
  endif()
  if(executors STREQUAL "online+bundle")
    set(CCB_BUNDLE_${name} ON)
  endif()
  set(_home ${CMAKE_SOURCE_DIR}/engine/cc/${name})
  foreach(_file ${name}.h README.md)
    if(NOT EXISTS ${_home}/${_file})
      message(FATAL_ERROR "engine/cc/protocols.txt: '${name}' has no engine/cc/${name}/${_file} (a protocol's home is "
                          "its folder: CONTRIBUTING.md, \"How to add a protocol\")")
    endif()
  endforeach()
  string(APPEND _includes "#include \"engine/cc/${name}/${name}.h\"\n")
  if(EXISTS ${_home}/test_expectations.h)
    string(APPEND _expectations "#include \"engine/cc/${name}/test_expectations.h\"\n")
  endif()
  # CONFIGURE_DEPENDS: a file added to the folder re-runs the configuration.
  file(GLOB _sources CONFIGURE_DEPENDS ${_home}/*.cpp)
  file(GLOB _tests CONFIGURE_DEPENDS ${_home}/*_test.cpp)
  list(REMOVE_ITEM _sources ${_tests})
  list(APPEND CCB_PROTOCOL_SOURCES ${_sources})
  list(APPEND CCB_PROTOCOL_TESTS ${_tests})
  list(APPEND _classes ${CCB_CLASS_${name}})
endforeach()

set(CCB_WORKLOADS)
set(CCB_EXTENDED_WORKLOADS)
_ccb_registry_lines(${CMAKE_SOURCE_DIR}/workloads/workloads.txt _lines)
foreach(line IN LISTS _lines)
  _ccb_registry_fields(workloads/workloads.txt "${line}" 8 "" stripped)
  list(GET stripped 0 name)
  list(SUBLIST stripped 1 4 CCB_WORKLOAD_${name})
  list(GET stripped 5 extended)
  if(extended STREQUAL "yes")
    set(CCB_EXTENDED_${name} ON)
    list(APPEND CCB_EXTENDED_WORKLOADS ${name})
  elseif(extended STREQUAL "no")
    set(CCB_EXTENDED_${name} OFF)
  else()
    message(FATAL_ERROR "workloads/workloads.txt: '${name}': the extensions field is '${extended}'; allowed: yes|no")
  endif()
  list(GET stripped 6 partitioned)
  if(NOT partitioned MATCHES "^(yes|no)$")
    message(FATAL_ERROR "workloads/workloads.txt: '${name}': the partitions field is '${partitioned}'; allowed: yes|no")
  endif()
  if(partitioned STREQUAL "yes")
    set(CCB_PARTITIONED_${name} ON)
  else()
    set(CCB_PARTITIONED_${name} OFF)
  endif()
  list(GET stripped 7 contended)
  separate_arguments(CCB_CONTENDED_${name} UNIX_COMMAND "${contended}")
  list(APPEND CCB_WORKLOADS ${name})
endforeach()
string(JOIN ", " CCB_WORKLOAD_NAMES_TEXT ${CCB_WORKLOADS})
string(JOIN "|" CCB_EXTENDED_WORKLOADS_TEXT ${CCB_EXTENDED_WORKLOADS})

set(CCB_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
string(JOIN ", " _class_list ${_classes})
file(CONFIGURE OUTPUT ${CCB_GENERATED_DIR}/protocol_registry.h CONTENT
"// Generated by cmake/registries.cmake from engine/cc/protocols.txt.
#pragma once
${_includes}
namespace ccb {
template <class... Protocols>
struct ProtocolList {};
using AllProtocolClasses = ProtocolList<${_class_list}>;
// The registry's serializable field.
template <class CC>
inline constexpr bool kRegisteredSerializable = true;
${_not_serializable}}  // namespace ccb
")
file(CONFIGURE OUTPUT ${CCB_GENERATED_DIR}/protocol_test_expectations.h CONTENT
"// Generated by cmake/registries.cmake from engine/cc/protocols.txt: each
// registered protocol's test expectations that differ from the defaults, for
// tests/support/protocols.h (which includes this after the defaults).
#pragma once
${_expectations}")

# --- front-ends (partitioners/frontends.txt) ---------------------------------
# A C string literal's body for `text`.
function(_ccb_c_string text out)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(CCB_FRONTENDS)
set(CCB_BUNDLE_FRONTENDS)
set(CCB_FRONTEND_LIBRARIES)
set(_names "")
set(_help "")
set(_includes "")
set(_entries "")
_ccb_registry_lines(${CMAKE_SOURCE_DIR}/partitioners/frontends.txt _lines)
foreach(line IN LISTS _lines)
  _ccb_registry_fields(partitioners/frontends.txt "${line}" 8 " (name | executor | owner threads | partition | header | \
factory | library | help; no ';' or '|' in the help)" stripped)
  list(GET stripped 0 name)
  list(GET stripped 1 _fe_executor)
  list(GET stripped 2 _fe_owner)
  list(GET stripped 3 _fe_partition)
  list(GET stripped 4 _fe_header)
  list(GET stripped 5 _fe_factory)
  list(GET stripped 6 _fe_library)
  list(GET stripped 7 _fe_help)
  if(NOT name MATCHES "^[a-z][a-z0-9-]*$")
    message(FATAL_ERROR "partitioners/frontends.txt: the name '${name}'; allowed: lower-case letters, digits and '-'")
  endif()
  if(name IN_LIST CCB_FRONTENDS)
    message(FATAL_ERROR "partitioners/frontends.txt: '${name}' is registered twice")
  endif()
  if(NOT _fe_owner MATCHES "^(yes|no)$")
    message(FATAL_ERROR "partitioners/frontends.txt: '${name}': the owner-threads field is '${_fe_owner}'; allowed: yes|no")
  endif()
  if(NOT _fe_partition MATCHES "^[a-z-][a-z0-9_]*$")
    message(FATAL_ERROR "partitioners/frontends.txt: '${name}': the partition field is '${_fe_partition}'; allowed: - or "
                        "a partitioner's name (rundb/frontends.cpp)")
  endif()
  if(_fe_help STREQUAL "")
    message(FATAL_ERROR "partitioners/frontends.txt: '${name}' has no help")
  endif()
  if(_fe_executor STREQUAL "online")
    # The online executor builds these itself (engine/exec/online_executor.h;
    # rundb/frontends.cpp gives each its FrontendSpec::OnlineOrder).
    if(NOT name MATCHES "^(none|tsdefer|reorder)$")
      message(FATAL_ERROR "partitioners/frontends.txt: '${name}': the online executor's front-ends are none, tsdefer "
                          "and reorder (engine/exec/online_executor.h); a new front-end is a bundle one")
    endif()
    if(NOT (_fe_partition STREQUAL "-" AND _fe_header STREQUAL "-" AND _fe_factory STREQUAL "-" AND _fe_library STREQUAL "-"))
      message(FATAL_ERROR "partitioners/frontends.txt: '${name}': an online front-end has '-' as its partition, "
                          "header, factory and library")
    endif()
    set(_fe_bundle false)
  elseif(_fe_executor STREQUAL "bundle")
    if(_fe_owner STREQUAL "yes")
      message(FATAL_ERROR "partitioners/frontends.txt: '${name}': a bundle front-end cannot run protocols with owner "
                          "threads (their threads live in the online executor); allowed: no")
    endif()
    if(_fe_header STREQUAL "-" OR _fe_factory STREQUAL "-" OR _fe_library STREQUAL "-")
      message(FATAL_ERROR "partitioners/frontends.txt: '${name}': a bundle front-end names its header, factory and "
                          "library")
    endif()
    if(NOT EXISTS ${CMAKE_SOURCE_DIR}/${_fe_header})
      message(FATAL_ERROR "partitioners/frontends.txt: '${name}': no header ${_fe_header}")
    endif()
    set(_fe_bundle true)
    list(APPEND CCB_BUNDLE_FRONTENDS ${name})
    list(APPEND CCB_FRONTEND_LIBRARIES ${_fe_library})
    if(NOT _includes MATCHES "\"${_fe_header}\"")
      string(APPEND _includes "#include \"${_fe_header}\"\n")
    endif()
    string(APPEND _entries "    {\"${name}\", \"${_fe_partition}\", &${_fe_factory}},\n")
  else()
    message(FATAL_ERROR "partitioners/frontends.txt: '${name}': the executor field is '${_fe_executor}'; allowed: "
                        "online|bundle")
  endif()
  list(APPEND CCB_FRONTENDS ${name})
  if(_fe_owner STREQUAL "yes")
    set(_fe_owner true)
  else()
    set(_fe_owner false)
  endif()
  string(APPEND _names "    {\"${name}\", ${_fe_bundle}, ${_fe_owner}},\n")
  _ccb_c_string("${_fe_help}" _fe_help)
  if(_help STREQUAL "")
    string(APPEND _help "\"front-end, one of: ${name} (${_fe_help})")
  else()
    string(APPEND _help ",\"\n  \" ${name} (${_fe_help})")
  endif()
endforeach()
if(NOT "none" IN_LIST CCB_FRONTENDS)
  message(FATAL_ERROR "partitioners/frontends.txt: 'none' (--frontend's default) is not registered")
endif()
list(REMOVE_DUPLICATES CCB_FRONTEND_LIBRARIES)
string(APPEND _help ". The bundle front-ends take batches of --batch_size\"")

file(CONFIGURE OUTPUT ${CCB_GENERATED_DIR}/frontend_names.h CONTENT
"// Generated by cmake/registries.cmake from partitioners/frontends.txt: the
// names the kernel's --frontend flag accepts (engine/config.cpp) and each
// one's executor and owner-threads fields (rundb/frontends.cpp resolves them
// into the executors' FrontendSpec). It includes nothing: the kernel is
// given the names, not the front-ends.
#pragma once
namespace ccb::generated {
struct FrontendName {
  const char* name;
  bool bundle;         // executor field: runs on the bundle executor
  bool owner_threads;  // owner-threads field: protocols with owner threads run with it
};
inline constexpr FrontendName kFrontendNames[] = {
${_names}};
inline constexpr const char* kFrontendHelp =
  ${_help};
}  // namespace ccb::generated
" @ONLY)

file(CONFIGURE OUTPUT ${CCB_GENERATED_DIR}/frontend_registry.h CONTENT
"// Generated by cmake/registries.cmake from partitioners/frontends.txt: the
// bundle front-ends' factories (rundb/frontends.cpp builds them by name).
#pragma once
#include \"partitioners/frontend_factory.h\"
${_includes}
namespace ccb::generated {
struct BundleFrontendEntry {
  const char* name;
  const char* partition;  // the partition field: \"-\" or a partitioner's name
  FrontendFactory make;
};
inline constexpr BundleFrontendEntry kBundleFrontends[] = {
${_entries}};
}  // namespace ccb::generated
" @ONLY)
