// Placeholder until the marshal reader lands: every read fails.
#include "engine/marshal/marshal_reader.h"

namespace engine::marshal {

std::string PyVersion::text() const
{
    return std::to_string(major) + "." + std::to_string(minor);
}

const std::vector<PyVersion>& supportedVersions()
{
    static const std::vector<PyVersion> v { { 3, 8 }, { 3, 9 }, { 3, 10 }, { 3, 11 }, { 3, 12 }, { 3, 13 } };
    return v;
}

bool parseVersion(std::string_view, PyVersion&)
{
    return false;
}

const Code* Document::rootCode() const
{
    if (root == kNone || root >= values.size() || values[root].kind != Kind::Code)
        return nullptr;
    return &codes[values[root].code];
}

std::vector<std::string> Code::argumentNames() const
{
    return {};
}

Result<Document> readMarshal(std::string_view, const std::string& path, const Limits&)
{
    return Error { ErrorCode::Internal, "marshal reader not built yet", path };
}

std::string repr(const Document&, uint32_t, size_t)
{
    return "?";
}

} // namespace engine::marshal
