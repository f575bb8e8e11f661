# SPDX-License-Identifier: Apache-2.0
# SWITCHYARD_SANITIZE="address;undefined" instruments every target of this project.
if(SWITCHYARD_SANITIZE)
    list(JOIN SWITCHYARD_SANITIZE "," _sy_san)
    add_compile_options(-fsanitize=${_sy_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=${_sy_san})
    message(STATUS "switchyard: sanitizers: ${_sy_san}")
endif()
