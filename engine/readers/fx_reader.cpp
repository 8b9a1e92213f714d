// Entry points shared by both forms: Diagnostic text, sniffing, reading files.
#include "engine/readers/fx_reader.h"

#include "engine/core/file_io.h"
#include "engine/readers/torchair_module.h"

namespace engine::readers {

namespace {

constexpr uint64_t kMaxFileBytes = uint64_t(256) << 20;

// The dump form starts with `graph(...):` or a `%name : ...` line, or holds the `# Graph fragment:`
// comments of Inductor's output_code.py; everything else is read as code.
bool looksLikeGraphDump(std::string_view text)
{
    constexpr std::string_view fragment = "# Graph fragment:";
    for (size_t at = text.find(fragment); at != std::string_view::npos; at = text.find(fragment, at + 1))
        if (at == 0 || text[at - 1] == '\n')
            return true;
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
    if (looksLikeTorchairModule(text)) {
        auto module = readTorchairModule(text, path);
        if (!module)
            return module.error();
        FxReadResult r;
        r.graphs.push_back(std::move(module->graph));
        r.diagnostics = std::move(module->diagnostics);
        return r;
    }
    return looksLikeGraphDump(text) ? readFxGraphDump(text, path) : readFxCode(text, path);
}

Result<FxReadResult> readFxFile(const std::string& path)
{
    auto text = readTextFile(path, kMaxFileBytes, "FX texts");
    if (!text)
        return text.error();
    return readFxText(*text, path);
}

} // namespace engine::readers
