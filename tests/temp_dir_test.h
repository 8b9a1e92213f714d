#pragma once
// A fresh folder for each test, removed after it: TMP/aclgi-PREFIX-PID-TESTNAME (the pid and the
// test's name keep parallel ctest runs apart). Shared by the engine and storage tests.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

class TempDirTest : public ::testing::Test {
protected:
    explicit TempDirTest(std::string prefix)
        : m_prefix(std::move(prefix))
    {
    }
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path()
            / ("aclgi-" + m_prefix + "-" + std::to_string(getpid()) + "-"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    /// The path of NAME in the test's folder (nothing is created).
    std::string file(const std::string& name) const { return (m_dir / name).string(); }
    /// Writes BYTES to NAME in the test's folder (its folders made first); returns the path.
    std::string write(const std::string& name, const std::string& bytes) const
    {
        std::filesystem::create_directories((m_dir / name).parent_path());
        std::ofstream(file(name), std::ios::binary) << bytes;
        return file(name);
    }

    std::filesystem::path m_dir;

private:
    std::string m_prefix;
};
