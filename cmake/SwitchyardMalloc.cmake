# SPDX-License-Identifier: Apache-2.0
# switchyard_fast_malloc(TARGET): the executable TARGET allocates with jemalloc (Debian's
# libjemalloc-dev) instead of glibc's malloc. `switchyard discover` builds a graph of about a
# million small objects at 800k HCAs; glibc's allocator (consolidation, page faults on fresh
# arenas) took a quarter of it. Only executables: a SPANK module must never bring its own
# allocator into srun or slurmstepd. Not under sanitizers or the fuzzer, which replace malloc.
if(NOT SWITCHYARD_SANITIZE AND NOT SWITCHYARD_FUZZ)
    pkg_check_modules(JEMALLOC REQUIRED IMPORTED_TARGET jemalloc)
endif()

function(switchyard_fast_malloc target)
    if(TARGET PkgConfig::JEMALLOC)
        # --no-as-needed: nothing names jemalloc; it replaces malloc by being linked.
        target_link_libraries(${target} PRIVATE
            -Wl,--push-state,--no-as-needed PkgConfig::JEMALLOC -Wl,--pop-state)
        # Its options (huge pages), read by jemalloc from the symbol malloc_conf.
        target_sources(${target} PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/jemalloc_conf.cpp)
    endif()
endfunction()
