// SPDX-License-Identifier: Apache-2.0
// NCCL rule R17, multi-node NVLink (internal to the NCCL library; rules.cpp runs it).
#pragma once

#include "switchyard/nccl/rules.hpp"

namespace switchyard::nccl {

/// R17: MNNVL on (1) with cuMem only when every node of the step is in one healthy NVLink
/// domain of `map` and this node has its IMEX channel; off (0, NVLS too unless R10 decided it)
/// where the domain is degraded or the channel missing; NCCL's own choice across domains;
/// NCCL_MNNVL_CLIQUE_ID per --nvl-group of a domain. Appends to `out` in that order.
void decide_mnnvl(const NcclPolicy& policy,
                  const fabric::FabricMap* map,
                  const JobFacts& job,
                  NcclDecision& out);

}  // namespace switchyard::nccl
