# SPDX-License-Identifier: Apache-2.0
# Project-wide warning set, applied per target so third-party code is not affected.
function(switchyard_warnings target)
    target_compile_options(${target} PRIVATE
        -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
        -Wold-style-cast -Wformat=2 -Wimplicit-fallthrough)
    if(SWITCHYARD_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
endfunction()
