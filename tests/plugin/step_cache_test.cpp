// SPDX-License-Identifier: Apache-2.0
// The step cache's file format and file checks (plugin/core/step_cache.hpp), on real files.
#include "step_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"

namespace fs = std::filesystem;
namespace sc = switchyard::spank::step_cache;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        char tmpl[] = "/tmp/switchyard-step-cache.XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void write(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
}

template <typename Make>
std::string made(Make make) {
    std::string buf(sc::kMaxFile, '\0');
    sc::Out o(buf.data(), buf.size());
    make(o);
    return o.ok ? std::string(o.data, o.len) : std::string("<overflow>");
}

std::string line_of(bool (*f)(sc::Out&, const char*), const fs::path& p) {
    return made([&](sc::Out& o) { REQUIRE(f(o, p.c_str())); });
}

bool holds(const std::string& line) {
    return sc::file_input_holds(line.data(), line.size() - 1);  // without its newline
}

/// A job check from a list of the lines that hold.
struct Job {
    std::vector<std::string> true_lines;
    static bool check(void* ctx, const char* line, std::size_t len) {
        const auto* job = static_cast<Job*>(ctx);
        for (const auto& l : job->true_lines) {
            if (l == std::string(line, len)) {
                return true;
            }
        }
        return false;
    }
};

std::string found(const std::string& text, Job& job, const char* header = "H 1") {
    const auto s = sc::find_entry(text.data(), text.size(), header, Job::check, &job);
    return s.data == nullptr ? "<none>" : std::string(s.data, s.len);
}

}  // namespace

TEST_CASE("step cache: fields are escaped so that spaces and newlines split them", "[step-cache]") {
    const std::string raw = std::string("a b%c\nd\x01\xff=e", 11);
    const auto e = made([&](sc::Out& o) { o.esc(raw.data(), raw.size()); });
    CHECK(e == "a%20b%25c%0Ad%01%FF=e");
    char back[64];
    REQUIRE(sc::unescape(e.data(), e.size(), back, sizeof back) == raw.size());
    CHECK(std::string(back, raw.size()) == raw);
    for (const char* bad : {"%G1", "%4", "ab%"}) {
        INFO(bad);
        CHECK(sc::unescape(bad, std::strlen(bad), back, sizeof back) == SIZE_MAX);
    }
    CHECK(sc::unescape("abcdef", 6, back, 4) == SIZE_MAX);  // does not fit
    char small[8];
    sc::Out o(small, sizeof small);
    o.str("1234567");
    CHECK(o.ok);
    o.str("8");
    CHECK_FALSE(o.ok);
    CHECK(std::string(small) == "1234567");  // what fitted stays, terminated
}

TEST_CASE("step cache: an input line holds until its file changes", "[step-cache]") {
    TempDir d;
    const auto f = d.path / "policy.yaml";
    write(f, "version: 1\n");
    const auto st = line_of(sc::stat_line, f);
    const auto text = line_of(sc::text_line, f);
    CHECK(text == "text " + f.string() + " =version:%201%0A\n");
    const auto list = line_of(sc::list_line, d.path);
    CHECK_THAT(list, Catch::StartsWith("list " + d.path.string() + " 1 "));
    CHECK((holds(st) && holds(text) && holds(list)));

    write(f, "version: 2\n");  // same size, new content and times
    CHECK_FALSE(holds(st));
    CHECK_FALSE(holds(text));
    CHECK(holds(list));
    write(d.path / "other", "");
    CHECK_FALSE(holds(list));
    fs::remove(d.path / "other");
    CHECK(holds(list));

    const auto gone = d.path / "gone";
    const auto absent = line_of(sc::stat_line, gone);
    CHECK(absent == "stat " + gone.string() + " -\n");
    CHECK(holds(absent));
    write(gone, "");
    CHECK_FALSE(holds(absent));

    // A file too large for a text input, another kind, a relative path: never a match.
    write(f, std::string(sc::kMaxText + 1, 'x'));
    std::string buf(1024, '\0');
    sc::Out o(buf.data(), buf.size());
    CHECK_FALSE(sc::text_line(o, f.c_str()));
    CHECK_FALSE(sc::file_input_holds("env X -", 7));
    CHECK_FALSE(sc::file_input_holds("stat relative -", 15));
}

TEST_CASE("step cache: a FIFO or a link in a text input's place is no match", "[step-cache]") {
    TempDir d;
    const auto f = d.path / "state";
    write(f, "4: ACTIVE\n");
    const auto text = line_of(sc::text_line, f);
    fs::remove(f);
    REQUIRE(mkfifo(f.c_str(), 0600) == 0);
    CHECK_FALSE(holds(text));  // refused at once: not a regular file, opened without blocking
    fs::remove(f);
    write(d.path / "real", "4: ACTIVE\n");
    fs::create_symlink(d.path / "real", f);
    CHECK_FALSE(holds(text));
}

TEST_CASE("step cache: the first entry whose key holds gives its outputs", "[step-cache]") {
    const std::string file =
        "H 1\n"
        "entry\nwords a\nenv X =1\nset 0 A =1\nend\n"
        "entry\nwords a\nenv X =2\nset 0 A =2\ngpu 0 =0-1\nend\n"
        "entry\nwords a\nenv X =3\nset 0 A =3\n";  // cut short: no end
    Job job{{"words a", "env X =2"}};
    CHECK(found(file, job) == "set 0 A =2\ngpu 0 =0-1\n");
    job.true_lines = {"words a", "env X =1", "env X =2"};
    CHECK(found(file, job) == "set 0 A =1\n");
    job.true_lines = {"words a", "env X =3"};
    CHECK(found(file, job) == "<none>");
    job.true_lines = {"words a", "env X =2"};
    CHECK(found(file, job, "H 2") == "<none>");  // another build's file
    CHECK(found("", job) == "<none>");
}

TEST_CASE("step cache: merge puts the new entry first and keeps the others", "[step-cache]") {
    auto entry = [](int key, int value) {
        return "entry\nwords k" + std::to_string(key) + "\nset 0 A =" + std::to_string(value) +
               "\nend\n";
    };
    std::string file = "H 1\n";
    for (int k = 0; k < sc::kMaxEntries + 3; ++k) {
        const auto e = entry(k, k);
        file = made([&](sc::Out& o) {
            REQUIRE(sc::merge(o, "H 1", file.data(), file.size(), e.data(), e.size()));
        });
    }
    std::size_t entries = 0;
    for (std::size_t at = file.find("entry\n"); at != std::string::npos;
         at = file.find("entry\n", at + 1)) {
        ++entries;
    }
    CHECK(entries == static_cast<std::size_t>(sc::kMaxEntries));
    CHECK_THAT(file, Catch::StartsWith("H 1\n" + entry(sc::kMaxEntries + 2, sc::kMaxEntries + 2)));
    CHECK_THAT(file, !Catch::Contains("words k2\n"));  // the oldest went

    const auto again = entry(sc::kMaxEntries + 1, 99);  // same key, new outputs: replaced
    const auto merged = made([&](sc::Out& o) {
        REQUIRE(sc::merge(o, "H 1", file.data(), file.size(), again.data(), again.size()));
    });
    CHECK_THAT(merged, Catch::StartsWith("H 1\n" + again));
    CHECK_THAT(merged, !Catch::Contains("set 0 A =" + std::to_string(sc::kMaxEntries + 1) + "\n"));

    const auto other = made([&](sc::Out& o) {  // a file of another build is dropped
        REQUIRE(sc::merge(o, "H 2", file.data(), file.size(), again.data(), again.size()));
    });
    CHECK(other == "H 2\n" + again);
}

TEST_CASE("step cache: only a file no one else can change is read", "[step-cache]") {
    TempDir d;
    fs::permissions(d.path, fs::perms::owner_all);
    const auto f = d.path / "step-cache.node001";
    std::string buf(sc::kMaxFile, '\0');
    std::size_t len = 0;
    std::string why_text(512, '\0');
    auto read = [&] {
        sc::Out why(why_text.data(), why_text.size());
        const int rc = sc::read_file(f.c_str(), buf.data(), buf.size(), &len, why);
        why_text.resize(why.len);
        return rc;
    };
    CHECK(read() == 0);  // none yet
    write(f, "H 1\n");
    fs::permissions(f, fs::perms::owner_read | fs::perms::owner_write);
    CHECK(read() == 1);
    CHECK(std::string(buf.data(), len) == "H 1\n");

    why_text.assign(512, '\0');
    fs::permissions(f, fs::perms::group_write, fs::perm_options::add);
    CHECK(read() == -1);
    CHECK_THAT(why_text, Catch::Contains(f.string()) && Catch::Contains("no one else may write"));
    fs::permissions(f, fs::perms::group_write, fs::perm_options::remove);

    why_text.assign(512, '\0');
    fs::permissions(d.path, fs::perms::others_write, fs::perm_options::add);
    CHECK(read() == -1);
    CHECK_THAT(why_text, Catch::Contains(d.path.string() + " must be a directory of uid"));
    fs::permissions(d.path, fs::perms::others_write, fs::perm_options::remove);

    why_text.assign(512, '\0');
    fs::rename(f, d.path / "real");
    fs::create_symlink(d.path / "real", f);
    CHECK(read() == -1);  // never followed
    fs::remove(f);
    REQUIRE(mkfifo(f.c_str(), 0600) == 0);
    why_text.assign(512, '\0');
    CHECK(read() == -1);  // refused, not waited on
    fs::remove(f);

    if (geteuid() == 0) {  // a file planted by another user
        write(f, "H 1\n");
        REQUIRE(chown(f.c_str(), 65534, 65534) == 0);
        why_text.assign(512, '\0');
        CHECK(read() == -1);
        CHECK_THAT(why_text, Catch::Contains("must be a regular file of uid 0"));
    }
}

TEST_CASE("step cache: written through a new file and rename, in a directory of its own",
          "[step-cache]") {
    TempDir d;
    const auto dir = d.path / "state";
    const auto f = dir / "step-cache.node001";
    std::string why_text(512, '\0');
    sc::Out why(why_text.data(), why_text.size());
    REQUIRE(sc::write_file(f.c_str(), "H 1\n", 4, why));
    CHECK((fs::status(dir).permissions() & fs::perms::all) == fs::perms::owner_all);
    CHECK((fs::status(f).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write));
    std::ifstream in(f);
    CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == "H 1\n");

    // A link planted in its place is replaced, not followed.
    const auto target = d.path / "target";
    write(target, "keep\n");
    fs::remove(f);
    fs::create_symlink(target, f);
    REQUIRE(sc::write_file(f.c_str(), "H 2\n", 4, why));
    CHECK_FALSE(fs::is_symlink(f));
    std::ifstream t(target);
    CHECK(std::string(std::istreambuf_iterator<char>(t), {}) == "keep\n");

    fs::permissions(dir, fs::perms::others_write, fs::perm_options::add);
    CHECK_FALSE(sc::write_file(f.c_str(), "H 3\n", 4, why));
    CHECK_THAT(std::string(why.data, why.len), Catch::Contains("no one else may write"));
    CHECK(fs::directory_iterator(dir)->path().filename() == "step-cache.node001");  // no leftover
}

TEST_CASE("step cache: %n in the file's path is the node's name", "[step-cache]") {
    char buf[64];
    sc::Out o(buf, sizeof buf);
    REQUIRE(sc::expand_node(o, "/var/lib/sy/c.%n.%%", "node007"));
    CHECK(std::string(buf) == "/var/lib/sy/c.node007.%");
}
