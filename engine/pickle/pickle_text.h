#pragma once
/// Text and number codecs the pickle reader and repr() share (internal to engine/pickle): UTF-8
/// checks, Python's escape codecs, and integers of any length between two's-complement bytes and
/// decimal text.
#include "engine/core/text_codec.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace engine::pickle::detail {

/// UTF-8 as Python's 'surrogatepass' reads it: strict UTF-8 plus encoded lone surrogates.
bool isUtf8(std::string_view s);
bool isAscii(std::string_view s);
using engine::appendUtf8; ///< core/text_codec.h

/// Python's raw_unicode_escape decoding (protocol 0 UNICODE) into UTF-8. False with `error` set
/// on a malformed \u / \U escape.
bool decodeRawUnicodeEscape(std::string_view in, std::string& out, std::string& error);

/// Python's codecs.escape_decode (protocol 0 STRING): \\ \' \" \n \t \xhh \ooo, ...
bool decodeStringEscape(std::string_view in, std::string& out, std::string& error);

/// `le` (two's complement, little-endian) as an int64 when it fits.
bool twosComplementToInt64(std::string_view le, int64_t& value);

/// Decimal digits (no sign, at least one) to minimal two's-complement little-endian bytes.
std::string decimalToTwosComplement(std::string_view digits, bool negative);

/// Two's-complement little-endian bytes to decimal text; empty when it has more than maxDigits.
std::string twosComplementToDecimal(std::string_view le, size_t maxDigits);

} // namespace engine::pickle::detail
