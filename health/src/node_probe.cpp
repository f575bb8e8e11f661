// SPDX-License-Identifier: Apache-2.0
// SystemProbe: the real node behind the health checks' seam.
#include "switchyard/health/node_probe.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

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
    // One query serves every check of a run: a GPU's facts do not change in between, and NVML's
    // initialisation is the slow part (hundreds of ms on a node of 8 GPUs). A library that did
    // not answer, or could not be loaded or initialised, is not asked again in the run either:
    // a hung driver would cost each check its whole timeout and leave one more thread behind.
    if (nvml_ && nvml_library_ == library &&
        (nvml_->state != NvmlFacts::State::Read || nvml_nvlinks_ || !nvlinks)) {
        return *nvml_;
    }
    nvml_ = node::read_nvml(library, nvlinks, timeout_s);
    nvml_library_ = library;
    nvml_nvlinks_ = nvlinks;
    return *nvml_;
}

FileStatus SystemProbe::file_status(const std::string& path) {
    FileStatus f;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            f.error = std::strerror(errno);
        }
        return f;
    }
    f.exists = true;
    f.char_device = S_ISCHR(st.st_mode);
    f.uid = st.st_uid;
    f.mode = st.st_mode & 07777U;
    return f;
}

Result<std::string> SystemProbe::kernel_log(const std::string& source) {
    const int fd = ::open(source.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return fail(Error::io(source + ": " + std::strerror(errno)));
    }
    struct stat st {};
    std::string out;
    if (::fstat(fd, &st) != 0 || (!S_ISCHR(st.st_mode) && !S_ISREG(st.st_mode))) {
        ::close(fd);
        return fail(Error::io(source + ": not the kernel log (a character device or a file)"));
    }
    // /dev/kmsg gives one record per read and EAGAIN at the end; a file gives blocks to EOF.
    // A record lost to the ring buffer's turnover (EPIPE) is skipped. The newest records are
    // kept when the log is larger than the bound.
    char buf[8192];
    for (std::size_t reads = 0; reads < 4'000'000; ++reads) {
        const auto n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EPIPE) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        out.append(buf, static_cast<std::size_t>(n));
        if (S_ISCHR(st.st_mode) && out.back() != '\n') {
            out += '\n';
        }
        if (out.size() > 2 * kMaxKernelLog) {
            out.erase(0, out.size() - kMaxKernelLog);
        }
    }
    ::close(fd);
    if (out.size() > kMaxKernelLog) {
        out.erase(0, out.size() - kMaxKernelLog);
    }
    return out;
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
