# `cmake --install build [--prefix DIR]`: what an installed ecstore is (README.md, "Install").
#
#   PREFIX/bin                       the programs (ec-osd, ec-admin, ec-rados, ec-tool, ec-osd-client)
#                                    and the benchmarks (ECSTORE_BUILD_BENCH); no test program
#   PREFIX/LIBDIR                    libec.so, libecstore_common.so (what the programs link) and
#                                    libecstore_rados.so (the client library for other programs)
#   PREFIX/LIBDIR/ecstore/erasure-code   the plugins, libec_<name>.so (not the broken test ones)
#   PREFIX/INCLUDEDIR/ecstore        cluster/client/rados.h and the headers it includes
#   PREFIX/LIBDIR/pkgconfig          ecstore-rados.pc
#   PREFIX/lib/systemd/system        ec-osd@.service, ecstore.target and etcd-ecstore.service
#                                    (nothing is enabled)
#   PREFIX/DATADIR/ecstore/deploy    the templates of a host's /etc/ecstore (ecstore.conf.in,
#                                    etcd.env.in) and render.sh, which fills them in (docs/deploy.md)
#
# Nothing needs an environment variable once installed: the programs find our libraries through an
# RPATH relative to themselves ($ORIGIN/../lib), and libec finds the plugins relative to itself
# (PluginRegistry::default_directory(), ec/plugin.h). Components: runtime, bench, dev, systemd,
# deploy.

set(ECSTORE_SYSTEMD_UNITDIR "lib/systemd/system" CACHE STRING
    "Where the systemd units go, relative to the install prefix")

# RPATHs relative to where each kind of file lands, so that the prefix can move.
file(RELATIVE_PATH _ecstore_bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
file(RELATIVE_PATH _ecstore_plugin_to_lib
     "${CMAKE_INSTALL_FULL_LIBDIR}/${ECSTORE_PLUGIN_SUBDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
string(REGEX REPLACE "/$" "" _ecstore_plugin_to_lib "${_ecstore_plugin_to_lib}")

set(_ecstore_programs ec-osd ec-admin ec-rados ec-tool ec-osd-client)
set(_ecstore_bench_programs ec-bench ec-benchmark ec-clay-bench ec-store-bench ec-osd-bench
                            tcp-pingpong)
set(_ecstore_libraries ec ecstore_common ecstore_rados)
set(_ecstore_plugins)
foreach(p jerasure isa clay lrc shec)
  if(TARGET ec_${p})
    list(APPEND _ecstore_plugins ec_${p})
  endif()
endforeach()

set_target_properties(${_ecstore_programs} PROPERTIES INSTALL_RPATH "$ORIGIN/${_ecstore_bin_to_lib}")
set_target_properties(${_ecstore_libraries} PROPERTIES INSTALL_RPATH "$ORIGIN")
set_target_properties(${_ecstore_plugins} PROPERTIES
                      INSTALL_RPATH "$ORIGIN/${_ecstore_plugin_to_lib}")

install(TARGETS ${_ecstore_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS ${_ecstore_libraries} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
install(TARGETS ${_ecstore_plugins} LIBRARY DESTINATION ${ECSTORE_INSTALL_PLUGINDIR}
        COMPONENT runtime)

if(ECSTORE_BUILD_BENCH)
  set_target_properties(${_ecstore_bench_programs} PROPERTIES
                        INSTALL_RPATH "$ORIGIN/${_ecstore_bin_to_lib}")
  install(TARGETS ${_ecstore_bench_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT bench)
endif()

# The client API: rados.h and every header of ours it includes (tests/install/install_test.sh
# compiles a program against the installed copy, so a header missing here fails that test).
foreach(header cluster/client/rados.h cluster/map/cluster_map.h cluster/etcd/etcd_types.h
               cluster/placement/placement.h common/status.h ec/profile.h ec/buffer.h
               msg/auth/handshake.h msg/auth/keyring.h msg/auth/crypto.h)
  get_filename_component(_dir "${header}" DIRECTORY)
  install(FILES "${PROJECT_SOURCE_DIR}/${header}"
          DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/ecstore/${_dir}" COMPONENT dev)
endforeach()

# ecstore-rados.pc, relocatable: its paths are relative to the folder it is found in.
file(RELATIVE_PATH ECSTORE_PC_TO_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig"
     "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" ECSTORE_PC_TO_PREFIX "${ECSTORE_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ecstore-rados.pc.in
               ${CMAKE_BINARY_DIR}/ecstore-rados.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/ecstore-rados.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)

# The systemd units are written at install time, not configure time, so that ExecStart names the
# ec-osd of the prefix actually installed to (`--prefix` given to `cmake --install`).
install(CODE "
  set(ECSTORE_EC_OSD \"${CMAKE_INSTALL_BINDIR}/ec-osd\")
  if(NOT IS_ABSOLUTE \"\${ECSTORE_EC_OSD}\")
    set(ECSTORE_EC_OSD \"\${CMAKE_INSTALL_PREFIX}/\${ECSTORE_EC_OSD}\")
  endif()
  foreach(unit ec-osd@.service ecstore.target etcd-ecstore.service)
    set(dest \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${ECSTORE_SYSTEMD_UNITDIR}/\${unit}\")
    message(STATUS \"Installing: \${dest}\")
    configure_file(\"${PROJECT_SOURCE_DIR}/systemd/\${unit}.in\" \"\${dest}\" @ONLY)
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${dest}\")
  endforeach()
" COMPONENT systemd)

# A host's config templates and the script that fills them in, where an installed host finds them:
# PREFIX/share/ecstore/deploy/render.sh (docs/deploy.md).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/deploy/render.sh
        DESTINATION ${CMAKE_INSTALL_DATADIR}/ecstore/deploy COMPONENT deploy)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/ecstore.conf.in ${PROJECT_SOURCE_DIR}/deploy/etcd.env.in
        DESTINATION ${CMAKE_INSTALL_DATADIR}/ecstore/deploy COMPONENT deploy)
