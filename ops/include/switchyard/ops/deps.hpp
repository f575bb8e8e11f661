// SPDX-License-Identifier: Apache-2.0
// What every use case of ops/ is handed instead of reaching for the world itself: the Slurm
// client, a clock, the file system root, and the console its progress goes to. The command
// gives the real ones; the unit tests give the fake client, a fixed clock and a directory.
#pragma once

#include <ctime>
#include <iosfwd>
#include <string>

#include "switchyard/slurm/client/client.hpp"

namespace switchyard::ops {

/// Wall-clock time in seconds since the epoch.
class Clock {
public:
    Clock() = default;
    Clock(const Clock&) = delete;
    Clock& operator=(const Clock&) = delete;
    virtual ~Clock() = default;
    [[nodiscard]] virtual double now() const = 0;
};

class SystemClock final : public Clock {
public:
    [[nodiscard]] double now() const override { return static_cast<double>(std::time(nullptr)); }
};

/// A clock that says what it is told (tests).
class FixedClock final : public Clock {
public:
    explicit FixedClock(double t) : t_(t) {}
    [[nodiscard]] double now() const override { return t_; }
    void set(double t) { t_ = t; }

private:
    double t_;
};

struct Deps {
    slurm::Client& slurm;
    const Clock& clock;
    /// What stands for "/" when a use case reads the host's own files and its request names no
    /// other place (the live node's RDMA ports: ROOT/sys). "" is the real root.
    std::string root;
    /// Where a long use case (discover, install) tells what it did as it happens, and its
    /// warnings; the others return everything in their report.
    std::ostream& out;
    std::ostream& err;
};

}  // namespace switchyard::ops
