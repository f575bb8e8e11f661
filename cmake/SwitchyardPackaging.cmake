# SPDX-License-Identifier: Apache-2.0
# Installed files and the Debian packages (CPack DEB, one package per component):
#   switchyard              the CLI, man pages, examples, the HealthCheckProgram wrapper
#   slurm-spank-switchyard  the SPANK plugin where Debian's Slurm looks for plugins, and a
#                           plugstack.conf.d snippet to link into /etc/slurm/plugstack.conf.d/
# Build them with the `package` preset:  cmake --preset package && cmake --build --preset package
#                                        && (cd build/package && cpack)
find_program(SWITCHYARD_GZIP gzip REQUIRED)

# Man pages, compressed reproducibly (-n: no name or time stamp).
set(_sy_man_pages
    "switchyard.1\;cli" "switchyard.yaml.5\;cli" "spank_switchyard.8\;plugin")
set(_sy_man_outputs "")
foreach(entry IN LISTS _sy_man_pages)
    list(GET entry 0 page)
    list(GET entry 1 component)
    string(REGEX MATCH "[0-9]$" section "${page}")
    set(src ${PROJECT_SOURCE_DIR}/docs/man/${page})
    set(out ${PROJECT_BINARY_DIR}/man/${page}.gz)
    add_custom_command(OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
        COMMAND ${SWITCHYARD_GZIP} -9nc ${src} > ${out}
        DEPENDS ${src} VERBATIM)
    list(APPEND _sy_man_outputs ${out})
    install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section} COMPONENT ${component})
endforeach()
add_custom_target(switchyard_man ALL DEPENDS ${_sy_man_outputs})

install(FILES etc/switchyard.yaml etc/job_submit.lua etc/cli_filter.lua etc/switchyard_stages.lua etc/switchyard_conf.lua
    DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT cli)
install(PROGRAMS etc/healthcheck etc/switchyard-refresh
    DESTINATION ${CMAKE_INSTALL_DATADIR}/switchyard COMPONENT cli)
# The unattended rediscovery: installed, not enabled (the admin writes
# /etc/default/switchyard-refresh from the example and enables the timer).
install(FILES etc/systemd/switchyard-refresh.service etc/systemd/switchyard-refresh.timer
    DESTINATION /lib/systemd/system COMPONENT cli)
install(FILES etc/switchyard-refresh.default
    DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT cli)
install(FILES docs/admin-guide.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli)
if(SWITCHYARD_WITH_PLUGIN)
    install(FILES etc/plugstack.conf.d/switchyard.conf
        DESTINATION ${CMAKE_INSTALL_DATADIR}/switchyard/plugstack.conf.d COMPONENT plugin)
    # node.cache's default directory: root's, 0755 (steps read the cache with the user's uid).
    install(DIRECTORY DESTINATION /var/cache/switchyard COMPONENT plugin
        DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                              WORLD_READ WORLD_EXECUTE)
    # The state directory (the step cache, the health gate's breaker and link-error records):
    # root's alone, 0700.
    install(DIRECTORY DESTINATION /var/lib/switchyard COMPONENT plugin
        DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME switchyard)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Switchyard developers <switchyard-dev@lists.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Slurm GPU cluster placement, NCCL wiring and health gate")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli)
if(SWITCHYARD_WITH_PLUGIN)
    list(APPEND CPACK_COMPONENTS_ALL plugin)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME switchyard)
string(CONCAT CPACK_DEBIAN_CLI_DESCRIPTION
    "Slurm GPU cluster fabric discovery, placement planning and node health (CLI)\n"
    "Reads the InfiniBand fabric from ibnetdiscover output and writes Slurm topology files and a "
    "fabric map; describes nodes (GPUs, NICs, PCIe paths); plans pipeline stages; runs node "
    "health checks; draws the fabric as SVG.")
# `switchyard health --resume` calls scontrol; discover reads ibnetdiscover output.
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "slurm-client, infiniband-diags")
set(CPACK_DEBIAN_PLUGIN_PACKAGE_NAME slurm-spank-switchyard)
string(CONCAT CPACK_DEBIAN_PLUGIN_DESCRIPTION
    "SPANK plugin placing LLM training jobs by fabric, with NCCL wiring and a health gate\n"
    "Adds --pipeline-stages, --stage-scope, --rank-order, --nccl-env and --topo-report to srun, "
    "sbatch and salloc; sets stage, rank and NCCL variables in each task; drains nodes that fail "
    "their health checks in the job prolog. Link "
    "/usr/share/switchyard/plugstack.conf.d/switchyard.conf into /etc/slurm/plugstack.conf.d/.")
# A SPANK plugin is tied to the Slurm release it was built against (SwitchyardSlurm.cmake):
# 22.05 on Debian 12, 24.11 when built in the Debian 13 root.
set(CPACK_DEBIAN_PLUGIN_PACKAGE_DEPENDS
    "switchyard (= ${PROJECT_VERSION}), slurm-wlm-basic-plugins (>= ${SWITCHYARD_SLURM_RELEASE}), slurm-wlm-basic-plugins (<< ${SWITCHYARD_SLURM_NEXT})")
include(CPack)
