#include "engine/core/file_io.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace engine {

Result<std::string> readTextFile(const std::string& path, uint64_t maxBytes, const std::string& what)
{
    std::error_code ec;
    auto status = std::filesystem::status(path, ec);
    if (ec)
        return makeError(ErrorCode::Io, "cannot read '" + path + "': " + ec.message(), path);
    if (std::filesystem::is_directory(status))
        return makeError(ErrorCode::Io, "cannot read '" + path + "': it is a directory", path);
    // A FIFO would block the open until something writes to it; a device or socket is no input file.
    if (!std::filesystem::is_regular_file(status))
        return makeError(ErrorCode::Io,
            "cannot read '" + path + "': " + (std::filesystem::exists(status) ? "not a regular file (a FIFO, socket or device is not read)" : "no such file"),
            path);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::Io, "cannot open '" + path + "': " + std::strerror(errno), path);
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size < 0)
        return makeError(ErrorCode::Io, "cannot read '" + path + "'", path);
    if (uint64_t(size) > maxBytes)
        return makeError(ErrorCode::Io,
            "'" + path + "' is " + std::to_string(uint64_t(size) >> 20) + " MiB; " + what + " larger than "
                + std::to_string(maxBytes >> 20) + " MiB are refused",
            path);
    std::string text(size_t(size), '\0');
    if (size > 0 && !in.read(text.data(), size))
        return makeError(ErrorCode::Io, "cannot read '" + path + "': " + std::strerror(errno), path);
    return text;
}

} // namespace engine
