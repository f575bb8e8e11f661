// SPDX-License-Identifier: Apache-2.0
// The fabric's inputs, one reader per format behind one interface: each gives the FabricGraph
// the classifier reads the same way (an Ethernet fabric's hosts and switches in the shape an
// InfiniBand dump gives them). discover picks the reader by option and never asks which it is;
// each reader's part (ib/, lldp/) makes its own.
#pragma once

#include <string>

#include "switchyard/common/result.hpp"
#include "switchyard/discover/graph/fabric_graph.hpp"

namespace switchyard::discover {

class FabricReader {
public:
    FabricReader() = default;
    FabricReader(const FabricReader&) = delete;
    FabricReader& operator=(const FabricReader&) = delete;
    virtual ~FabricReader() = default;

    /// The input as messages name it: its path, or "<stdin>".
    [[nodiscard]] virtual std::string source() const = 0;
    /// The input as the summary and file headers name it: its file name (the same dump gives
    /// the same files wherever it was read from), with " (LLDP)" for LLDP.
    [[nodiscard]] virtual std::string label() const = 0;
    /// The graph, with its warnings; or the error naming the file (and line).
    [[nodiscard]] virtual Result<FabricGraph> read() = 0;
};

}  // namespace switchyard::discover
