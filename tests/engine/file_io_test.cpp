// The one owner of opening input files (engine/core/file_io.h): FIFOs, sockets and devices refused
// by name and never opened blocking, by the helpers and by each reader that opens files (issue 19).
#include "engine/core/file_io.h"
#include "engine/readers/debug_dir.h"
#include "engine/readers/torch_trace.h"
#include "engine/scenario/scenario.h"
#include "engine/snapshot/memory_snapshot.h"
#include "tests/temp_dir_test.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace engine;

const std::string kFifoSaid = "a FIFO (named pipe) is not read; aclgraph-inspector reads regular files";

class FileIo : public TempDirTest {
protected:
    FileIo()
        : TempDirTest("fileio")
    {
    }
    void SetUp() override
    {
        TempDirTest::SetUp();
        m_fifo = file("f.fifo");
        EXPECT_EQ(::mkfifo(m_fifo.c_str(), 0600), 0);
    }
    std::string m_fifo;
};

TEST_F(FileIo, KindsAreNamed)
{
    EXPECT_EQ(pathKindOf(m_fifo), PathKind::Fifo);
    EXPECT_EQ(pathKindOf("/dev/zero"), PathKind::CharDevice);
    EXPECT_EQ(pathKindOf(m_dir.string()), PathKind::Directory);
    EXPECT_EQ(pathKindOf(write("a.txt", "x")), PathKind::Regular);
    EXPECT_EQ(pathKindOf((m_dir / "missing").string()), PathKind::Missing);

    // A socket: bound in the temp folder.
    const std::string sock = (m_dir / "s.sock").string();
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un addr {};
    addr.sun_family = AF_UNIX;
    ASSERT_LT(sock.size(), sizeof addr.sun_path);
    std::copy(sock.begin(), sock.end(), addr.sun_path);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    auto s = InputFile::open(sock);
    ::close(fd);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "a socket is not read; aclgraph-inspector reads regular files and folders");
}

TEST_F(FileIo, NothingThatIsNotARegularFileIsOpened)
{
    auto f = InputFile::open(m_fifo); // without O_NONBLOCK this would wait for a writer forever
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().context, m_fifo);
    EXPECT_EQ(f.error().message, kFifoSaid + " and folders");
    auto z = readTextFile("/dev/zero", 1 << 20, "texts");
    ASSERT_FALSE(z.ok());
    EXPECT_EQ(z.error().toString(),
        "/dev/zero: a character device is not read; aclgraph-inspector reads regular files and folders");
    auto d = readTextFile(m_dir.string(), 1 << 20, "texts");
    ASSERT_FALSE(d.ok());
    EXPECT_NE(d.error().message.find("a folder"), std::string::npos) << d.error().message;
    auto c = checkInputPath(m_fifo, true);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().message, kFifoSaid + " and folders");
    EXPECT_TRUE(checkInputPath(m_dir.string(), true).ok());
    EXPECT_FALSE(checkInputPath(m_dir.string(), false).ok());
}

TEST_F(FileIo, RegularFilesReadWhole)
{
    const std::string path = write("t.txt", "line one\nline two\n");
    auto f = InputFile::open(path);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(f->size(), 18u);
    EXPECT_EQ(f->head(4), "line");
    auto all = readTextFile(path, 1 << 20, "texts");
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(*all, "line one\nline two\n");
    auto big = readTextFile(path, 10, "texts");
    ASSERT_FALSE(big.ok());
    EXPECT_NE(big.error().message.find("texts larger than"), std::string::npos);
    auto again = InputFile::open(path);
    ASSERT_TRUE(again.ok());
    InputStream in(std::move(*again));
    std::string a, b;
    std::getline(in, a);
    std::getline(in, b);
    EXPECT_EQ(a, "line one");
    EXPECT_EQ(b, "line two");
    EXPECT_FALSE(std::getline(in, a));
}

TEST_F(FileIo, EveryReaderRefusesAFifo)
{
    auto snap = snapshot::readSnapshotFile(m_fifo);
    ASSERT_FALSE(snap.ok());
    EXPECT_NE(snap.error().message.find(kFifoSaid), std::string::npos) << snap.error().message;
    auto zero = snapshot::readSnapshotFile("/dev/zero");
    ASSERT_FALSE(zero.ok());
    EXPECT_NE(zero.error().message.find("a character device is not read"), std::string::npos) << zero.error().message;
    auto trace = readers::trace::readTorchTrace(m_fifo);
    ASSERT_FALSE(trace.ok());
    EXPECT_NE(trace.error().message.find(kFifoSaid), std::string::npos) << trace.error().message;
    auto scenario = scenario::readScenarioFile(m_fifo);
    ASSERT_FALSE(scenario.ok());
    EXPECT_NE(scenario.error().message.find(kFifoSaid), std::string::npos) << scenario.error().message;

    // A debug folder whose stage file is a FIFO: named in a warning, the folder still read.
    const fs::path forward
        = m_dir / "torch_compile_debug/run_2026_01_01_00_00_00_000000-pid_1/torchair/model__0/forward";
    fs::create_directories(forward);
    ASSERT_EQ(::mkfifo((forward / "000_aot_forward_graph.txt").c_str(), 0600), 0);
    fs::copy_file(std::string(ACLGI_TEST_DATA_DIR)
            + "/debug_dir/torch_compile_debug/run_2026_11_22_10_00_00_000000-pid_4242/torchair/model__1/forward/"
              "002_aot_forward_graph_after_optimize_noop_ops.txt",
        forward / "002_aot_forward_graph_after_optimize_noop_ops.txt");
    auto dir = readers::readDebugDir((m_dir / "torch_compile_debug").string());
    ASSERT_TRUE(dir.ok()) << dir.error().toString();
    bool named = false;
    for (const auto& d : dir->diagnostics)
        named |= d.file.find("000_aot_forward_graph.txt") != std::string::npos
            && d.message.find(kFifoSaid) != std::string::npos;
    EXPECT_TRUE(named) << (dir->diagnostics.empty() ? std::string("no diagnostics")
                                                    : dir->diagnostics[0].file + ": " + dir->diagnostics[0].message);
}

} // namespace
