// SPDX-License-Identifier: Apache-2.0
// A step module from another build (another version string), for the front's refusal test.
#include "step_abi.hpp"

namespace {
int hook(spank_t /*sp*/, int /*ac*/, char** /*av*/) {
    return 0;
}
int option(int /*val*/, const char* /*optarg*/, int /*remote*/, int /*ac*/, char** /*av*/) {
    return 0;
}
const char* no_entry() {
    return nullptr;
}
constexpr switchyard_step_hooks kOther{
    SWITCHYARD_STEP_ABI, "0.0.0-other", hook, hook, hook, hook, option, no_entry};
}  // namespace

extern "C" SWITCHYARD_EXPORT const switchyard_step_hooks* switchyard_step_v1(
    struct spank_option* /*options*/, int /*count*/) {
    return &kOther;
}
