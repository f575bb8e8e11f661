// SPDX-License-Identifier: Apache-2.0
// InstallSets: the versioned store of discover's files beside slurm.conf.
#include "switchyard/ops/install_sets.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <vector>

#include "switchyard/common/file.hpp"
#include "switchyard/common/state_file.hpp"

namespace switchyard::ops {
namespace {

namespace fs = std::filesystem;

bool is_link(const fs::path& p) {
    std::error_code ec;
    return fs::is_symlink(fs::symlink_status(p, ec));
}

bool exists_no_follow(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

std::string utc_stamp() {
    const auto now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

/// A directory this command owns: made (mode) when absent; an existing one must be a real
/// directory of the running user that nobody else can write.
Result<void> own_dir(const fs::path& dir, mode_t mode) {
    if (::mkdir(dir.c_str(), mode) == 0) {
        return {};
    }
    if (errno != EEXIST) {
        return fail(Error::io(dir.string() + ": cannot create: " + std::strerror(errno)));
    }
    return check_owned_dir(dir.string(), static_cast<unsigned>(::geteuid()));
}

/// Points `link` at `target` by renaming a new link over it: readers see the old or the new.
Result<void> swap_link(const fs::path& link, const std::string& target) {
    const auto tmp = link.string() + ".tmp-" + std::to_string(::getpid());
    ::unlink(tmp.c_str());
    if (::symlink(target.c_str(), tmp.c_str()) != 0) {
        return fail(Error::io(tmp + ": cannot create a link: " + std::strerror(errno)));
    }
    if (::rename(tmp.c_str(), link.c_str()) != 0) {
        const auto why = std::string(std::strerror(errno));
        ::unlink(tmp.c_str());
        return fail(Error::io(link.string() + ": cannot replace: " + why));
    }
    return {};
}

/// The set a link names ("switchyard.sets/<set>"), or "" when it is not one of ours.
std::string link_target(const fs::path& link) {
    std::error_code ec;
    if (!is_link(link)) {
        return "";
    }
    const auto t = fs::read_symlink(link, ec);
    if (ec || t.is_absolute() || t.parent_path() != "switchyard.sets" ||
        t.filename().string().starts_with(".")) {
        return "";
    }
    return t.string();
}

/// The set directory's Slurm file (slurm/topology.conf or slurm/topology.yaml), if any.
std::optional<std::pair<std::string, std::string>> set_slurm_file(const fs::path& set) {
    for (const char* name : {"topology.yaml", "topology.conf"}) {
        auto text = read_text_file((set / "slurm" / name).string(), kSmallInput);
        if (text) {
            return std::make_pair(std::string(name), std::move(*text));
        }
    }
    return std::nullopt;
}

}  // namespace

std::pair<std::string, std::string> slurm_file_for(std::string_view kind) {
    if (kind == "yaml") {
        return {"topology.yaml", "topology.yaml"};
    }
    if (kind == "block") {
        return {"topology-block.conf", "topology.conf"};
    }
    return {"topology.conf", "topology.conf"};
}

std::string InstallSets::installed_kind() const {
    if (exists_no_follow(dir_ / "topology.yaml")) {
        return "yaml";
    }
    if (!exists_no_follow(dir_ / "topology.conf")) {
        return "";
    }
    auto text = read_text_file((dir_ / "topology.conf").string(), kSmallInput);
    if (text && text->find("BlockName=") != std::string::npos) {
        return "block";
    }
    return "tree";
}

std::string InstallSets::current() const {
    return link_target(dir_ / "switchyard");
}

std::string InstallSets::previous() const {
    return link_target(dir_ / "switchyard.previous");
}

bool InstallSets::holds(const std::string& target, const SetFiles& files) const {
    const auto set = dir_ / target;
    for (const auto& [name, bytes] : files) {
        auto old = read_text_file((set / name).string(), kFabricInput);
        if (!old || *old != bytes) {
            return false;
        }
    }
    for (const auto name : kDiscoverFiles) {
        if (!files.contains(std::string(name)) && exists_no_follow(set / name)) {
            return false;
        }
    }
    return true;
}

Result<std::string> InstallSets::write_set(const std::string& name, const SetFiles& files) const {
    const auto dir = dir_ / "switchyard.sets" / name;
    if (::mkdir(dir.c_str(), 0755) != 0) {
        return fail(Error::io(dir.string() + ": cannot create: " + std::strerror(errno)));
    }
    if (::mkdir((dir / "slurm").c_str(), 0755) != 0) {
        return fail(
            Error::io((dir / "slurm").string() + ": cannot create: " + std::strerror(errno)));
    }
    for (const auto& [file, bytes] : files) {
        if (auto w = write_file_atomic((dir / file).string(), bytes); !w) {
            std::error_code ec;
            fs::remove_all(dir, ec);
            return fail(w.error());
        }
    }
    return std::string("switchyard.sets/") + name;
}

Result<void> InstallSets::adopt_existing() {
    const auto kind = installed_kind();
    const auto sets = dir_ / "switchyard.sets";
    const auto link = dir_ / "switchyard";
    if (!link_target(link).empty()) {
        return {};
    }
    const auto name = utc_stamp() + "-" + std::to_string(::getpid()) + "-before";
    std::error_code ec;
    if (exists_no_follow(link)) {
        if (is_link(link) || !fs::is_directory(fs::symlink_status(link, ec))) {
            return fail(Error::io(link.string() +
                                  ": not a directory and not a link into switchyard.sets; "
                                  "move it away"));
        }
        if (::rename(link.c_str(), (sets / name).c_str()) != 0) {
            return fail(Error::io(link.string() + ": cannot move into " + sets.string() + ": " +
                                  std::strerror(errno)));
        }
        ::mkdir((sets / name / "slurm").c_str(), 0755);
    } else if (!kind.empty()) {
        if (auto w = write_set(name, {}); !w) {
            return fail(w.error());
        }
    } else {
        return {};  // nothing there: nothing to go back to
    }
    if (!kind.empty()) {
        const auto as = slurm_file_for(kind).second;  // the file slurmctld reads now
        auto text = read_text_file((dir_ / as).string(), kSmallInput);
        if (text) {
            if (auto w = write_file_atomic((sets / name / "slurm" / as).string(), *text); !w) {
                return fail(w.error());
            }
        }
    }
    return swap_link(link, "switchyard.sets/" + name);
}

Result<std::string> InstallSets::add(const SetFiles& files) {
    if (auto d = own_dir(dir_ / "switchyard.sets", 0755); !d) {
        return fail(d.error());
    }
    if (auto ad = adopt_existing(); !ad) {
        return fail(ad.error());
    }
    return write_set(utc_stamp() + "-" + std::to_string(::getpid()), files);
}

Result<void> InstallSets::activate(const std::string& target, const std::string& previous) {
    const auto slurm = set_slurm_file(dir_ / target);
    if (!slurm) {
        return fail(Error::io((dir_ / target / "slurm").string() +
                              ": holds neither topology.conf nor topology.yaml"));
    }
    const auto previous_before = this->previous();
    const auto previous_link = dir_ / "switchyard.previous";
    const auto point_previous = [&](const std::string& at) -> Result<void> {
        if (at.empty()) {
            if (::unlink(previous_link.c_str()) != 0 && errno != ENOENT) {
                return fail(
                    Error::io(previous_link.string() + ": cannot remove: " + std::strerror(errno)));
            }
            return {};
        }
        return swap_link(previous_link, at);
    };
    // What DIR holds now, to put back if the link cannot follow the files.
    std::map<std::string, std::optional<std::string>> before;
    for (const char* name : {"topology.conf", "topology.yaml"}) {
        if (!exists_no_follow(dir_ / name)) {
            before[name] = std::nullopt;
            continue;
        }
        ReadRules rules = kSmallInput;
        rules.follow_links = false;
        auto text = read_text_file((dir_ / name).string(), rules);
        if (!text) {
            return fail(text.error());
        }
        before[name] = std::move(*text);
    }
    // Nothing is changed before here.
    if (auto p = point_previous(previous); !p) {
        return fail(p.error());
    }
    const auto put_back = [&]() -> std::string {
        std::string left;
        for (const auto& [name, text] : before) {
            const auto path = dir_ / name;
            if (text) {
                if (auto w = write_file_atomic(path.string(), *text); !w) {
                    left += "; " + path.string() + " could not be put back (" +
                            w.error().message() + ")";
                }
            } else if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
                left += "; " + path.string() + " could not be removed again (" +
                        std::strerror(errno) + ")";
            }
        }
        if (auto p = point_previous(previous_before); !p) {
            left += "; " + p.error().message();
        }
        return left.empty() ? "; " + dir_.string() + "'s topology files and links are as they were"
                            : left;
    };
    if (auto w = write_file_atomic((dir_ / slurm->first).string(), slurm->second); !w) {
        return fail(Error::io(w.error().message() + put_back()));
    }
    if (slurm->first == "topology.conf" && before["topology.yaml"] &&
        ::unlink((dir_ / "topology.yaml").c_str()) != 0 && errno != ENOENT) {
        const auto why = std::string(std::strerror(errno));
        return fail(Error::io((dir_ / "topology.yaml").string() + ": cannot remove (" + why +
                              "), and Slurm 25.05+ reads it before topology.conf" + put_back()));
    }
    if (auto s = swap_link(dir_ / "switchyard", target); !s) {
        return fail(Error::io(s.error().message() + put_back()));
    }
    return {};
}

std::string InstallSets::newest_with_map(const std::string& except) const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_ / "switchyard.sets", ec)) {
        const auto n = e.path().filename().string();
        if (!n.starts_with(".") && e.is_directory(ec) && !e.is_symlink(ec) &&
            "switchyard.sets/" + n != except && exists_no_follow(e.path() / "fabric.map")) {
            names.push_back(n);
        }
    }
    if (names.empty()) {
        return "";
    }
    return "switchyard.sets/" + *std::max_element(names.begin(), names.end());
}

void InstallSets::prune(unsigned keep) const {
    const auto sets = dir_ / "switchyard.sets";
    const std::set<std::string> in_use = {current(), previous()};
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(sets, ec)) {
        const auto n = e.path().filename().string();
        if (!n.starts_with(".") && e.is_directory(ec) && !e.is_symlink(ec)) {
            names.push_back(n);
        }
    }
    std::sort(names.rbegin(), names.rend());  // newest first: names start with the UTC time
    for (std::size_t i = keep; i < names.size(); ++i) {
        if (!in_use.contains("switchyard.sets/" + names[i])) {
            fs::remove_all(sets / names[i], ec);
        }
    }
}

}  // namespace switchyard::ops
