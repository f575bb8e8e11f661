// SPDX-License-Identifier: Apache-2.0
// Two pieces of work at once: the machines `discover` runs on have two cores or more, and the
// largest fabrics' passes (the readers, the classifier, the writers) split into halves that
// touch only their own state.
#pragma once

#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>

namespace switchyard {

/// Node and cable counts from which the passes over a parsed graph run in two halves.
inline constexpr std::size_t kHalvesFromItems = 50000;

/// Runs `second` on another thread while `first` runs on this one, and returns when both have
/// ended; an exception thrown by `second` is rethrown here. Returns false, having run neither,
/// when no thread can be had: the caller then does the work in one pass.
template <typename First, typename Second>
bool both_at_once(First first, Second second) {
    std::exception_ptr thrown;
    std::jthread worker;
    try {
        worker = std::jthread([&] {
            try {
                second();
            } catch (...) {
                thrown = std::current_exception();
            }
        });
    } catch (const std::system_error&) {
        return false;
    }
    first();  // should it throw, the jthread joins the worker as the stack unwinds
    worker.join();
    if (thrown) {
        std::rethrow_exception(thrown);
    }
    return true;
}

}  // namespace switchyard
