#include "engine/core/file_io.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace engine {

namespace {

PathKind kindOfMode(mode_t mode)
{
    if (S_ISREG(mode))
        return PathKind::Regular;
    if (S_ISDIR(mode))
        return PathKind::Directory;
    if (S_ISFIFO(mode))
        return PathKind::Fifo;
    if (S_ISSOCK(mode))
        return PathKind::Socket;
    if (S_ISCHR(mode))
        return PathKind::CharDevice;
    if (S_ISBLK(mode))
        return PathKind::BlockDevice;
    return PathKind::Other;
}

} // namespace

const char* pathKindWords(PathKind kind)
{
    switch (kind) {
    case PathKind::Missing:
        return "no such file or folder";
    case PathKind::Regular:
        return "a regular file";
    case PathKind::Directory:
        return "a folder";
    case PathKind::Fifo:
        return "a FIFO (named pipe)";
    case PathKind::Socket:
        return "a socket";
    case PathKind::CharDevice:
        return "a character device";
    case PathKind::BlockDevice:
        return "a block device";
    case PathKind::Other:
        break;
    }
    return "not a regular file";
}

PathKind pathKindOf(const std::string& path, std::string* why)
{
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
        if (why)
            *why = std::strerror(errno);
        return PathKind::Missing;
    }
    return kindOfMode(st.st_mode);
}

Error notReadError(const std::string& path, PathKind kind, bool foldersTaken)
{
    if (kind == PathKind::Missing)
        return makeError(ErrorCode::Io, "cannot read: no such file or folder", path);
    if (kind == PathKind::Directory)
        return makeError(ErrorCode::Io, "a folder, not a file: not read here", path);
    return makeError(ErrorCode::Io,
        std::string(pathKindWords(kind)) + " is not read; aclgraph-inspector reads regular files"
            + (foldersTaken ? " and folders" : ""),
        path);
}

Result<PathKind> checkInputPath(const std::string& path, bool foldersTaken)
{
    std::string why;
    const PathKind kind = pathKindOf(path, &why);
    if (kind == PathKind::Missing)
        return makeError(ErrorCode::Io, "cannot read: " + why, path);
    if (kind == PathKind::Regular || (kind == PathKind::Directory && foldersTaken))
        return kind;
    return notReadError(path, kind, foldersTaken);
}

InputFile::InputFile(int fd, std::string path, uint64_t size)
    : m_fd(fd)
    , m_path(std::move(path))
    , m_size(size)
{
}

InputFile::InputFile(InputFile&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1))
    , m_path(std::move(other.m_path))
    , m_size(other.m_size)
{
}

InputFile& InputFile::operator=(InputFile&& other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
        m_size = other.m_size;
    }
    return *this;
}

InputFile::~InputFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

Result<InputFile> InputFile::open(const std::string& path)
{
    // O_NONBLOCK: opening a FIFO does not wait for a writer (nor a device for its carrier); the
    // fstat below then refuses it before a single byte is read.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == EISDIR)
            return notReadError(path, PathKind::Directory, false);
        // A socket's open fails (ENXIO): say what the path is rather than the errno's words.
        if (const PathKind kind = pathKindOf(path); kind != PathKind::Regular && kind != PathKind::Missing)
            return notReadError(path, kind, kind != PathKind::Directory);
        return makeError(ErrorCode::Io, std::string("cannot open: ") + std::strerror(err), path);
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return makeError(ErrorCode::Io, std::string("cannot read: ") + std::strerror(err), path);
    }
    const PathKind kind = kindOfMode(st.st_mode);
    if (kind != PathKind::Regular) {
        ::close(fd);
        return notReadError(path, kind, kind != PathKind::Directory);
    }
    // A regular file's reads never block; clear the flag anyway so the descriptor behaves as usual.
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return InputFile(fd, path, uint64_t(st.st_size));
}

long long InputFile::read(char* buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        const ssize_t r = ::read(m_fd, buf + got, n - got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += size_t(r);
    }
    return static_cast<long long>(got);
}

std::string InputFile::head(size_t n)
{
    std::string out(n, '\0');
    const long long got = read(out.data(), n);
    out.resize(got > 0 ? size_t(got) : 0);
    return out;
}

Result<std::string> InputFile::readAll(uint64_t maxBytes, const std::string& what)
{
    if (m_size > maxBytes)
        return makeError(ErrorCode::Io,
            "'" + m_path + "' is " + std::to_string(m_size >> 20) + " MiB; " + what + " larger than "
                + std::to_string(maxBytes >> 20) + " MiB are refused",
            m_path);
    std::string text;
    try {
        text.resize(size_t(m_size));
    } catch (const std::exception&) {
        return makeError(ErrorCode::Io, "out of memory reading " + std::to_string(m_size >> 20) + " MiB", m_path);
    }
    const long long got = read(text.data(), text.size());
    if (got < 0)
        return makeError(ErrorCode::Io, std::string("cannot read: ") + std::strerror(errno), m_path);
    text.resize(size_t(got)); // a file that shrank since the fstat; one that grew is read up to its size then
    return text;
}

std::FILE* InputFile::releaseToFile()
{
    std::FILE* f = ::fdopen(m_fd, "rb");
    if (f)
        m_fd = -1;
    return f;
}

int InputFile::release()
{
    return std::exchange(m_fd, -1);
}

InputStream::Buf::Buf(InputFile file)
    : m_file(std::move(file))
{
    setg(m_buffer, m_buffer, m_buffer);
}

InputStream::Buf::int_type InputStream::Buf::underflow()
{
    if (gptr() < egptr())
        return traits_type::to_int_type(*gptr());
    ssize_t got = 0;
    do
        got = ::read(m_file.fd(), m_buffer, sizeof m_buffer);
    while (got < 0 && errno == EINTR);
    if (got <= 0)
        return traits_type::eof();
    setg(m_buffer, m_buffer, m_buffer + got);
    return traits_type::to_int_type(*gptr());
}

InputStream::InputStream(InputFile file)
    : std::istream(nullptr)
    , m_buf(std::make_unique<Buf>(std::move(file)))
{
    rdbuf(m_buf.get());
}

InputStream::~InputStream() = default;

Result<std::string> readTextFile(const std::string& path, uint64_t maxBytes, const std::string& what)
{
    auto file = InputFile::open(path);
    if (!file)
        return file.error();
    return file->readAll(maxBytes, what);
}

} // namespace engine
