// SPDX-License-Identifier: Apache-2.0
// The preflight's wire: reserved ports, non-blocking sockets, lines with deadlines.
#include "preflight_wire.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

namespace switchyard::ops::wire {
namespace {

constexpr std::uint16_t kFirstReserved = 512;  ///< the client ports tried: 512..1023
constexpr std::uint16_t kReservedEnd = 1024;

std::string errno_text() {
    return std::strerror(errno);
}

bool set_nonblocking(int fd) {
    const int flags = fcntl(fd, F_GETFL);
    return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

/// Milliseconds left to `deadline` for poll(), at least 0.
int poll_ms(double deadline) {
    const double left = deadline - now();
    return left <= 0 ? 0 : static_cast<int>(std::min(left * 1000.0 + 1, 60000.0));
}

/// Waits for `events` on `fd` by `deadline`; false when the time ran out.
bool wait_for(int fd, short events, double deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        const int rc = poll(&p, 1, poll_ms(deadline));
        if (rc > 0) {
            return true;
        }
        if (rc < 0 && errno == EINTR) {
            continue;
        }
        if (rc == 0 && now() < deadline) {
            continue;  // poll's slice (at most a minute) ended before the deadline
        }
        return false;
    }
}

/// `address` (numeric; nullptr: any address) and `port` as a socket address of its family;
/// its length, 0 when `address` is no address of that family.
socklen_t socket_address(bool v6, const char* address, std::uint16_t port, sockaddr_storage& out) {
    out = {};
    if (v6) {
        auto* a = reinterpret_cast<sockaddr_in6*>(&out);
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(port);
        a->sin6_addr = in6addr_any;
        if (address != nullptr && inet_pton(AF_INET6, address, &a->sin6_addr) != 1) {
            return 0;
        }
        return sizeof *a;
    }
    auto* a = reinterpret_cast<sockaddr_in*>(&out);
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    a->sin_addr.s_addr = htonl(INADDR_ANY);
    if (address != nullptr && inet_pton(AF_INET, address, &a->sin_addr) != 1) {
        return 0;
    }
    return sizeof *a;
}

std::string address_text(const sockaddr_storage& ss, std::uint16_t* port) {
    char host[INET6_ADDRSTRLEN] = {};
    if (ss.ss_family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        *port = ntohs(in->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        const auto* in = reinterpret_cast<const sockaddr_in6*>(&ss);
        inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
        *port = ntohs(in->sin6_port);
    } else {
        *port = 0;
    }
    return host;
}

}  // namespace

double now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

Socket& Socket::operator=(Socket&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) {
            close(fd_);
        }
        fd_ = o.fd_;
        o.fd_ = -1;
    }
    return *this;
}

Socket::~Socket() {
    if (fd_ >= 0) {
        close(fd_);
    }
}

Result<Socket> listen_on(std::uint16_t port) {
    const auto where = "preflight: port " + std::to_string(port);
    const int one = 1;
    const int zero = 0;
    Socket s(socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (s.open()) {  // both families on one socket
        (void)setsockopt(s.fd(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        (void)setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_storage a{};
        const socklen_t len = socket_address(true, nullptr, port, a);
        if (bind(s.fd(), reinterpret_cast<const sockaddr*>(&a), len) != 0) {
            if (errno == EADDRINUSE || errno == EACCES) {
                return fail(
                    Error::io(where + ": " + errno_text() +
                              (errno == EACCES ? " (only root may listen under 1024)" : "")));
            }
            s = Socket();  // no IPv6 here: IPv4 alone
        }
    }
    if (!s.open()) {
        s = Socket(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (!s.open()) {
            return fail(Error::io(where + ": socket: " + errno_text()));
        }
        (void)setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_storage a{};
        const socklen_t len = socket_address(false, nullptr, port, a);
        if (bind(s.fd(), reinterpret_cast<const sockaddr*>(&a), len) != 0) {
            return fail(Error::io(where + ": " + errno_text()));
        }
    }
    if (listen(s.fd(), 1024) != 0 || !set_nonblocking(s.fd())) {
        return fail(Error::io(where + ": listen: " + errno_text()));
    }
    return s;
}

Socket accept_one(const Socket& listener, bool& reserved, std::string& peer) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    Socket s(accept4(listener.fd(), reinterpret_cast<sockaddr*>(&ss), &len,
                     SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!s.open()) {
        return s;
    }
    std::uint16_t port = 0;
    peer = address_text(ss, &port);
    reserved = port > 0 && port < kReservedEnd;
    peer += ":" + std::to_string(port);
    return s;
}

Result<std::vector<std::string>> resolve(const std::string& host) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res); rc != 0) {
        return fail(Error::io("preflight: " + host + ": " + gai_strerror(rc)));
    }
    std::vector<std::string> out;
    for (const auto* p = res; p != nullptr; p = p->ai_next) {
        sockaddr_storage ss{};
        std::memcpy(&ss, p->ai_addr, std::min<std::size_t>(p->ai_addrlen, sizeof ss));
        std::uint16_t port = 0;
        if (auto a = address_text(ss, &port); !a.empty()) {
            out.push_back(std::move(a));
        }
    }
    freeaddrinfo(res);
    if (out.empty()) {
        return fail(Error::io("preflight: " + host + ": no address"));
    }
    return out;
}

Result<Socket> connect_reserved(const std::string& address, std::uint16_t port, double deadline) {
    const bool v6 = address.find(':') != std::string::npos;
    sockaddr_storage to{};
    const socklen_t to_len = socket_address(v6, address.c_str(), port, to);
    if (to_len == 0) {
        return fail(Error::io("preflight: '" + address + "' is not an address"));
    }
    const auto where = "preflight: " + address + " port " + std::to_string(port);
    Socket s(socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s.open()) {
        return fail(Error::io(where + ": socket: " + errno_text()));
    }
    const int one = 1;
    (void)setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    // A reserved local port, tried from a random place as bindresvport(3) does.
    std::random_device rd;
    const auto span = static_cast<unsigned>(kReservedEnd - kFirstReserved);
    const unsigned first = rd() % span;
    bool bound = false;
    for (unsigned i = 0; i < span && !bound; ++i) {
        const auto p = static_cast<std::uint16_t>(kFirstReserved + (first + i) % span);
        sockaddr_storage local{};
        const socklen_t local_len = socket_address(v6, nullptr, p, local);
        if (bind(s.fd(), reinterpret_cast<const sockaddr*>(&local), local_len) == 0) {
            bound = true;
        } else if (errno != EADDRINUSE) {
            return fail(Error::io(where + ": no local port under 1024: " + errno_text() +
                                  (errno == EACCES ? " (only root may bind one)" : "")));
        }
    }
    if (!bound) {
        return fail(Error::io(where + ": every local port under 1024 is in use"));
    }
    if (!set_nonblocking(s.fd())) {
        return fail(Error::io(where + ": " + errno_text()));
    }
    if (connect(s.fd(), reinterpret_cast<const sockaddr*>(&to), to_len) != 0) {
        if (errno != EINPROGRESS) {
            return fail(Error::io(where + ": " + errno_text()));
        }
        if (!wait_for(s.fd(), POLLOUT, deadline)) {
            return fail(Error::io(where + ": no answer in time"));
        }
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
            return fail(Error::io(where + ": " + std::strerror(err != 0 ? err : errno)));
        }
    }
    return s;
}

Result<void> send_all(const Socket& s, std::string_view data, double deadline) {
    while (!data.empty()) {
        const auto n = send(s.fd(), data.data(), data.size(), MSG_NOSIGNAL);
        if (n > 0) {
            data.remove_prefix(static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!wait_for(s.fd(), POLLOUT, deadline)) {
                return fail(Error::io("preflight: the peer took nothing more in time"));
            }
            continue;
        }
        return fail(Error::io(std::string("preflight: send: ") + errno_text()));
    }
    return {};
}

bool LineReader::fill(const Socket& s) {
    char buf[16384];
    for (;;) {
        const auto n = recv(s.fd(), buf, sizeof buf, 0);
        if (n > 0) {
            buffer.append(buf, static_cast<std::size_t>(n));
            const auto nl = buffer.rfind('\n');
            const auto tail = nl == std::string::npos ? buffer.size() : buffer.size() - nl - 1;
            if (tail > kMaxLine) {
                closed = true;
                return false;
            }
            if (buffer.size() > (std::size_t{64} << 20)) {  // nobody's lines go unread that long
                closed = true;
                return false;
            }
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return true;
        }
        closed = true;
        return false;
    }
}

std::optional<std::string> LineReader::next() {
    const auto nl = buffer.find('\n');
    if (nl == std::string::npos) {
        return std::nullopt;
    }
    std::string line = buffer.substr(0, nl);
    buffer.erase(0, nl + 1);
    if (line.size() > kMaxLine) {
        closed = true;
        return std::nullopt;
    }
    return line;
}

Result<std::string> read_line(const Socket& s, LineReader& r, double deadline) {
    for (;;) {
        if (auto line = r.next()) {
            return *line;
        }
        if (r.closed) {
            return fail(Error::io("preflight: the peer closed the connection"));
        }
        if (!wait_for(s.fd(), POLLIN, deadline)) {
            return fail(Error::io("preflight: no answer in time"));
        }
        (void)r.fill(s);
    }
}

}  // namespace switchyard::ops::wire
