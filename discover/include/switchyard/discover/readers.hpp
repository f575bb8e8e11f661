// SPDX-License-Identifier: Apache-2.0
// The fabric's inputs, one reader per format behind one interface: each gives the FabricGraph
// the classifier reads the same way (an Ethernet fabric's hosts and switches in the shape an
// InfiniBand dump gives them). discover picks the reader by option and never asks which it is.
#pragma once

#include <memory>
#include <string>

#include "switchyard/common/result.hpp"
#include "switchyard/discover/fabric_graph.hpp"
#include "switchyard/discover/lldp.hpp"

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

/// ibnetdiscover's output, default or -p format, at `path` ("-": standard input): a file is
/// mapped, not copied, and unmapped once the graph holds what it needs.
[[nodiscard]] std::unique_ptr<FabricReader> ibnetdiscover_reader(std::string path);

/// A directory of lldpctl outputs, one per host or switch: every file read and parsed on up to
/// four threads and added in name order (a file keeps only its cables once added). What
/// `options` points at must outlive read().
[[nodiscard]] std::unique_ptr<FabricReader> lldp_reader(std::string dir, LldpOptions options);

}  // namespace switchyard::discover
