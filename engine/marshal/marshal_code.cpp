// The public data types of marshal_reader.h: Python versions, a document's root code, a code
// object's argument names.
#include "engine/marshal/marshal_format.h"

#include <algorithm>
#include <charconv>

namespace engine::marshal {

using namespace detail;

std::string PyVersion::text() const
{
    return std::to_string(major) + "." + std::to_string(minor);
}

const std::vector<PyVersion>& supportedVersions()
{
    static const std::vector<PyVersion> v { { 3, 8 }, { 3, 9 }, { 3, 10 }, { 3, 11 }, { 3, 12 }, { 3, 13 } };
    return v;
}

bool parseVersion(std::string_view text, PyVersion& out)
{
    if (text.size() >= 2 && (text[0] == 'p' || text[0] == 'P') && (text[1] == 'y' || text[1] == 'Y'))
        text.remove_prefix(2);
    if (text.empty() || text[0] != '3')
        return false;
    text.remove_prefix(1);
    if (!text.empty() && text[0] == '.')
        text.remove_prefix(1);
    int minor = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), minor);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || (text.size() > 1 && text[0] == '0'))
        return false;
    for (const PyVersion& v : supportedVersions()) {
        if (v.minor == minor) {
            out = v;
            return true;
        }
    }
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
    std::vector<std::string> out;
    const auto name = [&](size_t k) {
        if (k >= varNames.size())
            return std::string("?");
        // inspect names the implicit argument of a comprehension ".0" "implicit0".
        const std::string& n = varNames[k];
        if (n.size() > 1 && n[0] == '.' && n.find_first_not_of("0123456789", 1) == std::string::npos)
            return "implicit" + n.substr(1);
        return n;
    };
    const size_t positional = size_t(std::max(argCount, 0));
    const size_t kwOnly = size_t(std::max(kwOnlyArgCount, 0));
    for (size_t k = 0; k < positional; ++k)
        out.push_back(name(k));
    size_t next = positional + kwOnly;
    if (flags & kCoVarargs)
        out.push_back("*" + name(next++));
    for (size_t k = 0; k < kwOnly; ++k)
        out.push_back(name(positional + k));
    if (flags & kCoVarkeywords)
        out.push_back("**" + name(next));
    return out;
}

} // namespace engine::marshal
