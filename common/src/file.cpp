// SPDX-License-Identifier: Apache-2.0
// read_text_file: one read when the size is known, a streamed copy otherwise.
#include "switchyard/common/file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace switchyard {

Result<std::string> read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return fail(Error::io("cannot read '" + path + "': " + std::strerror(errno)));
    }
    // One read of the whole file: istreambuf_iterator copies byte by byte (several ms for a map).
    in.seekg(0, std::ios::end);
    const auto size = in.tellg();
    if (size <= 0) {
        // /proc files cannot seek to their end (tellg -1) or say 0 bytes: read until EOF.
        in.clear();
        in.seekg(0, std::ios::beg);
        std::ostringstream data;
        data << in.rdbuf();
        if (in.bad()) {
            return fail(Error::io("error while reading '" + path + "'"));
        }
        return data.str();
    }
    in.seekg(0, std::ios::beg);
    std::string data(static_cast<std::size_t>(size), '\0');
    if (!in.read(data.data(), static_cast<std::streamsize>(size))) {
        return fail(Error::io("error while reading '" + path + "'"));
    }
    return data;
}

}  // namespace switchyard
