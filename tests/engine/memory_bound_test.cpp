// Memory proportional to what is useful (issue 19): input text quoted in messages is cut
// (engine::cutText), and the snapshot reader's memory stays under the size of a file whose frames
// pickle did not share. Measured, not timed: the reader runs in a forked child whose peak resident
// memory (VmHWM, reset through /proc/self/clear_refs) is compared with its resident memory before.
#include "engine/core/text_codec.h"
#include "engine/graph/graph_diff.h"
#include "engine/snapshot/memory_snapshot.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

TEST(CutText, ShortTextIsWholeLongTextIsCutWithItsLength)
{
    EXPECT_EQ(engine::cutText("aten.mm.default"), "aten.mm.default");
    const std::string big(8 << 20, 'x');
    const std::string cut = engine::cutText(big);
    EXPECT_EQ(cut, std::string(200, 'x') + "\u2026 (8388608 chars)");
    // Never half a UTF-8 character: "é" is two bytes, the cut falls inside the 3rd one.
    std::string accents;
    for (int i = 0; i < 10; ++i)
        accents += "\xC3\xA9";
    EXPECT_EQ(engine::cutText(accents, 5), "\xC3\xA9\xC3\xA9\u2026 (20 chars)");
}

TEST(CutText, ThePassSummaryQuotesALongTargetCut)
{
    // debug_compare_fx_graphs' table pads every row to its widest name: a whole 8 MiB target made
    // every line of every pass's log 8 MiB.
    engine::GraphDiff d;
    d.targets = { { std::string(8 << 20, 'x'), 1, 1 }, { "aten.mm.default", 2, 1 } };
    d.operations = { { "call_function", 3, 2 } };
    d.removed = { std::string(1 << 20, 'n') };
    const std::string text = engine::compareText("remove_noop_ops", d);
    EXPECT_LT(text.size(), size_t(4096)) << text.substr(0, 300);
    EXPECT_NE(text.find("\u2026 (8388608 chars)"), std::string::npos);
    EXPECT_NE(text.find("\u2026 (1048576 chars)"), std::string::npos);
}

// ---- a memory snapshot whose frames pickle did not share ----

/// Writes pickle protocol 4 opcodes as pickle.py does for dicts, lists, ints and strings,
/// memoizing every string and container. pickle.py memoizes by identity: a distinct object per use
/// (str()) is written out in full each time; one object used again (key(): the dict keys and the
/// action names, which Python interns) is fetched from the memo.
class PickleOut {
public:
    std::string bytes;
    void begin() { bytes += "\x80\x04"; }
    void end() { bytes += '.'; }
    void memo()
    {
        bytes += '\x94';
        ++m_next;
    }
    void key(const std::string& s)
    {
        if (auto it = m_keys.find(s); it != m_keys.end()) {
            bytes += 'j'; // LONG_BINGET
            for (int k = 0; k < 4; ++k)
                bytes += char((it->second >> (8 * k)) & 0xFF);
            return;
        }
        m_keys[s] = m_next;
        str(s);
    }
    void str(const std::string& s)
    {
        if (s.size() < 256) {
            bytes += '\x8c';
            bytes += char(s.size());
        } else {
            bytes += 'X';
            for (int k = 0; k < 4; ++k)
                bytes += char((s.size() >> (8 * k)) & 0xFF);
        }
        bytes += s;
        memo();
    }
    void integer(uint64_t v) // BININT for small, LONG1 (8 bytes) for addresses
    {
        if (v < (uint64_t(1) << 31)) {
            bytes += 'J';
            for (int k = 0; k < 4; ++k)
                bytes += char((v >> (8 * k)) & 0xFF);
        } else {
            bytes += "\x8a\x08";
            for (int k = 0; k < 8; ++k)
                bytes += char((v >> (8 * k)) & 0xFF);
        }
    }
    void dictOpen()
    {
        bytes += '}';
        memo();
        bytes += '(';
    }
    void dictClose() { bytes += 'u'; }
    void listOpen()
    {
        bytes += ']';
        memo();
        bytes += '(';
    }
    void listClose() { bytes += 'e'; }

private:
    std::map<std::string, uint32_t> m_keys;
    uint32_t m_next = 0;
};

/// {'segments': [], 'device_traces': [[entry, ...]]}: `entries` trace entries of 12 frames each,
/// every frame its own dict with its own filename and name strings; the texts repeat (40 stacks).
std::string unsharedSnapshot(int entries)
{
    PickleOut p;
    p.begin();
    p.dictOpen();
    p.key("segments");
    p.listOpen();
    p.listClose();
    p.key("device_traces");
    p.listOpen();
    p.listOpen();
    for (int i = 0; i < entries; ++i) {
        if (i % 1000 == 0 && i) { // pickle.py appends in batches of 1000
            p.listClose();
            p.bytes += '(';
        }
        p.dictOpen();
        p.key("action");
        p.key(i % 2 ? "free_completed" : "alloc");
        p.key("addr");
        p.integer(0x7F0000000000ull + uint64_t(i / 2) * 512);
        p.key("size");
        p.integer(512);
        p.key("stream");
        p.integer(0);
        p.key("time_us");
        p.integer(uint64_t(i));
        p.key("frames");
        p.listOpen();
        for (int j = 0; j < 12; ++j) {
            const std::string tag = std::to_string(i % 40) + "_" + std::to_string(j);
            p.dictOpen();
            p.key("filename");
            p.str("/usr/lib/python3/site-packages/torch/nn/modules/module_" + tag + ".py");
            p.key("line");
            p.integer(100 + uint64_t(j));
            p.key("name");
            p.str("_call_impl_" + tag);
            p.dictClose();
        }
        p.listClose();
        p.dictClose();
    }
    p.listClose();
    p.listClose();
    p.dictClose();
    p.end();
    return p.bytes;
}

/// A field of /proc/self/status in KiB ("VmHWM", "VmRSS"); -1 when absent.
long statusKiB(const char* field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string key = std::string(field) + ":";
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0)
            return std::stol(line.substr(key.size()));
    return -1;
}

TEST(SnapshotMemory, UnsharedFramesReadUnderTheFileSize)
{
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP()
        << "under AddressSanitizer resident memory measures the sanitizer's shadow and quarantine, not the reader";
#endif
    const std::string bytes = unsharedSnapshot(16000); // about 21 MB
    const std::string path = ::testing::TempDir() + "aclgi-unshared-" + std::to_string(getpid()) + ".pickle";
    std::ofstream(path, std::ios::binary) << bytes;
    const long fileKiB = long(bytes.size() >> 10);

    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // The peak of this process from here on: reset the high-water mark to the resident set.
        long result = -2;
        if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
            f && std::fputs("5", f) >= 0 && std::fclose(f) == 0) {
            const long before = statusKiB("VmRSS");
            auto snap = engine::snapshot::readSnapshotFile(path);
            const long peak = statusKiB("VmHWM");
            result = snap.ok() && snap->deviceTraces.size() == 1 && snap->deviceTraces[0].size() == 16000
                ? peak - before
                : -3;
        }
        (void)!write(fds[1], &result, sizeof result);
        _exit(0);
    }
    close(fds[1]);
    long grown = -1;
    ASSERT_EQ(read(fds[0], &grown, sizeof grown), ssize_t(sizeof grown));
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    std::remove(path.c_str());
    if (grown == -2)
        GTEST_SKIP() << "/proc/self/clear_refs cannot reset the peak here: the peak cannot be measured";
    ASSERT_NE(grown, -3) << "the crafted snapshot was not read as written";
    // The bound: the reader keeps a 64-byte record per trace entry and each distinct frame, string
    // and stack once; the frames' dicts, written out again at every use (about 1.1 KB per entry),
    // must not each cost memory. Before the reader freed converted frame containers and keyed frames
    // by string ids it needed about 3.5 times the file.
    EXPECT_LT(grown, fileKiB) << "the reader grew by " << grown << " KiB for a " << fileKiB << " KiB file";
}

} // namespace
