#pragma once
/// Small text codecs the readers share (FX code's string escapes, pickle's unicode opcodes).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace engine {

/// Whether `s` ends with `tail`.
inline bool endsWith(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

/// Input text as a message quotes it: `s` itself when it has at most `max` bytes, else its first
/// `max` bytes (cut back to a whole UTF-8 sequence) followed by "… (8388608 chars)", the whole
/// length in bytes. Messages, logs, diagnostics and report texts quote a node's target or name, a
/// frame or any other input string through this, so that one 8 MiB string in an input is 8 MiB in
/// memory and in the project, not 8 MiB per message that names it (docs/database.md, "Memory").
std::string cutText(std::string_view s, size_t max = 200);

/// Appends code point `cp` (at most 0x10FFFF; surrogates are encoded as they are) as UTF-8.
void appendUtf8(std::string& out, uint32_t cp);
/// 0-15 for a hexadecimal digit, -1 otherwise.
int hexDigitValue(char c);

/// Decodes one UTF-8 sequence of `s` at `i` and moves `i` past it; a byte that starts no complete
/// sequence reads as itself (one byte).
uint32_t nextCodePoint(std::string_view s, size_t& i);
/// str.isprintable() for one code point: exact in Latin-1, an approximation of the Unicode database
/// beyond (separators, format characters, surrogates, private use and noncharacters are not).
bool isPyPrintable(uint32_t cp);
/// Python's repr() quoting of a str (UTF-8 `s`), or of bytes (`bytes`: each byte one character,
/// all past 0x7E escaped; the caller writes the `b`): quote choice, \\ \' \t \n \r, \xNN, \uNNNN,
/// \UNNNNNNNN. Stops once `out` is longer than `limit` (the closing quote is still written).
/// `quote` forces the quote character (0: Python's choice).
void appendPyQuoted(std::string& out, std::string_view s, bool bytes, size_t limit = SIZE_MAX, char quote = 0);

} // namespace engine
