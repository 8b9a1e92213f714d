#include "engine/core/error_form.h"

#include <cctype>
#include <string_view>

namespace engine {

namespace {

bool fail(std::string* why, std::string text)
{
    if (why)
        *why = std::move(text);
    return false;
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

// Skips one or more digits at the start of `s`; false when there is none.
bool eatNumber(std::string_view& s)
{
    size_t n = 0;
    while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n])))
        ++n;
    if (n == 0)
        return false;
    s.remove_prefix(n);
    return true;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The messages that are about the whole file, not a place in it: the file as such (missing, empty,
// too big, not a regular file, unreadable, of another kind) or the reading of it (cancelled, out of
// memory). A message may also say so in as many words ("the whole file").
bool isWholeFileMessage(std::string_view message)
{
    static const std::string_view kPhrases[] = {
        "whole file",
        "is empty",
        "cannot open",
        "cannot read",
        "cannot list",
        "cannot stat",
        "cannot write",
        "cannot create",
        "is a directory",
        "not a regular file",
        "no such file",
        "larger than",
        "too big",
        "too large",
        "the limit is",
        "cancelled",
        "out of memory",
        "read error",
    };
    const std::string m = lower(message.substr(0, 200));
    for (std::string_view p : kPhrases)
        if (m.find(p) != std::string::npos)
            return true;
    // "empty input: no pickle", "empty file: no Inductor output code".
    if (startsWith(m, "empty"))
        return true;
    // "not a TORCH_TRACE folder or log file", "not a pickle": the file is of another kind.
    return startsWith(m, "not a ") || startsWith(m, "not an ");
}

// A place at the start of `s` (what follows "FILE: "): "offset N", "byte N", "line N", a JSON or
// pickle path "$...", "table T row N", "member M", "entry E", "check C" (a TorchAir check).
bool startsWithPlace(std::string_view s)
{
    for (std::string_view word : { std::string_view("offset "), std::string_view("byte "), std::string_view("line "),
             std::string_view("bytes "), std::string_view("lines ") }) {
        if (startsWith(s, word)) {
            std::string_view rest = s.substr(word.size());
            return eatNumber(rest);
        }
    }
    if (startsWith(s, "$"))
        return true;
    if (startsWith(s, "table ")) {
        const size_t row = s.find(" row ");
        if (row == std::string_view::npos)
            return false;
        std::string_view rest = s.substr(row + 5);
        return eatNumber(rest);
    }
    // "check permissions": one of TorchAir's checks of a compile-cache file, whose text is relayed.
    return startsWith(s, "member ") || startsWith(s, "entry ") || startsWith(s, "check ");
}

bool checkRest(std::string_view rest, const std::string& file, std::string* why)
{
    // FILE:LINE[:COL]: message
    if (startsWith(rest, ":") && rest.size() > 1 && std::isdigit(static_cast<unsigned char>(rest[1]))) {
        std::string_view r = rest.substr(1);
        (void)eatNumber(r);
        if (startsWith(r, ":") && r.size() > 1 && std::isdigit(static_cast<unsigned char>(r[1]))) {
            r.remove_prefix(1);
            (void)eatNumber(r);
        }
        if (startsWith(r, ": ") || r.empty())
            return true;
        return fail(why, "'" + file + "' is followed by a line number but not by ': '");
    }
    // A member of the file: "FILE [py_code]:12:5", "FILE [signature]": a text inside the file
    // (a pickle's string, an archive's member), then the place in it.
    if (startsWith(rest, " [")) {
        const size_t close = rest.find(']');
        if (close == std::string_view::npos || close == 2)
            return fail(why, "'" + file + " [' opens a member name that is not closed");
        return checkRest(rest.substr(close + 1), file + std::string(rest.substr(0, close + 1)), why);
    }
    // A folder's entry: DIR/entry..., then the entry's own place.
    if (startsWith(rest, "/") || (!file.empty() && file.back() == '/')) {
        const size_t colon = rest.find(':');
        if (colon == std::string_view::npos || colon == 0)
            return fail(why, "a folder entry after '" + file + "' without ': ' and a place");
        const std::string entry = file + std::string(rest.substr(0, colon));
        return checkRest(rest.substr(colon), entry, why);
    }
    if (!startsWith(rest, ": "))
        return fail(why, "the file name '" + file + "' is not followed by ':'");
    const std::string_view after = rest.substr(2);
    if (startsWithPlace(after))
        return true;
    if (isWholeFileMessage(after))
        return true;
    return fail(why,
        "no place after '" + file
            + ": ' (line:col, 'offset N', 'byte N', 'line N', a '$' path, 'table T row N', 'member M', "
              "'entry E', 'check C') and no message about the whole file");
}

} // namespace

bool textNamesPlace(const std::string& text, const std::string& file, std::string* why)
{
    if (file.empty())
        return fail(why, "no file name to look for");
    if (text.compare(0, file.size(), file) != 0)
        return fail(why, "does not start with the file name '" + file + "'");
    const std::string_view rest = std::string_view(text).substr(file.size());
    if (rest.empty())
        return fail(why, "the file name and nothing else");
    return checkRest(rest, file, why);
}

bool errorNamesPlace(const Error& e, const std::string& file, std::string* why)
{
    return textNamesPlace(e.toString(), file, why);
}

} // namespace engine
