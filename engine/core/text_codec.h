#pragma once
/// Small text codecs the readers share (FX code's string escapes, pickle's unicode opcodes).
#include <cstdint>
#include <string>

namespace engine {

/// Appends code point `cp` (at most 0x10FFFF; surrogates are encoded as they are) as UTF-8.
void appendUtf8(std::string& out, uint32_t cp);
/// 0-15 for a hexadecimal digit, -1 otherwise.
int hexDigitValue(char c);

} // namespace engine
