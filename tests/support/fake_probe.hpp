// SPDX-License-Identifier: Apache-2.0
// A NodeProbe whose every fact is set by the test: no sysfs, no /proc, no process, no NVML,
// state files in memory, a clock that moves only when told.
#pragma once

#include <map>
#include <string>

#include "switchyard/health/node_probe.hpp"

namespace switchyard::test {

class FakeProbe final : public health::NodeProbe {
public:
    node::NodeTopology facts;
    std::map<std::string, std::string> pci;  ///< "<busid>/<attribute>" → first line
    std::string meminfo_text;
    std::map<std::string, double> free_gb;          ///< path → free GB; absent: not mounted
    std::map<std::string, std::string> unwritable;  ///< dir → why
    std::map<std::string, ProcessRun> commands;     ///< argv[0] → what it does
    health::NvmlFacts nvml_facts;
    std::map<std::string, health::FileStatus> files;  ///< path → lstat; absent: no such file
    std::map<std::string, std::string> logs;          ///< kernel log source → text
    std::map<std::string, std::string> state;         ///< path → content
    double clock = 0;
    double seconds_per_command = 0;  ///< how long each command "runs"
    std::vector<std::string> ran;    ///< argv[0] of each command run, in order

    [[nodiscard]] const node::NodeTopology& node() const override { return facts; }
    [[nodiscard]] std::string pci_attribute(const std::string& busid,
                                            const std::string& attribute) override {
        const auto it = pci.find(busid + "/" + attribute);
        return it == pci.end() ? std::string() : it->second;
    }
    [[nodiscard]] std::string meminfo() override { return meminfo_text; }
    [[nodiscard]] Result<health::FsSpace> filesystem(const std::string& path) override {
        const auto it = free_gb.find(path);
        if (it == free_gb.end()) {
            return fail(Error::io("not available: No such file or directory"));
        }
        return health::FsSpace{it->second};
    }
    [[nodiscard]] Result<void> writable(const std::string& dir) override {
        const auto it = unwritable.find(dir);
        if (it != unwritable.end()) {
            return fail(Error::io(dir + ": " + it->second));
        }
        return {};
    }
    [[nodiscard]] ProcessRun run(const std::vector<std::string>& argv, double timeout_s) override {
        ran.push_back(argv.front());
        clock += std::min(seconds_per_command, timeout_s);
        const auto it = commands.find(argv.front());
        if (it == commands.end()) {
            return {"", 127, false, ""};
        }
        auto r = it->second;
        r.timed_out = r.timed_out || seconds_per_command > timeout_s;
        return r;
    }
    [[nodiscard]] health::NvmlFacts nvml(const std::string& /*library*/,
                                         bool /*nvlinks*/,
                                         double /*timeout_s*/) override {
        return nvml_facts;
    }
    [[nodiscard]] health::FileStatus file_status(const std::string& path) override {
        const auto it = files.find(path);
        return it == files.end() ? health::FileStatus{} : it->second;
    }
    [[nodiscard]] Result<std::string> kernel_log(const std::string& source) override {
        const auto it = logs.find(source);
        if (it == logs.end()) {
            return fail(Error::io(source + ": No such file or directory"));
        }
        return it->second;
    }
    [[nodiscard]] Result<std::string> read_state(const std::string& path) override {
        const auto it = state.find(path);
        return it == state.end() ? std::string() : it->second;
    }
    [[nodiscard]] Result<void> write_state(const std::string& path,
                                           std::string_view content) override {
        state[path] = std::string(content);
        return {};
    }
    [[nodiscard]] double seconds() override { return clock; }
};

}  // namespace switchyard::test
