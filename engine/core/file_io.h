#pragma once
/// The one owner of opening input files (docs/limits.md). Every reader, the ingest module, the cache
/// commands and the project open go through here, so a path that is not a regular file (a FIFO, a
/// socket, a character or block device) is refused by name at once and never opened in a way that
/// could block: a FIFO's open(2) without O_NONBLOCK waits for a writer, a read of /dev/zero never ends.
///
/// - checkInputPath(): what a path is, before anything opens it (stat, following symbolic links).
/// - InputFile::open(): open(O_RDONLY|O_NONBLOCK|O_CLOEXEC), fstat the descriptor, refuse anything but
///   a regular file (so a path swapped between the check and the open is still refused).
/// - readTextFile(): a whole regular file with a size limit.
/// Every failure is an Io error whose context is the path.
#include "engine/core/result.h"

#include <cstdint>
#include <cstdio>
#include <istream>
#include <memory>
#include <streambuf>
#include <string>

namespace engine {

enum class PathKind { Missing, Regular, Directory, Fifo, Socket, CharDevice, BlockDevice, Other };

/// "a FIFO (named pipe)", "a socket", "a character device", "a block device", "a folder", ...
const char* pathKindWords(PathKind kind);

/// What `path` is (stat(2), following symbolic links); Missing when it does not exist or cannot be
/// stat'ed (`why` then holds strerror).
PathKind pathKindOf(const std::string& path, std::string* why = nullptr);

/// The error for an input that is no regular file: "a FIFO (named pipe) is not read;
/// aclgraph-inspector reads regular files and folders".
Error notReadError(const std::string& path, PathKind kind, bool foldersTaken = true);

/// Checks a path before anything opens it: a regular file, or a folder when the caller takes
/// folders, passes; anything else (missing, FIFO, socket, device, a folder where a file is wanted)
/// is an error naming the path and what it is.
Result<PathKind> checkInputPath(const std::string& path, bool foldersTaken = false);

/// A regular file opened for reading; the descriptor is closed by the destructor.
class InputFile {
public:
    /// Opens without blocking and refuses anything fstat does not call a regular file.
    static Result<InputFile> open(const std::string& path);

    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&& other) noexcept;
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    ~InputFile();

    const std::string& path() const { return m_path; }
    /// The size fstat gave at open.
    uint64_t size() const { return m_size; }
    int fd() const { return m_fd; }
    /// Up to `n` bytes (fewer at the end of the file); -1 on a read error (errno set).
    long long read(char* buf, size_t n);
    /// The first `n` bytes (fewer when the file is shorter).
    std::string head(size_t n);
    /// The whole file, refused past `maxBytes` ("'f' is 300 MiB; FX texts larger than 256 MiB are refused").
    Result<std::string> readAll(uint64_t maxBytes, const std::string& what);
    /// A stdio stream over the descriptor (which it then owns); null on failure.
    std::FILE* releaseToFile();
    /// The descriptor, no longer closed by this object.
    int release();

private:
    InputFile(int fd, std::string path, uint64_t size);
    int m_fd = -1;
    std::string m_path;
    uint64_t m_size = 0;
};

/// A std::istream over an InputFile, for readers written against streams (line readers).
class InputStream : public std::istream {
public:
    explicit InputStream(InputFile file);
    ~InputStream() override;

private:
    class Buf : public std::streambuf {
    public:
        explicit Buf(InputFile file);

    protected:
        int_type underflow() override;

    private:
        InputFile m_file;
        char m_buffer[1 << 16];
    };
    std::unique_ptr<Buf> m_buf;
};

/// The file's bytes. `what` names the kind of file in the size message ("FX texts").
Result<std::string> readTextFile(const std::string& path, uint64_t maxBytes, const std::string& what);

} // namespace engine
