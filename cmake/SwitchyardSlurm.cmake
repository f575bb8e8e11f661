# SPDX-License-Identifier: Apache-2.0
# Finds slurm/spank.h, reads the Slurm release from slurm_version.h, and decides whether the
# SPANK plugin is built (SWITCHYARD_BUILD_PLUGIN). Slurm loads a plugin only when its
# plugin_version has Slurm's own major.minor, so a build is for one release series:
# SWITCHYARD_SLURM_RELEASE ("24.11"; "none" without headers) names it to the CLI, the plugin's
# log line and the package's dependency.
find_path(SLURM_INCLUDE_DIR slurm/spank.h)
set(SWITCHYARD_WITH_PLUGIN OFF)
set(SWITCHYARD_SLURM_RELEASE "none")
set(SWITCHYARD_SLURM_VERSION "none")
if(SLURM_INCLUDE_DIR AND EXISTS "${SLURM_INCLUDE_DIR}/slurm/slurm_version.h")
    file(STRINGS "${SLURM_INCLUDE_DIR}/slurm/slurm_version.h" _sy_slurm_ver
        REGEX "^#define SLURM_VERSION_NUMBER 0x[0-9a-fA-F]+")
    string(REGEX REPLACE ".*0x([0-9a-fA-F]+).*" "\\1" _sy_hex "${_sy_slurm_ver}")
    string(LENGTH "${_sy_hex}" _sy_len)
    if(_sy_len EQUAL 6)
        # 0xMMmmpp: two hex digits each for major, minor and micro.
        string(SUBSTRING "${_sy_hex}" 0 2 _sy_major)
        string(SUBSTRING "${_sy_hex}" 2 2 _sy_minor)
        string(SUBSTRING "${_sy_hex}" 4 2 _sy_micro)
        math(EXPR _sy_major "0x${_sy_major}")
        math(EXPR _sy_minor "0x${_sy_minor}")
        math(EXPR _sy_micro "0x${_sy_micro}")
        if(_sy_minor LESS 10)
            set(_sy_minor "0${_sy_minor}")
        endif()
        set(SWITCHYARD_SLURM_RELEASE "${_sy_major}.${_sy_minor}")
        set(SWITCHYARD_SLURM_VERSION "${_sy_major}.${_sy_minor}.${_sy_micro}")
        # The next release series, for the package's "<< " dependency (22.05 → 22.06).
        math(EXPR _sy_next "${_sy_minor} + 1")
        set(SWITCHYARD_SLURM_NEXT "${_sy_major}.${_sy_next}")
    else()
        message(WARNING "switchyard: cannot read SLURM_VERSION_NUMBER in "
                        "${SLURM_INCLUDE_DIR}/slurm/slurm_version.h ('${_sy_slurm_ver}')")
    endif()
endif()
if(SWITCHYARD_BUILD_PLUGIN STREQUAL "AUTO")
    if(SLURM_INCLUDE_DIR)
        set(SWITCHYARD_WITH_PLUGIN ON)
    else()
        message(STATUS "switchyard: slurm/spank.h not found (apt-get install libslurm-dev); plugin not built")
    endif()
elseif(SWITCHYARD_BUILD_PLUGIN)
    if(NOT SLURM_INCLUDE_DIR)
        message(FATAL_ERROR "switchyard: SWITCHYARD_BUILD_PLUGIN=ON but slurm/spank.h was not found; "
                            "install libslurm-dev or set SLURM_INCLUDE_DIR")
    endif()
    set(SWITCHYARD_WITH_PLUGIN ON)
endif()
if(SWITCHYARD_WITH_PLUGIN)
    if(SWITCHYARD_SLURM_RELEASE STREQUAL "none")
        message(FATAL_ERROR "switchyard: the Slurm release of ${SLURM_INCLUDE_DIR} is unknown")
    endif()
    if(SWITCHYARD_SLURM_VERSION VERSION_LESS 22.05)
        message(FATAL_ERROR "switchyard: Slurm ${SWITCHYARD_SLURM_VERSION} found; the plugin needs 22.05 or later")
    endif()
    message(STATUS "switchyard: building the SPANK plugin for Slurm ${SWITCHYARD_SLURM_VERSION} (release ${SWITCHYARD_SLURM_RELEASE})")
endif()
