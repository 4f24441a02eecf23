# The man page, the install rules and the Debian package (cpack -G DEB).
#
#   cmake --build build --target hsperfguard hsperfguard_man
#   (cd build && cpack -G DEB)      -> build/hsperfguard_<version>_<arch>.deb
#
# The package: /usr/bin/hsperfguard, hsperfguard(1), hsperfguard-policy(5), the rule catalogue in
# /usr/share/hsperfguard, the systemd units in /usr/lib/systemd/system (not enabled), the
# cron.d job in /etc/cron.d (commented out), the tmpfiles.d snippet in /usr/lib/tmpfiles.d
# and the site policy /etc/hsperfguard/policy.json (a conffile). Dependencies come from
# dpkg-shlibdeps.
#
# This file is also run at install time (HSPERFGUARD_INSTALL_STEP) to write the units and
# the cron job with the paths of the installation: the sources name /usr/local/bin, where
# `cmake --install` puts the binary by default; the package has /usr/bin. For the RPM it also
# installs LICENSE as the package's %license file.

if(HSPERFGUARD_INSTALL_STEP)
  set(destdir "$ENV{DESTDIR}")
  # Units in /usr/lib/systemd/system, for the .deb as for the RPM: Debian 12 and 13 are
  # merged-/usr (/lib is a link to usr/lib), and on Debian 13 `dpkg -S` knows a file only by the
  # path its package lists, so a unit shipped as /lib/... belonged to no package there. The
  # .deb's earlier /lib path names the same file, which dpkg keeps on an upgrade (the field test
  # upgrades from such a package). CPack stages each generator apart.
  set(unitdir usr/lib/systemd/system)
  set(rpm OFF)
  if(destdir MATCHES "/_CPack_Packages/[^/]+/RPM/")
    set(rpm ON)
  endif()
  set(binary "${CMAKE_INSTALL_PREFIX}/bin/hsperfguard")
  foreach(unit IN ITEMS hsperfguard-audit.service hsperfguard-audit.timer
                        hsperfguard-reap.service hsperfguard-reap.timer)
    file(READ "${HSPERFGUARD_PACKAGING_DIR}/systemd/${unit}" text)
    string(REPLACE "/usr/local/bin/hsperfguard " "${binary} " text "${text}")
    # Documentation= names the runbook where this installation puts the docs.
    string(REPLACE "file:///usr/local/share/doc/hsperfguard/" "file://${CMAKE_INSTALL_PREFIX}/share/doc/hsperfguard/" text "${text}")
    # The installed audit reads the site policy the package ships.
    string(REPLACE "${binary} audit " "${binary} audit --policy /etc/hsperfguard/policy.json " text "${text}")
    file(WRITE "${destdir}/${unitdir}/${unit}" "${text}")
    file(CHMOD "${destdir}/${unitdir}/${unit}" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
    message(STATUS "Installing: ${destdir}/${unitdir}/${unit}")
  endforeach()
  # The cron job is an example: every job line is commented out until the admin enables it.
  file(READ "${HSPERFGUARD_PACKAGING_DIR}/cron.d/hsperfguard" text)
  string(REGEX REPLACE "(^|\n)([^#A-Z\n][^\n]* root [^\n]*)"
         "\\1# Disabled on installation: remove the '#' before the next line to enable it.\n#\\2"
         text "${text}")
  file(WRITE "${destdir}/etc/cron.d/hsperfguard" "${text}")
  file(CHMOD "${destdir}/etc/cron.d/hsperfguard" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  message(STATUS "Installing: ${destdir}/etc/cron.d/hsperfguard")
  # The license's full text: the RPM's %license file, where RHEL-family systems keep them. The
  # .deb's copyright file points to Debian's copy in /usr/share/common-licenses instead.
  if(rpm)
    file(INSTALL "${HSPERFGUARD_SOURCE_DIR}/LICENSE" DESTINATION /usr/share/licenses/hsperfguard  # under DESTDIR
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  endif()
  return()
endif()

set(HSPERFGUARD_PACKAGING_DIR ${PROJECT_SOURCE_DIR}/packaging)
set(HSPERFGUARD_MAINTAINER "hsperfguard maintainers <maintainers@hsperfguard.org>")
set(HSPERFGUARD_SUMMARY "audit and clean up the JVM's hsperfdata namespaces")

# The man page hsperfguard(1): written by hsperfguard_man_page (src/man_page_main.cpp) from the
# command line hsperfguard parses with and the tables its --help prints (subcommands, options,
# value syntax, the ps STATE legend, each subcommand's exit codes; src/commands/man_page.cpp),
# placed in the prose of docs/hsperfguard.1.in (description, threat model, files, examples), so
# that the page says what --help says by construction. Not when cross-compiling (the generator
# cannot run here).
find_program(GZIP gzip)
set(HSPERFGUARD_MAN_PAGE ${PROJECT_BINARY_DIR}/share/man/man1/hsperfguard.1.gz)
if(NOT CMAKE_CROSSCOMPILING AND GZIP)
  add_executable(hsperfguard_man_page src/man_page_main.cpp)
  target_link_libraries(hsperfguard_man_page PRIVATE hsperfguard_commands hsperfguard_version hsperfguard_warnings)
  add_custom_command(
    OUTPUT ${HSPERFGUARD_MAN_PAGE} ${PROJECT_BINARY_DIR}/share/man/man1/hsperfguard.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/share/man/man1
    # Through a temporary file: a failed run leaves no page that looks up to date.
    COMMAND sh -c "\"$0\" \"$1\" > \"$2.new\" && mv \"$2.new\" \"$2\""
            $<TARGET_FILE:hsperfguard_man_page> ${PROJECT_SOURCE_DIR}/docs/hsperfguard.1.in
            ${PROJECT_BINARY_DIR}/share/man/man1/hsperfguard.1
    COMMAND ${GZIP} -9nf -k ${PROJECT_BINARY_DIR}/share/man/man1/hsperfguard.1
    DEPENDS hsperfguard_man_page ${PROJECT_SOURCE_DIR}/docs/hsperfguard.1.in
    COMMENT "Generating the man page hsperfguard(1)"
    VERBATIM)
  add_custom_target(hsperfguard_man ALL DEPENDS ${HSPERFGUARD_MAN_PAGE})
  if(TARGET hsperfguard_binary_tests)
    add_dependencies(hsperfguard_binary_tests hsperfguard_man)  # the man page and package tests
  endif()
  install(FILES ${HSPERFGUARD_MAN_PAGE} DESTINATION share/man/man1)
else()
  message(STATUS "gzip not found, or cross-compiling: no man page hsperfguard(1), no complete package")
endif()

# The policy file's format, hsperfguard-policy(5), written in roff (docs/hsperfguard-policy.5).
set(HSPERFGUARD_POLICY_MAN_PAGE ${PROJECT_BINARY_DIR}/share/man/man5/hsperfguard-policy.5.gz)
if(GZIP)
  add_custom_command(
    OUTPUT ${HSPERFGUARD_POLICY_MAN_PAGE} ${PROJECT_BINARY_DIR}/share/man/man5/hsperfguard-policy.5
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/share/man/man5
    COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/docs/hsperfguard-policy.5 ${PROJECT_BINARY_DIR}/share/man/man5
    COMMAND ${GZIP} -9nf -k ${PROJECT_BINARY_DIR}/share/man/man5/hsperfguard-policy.5
    DEPENDS ${PROJECT_SOURCE_DIR}/docs/hsperfguard-policy.5
    COMMENT "Compressing the man page hsperfguard-policy(5)"
    VERBATIM)
  add_custom_target(hsperfguard_policy_man ALL DEPENDS ${HSPERFGUARD_POLICY_MAN_PAGE})
  if(TARGET hsperfguard_binary_tests)
    add_dependencies(hsperfguard_binary_tests hsperfguard_policy_man)  # the man page and package tests
  endif()
  install(FILES ${HSPERFGUARD_POLICY_MAN_PAGE} DESTINATION share/man/man5)
endif()

# Bash completion, printed by the binary from its own option definitions (so it cannot drift
# from --help-all; zsh loads it through bashcompinit). Not when cross-compiling.
set(HSPERFGUARD_BASH_COMPLETION ${PROJECT_BINARY_DIR}/share/bash-completion/completions/hsperfguard)
if(NOT CMAKE_CROSSCOMPILING)
  add_custom_command(
    OUTPUT ${HSPERFGUARD_BASH_COMPLETION}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/share/bash-completion/completions
    COMMAND sh -c "\"$0\" --bash-completion > \"$1\"" $<TARGET_FILE:hsperfguard> ${HSPERFGUARD_BASH_COMPLETION}
    DEPENDS hsperfguard
    COMMENT "Generating the bash completion"
    VERBATIM)
  add_custom_target(hsperfguard_completion ALL DEPENDS ${HSPERFGUARD_BASH_COMPLETION})
  if(TARGET hsperfguard_binary_tests)
    add_dependencies(hsperfguard_binary_tests hsperfguard_completion)  # the completion and package tests
  endif()
  install(FILES ${HSPERFGUARD_BASH_COMPLETION} DESTINATION share/bash-completion/completions)
endif()

# The rule catalogue and profiles, for people and tools (the binary has them compiled in).
file(GLOB HSPERFGUARD_RULE_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/rules/*.json)
file(GLOB HSPERFGUARD_PROFILE_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/rules/profiles/*.json)
install(FILES ${HSPERFGUARD_RULE_FILES} DESTINATION share/hsperfguard/rules)
install(FILES ${HSPERFGUARD_PROFILE_FILES} DESTINATION share/hsperfguard/rules/profiles)
# The report's migrations (docs/migration.md): jq programs that give an older version back.
install(FILES ${PROJECT_SOURCE_DIR}/schemas/report.schema.json ${PROJECT_SOURCE_DIR}/schemas/ps.schema.json
              ${PROJECT_SOURCE_DIR}/schemas/report-3-to-2.jq ${PROJECT_SOURCE_DIR}/schemas/report-2-to-1.jq
        DESTINATION share/hsperfguard)
# Prometheus alerting rules for the metrics; their runbook is docs/operations.md, section "Alerts".
install(FILES ${PROJECT_SOURCE_DIR}/packaging/prometheus/hsperfguard.rules.yml
        DESTINATION share/hsperfguard/prometheus)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/hsperfguard)
# The pages the README links to (docs/NAME.md), at the same relative place.
file(GLOB HSPERFGUARD_DOC_PAGES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${HSPERFGUARD_DOC_PAGES} DESTINATION share/doc/hsperfguard/docs)

# Units and the cron job (written with this installation's paths, see the top), the
# tmpfiles.d snippet, the site policy. Absolute: where systemd, cron and dpkg look.
install(CODE "set(HSPERFGUARD_INSTALL_STEP ON)
set(HSPERFGUARD_PACKAGING_DIR \"${HSPERFGUARD_PACKAGING_DIR}\")
set(HSPERFGUARD_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
include(\"${CMAKE_CURRENT_LIST_FILE}\")")
install(FILES ${HSPERFGUARD_PACKAGING_DIR}/tmpfiles.d/hsperfguard.conf DESTINATION /usr/lib/tmpfiles.d)
install(FILES ${HSPERFGUARD_PACKAGING_DIR}/policy.json DESTINATION /etc/hsperfguard)

# Debian's documentation files: copyright and a changelog (gzip -n: no timestamp inside).
set(HSPERFGUARD_DEB_DOC ${PROJECT_BINARY_DIR}/deb-doc)
string(TIMESTAMP HSPERFGUARD_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${HSPERFGUARD_DEB_DOC}/changelog
     "hsperfguard (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
     "  * Release ${PROJECT_VERSION}.\n\n"
     " -- ${HSPERFGUARD_MAINTAINER}  ${HSPERFGUARD_CHANGELOG_DATE}\n")
if(GZIP)
  add_custom_command(
    OUTPUT ${HSPERFGUARD_DEB_DOC}/changelog.gz
    COMMAND ${GZIP} -9nf -k ${HSPERFGUARD_DEB_DOC}/changelog
    DEPENDS ${HSPERFGUARD_DEB_DOC}/changelog
    VERBATIM)
  add_custom_target(hsperfguard_deb_doc ALL DEPENDS ${HSPERFGUARD_DEB_DOC}/changelog.gz)
  if(TARGET hsperfguard_binary_tests)
    add_dependencies(hsperfguard_binary_tests hsperfguard_deb_doc)
  endif()
  install(FILES ${HSPERFGUARD_DEB_DOC}/changelog.gz DESTINATION share/doc/hsperfguard)
endif()
install(FILES ${HSPERFGUARD_PACKAGING_DIR}/debian/copyright DESTINATION share/doc/hsperfguard)

# The package.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hsperfguard)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${HSPERFGUARD_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${HSPERFGUARD_SUMMARY}")
# The synopsis is CPACK_PACKAGE_DESCRIPTION_SUMMARY; this is the extended description.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Every HotSpot JVM publishes its performance counters in a memory-mapped file
in /tmp/hsperfdata_<user>, which jps and jstat read. hsperfguard audits these
namespaces (owners, modes, ACLs, symlink and hard-link plants, foreign and
stale files) and reports as JSON, text or Prometheus metrics; its reaper
removes the files of dead JVMs safely, as root, from a systemd timer or cron.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${HSPERFGUARD_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_SET_DESTDIR ON)  # absolute destinations (/etc, /usr/lib/tmpfiles.d) into the package root
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${HSPERFGUARD_PACKAGING_DIR}/debian/conffiles
    ${HSPERFGUARD_PACKAGING_DIR}/debian/postinst
    ${HSPERFGUARD_PACKAGING_DIR}/debian/prerm
    ${HSPERFGUARD_PACKAGING_DIR}/debian/postrm)

# The RPM (cpack -G RPM), for RHEL-family hosts: the same files, units in
# /usr/lib/systemd/system, the site policy and the cron example %config(noreplace), library
# dependencies found by rpmbuild from the binary (sonames: declared, not bundled), and the
# scriptlets of packaging/rpm/. rpmlint's configuration, with the reason for each filter, is
# packaging/rpm/rpmlint.toml.
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_RELEASE 1)
set(CPACK_RPM_PACKAGE_SUMMARY "Audit and clean up the JVM's hsperfdata namespaces")
set(CPACK_RPM_PACKAGE_DESCRIPTION "${CPACK_DEBIAN_PACKAGE_DESCRIPTION}")
# SPDX, as Fedora and RHEL write it: the project's, and those of liburing (MIT), libstdc++ and
# libacl (when HSPERFGUARD_STATIC_LIBACL is on), linked into the binary.
set(CPACK_RPM_PACKAGE_LICENSE "Apache-2.0 AND MIT AND GPL-3.0-or-later WITH GCC-exception-3.1")
if(HSPERFGUARD_STATIC_LIBACL)
  string(APPEND CPACK_RPM_PACKAGE_LICENSE " AND LGPL-2.1-or-later")
endif()
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
set(CPACK_RPM_PACKAGE_AUTOREQ ON)
set(CPACK_RPM_PACKAGE_REQUIRES "crontabs")  # owns /etc/cron.d on RHEL-family systems
set(CPACK_RPM_SPEC_MORE_DEFINE "%define packager ${HSPERFGUARD_MAINTAINER}")
# CPack marks every file with an absolute destination %config; the tmpfiles.d snippet is not
# the admin's to edit (they override it in /etc/tmpfiles.d), so it is listed as a plain file.
set(CPACK_RPM_USER_FILELIST "%config(noreplace) /etc/hsperfguard/policy.json"
                            "%config(noreplace) /etc/cron.d/hsperfguard"
                            "%attr(0644,root,root) /usr/lib/tmpfiles.d/hsperfguard.conf"
                            "%license /usr/share/licenses/hsperfguard/LICENSE")
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
    /etc/cron.d /usr/lib/systemd /usr/lib/systemd/system /usr/lib/tmpfiles.d /usr/share/licenses /usr/share/man
    /usr/share/man/man1 /usr/share/man/man5 /usr/share/bash-completion /usr/share/bash-completion/completions)
set(CPACK_RPM_POST_INSTALL_SCRIPT_FILE ${HSPERFGUARD_PACKAGING_DIR}/rpm/post)
set(CPACK_RPM_PRE_UNINSTALL_SCRIPT_FILE ${HSPERFGUARD_PACKAGING_DIR}/rpm/preun)
set(CPACK_RPM_POST_UNINSTALL_SCRIPT_FILE ${HSPERFGUARD_PACKAGING_DIR}/rpm/postun)
include(CPack)

# Hardening of the shipped binary (lintian's hardening checks; the tool runs as root): the
# compile flags of every layer and of main.cpp (hsperfguard_hardening, CMakeLists.txt), full
# RELRO and BIND_NOW at link time.
target_link_libraries(hsperfguard PRIVATE hsperfguard_hardening)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT CMAKE_CROSSCOMPILING)
  target_link_options(hsperfguard PRIVATE -Wl,-z,relro -Wl,-z,now)
endif()
