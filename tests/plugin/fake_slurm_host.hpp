// SPDX-License-Identifier: Apache-2.0
// The host side of the SPANK ABI for dlopen_test: the spank_* and slurm_* functions Slurm's
// processes export (fake_slurm_host.cpp defines them, in the test program itself), over one
// record of what the loaded plugin asked and was told.
#pragma once

#include <cstdarg>
#include <map>
#include <string>
#include <vector>

#include "slurm_compat.hpp"
#include "spank_compat.hpp"

namespace dlopen_host {

struct Host {
    spank_context_t ctx = S_CTX_LOCAL;
    spank_err_t register_rc = static_cast<spank_err_t>(ESPANK_SUCCESS);
    bool throw_in_getopt = false;
    std::map<std::string, std::string> options;  // what spank_option_getopt reports
    std::map<std::string, std::string> env;
    std::vector<struct spank_option*> registered;
    std::vector<std::string> errors;
    std::vector<std::string> infos;
    std::vector<std::string> words;  // the plugstack words of the last hook call
    std::vector<char*> av;
    uint32_t tasks = 0;  // tasks of the step on this node (and in all: one node)
    int task = 0;        // the calling task's id
};

/// The one host the fake functions serve.
extern Host g_host;

/// printf's `fmt` and `ap` as a string (up to 1 KiB).
std::string format(const char* fmt, va_list ap);

}  // namespace dlopen_host
