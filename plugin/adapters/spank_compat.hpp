// SPDX-License-Identifier: Apache-2.0
// The one place that includes <slurm/spank.h>, wrapped for C++ (see reference/slurm.md 2.1).
#pragma once

// spank.h declares `extern spank_f slurm_spank_init;` outside its own extern "C" block: without
// this wrapper g++ gives the hooks C++ linkage and rejects our definitions.
extern "C" {
#include <slurm/spank.h>
}

/// Symbols Slurm must find in the .so; everything else stays hidden.
#define SWITCHYARD_EXPORT __attribute__((visibility("default")))
