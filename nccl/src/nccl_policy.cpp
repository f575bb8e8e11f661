// SPDX-License-Identifier: Apache-2.0
// The NCCL settings' lookups, and what NCCL's documentation says of variable names.
#include "switchyard/nccl/nccl_policy.hpp"

#include <algorithm>
#include <iterator>

namespace switchyard::nccl {

const NcclProfile* NcclPolicy::find_profile(std::string_view name) const {
    for (const auto& p : profiles) {
        if (p.name == name) {
            return &p;
        }
    }
    return nullptr;
}

std::string NcclPolicy::user_profile_names() const {
    std::string s;
    for (const auto& p : profiles) {
        if (p.user_selectable) {
            s += (s.empty() ? "" : ", ") + p.name;
        }
    }
    return s.empty() ? std::string("(none)") : s;
}

// The NCCL variables users set that the rules look at: debugging ones, and obsolete names.
bool is_debugging_variable(std::string_view name) {
    static constexpr std::string_view kDebugging[] = {"NCCL_ALGO",
                                                      "NCCL_PROTO",
                                                      "NCCL_NET_GDR_LEVEL",
                                                      "NCCL_BUFFSIZE",
                                                      "NCCL_MIN_NCHANNELS",
                                                      "NCCL_MAX_NCHANNELS",
                                                      "NCCL_MIN_CTAS",
                                                      "NCCL_MAX_CTAS",
                                                      "NCCL_NTHREADS",
                                                      "NCCL_P2P_NET_CHUNKSIZE",
                                                      "NCCL_P2P_LEVEL",
                                                      "NCCL_SHM_DISABLE",
                                                      "NCCL_P2P_DISABLE",
                                                      "NCCL_NET_GDR_READ",
                                                      "NCCL_IB_SPLIT_DATA_ON_QPS"};
    return std::find(std::begin(kDebugging), std::end(kDebugging), name) != std::end(kDebugging);
}

namespace {
constexpr std::pair<std::string_view, std::string_view> kObsolete[] = {
    {"NCCL_IB_CUDA_SUPPORT", "removed in NCCL 2.4.0; use NCCL_NET_GDR_LEVEL"},
    {"NCCL_IB_GDR_LEVEL", "old name of NCCL_NET_GDR_LEVEL"},
    {"NCCL_TIMEOUT",
     "does not exist in NCCL; the collective timeout is PyTorch's init_process_group(timeout=)"},
    {"NCCL_ASYNC_ERROR_HANDLING", "PyTorch's legacy name; use TORCH_NCCL_ASYNC_ERROR_HANDLING"},
    {"NCCL_LL_THRESHOLD", "removed in NCCL 2.5"},
    {"NCCL_TREE_THRESHOLD", "removed in NCCL 2.5"},
    {"NCCL_SINGLE_RING_THRESHOLD", "removed in NCCL 2.3"},
};
}  // namespace

std::optional<std::string_view> obsolete_variable(std::string_view name) {
    for (const auto& [n, why] : kObsolete) {
        if (n == name) {
            return why;
        }
    }
    return std::nullopt;
}

std::vector<std::string_view> suspect_user_variables() {
    std::vector<std::string_view> names;
    for (const auto& [n, why] : kObsolete) {
        names.push_back(n);
    }
    names.emplace_back("NCCL_IB_RETRY_CNT");
    return names;
}

}  // namespace switchyard::nccl
