// SPDX-License-Identifier: Apache-2.0
// Diagnostic: a problem found in an input that did not stop the reader (a fabric dump, a node's
// sysfs), kept with the result for the caller to report.
#pragma once

#include <string>

#include "switchyard/common/error.hpp"

namespace switchyard {

/// A problem found in the input that did not stop parsing or classification.
struct Diagnostic {
    std::string kind;  ///< stable word: dangling-link, asymmetric-link, ...
    SourceLoc where;
    std::string message;
};

}  // namespace switchyard
