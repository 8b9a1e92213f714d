// Entry points shared by both forms: Diagnostic text, sniffing, reading files.
#include "engine/readers/fx_reader.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace engine::readers {

namespace {

constexpr uint64_t kMaxFileBytes = uint64_t(256) << 20;

// The dump form starts with `graph(...):` or a `%name : ...` line; everything else is read as code.
bool looksLikeGraphDump(std::string_view text)
{
    size_t pos = 0;
    for (int lines = 0; pos < text.size() && lines < 1000; ++lines) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        pos = eol + 1;
        size_t first = line.find_first_not_of(" \t\r\f\v");
        if (first == std::string_view::npos || line[first] == '#')
            continue;
        line.remove_prefix(first);
        return line.substr(0, 6) == "graph(" || line[0] == '%';
    }
    return false;
}

} // namespace

std::string Diagnostic::toString() const
{
    return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": "
        + (severity == Severity::Error ? "error" : "warning") + ": " + message;
}

Result<FxReadResult> readFxText(std::string_view text, const std::string& path)
{
    return looksLikeGraphDump(text) ? readFxGraphDump(text, path) : readFxCode(text, path);
}

Result<FxReadResult> readFxFile(const std::string& path)
{
    std::error_code ec;
    auto status = std::filesystem::status(path, ec);
    if (ec)
        return makeError(ErrorCode::Io, "cannot read '" + path + "': " + ec.message(), path);
    if (std::filesystem::is_directory(status))
        return makeError(ErrorCode::Io, "cannot read '" + path + "': it is a directory", path);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::Io, "cannot open '" + path + "': " + std::strerror(errno), path);
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size < 0)
        return makeError(ErrorCode::Io, "cannot read '" + path + "'", path);
    if (uint64_t(size) > kMaxFileBytes)
        return makeError(ErrorCode::Io,
            "'" + path + "' is " + std::to_string(uint64_t(size) >> 20)
                + " MiB; FX texts larger than 256 MiB are refused",
            path);
    std::string text(size_t(size), '\0');
    if (size > 0 && !in.read(text.data(), size))
        return makeError(ErrorCode::Io, "cannot read '" + path + "': " + std::strerror(errno), path);
    return readFxText(text, path);
}

} // namespace engine::readers
