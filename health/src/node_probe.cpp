// SPDX-License-Identifier: Apache-2.0
// SystemProbe: the real node behind the health checks' seam.
#include "switchyard/health/node_probe.hpp"

#include <sys/statvfs.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "switchyard/common/file.hpp"
#include "switchyard/common/state_file.hpp"
#include "switchyard/common/strings.hpp"

namespace switchyard::health {

std::string SystemProbe::pci_attribute(const std::string& busid, const std::string& attribute) {
    return read_first_line((root_ / "bus" / "pci" / "devices" / busid / attribute).string())
        .value_or("");
}

std::string SystemProbe::meminfo() {
    auto text = read_text_file("/proc/meminfo", {1U << 20, false});
    return text ? std::move(*text) : std::string();
}

Result<FsSpace> SystemProbe::filesystem(const std::string& path) {
    struct statvfs st {};
    if (statvfs(path.c_str(), &st) != 0) {
        return fail(Error::io(std::string("not available: ") + std::strerror(errno)));
    }
    return FsSpace{static_cast<double>(st.f_bavail) * static_cast<double>(st.f_frsize) / 1e9};
}

Result<void> SystemProbe::writable(const std::string& dir) {
    return probe_writable(dir);
}

ProcessRun SystemProbe::run(const std::vector<std::string>& argv, double timeout_s) {
    return run_process(argv, timeout_s, &clean_environment());
}

NvmlFacts SystemProbe::nvml(const std::string& library, bool nvlinks, double timeout_s) {
    return topology::read_nvml(library, nvlinks, timeout_s);
}

Result<std::string> SystemProbe::read_state(const std::string& path) {
    return read_owned_file(path);
}

Result<void> SystemProbe::write_state(const std::string& path, std::string_view content) {
    return replace_owned_file(path, content);
}

double SystemProbe::seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace switchyard::health
