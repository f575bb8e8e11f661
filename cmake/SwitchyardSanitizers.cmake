# SPDX-License-Identifier: Apache-2.0
# SWITCHYARD_SANITIZE="address;undefined" instruments every target of this project.
if(SWITCHYARD_SANITIZE)
    list(JOIN SWITCHYARD_SANITIZE "," _sy_san)
    add_compile_options(-fsanitize=${_sy_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=${_sy_san})
    message(STATUS "switchyard: sanitizers: ${_sy_san}")
endif()
# The fuzz preset instruments every library for coverage too (the harnesses alone would see only
# their own edges); the harness executables add the fuzzer's main (-fsanitize=fuzzer).
if(SWITCHYARD_FUZZ)
    add_compile_options(-fsanitize=fuzzer-no-link)
    message(STATUS "switchyard: libraries instrumented for libFuzzer")
endif()
