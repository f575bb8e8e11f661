// SPDX-License-Identifier: Apache-2.0
// The preflight's wire between the nodes of a job, in their prologs: TCP, a line at a time,
// every wait bounded by a deadline. Both ends use a port under 1024, which only root can bind:
// the first node listens on one, the others connect from one, and each end refuses a peer that
// does not. That is how the prologs know each other (no user of the nodes can pose as either).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"

namespace switchyard::ops::wire {

/// Seconds since the epoch, fractional: the deadlines here and the rounds' start.
[[nodiscard]] double now();

/// An open socket, closed when it goes.
class Socket {
public:
    Socket() = default;
    explicit Socket(int fd) : fd_(fd) {}
    Socket(Socket&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Socket& operator=(Socket&& o) noexcept;
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    ~Socket();
    [[nodiscard]] int fd() const { return fd_; }
    [[nodiscard]] bool open() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

/// The largest line either end accepts (a pair's result is about 200 bytes).
inline constexpr std::size_t kMaxLine = 4096;

/// Listens on `port` of every address (IPv6 and IPv4 together where the host has IPv6),
/// non-blocking. \return Error::io naming the port and why (in use, not root).
[[nodiscard]] Result<Socket> listen_on(std::uint16_t port);

/// Accepts one waiting connection (non-blocking); an empty socket when none is waiting.
/// `reserved` says whether the peer's port is under 1024; `peer` is its address, for messages.
[[nodiscard]] Socket accept_one(const Socket& listener, bool& reserved, std::string& peer);

/// The addresses of `host` (a name or a numeric address) on `port`.
[[nodiscard]] Result<std::vector<std::string>> resolve(const std::string& host);

/// Connects to `address` (numeric) on `port` from a local port under 1024, by `deadline`.
[[nodiscard]] Result<Socket> connect_reserved(const std::string& address,
                                              std::uint16_t port,
                                              double deadline);

/// Writes all of `data` by `deadline`.
[[nodiscard]] Result<void> send_all(const Socket& s, std::string_view data, double deadline);

/// Lines read from a socket: what arrived is kept in `buffer` between calls.
struct LineReader {
    std::string buffer;
    bool closed = false;  ///< the peer closed (or the read failed)
    /// Reads what is waiting without blocking; false when the peer closed or a line grew past
    /// kMaxLine (the connection is then useless).
    bool fill(const Socket& s);
    /// The next complete line without its newline, if one has arrived.
    [[nodiscard]] std::optional<std::string> next();
};

/// The next line by `deadline`. \return Error::io (timed out, closed, too long).
[[nodiscard]] Result<std::string> read_line(const Socket& s, LineReader& r, double deadline);

}  // namespace switchyard::ops::wire
