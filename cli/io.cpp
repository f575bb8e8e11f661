// SPDX-License-Identifier: Apache-2.0
// File helpers for the CLI.
#include "io.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "switchyard/common/file.hpp"

namespace switchyard::cli {

Result<std::string> read_input(const std::string& path) {
    if (path == "-") {  // read up to the same bound as a file
        std::string data;
        char buf[1 << 16];
        while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
            data.append(buf, static_cast<std::size_t>(std::cin.gcount()));
            if (data.size() > kMaxInputFile) {
                return fail(Error::io("standard input: more than the " +
                                      std::to_string(kMaxInputFile) + " bytes allowed"));
            }
        }
        return data;
    }
    return read_text_file(path);
}

Result<void> write_file_atomic(const std::string& path, std::string_view content) {
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) {
            return fail(Error::io("cannot write '" + tmp + "': " + std::strerror(errno)));
        }
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out) {
            std::remove(tmp.c_str());
            return fail(Error::io("error while writing '" + tmp + "'"));
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        return fail(Error::io("cannot rename '" + tmp + "' to '" + path + "': " + why));
    }
    return {};
}

std::string short_hostname() {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    const std::string h = buf;
    return h.substr(0, h.find('.'));
}

Result<topology::FabricMap> load_fabric_map(const std::string& path) {
    auto text = read_input(path);
    if (!text) {
        return fail(text.error());
    }
    return topology::read_fabric_map(*text, path);
}

}  // namespace switchyard::cli
